"""The timed SM (simsmem.sm) against the measured corpus: cycles, stall reasons and what a fix buys.

Evidence, not regression guards: every hardware number here was measured on the corpus's own PTX through its generic
launcher, with Nsight Compute 2025.3.1 and ``--clock-control none``:
- H100 80GB HBM3: ``calibration/realk/manifest.json`` (5 runs, 2026-11-27): ``sm__cycles_elapsed.max``;
- H200: ``calibration/realk/timing_h200.json`` (5 runs, 2026-11-29, every entry of manifest.json and manifest_hopper.json):
  the cycle counters and every warp stall reason; ``hopper_ws_timing_h200.json`` likewise for manifest_hopper_ws.json.
simsmem times each entry with ``sm_90`` against the H100 and ``sm_90_h200`` against the H200. Some model numbers were read
off these same measurements and say so in configs/sm_90.yaml (the launch overheads: medians over the corpus; the store
rate of the tag stage: the wgmma probes' epilogues); the others come from the H200 timing probes
(timing_probes_h200.json), the older clock64 runs and the CUDA guide. Larger sets, not shown here, judge the model too.
"""

import json
import statistics

import attrs
import pytest
from conftest import REALK
from simsmem.config import load_arch
from simsmem.kernel.tracer import StreamSink, trace_kernel
from simsmem.results.analysis import analyse_stream, with_launch
from simsmem.sm import REASONS

pytestmark = pytest.mark.slow

H100, H200 = load_arch("sm_90"), load_arch("sm_90_h200")
MEASURED = json.loads((REALK / "timing_h200.json").read_text())
ENTRIES = [e for m in ("manifest.json", "manifest_hopper.json") for e in json.loads((REALK / m).read_text()) if e["name"] in MEASURED]
#: the stall reasons the issue names, whose shares are judged kernel by kernel
JUDGED = ("short_scoreboard", "mio_throttle", "barrier", "long_scoreboard", "lg_throttle")
#: measured pairs before and after a fix (padding, swizzle, addressing), both in the corpus
PAIRS = [("transpose_smem_naive", "transpose_smem_padded"), ("transpose_smem_naive", "transpose_smem_swizzled"),
         ("transpose_f64_naive", "transpose_f64_padded"), ("transpose_u8_naive", "transpose_u8_padded"),
         ("sgemm_at32_naive", "sgemm_at32_pad1"), ("sgemm_at32_naive", "sgemm_at32_swz"), ("sgemm_rb64_naive", "sgemm_rb64_pad4"),
         ("sgemm_rb64_naive", "sgemm_rb64_swz"), ("scan_blelloch", "scan_blelloch_cfo"), ("hgemm_cpasync_plain", "hgemm_cpasync_swz"),
         ("hgemm_stsm_plain", "hgemm_stsm_swz"), ("reduce0_modulo", "reduce1_strided"), ("reduce1_strided", "reduce2_sequential")]


def _timed(entry: dict) -> tuple[dict, dict]:
    """The entry traced once and timed on both configs: (H100 metrics, H200 metrics)."""
    sink = StreamSink(H100.sm.sms)
    stream = trace_kernel(REALK / entry["ptx"], entry["kernel"], tuple(entry["grid"]), tuple(entry["block"]), entry["smem"], entry["args"],
                          base=REALK, sink=sink, **({"cluster": tuple(entry["cluster"])} if entry.get("cluster") else {}))
    result = analyse_stream(stream, H100, keep="all")  # the counts: the two configs share every counting rule
    return tuple(with_launch(attrs.evolve(result, arch=arch), sink.streams(), sink.resources).metrics for arch in (H100, H200))


@pytest.fixture(scope="module")
def timed() -> dict[str, tuple[dict, dict]]:
    return {e["name"]: _timed(e) for e in ENTRIES}


def _median(name: str, metric: str) -> float:
    return statistics.median(MEASURED[name][metric])


def _h100_runs(entry: dict) -> list[int]:
    return entry.get("ncu_varies", {}).get("sm__cycles_elapsed.max") or [entry["ncu"]["sm__cycles_elapsed.max"]]


def test_cycles_h200(timed):
    """H200: sm__cycles_elapsed.max within 10% MAPE over every measured entry (the issue's bar: 20% now, 10% the aim), no
    entry off by 1.5x, each within its run range widened by 30%."""
    errors, outside = [], []
    for e in ENTRIES:
        runs = MEASURED[e["name"]]["sm__cycles_elapsed.max"]
        sim = timed[e["name"]][1]["sm__cycles_elapsed.max"]
        errors.append(abs(sim - statistics.median(runs)) / statistics.median(runs))
        if not 0.7 * min(runs) <= sim <= 1.3 * max(runs):
            outside.append((e["name"], sim, min(runs), max(runs)))
    assert len(errors) == len(MEASURED) == 336
    assert statistics.mean(errors) <= 0.10, statistics.mean(errors)
    assert max(errors) < 0.5
    assert not outside


def test_cycles_h100(timed):
    """H100: sm__cycles_elapsed.max within 10% MAPE over the 244 entries of manifest.json (5 runs each), none off by 1.5x."""
    errors = []
    for e in ENTRIES:
        if "ncu" not in e or "sm__cycles_elapsed.max" not in e["ncu"]:
            continue
        hw = statistics.median(_h100_runs(e))
        errors.append(abs(timed[e["name"]][0]["sm__cycles_elapsed.max"] - hw) / hw)
    assert len(errors) == 244
    assert statistics.mean(errors) <= 0.10, statistics.mean(errors)
    assert max(errors) < 0.5


def _shares(metrics: dict, measured: bool) -> dict[str, float]:
    """Each stall reason's share of the warps' stall cycles (``selected`` left out)."""
    values = {r: (statistics.median(metrics[f"smsp__warps_issue_stalled_{r}.sum"]) if measured else metrics[f"smsp__warps_issue_stalled_{r}.sum"])
              for r in REASONS if r != "selected"}
    total = sum(values.values()) or 1
    return {r: v / total for r, v in values.items()}


def test_stall_reasons_h200(timed):
    """H200: the largest stall reason is right on at least 80% of the entries, and each of short_scoreboard, mio_throttle,
    barrier, long_scoreboard and lg_throttle has its share within 10 percentage points on at least 80% of them."""
    top, within = 0, dict.fromkeys(JUDGED, 0)
    for e in ENTRIES:
        hw, sim = _shares(MEASURED[e["name"]], True), _shares(timed[e["name"]][1], False)
        top += max(hw, key=hw.get) == max(sim, key=sim.get)
        for r in JUDGED:
            within[r] += abs(hw[r] - sim[r]) <= 0.10
    n = len(ENTRIES)
    assert top >= 0.8 * n, top
    assert all(v >= 0.8 * n for v in within.values()), within


def test_smsp_cycles_and_warps_h200(timed):
    """H200: warps launched exact; smsp__cycles_active.sum within 25% MAPE."""
    errors = []
    for e in ENTRIES:
        sim = timed[e["name"]][1]
        assert sim["smsp__warps_launched.sum"] == _median(e["name"], "smsp__warps_launched.sum"), e["name"]
        hw = _median(e["name"], "smsp__cycles_active.sum")
        errors.append(abs(sim["smsp__cycles_active.sum"] - hw) / hw)
    assert statistics.mean(errors) <= 0.25, statistics.mean(errors)


#: 20 more H200 runs of the kernels of the pairs the timed SM missed there (pairs_h200.json, runs/2026-11-29-pairs: the
#: pairs are judged on the medians of all their runs, as PREDICTED.txt there fixed before the run)
PAIR_RUNS = json.loads((REALK / "pairs_h200.json").read_text())


def measured_pair(before: str, after: str, machine: int) -> tuple[float, int]:
    """A measured pair on the H100 (``machine`` 0) or the H200 (1): the ratio of the medians of ``sm__cycles_elapsed.max``
    (before over after), and 1 or -1 where every run of one kernel took longer than every run of the other (the fix a
    speed-up or a slow-down beyond the run-to-run spread), 0 where the two kernels' run ranges overlap."""
    entries = {e["name"]: e for e in ENTRIES}
    metric = "sm__cycles_elapsed.max"
    a, b = ((_h100_runs(entries[n]) if machine == 0 else MEASURED[n][metric] + PAIR_RUNS.get(n, {}).get(metric, [])) for n in (before, after))
    return statistics.median(a) / statistics.median(b), 1 if min(a) > max(b) else -1 if max(a) < min(b) else 0


#: (pair, machine) whose predicted ratio misses the 10% bar today, with what was found: on the H200 the kernel after the fix
#: runs 11% shorter on the timed SM than the median of its 25 runs (14,410 against 16,124; the one before 1%: 17,543
#: against 17,801); the H100 ratio is within 10%. The H200's DRAM latency has two modes by 8 KiB block
#: (runs/2026-11-29-memlat/README.md, "DRAM's latency by address"): with them the pair comes within 5.0-6.6% whatever block
#: the buffers start in, but no start of the buffers kept the other bars, so the rule is not in the timed SM. A known miss
#: that starts passing fails (strict), so the mark goes when the model is right. (The transpose_smem pair, a miss on its
#: 5 runs' medians, 1.122, is within 10% on 25: 1.175 against 1.247.)
MISSES = {(("sgemm_at32_naive", "sgemm_at32_pad1"), 1): "H200: measured 1.104 (25 runs' medians), simulated 1.217"}


@pytest.mark.parametrize(("pair", "machine"), [pytest.param(p, k, id=f"{p[0]}-{p[1]}-{('H100', 'H200')[k]}",
                                                            marks=[pytest.mark.xfail(reason=MISSES[p, k], strict=True)] if (p, k) in MISSES else [])
                                               for p in PAIRS for k in (0, 1)])
def test_what_a_fix_buys(timed, pair, machine):
    """Measured pairs before and after a fix, on the H100 (``machine`` 0) and the H200 (1), the issue's bar: the predicted
    cycle ratio within 10% of the measured one, and the direction right (a speed-up predicted as one, a slow-down as one)
    wherever the two kernels' runs do not overlap; where they overlap, the measured direction is within the runs' noise
    and is not judged."""
    before, after = pair
    hw, apart = measured_pair(before, after, machine)
    sim = timed[before][machine]["sm__cycles_elapsed.max"] / timed[after][machine]["sm__cycles_elapsed.max"]
    assert apart == 0 or (sim - 1) * apart > 0, (hw, sim, apart)
    assert abs(sim / hw - 1) <= 0.10, (hw, sim)


#: The store counters the timed SM's run-to-run rules add to (split_store, cg_store_clash), judged on every entry: the
#: stores' wavefronts and conflicts, and the write wavefronts (equal to the stores' in every run without atomics). The
#: total, which the rules add to as well, is not judged here: div_ifelse_order's stayed 388 in all five H100 runs while its
#: stores took 65 wavefronts in two (the timed SM: 65 and 389), div_fdiv_slowpath's moved with its stores.
STORE_COUNTERS = ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                  "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum")
#: Entries whose extra store wavefronts come from generic stores (test_realk.OPEN), which no rule gives.
GENERIC_STORES = ("generic_smem_axpy", "generic_mixed", "rule_generic_st128_contig")
#: Entries whose atomics' CAS retries vary with the warps' order (test_realk.OPEN): their write wavefronts with them.
CAS_RETRIES = ("hist256_atomic_misc_skewed",)


def test_store_counters_inside_the_measured_runs(timed):
    """The timed launch's store wavefronts and store bank conflicts (the counted ones plus what the run-to-run rules add)
    inside every run's range: the H200's (timing_h200.json, 5 runs) and the H100's (manifest.json, 5 runs), on every
    entry but GENERIC_STORES. Where they vary, as in rule_sts_{alu,ldg}_div_b256_g8 (+58..+102 of 4,096), that is
    split_store's doing; where they do not (the stencils' and scans' split-warp stores), it must add nothing."""
    h100 = {e["name"]: e for e in json.loads((REALK / "manifest.json").read_text())}
    off = []
    for e in ENTRIES:
        if e["name"] in GENERIC_STORES + CAS_RETRIES:
            continue
        for metric in STORE_COUNTERS:
            known = h100.get(e["name"], {})
            h100_runs = known.get("ncu_varies", {}).get(metric) or ([known["ncu"][metric]] if metric in known.get("ncu", {}) else None)
            for machine, runs in ((0, h100_runs), (1, MEASURED[e["name"]].get(metric))):
                sim = timed[e["name"]][machine].get(metric)
                if runs and sim is not None and not min(runs) <= sim <= max(runs):
                    off.append(f"{e['name']} {metric} ({('H100', 'H200')[machine]}): {min(runs)}..{max(runs)}, simulated {sim}")
    assert not off, off


#: issue 37's kernels (manifest_hopper_ws.json: warp-specialised GEMMs with and without clusters, stmatrix epilogues, DSMEM,
#: cluster registers, tensor maps in memory), timed on the H200 (hopper_ws_timing_h200.json: 5 ncu runs, 2026-11-29,
#: runs/2026-11-29-hopper-ws-timing). sm_90's ``membar_gpu`` was read off its dsm_* probes, so those are not held out.
WS_MEASURED = json.loads((REALK / "hopper_ws_timing_h200.json").read_text())


@pytest.fixture(scope="module")
def timed_ws() -> dict[str, dict]:
    return {e["name"]: _timed(e)[1] for e in json.loads((REALK / "manifest_hopper_ws.json").read_text())}


def test_cycles_and_stalls_hopper_ws_h200(timed_ws):
    """H200, the 44 kernels of issue 37: sm__cycles_elapsed.max within 10% MAPE, none off by 1.5x, the largest stall reason
    right on at least 80%; the cluster barriers' fences (MEMBAR.ALL.GPU) of the dsm_* probes that access their own CTA's
    shared memory within 10% of the measured membar stall a warp (440 with no global store before them, 704 with an STG
    before the second). Those that access the other CTA's wait 3-28% longer on the H200 (the remote access acknowledged
    first), which the timed SM does not model."""
    errors, top, membar = [], 0, []
    for name, m in timed_ws.items():
        hw = WS_MEASURED[name]
        errors.append(abs(m["sm__cycles_elapsed.max"] / statistics.median(hw["sm__cycles_elapsed.max"]) - 1))
        sim, meas = _shares(m, False), _shares(hw, True)
        top += max(sim, key=sim.get) == max(meas, key=meas.get)
        if name.startswith("dsm_") and "_local_" in name:
            per_warp = statistics.median(hw["smsp__warps_issue_stalled_membar.sum"]) / statistics.median(hw["smsp__warps_launched.sum"])
            membar.append((name, m["smsp__warps_issue_stalled_membar.sum"] / m["smsp__warps_launched.sum"], per_warp))
    assert len(errors) == 44
    assert statistics.mean(errors) <= 0.10, statistics.mean(errors)
    assert max(errors) < 0.5
    assert top >= 0.8 * len(errors), top
    assert len(membar) == 12 and all(abs(sim / hw - 1) <= 0.10 for _, sim, hw in membar), membar


#: the chip probes (manifest_chip.json: the same work an SM on 1 to 132 SMs, one CTA an SM, pc_copy also 2 and 4; round 3,
#: manifest_chip3.json: scattered stores; round 4, manifest_chip4.json: waves of short CTAs), timed on the H200 (chip_h200.json,
#: chip3_h200.json, chip4_h200.json: 5 ncu runs each, 2026-11-29, runs/2026-11-29-chip). ``l2_partial_lines_per_cycle`` was read off
#: pc_scatter_132x512_s512, ``cta_launch`` off round 4's one-CTA-an-SM waves. sm_90's ``pipes.s2r``, ``pipes.ldc`` and
#: ``constant_contention`` were read off pc_s2r8_1x1024, pc_ldc8_1x1024 and pc_alu_132x256, so those three are not held out;
#: DRAM's slow spells (``dram_tail``...) come from the memlat probes.
CHIP = ("manifest_chip.json", "manifest_chip3.json", "manifest_chip4.json")
CHIP_MEASURED = {k: v for m in ("chip_h200.json", "chip3_h200.json", "chip4_h200.json") for k, v in json.loads((REALK / m).read_text()).items()}


def test_cycles_chip_h200():
    """H200, launches of 1 to 132 SMs: sm__cycles_elapsed.max within 10% MAPE over the 36 probes (5.0% with the chip rounds'
    rules, 12.5% and one off by 47% at 6ccc80d), none off by 1.3x; sm__cycles_active.max of the ALU probe, which loads
    nothing, within 5% of the runs' median on 1, 4 and 132 SMs (the constant lines' contention). Not judged, a miss: pc_s2r8's short kernels
    (393 against 530 active cycles at 8 warps) wait longer on instruction fetch on the H200 (291 no_instruction a warp
    against the model's 120)."""
    errors, idle = [], []
    for e in (e for m in CHIP for e in json.loads((REALK / m).read_text())):
        m, hw = _timed(e)[1], CHIP_MEASURED[e["name"]]
        errors.append(m["sm__cycles_elapsed.max"] / statistics.median(hw["sm__cycles_elapsed.max"]) - 1)
        if e["kernel"] == "pc_alu" and e["name"].endswith("x256"):  # round 1's
            idle.append((e["name"], m["sm__cycles_active.max"], statistics.median(hw["sm__cycles_active.max"])))
    assert len(errors) == 36
    assert statistics.mean(map(abs, errors)) <= 0.10, statistics.mean(map(abs, errors))
    assert max(map(abs, errors)) < 0.3, max(map(abs, errors))
    assert len(idle) == 3 and all(abs(sim / hw - 1) <= 0.05 for _, sim, hw in idle), idle


def test_validation_page_is_what_the_data_gives(timed):
    """docs/validation-kernels.md is what docs/make_validation.py makes of this module's runs."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_validation", REALK.parent.parent / "docs" / "make_validation.py")
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    page = generator.kernels_page(timed)
    assert (REALK.parent.parent / "docs" / "validation-kernels.md").read_text() == page, \
        "docs/validation-kernels.md is out of date: run python docs/make_validation.py --kernels"
