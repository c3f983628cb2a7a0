"""ncu's op_misc wavefronts (``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum``), as simsmem's tracer counts them
(``kernel/misc.py``), and the total shared-memory wavefronts they complete.

Evidence: calibration/realk/op_misc_h200.json, the 16 probes of src/probe_op_misc.cu (manifest_op_misc.json), and
op_misc2_h200.json, the 8 of src/probe_op_misc2.cu (fences, local memory, per-warp special registers), measured on the
H200 with ncu 2025.3.1, three runs each (runs/2026-11-29-op-misc, each round predicted in PREDICTED.txt before it ran):
every run gave one value. The corpus (manifest.json, H100) is judged in tests/test_realk.py.
"""

import json

import pytest
from conftest import REALK, trace_entry
from simsmem.config import load_arch
from simsmem.errors import SimsmemError
from simsmem.kernel.misc import MISC, MiscWavefronts
from simsmem.kernel.sass import parse_text
from simsmem.results.analysis import analyse
from simsmem.results.metrics import NO_EXECUTION, TOTAL_WAVEFRONTS

ARCH = load_arch("sm_90")
PROBES = [e for m in ("manifest_op_misc.json", "manifest_op_misc2.json") for e in json.loads((REALK / m).read_text())]
MEASURED = {**json.loads((REALK / "op_misc_h200.json").read_text()), **json.loads((REALK / "op_misc2_h200.json").read_text())}
#: Round 2's %smid and %warpid reads make one wavefront a warp between them, which the probe cannot split; simsmem does not
#: execute SR_VIRTID (%warpid) and stops, naming it.
PER_WARP_REGISTERS = "om2_sreg"


@pytest.mark.parametrize("entry", PROBES, ids=[e["name"] for e in PROBES])
def test_probe_matches_the_h200(entry):
    """Each probe's op_misc as all three H200 runs (special registers: om_sr*, om_clk, om_again; barrier runs: om_bar*;
    fences and local memory: om2_*), and the total the ops' sum, as ncu's is; %warpid refused, named."""
    runs = MEASURED[entry["name"]]
    if entry["name"].startswith(PER_WARP_REGISTERS):
        with pytest.raises(SimsmemError, match="SR_VIRTID"):
            trace_entry(entry)
        return
    _, _, trace = trace_entry(entry)
    result = analyse(trace, ARCH)
    assert min(runs[MISC]) == result.metrics[MISC] == max(runs[MISC]), runs[MISC]
    assert min(runs[TOTAL_WAVEFRONTS]) <= result.metrics[TOTAL_WAVEFRONTS] <= max(runs[TOTAL_WAVEFRONTS])


def test_a_trace_without_execution_leaves_them_unknown():
    """A trace file with no kernel header has shared-memory rows only: op_misc and the total are "not modelled"."""
    from simsmem.traces import read_trace

    result = analyse(read_trace(REALK.parent.parent / "traces" / "ldsm_x4.json"), ARCH)
    assert MISC not in result.metrics and TOTAL_WAVEFRONTS not in result.metrics
    assert result.unmodelled[MISC] == NO_EXECUTION


@pytest.mark.parametrize("text, why", [("S2R R0, SR_VIRTUALSMID", "reads of SR_VIRTUALSMID"), ("MEMBAR.SC.VC", "MEMBAR.SC.VC"),
                                       ("CCTL.IV", "cache control")])
def test_what_is_not_measured_is_named_once_executed(text, why):
    """An instruction whose op_misc is not measured makes the count unknown when a warp executes it, not before."""
    import numpy as np

    ins = parse_text(0, text)
    counted = {}
    misc = MiscWavefronts([ins], np.ones(32, dtype=bool), 1, counted)
    assert misc.unknown == "" and counted == {MISC: 1}  # the warp's exit
    misc.step(0, None, np.ones(32, dtype=bool), np.ones(1, dtype=bool))
    assert misc.unknown == why


@pytest.mark.slow  # traces 256 CTAs of an SGEMM twice (about 20 s)
def test_a_launch_of_several_waves_of_one_cta_an_sm_keeps_the_rule():
    """More CTAs than SMs: in waves of one CTA an SM (its dynamic shared memory leaves room for one) the H200 counts the
    rule's op_misc in every run (scale2_h200.json, six runs: 16,384); two an SM make it vary (16,241-16,287), so the twin
    with room for two prints "not modelled"."""
    entries = {e["name"]: e for e in json.loads((REALK / "manifest_scale2.json").read_text())}
    entries.update({e["name"]: e for e in json.loads((REALK / "manifest_scale3.json").read_text())})
    runs = {**json.loads((REALK / "scale2_h200.json").read_text()), **json.loads((REALK / "scale3_h200.json").read_text())}
    one = analyse(trace_entry(entries["scale_sgemm_rb64_naive_1024_occ1"])[2], ARCH)
    assert min(runs["scale_sgemm_rb64_naive_1024_occ1"][MISC]) == one.metrics[MISC] == max(runs["scale_sgemm_rb64_naive_1024_occ1"][MISC])
    two = analyse(trace_entry(entries["scale_sgemm_rb64_naive_1024_occ2"])[2], ARCH)
    assert MISC not in two.metrics and "CTAs share an SM" in two.unmodelled[MISC]
    assert len(set(runs["scale_sgemm_rb64_naive_1024_occ2"][MISC])) > 1
