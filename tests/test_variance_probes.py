"""The H200 variance probes, traced and timed with sm_90_h200: round 1 (calibration/realk/manifest_variance.json,
runs/2026-11-29-variance: 20 probes, 10 ncu runs each), round 2 (manifest_variance2.json, runs/2026-11-29-variance2: 24
probes, 8 runs) and round 3 (manifest_variance3.json, runs/2026-11-29-variance3: 15 probes, 8 runs); ncu 2025.3.1, each
round's predictions committed before it ran.

Evidence: every counter below was measured. The probes select their traffic with a ``switch`` (BRX through a jump table
in constant bank 2), so they also check that the tracer executes indirect branches as the H200 did (every
``smsp__inst_executed.sum`` exact). Two sources of run-to-run extra store wavefronts were found, and the timed SM has a
rule for each: stores of a split warp (``split_store``, one rate inside every measured range, the corpus's divergent-store
kernels included) and 16-byte ``cp.async.cg`` copies writing beside stores (``cg_store_clash``, its rate read off round
1's vp_st_C16). The second rule is not right: the hardware's rate per line written ranges from 0.07 to 0.84 over the
probes, so it is held only within CG_FACTOR, and CG_OFF holds the probe it misses even so, a strict xfail so that a
better rule shows.
"""

import json

import pytest
from conftest import REALK
from simsmem.config import load_arch
from simsmem.kernel.tracer import StreamSink, trace_kernel
from simsmem.results.analysis import analyse_stream, with_launch

pytestmark = pytest.mark.slow

H200 = load_arch("sm_90_h200")
ROUNDS = ("variance", "variance2", "variance3")
MEASURED = {k: v for r in ROUNDS for k, v in json.loads((REALK / f"{r}_h200.json").read_text()).items()}
PROBES = [e for r in ROUNDS for e in json.loads((REALK / f"manifest_{r}.json").read_text())]
EXACT = ("smsp__inst_executed.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
         "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
         "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum")
STORES = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
#: How far the ``cg_store_clash`` rule may be from the measured extra (a factor either way): its rate per line written
#: is 0.4 where the hardware's ranges from 0.07 to 0.84 over the probes, so this is a loose bound, stated as such.
CG_FACTOR = 2.5
CG_OFF = {"vp2_cg_S": "the cg_store_clash rule's rate is not the hardware's: the copying warps' 4,096 lines beside 8,192 STS.32 "
                      "measured +249..+293 store wavefronts, the rule gives about +1,490 (5.5x)"}


@pytest.fixture(scope="module")
def simulated() -> dict[str, tuple[dict, dict]]:
    """Each probe's counts, and its metrics with the timed launch's."""
    out = {}
    for e in PROBES:
        sink = StreamSink(H200.sm.sms)
        stream = trace_kernel(REALK / e["ptx"], e["kernel"], tuple(e["grid"]), tuple(e["block"]), e["smem"], e["args"], base=REALK, sink=sink)
        counted = analyse_stream(stream, H200, keep="all")
        out[e["name"]] = counted.metrics, with_launch(counted, sink.streams(), sink.resources).metrics
    return out


def _marks(name: str) -> list:
    return [pytest.mark.xfail(strict=True, reason=CG_OFF[name])] if name in CG_OFF else []


@pytest.mark.parametrize("name", [pytest.param(e["name"], marks=_marks(e["name"])) for e in PROBES])
def test_counters(simulated, name):
    """Instructions, load and LDGSTS wavefronts and LDGSTS conflicts exact (constant in every run). Store wavefronts
    and store conflicts: where cp.async.cg copies wrote beside stores, the extra over the counted ideal within CG_FACTOR
    of the measured extra's range; elsewhere inside the measured range, widened by 1% below (a few stray wavefronts,
    +0..8, came and went beside STG, L1 hits and other stores, which no rule gives)."""
    runs = MEASURED[name]
    counted, timed = simulated[name]
    for metric in EXACT:
        assert min(runs[metric]) == max(runs[metric]) == timed[metric], metric
    for metric in (STORES, CONFLICTS):
        low, high = min(runs[metric]), max(runs[metric])
        if "C16" in name or name == "vp2_cg_S":
            ideal = counted[metric]
            assert (low - ideal) / CG_FACTOR <= timed[metric] - ideal <= CG_FACTOR * (high - ideal), (metric, timed[metric], low, high)
        else:
            assert 0.99 * low <= timed[metric] <= high, (metric, timed[metric], low, high)
