"""Spin loops in time: the timed SM's warp-instruction counts of every measured kernel with a try_wait or a setmaxnreg.inc.

Evidence, not regression guards. The tracer executes each loop's check passing once (it waits for the phase, it grants the
registers); the GPU runs a loop again when its check fails, and the timed SM adds those trips (``SMRun.spins``). Every
entry of calibration/realk/hopper.json whose SASS has such a check, measured on an H200 (Nsight Compute 2025.3.1,
``--clock-control none``; runs/2026-11-27-hopper, -hopper-holdout, -hopper-ws: 1 or 2 ncu runs; the 31 entries of
manifest_hopper.json 5 more in timing_h200.json, runs/2026-11-29-timing) and most on an H100 (runs/2026-11-27-hopper-h100,
``ncu_h100``). What they say:

- 38 kernels with try_wait loops (TMA and bulk-copy probes, held-out probes, the TMA-fed GEMMs, tensor maps in memory, a
  remote mbarrier arrive) count exactly the trace's instructions in every run: no try_wait of theirs ever timed out, so
  none waits as long as the H200's time-out (``trywait_timeout``, 7,800 cycles: the spin probes, tests/test_spin_probes.py)
  and the timed SM must add nothing there;
- the two warp-specialised GEMMs vary (ws_gemm_tma 17,412..17,620, ws_gemm_multicast 19,596..20,132, against the trace's
  17,284 and 19,564; the lower ends are the run of ncu's Source page, runs/2026-11-29-ws-source, where each consumer warp's
  TRY_ALLOC ran twice), and the extra is setmaxnreg's: the consumer warpgroups' ``USETMAXREG.TRY_ALLOC`` loop (4
  instructions a trip) runs until the producer warpgroup's ``USETMAXREG.DEALLOC`` has given the CTA's pool the registers
  (168 to 232 a thread, 2,048 a warp; the producer's four warps give back 4,096 each, 168 to 40), which the timed SM gives
  as 3 trips a consumer warp in ws_gemm_tma (+96 a CTA) and fewer in ws_gemm_multicast (+72 a CTA: the CTA's warps leave
  the cluster barrier before it together), where the timing runs average 2.5 (+79..+84) and 4 (+125..+142). No parameter
  was fitted to them: the gap is the producer's branch to a line of code not fetched yet (``icache_miss``), the period the
  loop's stall counts and the TRY_ALLOC's result latency (``latency.regalloc``: the spin probes' 45.4 cycles a trip). Each is judged within one trip
  of its loop a spinning warp (``TRIP``) of the measured range.
"""

import json

import attrs
import pytest
from conftest import REALK
from simsmem.config import load_arch
from simsmem.corpus import entry_launch
from simsmem.kernel.tracer import StreamSink, trace_kernel
from simsmem.results.analysis import analyse_stream, with_launch

from calibration.realk.source_stalls import executed

pytestmark = pytest.mark.slow  # traces 40 kernels (about 15 s)

H100, H200 = load_arch("sm_90"), load_arch("sm_90_h200")
TIMING = json.loads((REALK / "timing_h200.json").read_text())
#: ncu's Source page of the warp-specialised GEMMs (``--set full``, its Instructions Executed summed), one more H200 run
SOURCE = REALK / "runs" / "2026-11-29-ws-source"
COUNTER = "smsp__inst_executed.sum"
#: Instructions one more trip of the spin loop a warp adds, times the warps that spin: the tolerance where the count
#: varies (the setmaxnreg loop's 4 instructions, 8 consumer warps a CTA, 4 CTAs).
TRIP = {"ws_gemm_tma": 4 * 8 * 4, "ws_gemm_multicast": 4 * 8 * 4}


def _spinning() -> list[dict]:
    """hopper.json's entries whose code has a spin loop's check (the mbarrier-state probes, 600k instructions of volatile
    loads and one test_wait, have none)."""
    out = []
    for e in json.loads((REALK / "hopper.json").read_text()):
        if e["name"].startswith("hop_mbar_"):
            continue
        program, _ = entry_launch(e, REALK)
        if any("TRYWAIT" in ins.opcode or "TRY_ALLOC" in ins.opcode for ins in program.code):
            out.append(e)
    return out


ENTRIES = _spinning()


def measured(e: dict) -> list[int]:
    """Every run's count: the H200's ncu runs (hopper.json, timing_h200.json, the Source page's ``SOURCE``) and the H100's."""
    runs = e.get("ncu_varies", {}).get(COUNTER) or [e["ncu"][COUNTER]]
    source = SOURCE / f"source_{e['name']}.csv.gz"
    return (runs + TIMING.get(e["name"], {}).get(COUNTER, []) + ([e["ncu_h100"][COUNTER]] if COUNTER in e.get("ncu_h100", {}) else [])
            + ([executed(source)] if source.exists() else []))


def test_the_set():
    """40 kernels: 38 with try_wait loops alone, the two warp-specialised GEMMs with setmaxnreg loops too."""
    assert len(ENTRIES) == 40
    assert [e["name"] for e in ENTRIES if len(set(measured(e))) > 1] == ["ws_gemm_tma", "ws_gemm_multicast"]


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e["name"])
def test_instructions_with_the_spin_loops(entry):
    """The timed SM's smsp__inst_executed.sum (the trace's plus the loops' further trips) on the H200's and the H100's
    config: every run's count where the runs agree; within ``TRIP`` of the runs' range where they vary."""
    sink = StreamSink(H100.sm.sms)
    stream = trace_kernel(REALK / entry["ptx"], entry["kernel"], tuple(entry["grid"]), tuple(entry["block"]), entry["smem"], entry["args"],
                          base=REALK, sink=sink)
    result = analyse_stream(stream, H100, keep="all")
    runs = measured(entry)
    slack = TRIP.get(entry["name"], 0)
    for arch in (H200, H100):
        timed = with_launch(attrs.evolve(result, arch=arch), sink.streams(), sink.resources)
        ours = timed.metrics[COUNTER]
        assert min(runs) - slack <= ours <= max(runs) + slack, (arch.name, ours, min(runs), max(runs), timed.launch.run.spins)
        assert set(timed.launch.run.spins) <= ({"setmaxnreg"} if slack else set()), timed.launch.run.spins
