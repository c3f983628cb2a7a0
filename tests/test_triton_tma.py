"""Issue 37's Triton sm_90a kernels as their authors write them (calibration/realk/manifest_triton_tma.json: docs/hopper.md's
TMA matmul with device-built tensor maps, a persistent TMA matmul, an FA3-style attention forward) against the H200.

Evidence, not regression guards: calibration/realk/triton_tma_h200.json, 5 ncu runs (Nsight Compute 2025.3.1,
``--clock-control none``, H200, 2026-11-29; runs/2026-11-29-triton-tma, its README and the predictions committed before
the run), and the GPU's outputs of run 1 (calibration/realk/out, the same bytes in all 5 runs). simsmem traces each whole
grid and times the launch with ``sm_90_h200``.
"""

import gzip
import json
import statistics

import numpy as np
import pytest
from conftest import REALK
from simsmem.config import load_arch
from simsmem.kernel.tracer import StreamSink, launch_kernel
from simsmem.results.analysis import analyse_stream, with_launch
from simsmem.results.metrics import MISC, TOTAL_WAVEFRONTS

pytestmark = pytest.mark.slow  # three whole grids traced and timed, about 5 s

H200 = load_arch("sm_90_h200")
MEASURED = json.loads((REALK / "triton_tma_h200.json").read_text())
ENTRIES = json.loads((REALK / "manifest_triton_tma.json").read_text())
CYCLES = "sm__cycles_elapsed.max"
#: Counters where the GPU counts more than simsmem, up to ``slack`` more, with the reason (read off these runs, not a rule).
STSM_AFTER_INVAL = ("each warp's elected thread invalidates the CTA's mbarriers (SYNCS.CCTL.IV, op_misc) right before the "
                    "warp's stmatrix epilogue: the GPU counts about one more store wavefront and store conflict a CTA (7-8 of 8 "
                    "CTAs), as ws_gemm_multicast's remote arrives beside stmatrix (tests/test_realk.py, ARRIVES); not modelled")
ABOVE = {("triton_tma_attention", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"): (STSM_AFTER_INVAL, 8),
         ("triton_tma_attention", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"): (STSM_AFTER_INVAL, 8),
         ("triton_tma_attention", "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum"): (STSM_AFTER_INVAL, 8)}
#: The output each kernel writes: the matmuls' C equals the GPU's bit for bit; the attention's O within this share of its
#: largest |O| (ex2.approx and wgmma's f32 summation order: 886 of 65,536 halves differ, 762 by one ulp).
OUTPUT = {"triton_tma_matmul": (2, 0.0), "triton_tma_persistent": (2, 0.0), "triton_tma_attention": (0, 5e-4)}


@pytest.fixture(scope="module")
def simulated() -> dict[str, tuple[dict, dict, object]]:
    """Each kernel's timed metrics, the counters simsmem declares not modelled for it, and its global memory after the run."""
    out = {}
    for e in ENTRIES:
        sink = StreamSink(H200.sm.sms)
        stream, launch = launch_kernel(REALK / e["ptx"], e["kernel"], tuple(e["grid"]), tuple(e["block"]), e["smem"], e["args"],
                                       base=REALK, sink=sink)
        result = with_launch(analyse_stream(stream, H200, keep="all"), sink.streams(), sink.resources)
        out[e["name"]] = result.metrics, result.unmodelled, launch.memory
    return out


@pytest.mark.parametrize("name", [e["name"] for e in ENTRIES])
def test_counters(simulated, name):
    """Every counter of the runs that simsmem prints: exact where the 5 runs agree, inside their range where they vary,
    ABOVE's within their slack; the others are "not modelled" for the kernel or counters simsmem never prints (the TMA
    pipe's requests and bytes, op_misc and the total wavefronts). Cycles: test_cycles."""
    metrics, unknown, _ = simulated[name]
    off, judged = [], 0
    for counter, runs in MEASURED[name].items():
        if counter == CYCLES or counter not in metrics:
            continue
        judged += 1
        ours, lo, hi = metrics[counter], min(runs), max(runs)
        if (name, counter) in ABOVE:
            why, slack = ABOVE[name, counter]
            if not ours <= lo <= hi <= ours + slack:
                off.append(f"{counter}: {lo}..{hi}, simulated {ours} + up to {slack} ({why})")
        elif not lo <= ours <= hi:
            off.append(f"{counter}: {lo}..{hi}, simulated {ours}")
    assert judged == 35 and not off, (judged, off)


def test_unmodelled_counters_are_not_printed(simulated):
    """The totals that hold op_misc (mbarrier traffic: 125-131 bank conflicts in the attention) and the bank words of
    kernels with an mbarrier are "not modelled", never a number."""
    for name, (metrics, unknown, _) in simulated.items():
        for counter in ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "l1tex__data_bank_reads.sum", "l1tex__data_bank_writes.sum",
                        MISC, TOTAL_WAVEFRONTS):
            assert counter not in metrics and counter in unknown, (name, counter)


def test_cycles(simulated):
    """sm__cycles_elapsed.max: each within its runs' range widened by 30% (test_realk_timing's bar for the corpus). The timed
    SM is short on all three (11,767 / 22,749 / 23,131 against medians 14,517 / 30,939 / 26,468: -19%, -26%, -13%); the
    TMA copies' timing is not calibrated on kernels like these, and three kernels are no basis to tune it."""
    for name, (metrics, _, _) in simulated.items():
        runs = MEASURED[name][CYCLES]
        assert 0.7 * min(runs) <= metrics[CYCLES] <= 1.3 * max(runs), (name, metrics[CYCLES], statistics.median(runs))


@pytest.mark.parametrize("name", list(OUTPUT))
def test_outputs_match_the_gpu(simulated, name):
    """The output buffer simsmem's execution leaves against the H200's (launch.cu --dump-out, run 1)."""
    arg, share = OUTPUT[name]
    gpu = np.frombuffer(gzip.decompress((REALK / "out" / f"{name}.arg{arg}.bin.gz").read_bytes()), dtype=np.uint8)
    ours = next(b.data for b in simulated[name][2].buffers if b.name.startswith(f"argument {arg + 1} "))
    if not share:
        assert np.array_equal(gpu, ours), f"{np.count_nonzero(gpu != ours)} bytes differ"
        return
    g, o = gpu.view(np.float16).astype(np.float64), ours.view(np.float16).astype(np.float64)
    assert np.abs(g - o).max() <= share * np.abs(g).max()
