"""The seed kernels, as traces generated from their source, reproduce ncu's kernel totals exactly.

Provenance: calibration/h100/seed_kernels.json — H100 80GB HBM3 (sm_90), Nsight Compute 2025.3.1
(--clock-control none), CUDA 13.0; the kernels of calibration/h100/src/seeds.cu (seed 004's GEMM
v2..v5: one warp; seed 002's 32x32 int transposes: 32 warps per CTA, grid 8x8 = 64 CTAs).
The traces in traces/seeds/ are written by ``simsmem gen seeds`` (simsmem.patterns.seeds).
"""

import orjson
import pytest
from conftest import H100, ROOT
from simsmem.cli import main
from simsmem.patterns import SEED_KERNELS
from simsmem.results.analysis import analyse
from simsmem.traces import read_trace

MEASURED = {k["kernel"].split("(")[0]: k["ncu"] for k in orjson.loads((H100 / "seed_kernels.json").read_bytes())["kernels"]}
TRACES = ROOT / "traces" / "seeds"
#: Counters every kernel must match (ncu lists all of them for every seed kernel).
REQUIRED = (
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "smsp__inst_executed_op_ldsm.sum",
    "smsp__sass_data_bytes_mem_shared.sum",
    "smsp__sass_data_bytes_mem_shared_op_ld.sum",
    "smsp__sass_data_bytes_mem_shared_op_st.sum",
    "smsp__sass_data_bytes_mem_shared_op_ldsm.sum",
    "smsp__sass_data_bytes_mem_shared_op_stsm.sum",
)


def test_every_measured_kernel_has_a_generator():
    assert sorted(MEASURED) == sorted(SEED_KERNELS)
    assert len(MEASURED) == 10


def test_committed_traces_are_what_the_generators_write(tmp_path):
    assert main(["gen", "seeds", "--out", str(tmp_path)]) == 0
    for name in SEED_KERNELS:
        assert (tmp_path / f"{name}.json").read_bytes() == (TRACES / f"{name}.json").read_bytes(), name


@pytest.mark.parametrize("name", sorted(SEED_KERNELS))
def test_seed_kernel_matches_ncu(name, sm90):
    result = analyse(read_trace(TRACES / f"{name}.json"), sm90)
    ncu = MEASURED[name]
    for metric in REQUIRED:
        assert result.metrics[metric] == ncu[metric], metric
    # Every other counter simsmem reports that ncu measured for this kernel (the total bank
    # conflicts where ncu lists it, atom counters) must agree too.
    shared = [m for m in result.metrics if m in ncu]
    assert {m: result.metrics[m] for m in shared} == {m: ncu[m] for m in shared}


def test_seed_ctas_and_warps(sm90):
    """The transposes run 32 warps (threadIdx.y) per CTA, 64 CTAs; v2..v5 one warp, one CTA."""
    for name in SEED_KERNELS:
        trace = read_trace(TRACES / f"{name}.json")
        warps = set(trace.instructions.warp.tolist())
        if name.startswith("trans_"):
            assert (trace.ctas, warps) == (64, set(range(32)))
        else:
            assert (trace.ctas, warps) == (1, {0})
