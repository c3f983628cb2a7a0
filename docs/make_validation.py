"""Write docs/validation.md (and, with ``--engine``, docs/validation-timing.md) from the data the tests check.

    python docs/make_validation.py            # docs/validation.md and README.md's summary: a few seconds
    python docs/make_validation.py --engine   # also docs/validation-timing.md: the timing engine, about a minute
    python docs/make_validation.py --kernels  # also docs/validation-kernels.md: the timed SM over the corpus, a few minutes
    python docs/make_validation.py --check    # exit 1 if a page differs from what would be written

Nothing here is typed in by hand. The counting tables run simsmem's model over every measured row now, compared
as the tests compare (``tests/test_calibration.py``, ``test_calibration_v2.py``, ``test_seed_kernels.py``,
``test_compare.py``: their corpora, counters and padding are imported from them). The timing summary and the
real-kernel summary are the agreement the tests pin (``OUTSIDE_5_PERCENT``, ``WITHIN_5_PERCENT``, ``RECORDED``, ...,
imported from the test modules), since running the engine over every run takes minutes and tracing the real
kernels about one. ``--engine`` runs the timing engine over calibration/h100/timing.json and the forms run, as
``tests/test_timing_calibration.py`` and ``tests/test_timing_forms.py`` do, and writes every row.
README.md's validation summary (between its two marker comments) is the same summary table. ``tests/test_docs.py``
regenerates all of it in memory and fails if a file differs (the engine page in a slow test).
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections import Counter, defaultdict
from pathlib import Path
from statistics import mean

ROOT = Path(__file__).resolve().parent.parent
for _p in (ROOT, ROOT / "tests", ROOT / "calibration"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

README = ROOT / "README.md"
VALIDATION = ROOT / "docs" / "validation.md"
ENGINE_PAGE = ROOT / "docs" / "validation-timing.md"
H100 = ROOT / "calibration" / "h100"
REGENERATE = "`python docs/make_validation.py`"


def table(header: list[str], rows: list[list]) -> list[str]:
    """A markdown table: numeric columns right-aligned."""
    cells = [[_cell(c) for c in row] for row in rows]
    right = [all((isinstance(r[i], int | float) and not isinstance(r[i], bool)) or str(r[i]).replace(",", "").replace("%", "").replace(".", "").lstrip("+-").isdigit()
                 for r in rows) if rows else False for i in range(len(header))]
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join("---:" if r else "---" for r in right) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in cells]
    return out


def _cell(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else ""
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def _at(op: str, ways: int, warps: int) -> str:
    return f"{op} {ways}-way at {warps} warp{'s' if warps > 1 else ''}"


# ---------------------------------------------------------------------------------------------- counting: now


def _corpus_rows():
    """Every v2 corpus row, by file, with whether the model claims it (as tests/test_calibration_v2.py selects)."""
    import test_calibration_v2 as v2
    from harness.agreement import modelled
    from simsmem.config import load_arch
    from simsmem.corpus import load_corpus

    arch = load_arch("sm_90")
    return arch, {name: [(r, modelled(r, arch)) for r in load_corpus(H100 / f"{name}.json")] for name in v2.CORPORA}


def _v2_exact(rows, arch) -> dict[str, bool]:
    """Row name -> every counter tests/test_calibration_v2.py compares equals ncu's (LDGSTS's padding taken off)."""
    import test_calibration_v2 as v2
    from simsmem.corpus import corpus_trace, sass_form
    from simsmem.results.analysis import analyse
    from simsmem.results.metrics import DATA_BYTES

    out = {}
    for r in rows:
        m, n = analyse(corpus_trace([r], r["name"]), arch).metrics, r["ncu"]
        op = sass_form(r["sass"])["op"]
        spec, pad = arch.op(op), v2.PADDING.get(op, {})
        keys = (spec.wavefronts, spec.bank_conflicts, DATA_BYTES, *v2.INSTRUCTIONS)
        out[r["name"]] = all(m[k] == n[k] - pad.get(k, 0) for k in keys)
    return out


#: hold-outs: random patterns drawn with a fixed seed and committed before they were measured (calibration/README.md):
#: the files holdout, holdout2, holdout3, and ldgsts2's H4_ and ldgsts3's H5_ rows (tests/test_rule_ldgsts.py)
HOLDOUT_FILES = ("holdout", "holdout2", "holdout3")
HOLDOUT_PREFIXES = ("H4_", "H5_")


def _family(sass: str) -> str:
    from simsmem.corpus import sass_form

    f = sass_form(sass)
    if f["op"] == "LDGSTS":
        return "LDGSTS .cg 16 B (cp.async.cg, `LDGSTS.E.BYPASS.128`)" if f.get("bypass") else "LDGSTS .ca 4/8/16 B (cp.async.ca)"
    if f["op"] == "LDS" and f["width"] in (64, 128):
        return "LDS.64, LDS.128"
    if f["op"] == "ATOMS" and not (f["atom"] == "add" and f["width"] == 32):
        return "other atomics (MIN, MAX, INC, DEC, EXCH, CAS, AND, OR, XOR, .64, POPC.INC)"
    return "LDS 8/16/32, STS (every width), LDSM, STSM, ATOMS.ADD"


FAMILIES = ("LDS 8/16/32, STS (every width), LDSM, STSM, ATOMS.ADD", "LDS.64, LDS.128",
            "other atomics (MIN, MAX, INC, DEC, EXCH, CAS, AND, OR, XOR, .64, POPC.INC)",
            "LDGSTS .ca 4/8/16 B (cp.async.ca)", "LDGSTS .cg 16 B (cp.async.cg, `LDGSTS.E.BYPASS.128`)")


def counting_single() -> tuple[list[str], dict]:
    """The single-instruction corpora: instructions.json and the nine harness corpora, replayed now."""
    import test_calibration as t1
    from simsmem.config import BANK_CONFLICTS, WAVEFRONTS
    from simsmem.corpus import corpus_trace, load_corpus
    from simsmem.results.analysis import analyse

    arch, corpora = _corpus_rows()
    # instructions.json, compared as tests/test_calibration.py compares
    seed_rows = t1.ROWS
    by_sass: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in seed_rows:
        m, n = analyse(corpus_trace([r], r["name"]), arch).metrics, r["ncu"]
        ok = all(m[WAVEFRONTS.format(c)] == n[WAVEFRONTS.format(c)] and m[BANK_CONFLICTS.format(c)] == n[BANK_CONFLICTS.format(c)] for c in t1.COUNTERS)
        ok = ok and all(m[k] == n[k] for k in t1.INSTRUCTION_COUNTERS) and m["smsp__sass_data_bytes_mem_shared.sum"] == n["smsp__sass_data_bytes_mem_shared.sum"]
        by_sass[r["sass"]][0] += 1
        by_sass[r["sass"]][1] += ok
    seed_exact = sum(e for _, e in by_sass.values())

    claimed = [r for rows in corpora.values() for r, mine in rows if mine]
    exact = _v2_exact(claimed, arch)
    fam: dict[str, list[int]] = {f: [0, 0, 0, 0] for f in FAMILIES}
    for name, rows in corpora.items():
        for r, mine in rows:
            if not mine:
                continue
            hold = name in HOLDOUT_FILES or r["name"].startswith(HOLDOUT_PREFIXES)
            f = fam[_family(r["sass"])]
            f[2 * hold] += 1
            f[2 * hold + 1] += exact[r["name"]]
    misc = {name: load_corpus(H100 / f"{name}.json") for name in ("op_misc", "op_misc_followup", "op_misc_followup2")}

    lines = ["## Counting: one instruction per launch", ""]
    lines += ["Each row is one launch of one warp executing one shared-memory instruction, profiled by ncu 2025.3.1 on an H100 80GB HBM3.",
              "A row is exact when simsmem's wavefronts and bank conflicts under the op's counters, the instruction counters and the",
              "data bytes all equal ncu's (LDGSTS: less the three `@!PT LDS` the compiler pads each copy with, which ncu counts as",
              "shared loads). Hold-outs are random patterns drawn with a fixed seed and committed before they were measured.", ""]
    lines += ["### The harness corpora by op family", ""]
    lines += table(["op family", "design rows", "exact", "hold-out rows", "exact"],
                   [[f, *fam[f]] for f in FAMILIES] + [["all", *(sum(v[i] for v in fam.values()) for i in range(4))]])
    lines += ["", "### By corpus file", ""]
    rows = [["`instructions.json` (the seed measurement)", len(seed_rows), len(seed_rows), seed_exact, "", "`test_calibration.py`"]]
    for name, cr in corpora.items():
        mine = [r for r, m in cr if m]
        left = Counter(r["sass"] for r, m in cr if not m)
        rows.append([f"`{name}.json`", len(cr), len(mine), sum(exact[r["name"]] for r in mine),
                     ", ".join(f"{s} {n}" for s, n in sorted(left.items())), "`test_calibration_v2.py`"])
    rows.append([", ".join(f"`{n}.json`" for n in misc), sum(map(len, misc.values())), 0, 0,
                 "op_misc probes (barriers, shuffles, exit, ...): where the op_misc rule began (kernel/misc.py)", ""])
    lines += table(["corpus (`calibration/h100/`)", "rows", "forms the model has", "exact", "forms it lacks", "test"], rows)
    lines += ["", "### `instructions.json` by SASS opcode", ""]
    lines += table(["SASS", "rows", "exact"], [[f"`{s}`", n, e] for s, (n, e) in sorted(by_sass.items())])
    summary = {"seed rows": (len(seed_rows), seed_exact), "v2 rows": (len(claimed), sum(exact.values()))}
    return lines, summary


def counting_kernels() -> tuple[list[str], dict]:
    """The seed kernels (their traces against seed_kernels.json, as test_seed_kernels.py) and the real ncu reports
    (``simsmem compare``'s comparison, as test_compare.py)."""
    import test_compare as tc
    import test_seed_kernels as ts
    from simsmem.cli.compare import compare
    from simsmem.config import load_arch
    from simsmem.results.analysis import analyse
    from simsmem.results.ncu_csv import pick, read_report
    from simsmem.traces import read_trace

    arch = load_arch("sm_90")
    reports = {"details": read_report(str(tc.DETAILS)), "raw": read_report(str(tc.RAW))}
    rows, exact_kernels, report_ok = [], 0, {k: [0, 0] for k in reports}
    for name in sorted(ts.MEASURED):
        trace = read_trace(ts.TRACES / f"{name}.json")
        metrics = analyse(trace, arch).metrics
        ncu = ts.MEASURED[name]
        compared = list(ts.REQUIRED) + [m for m in metrics if m in ncu and m not in ts.REQUIRED]
        equal = sum(metrics[m] == ncu[m] for m in compared)
        exact_kernels += equal == len(compared)
        cells = []
        for page, kernels in reports.items():
            lines_ = compare(pick(kernels, name, page), metrics, page)
            n = sum(line.status in ("match", "MISMATCH") for line in lines_)
            m = sum(line.status == "match" for line in lines_)
            report_ok[page][0] += n
            report_ok[page][1] += m
            cells.append(f"{m} of {n}")
        warps = len(set(trace.instructions.warp.tolist()))
        rows.append([f"`{name}`", trace.ctas, warps, f"{equal} of {len(compared)}", *cells])
    lines = ["## Counting: kernels", "", "### The seed kernels", ""]
    lines += ["The seed documents' kernels (`calibration/h100/src/seeds.cu`) as traces (`traces/seeds/`, written by",
              "`simsmem gen seeds`) against their kernel totals in `calibration/h100/seed_kernels.json`, and against the two real",
              "`ncu --csv` reports of them in `calibration/h100/ncu_csv/` as `simsmem compare` reads them (details page, raw page).",
              "Tests: `tests/test_seed_kernels.py`, `tests/test_compare.py`.", ""]
    lines += table(["kernel", "CTAs", "warps per CTA", "counters equal (`seed_kernels.json`)", "`compare`, details page", "`compare`, raw page"], rows)
    return lines, {"seed kernels": (len(rows), exact_kernels)}


def realk_pinned() -> tuple[list[str], dict]:
    """The real kernels (calibration/realk/manifest.json): what tests/test_realk.py pins (its OPEN strict xfails)."""
    import test_realk as tr

    names = [e["name"] for e in tr.MANIFEST]
    open_ = {n: tr.OPEN[n] for n in names if n in tr.OPEN}
    reasons: dict[str, list[str]] = defaultdict(list)
    for n, why in open_.items():
        reasons[why].append(n)
    lines = ["### Real kernels traced by `simsmem trace` (pinned)", ""]
    hopper = sum(1 for n in names if n.startswith(("hop_", "hopper_")) or n.endswith(("_sm90", "_sm90_w8")))
    h200 = sum(1 for e in tr.MANIFEST if "H200" in str(e.get("measured", "")) and not e["name"].startswith(("hop_", "hopper_")))
    lines += [f"`calibration/realk` holds {len(names)} kernels, each launched from its PTX and profiled by ncu (`calibration/realk/README.md`):",
              f"{len(names) - hopper} in `manifest.json` ({len(names) - hopper - h200} on an H100, {h200} on an H200; two to five runs each); "
              f"the {hopper} Hopper probes and kernels of `hopper.json`",
              "(wgmma, TMA and bulk copies, the TMA-fed GEMMs, Triton's sm_90 matmuls) on an H200, two runs each, and once on an H100.",
              "`tests/test_realk.py` traces each on the CPU and holds every modelled",
              "counter within the runs' range. The entries below are open: the test expects them to fail (strict xfail),",
              "so a model that starts to match one fails until it leaves the list. These figures are the test's own lists,",
              "not a run (tracing every kernel takes about a minute: `pytest -n 0 tests/test_realk.py`).", ""]
    lines += table(["", "kernels"], [["measured", len(names)], ["held within the measured runs", len(names) - len(open_)], ["open (strict xfail)", len(open_)]])
    lines += ["", "Open, and why:", ""]
    lines += [f"- {', '.join(f'`{n}`' for n in ns)}: {why}" for why, ns in reasons.items()]
    return lines, {"real kernels": (len(names), len(names) - len(open_))}


# ------------------------------------------------------------------------------------------ timing: as pinned


def timing_pinned() -> tuple[list[str], list[list]]:
    """The agreement each timing test pins, and the summary rows."""
    import burst_replay  # noqa: F401 - the burst test's module needs it importable
    import load_replay
    import test_timing_burst as tb
    import test_timing_calibration as tcal
    import test_timing_collide as tcol
    import test_timing_counts as tcnt
    import test_timing_forms as tf
    import test_timing_half as th
    import test_timing_load as tl
    import test_timing_warps as tw

    cal, forms = tcal.ROWS, tf.ROWS
    n_warps = len(tw.measured())
    collide = {run: (sum(v[0] for v in rec.values()), sum(v[3] for v in rec.values()), sum(v[1] for v in rec.values()))
               for run, rec in tcol.RECORDED_BY_RUN.items()}
    burst_n = tb.ENDS_WITHIN_5_PERCENT + len(tb.ENDS_OUT)
    load_gains = sum(1 for (_, _, loops, probe) in load_replay.measured() if probe < 16 and loops)
    load_ends = tl.ENDS_WITHIN_5_PERCENT + len(tl.ENDS_OUT)
    half = list(th.ERRORS.values())
    summary = [
        ["dependent-load latency, `timing.json`", "`test_timing_calibration.py`", len(cal["latency"]), len(cal["latency"]), "1 cycle"],
        ["throughput, 1 to 32 warps, `timing.json`", "`test_timing_calibration.py`", len(cal["throughput"]),
         len(cal["throughput"]) - len(tcal.OUTSIDE_5_PERCENT), "5%"],
        ["latency of ten more forms, `runs/2026-11-24-forms`", "`test_timing_forms.py`", len(forms["latency"]), len(forms["latency"]), "1 cycle"],
        ["their throughput, 1 to 32 warps", "`test_timing_forms.py`", len(forms["throughput"]), len(forms["throughput"]) - len(tf.OUTSIDE_5_PERCENT), "5%"],
        ["timing.cu's loops at 1 to 16 warps, `runs/2026-11-25-counts`", "`test_timing_counts.py`", len(tcnt.ROWS["throughput"]),
         len(tcnt.ROWS["throughput"]) - len(tcnt.OUTSIDE_5_PERCENT), "5%"],
        ["1 to 4 warps on chosen sub-partitions, `runs/2026-11-23-warps`", "`test_timing_warps.py`", n_warps, tw.WITHIN_5_PERCENT, "5%"],
        ["warps meeting at the data path, per warp, four runs (`runs/2026-11-24-*`)", "`test_timing_collide.py`",
         sum(c[0] for c in collide.values()), sum(c[1] for c in collide.values()), "5 cycles"],
        ["the loop as rounds of 16 loads, launch ends, `runs/2026-11-25-burst`", "`test_timing_burst.py`", burst_n, tb.ENDS_WITHIN_5_PERCENT, "5%"],
        ["pairs of loop warps on 1 to 4 sub-partitions, `runs/2026-11-25-half`", "`test_timing_half.py`", len(half), sum(abs(e) <= 5 for e in half), "5%"],
        ["a dependent chain beside generator loops: its gain, `runs/2026-11-25-load`", "`test_timing_load.py`", load_gains, tl.GAINS_WITHIN_1_5, "1.5 cycles"],
        ["the generators' ends, same run", "`test_timing_load.py`", load_ends, tl.ENDS_WITHIN_5_PERCENT, "5%"],
    ]
    lines = ["## Timing: agreement as the tests pin it", ""]
    lines += ["The timing engine is not exact, and says how far it is. Each timing test replays an H100 run (clock64) and pins",
              "how many rows fall within a bound, so a change of model shows. The figures here are those pins, read from the",
              "tests; [validation-timing.md](validation-timing.md) has every row of `timing.json` and the forms run, measured",
              "against simulated (`pytest -n 0 -s FILE` prints any test's table).", ""]
    lines += table(["H100 run", "test", "rows", "within the bound", "bound"], summary)
    lines += ["", "### Rows outside 5%", ""]
    out_cal = ", ".join(_at(*key) for key in sorted(tcal.OUTSIDE_5_PERCENT)) or "none"
    lines += [f"- `timing.json`: {out_cal}."]
    lines += ["- The forms run, each held to its own bound (`OUTSIDE_5_PERCENT` of `test_timing_forms.py`): "
              + ", ".join(f"{_at(*key)} ({100 * b:.0f}%)" for key, b in sorted(tf.OUTSIDE_5_PERCENT.items())) + "."]
    lines += ["- The counts run, with their errors: " + ", ".join(f"{_at(*key)} ({e:+.1f}%)" for key, e in sorted(tcnt.OUTSIDE_5_PERCENT.items())) + "."]
    lines += [f"- The warps run: {n_warps - tw.WITHIN_5_PERCENT} of {n_warps}, none off by more than {100 * tw.WORST:.0f}%."]
    lines += ["- The burst run's ends: " + ", ".join(f"clk {c} {d}-way {m:#06x} ({e:+.1f}%)" for (c, d, m), e in sorted(tb.ENDS_OUT.items())) + "."]
    lines += [f"- The half run: the end of every set of pairs {min(half):+.1f}% to {max(half):+.1f}%."]
    lines += ["- The load run's ends: " + ", ".join(f"mode {mo} {d}-way {m:#06x} ({e:+.1f}%)" for (mo, d, m), e in sorted(tl.ENDS_OUT.items())) + "."]
    lines += ["", "### Warps meeting at the data path, family by family", ""]
    lines += ["Per warp: cycles from its start to its end (and to its last issue, *mid*), replayed launch by launch and compared with",
              "the clocks it read (`calibration/collide_replay.py`; the families are `calibration/collide_specs.py`'s). Where warps share",
              "a sub-partition (`pair-same`, `one`, `eight`, `sixteen`) the replay leaves out the other warps' spin before their start",
              "clocks, so those rows are recorded, not judged.", ""]
    rows = []
    for run, rec in tcol.RECORDED_BY_RUN.items():
        for (fam, loads, probe), (w, ex, w2, w5, mid) in rec.items():
            rows.append([f"`{run}`", fam, loads, probe, w, ex, w2, w5, mid])
    lines += table(["run (`runs/2026-11-24-RUN`)", "family", "loads per warp", "load by load", "warps", "end exact", "within 2", "within 5", "mid exact"], rows)
    lines += [""] + table(["run", "warp timings", "within 5 cycles", "end exact"], [[f"`{r}`", *c] for r, c in collide.items()]
                          + [["all four", *(sum(c[i] for c in collide.values()) for i in range(3))]])
    return lines, summary


# --------------------------------------------------------------------------------------------------- the pages


@functools.cache
def parts() -> tuple[list[list], list[str]]:
    """(the summary rows, the detail sections' lines): everything docs/validation.md and README.md's summary show."""
    import test_timing_calibration as tcal
    import test_timing_collide as tcol
    import test_timing_forms as tf

    single, s1 = counting_single()
    kernels, s2 = counting_kernels()
    realk, s3 = realk_pinned()
    timing, _ = timing_pinned()
    cal, forms = tcal.ROWS, tf.ROWS
    collide = [sum(v[i] for rec in tcol.RECORDED_BY_RUN.values() for v in rec.values()) for i in (0, 3)]
    summary = [
        ["single-instruction launches, `instructions.json`", *s1["seed rows"], "exact", "model, now"],
        ["single-instruction launches of every form the model has, the nine harness corpora", *s1["v2 rows"], "exact", "model, now"],
        ["seed kernels (kernel totals)", *s2["seed kernels"], "exact", "model, now"],
        ["real kernels traced from their PTX (`calibration/realk`)", *s3["real kernels"], "within the ncu runs", "pinned by `test_realk.py`"],
        ["timing: dependent-load latency (`timing.json`, forms run)", len(cal["latency"]) + len(forms["latency"]),
         len(cal["latency"]) + len(forms["latency"]), "1 cycle", "pinned"],
        ["timing: throughput, 1 to 32 warps (`timing.json`)", len(cal["throughput"]), len(cal["throughput"]) - len(tcal.OUTSIDE_5_PERCENT), "5%", "pinned"],
        ["timing: ten more forms' throughput (`runs/2026-11-24-forms`)", len(forms["throughput"]), len(forms["throughput"]) - len(tf.OUTSIDE_5_PERCENT), "5%", "pinned"],
        ["timing: warps meeting at the data path, per warp (four runs)", *collide, "5 cycles", "pinned"],
    ]
    return summary, single + [""] + kernels + [""] + realk + [""] + timing


def validation_page() -> str:
    summary, sections = parts()
    head = ["# Validation", "",
            "What simsmem reproduces of an H100's Nsight Compute counters, and how close its timing engine comes to clock64 microbenchmarks.",
            "Generated by `docs/make_validation.py` from the files the tests read; `tests/test_docs.py` fails when this page differs.", "",
            f"<!-- Generated: do not edit. Run {REGENERATE} (add --engine for validation-timing.md). -->", "",
            "Every measurement: NVIDIA H100 80GB HBM3 (sm_90), CUDA 13.0, Nsight Compute 2025.3.1 (`calibration/h100/`,",
            "`calibration/realk/`). How the corpora were measured: [calibration.md](calibration.md). The counting rules:",
            "[bank-model.md](bank-model.md); the timing model: [timing-model.md](timing-model.md).", "",
            "Real kernels in time (the timed SM: each corpus kernel's cycles and stall reasons against the H100 and an H200,",
            "family by family, and the measured pairs before and after a fix): [validation-kernels.md](validation-kernels.md),",
            "generated by `python docs/make_validation.py --kernels` and checked by `tests/test_realk_timing.py`.", "",
            "## Summary", "",
            "*model, now*: this page ran simsmem's model over every row when it was generated. *pinned*: the agreement the test",
            "asserts (running it takes minutes).", ""]
    head += table(["what", "measured", "reproduced", "bound", "how"], summary)
    return "\n".join(head + [""] + sections) + "\n"


README_BEGIN = "<!-- validation summary: generated by docs/make_validation.py from the data the tests check; do not edit -->"
README_END = "<!-- end of the generated validation summary -->"


def readme_text(readme: str | None = None) -> str:
    """README.md with its validation summary (between README_BEGIN and README_END) regenerated."""
    text = README.read_text() if readme is None else readme
    if README_BEGIN not in text or README_END not in text:
        raise SystemExit(f"README.md lacks the markers of the validation summary: {README_BEGIN!r} ... {README_END!r}")
    summary, _ = parts()
    block = table(["H100 measurement", "measured", "reproduced", "bound"], [row[:4] for row in summary])
    before, rest = text.split(README_BEGIN, 1)
    _, after = rest.split(README_END, 1)
    return before + README_BEGIN + "\n" + "\n".join(block) + "\n" + README_END + after


def engine_page() -> str:
    """Every timing.json and forms row, measured against simulated: the timing engine, run now."""
    import test_timing_calibration as tcal
    import test_timing_forms as tf
    from simsmem.config import load_arch

    arch = load_arch("sm_90")
    lines = ["# Timing rows, measured against simulated", "",
             "Every row of the H100's clock64 microbenchmarks next to simsmem's timing engine, as the timing tests replay them.",
             "Generated by `docs/make_validation.py --engine` (it runs the engine: about 25 s); `pytest tests/test_docs.py` checks it.", "",
             "<!-- Generated: do not edit. Run `python docs/make_validation.py --engine`. -->", "",
             "Summary and the other runs: [validation.md](validation.md). The model: [timing-model.md](timing-model.md).", ""]
    for title, what, rows, kinds, source, test in (
            ("timing.cu: LDS.32/.64/.128 and LDSM.x4",
             ["One warp's chain of dependent loads (latency), and the first 1 to 32 warps of a loop of 512 independent loads",
              "each (throughput), at conflict degrees 1 to 32 (`calibration/h100/src/timing.cu`)."],
             tcal.ROWS, ("lat", "thr"), "calibration/h100/timing.json", "tests/test_timing_calibration.py"),
            ("The forms timing.cu left out",
             ["timing.cu's two loops for LDS.U8, LDS.U16, STS.32 and ATOMS.ADD on LDS.32's offsets, STS.64 and STS.128 on",
              "LDS.64's and LDS.128's, LDSM.x1, .x2, .x4.trans and STSM.x4 on LDSM.x4's (`calibration/h100/src/timing_forms.cu`);",
              "stores throughput only. The rows were predicted before they were looked at: the config's latencies for these forms",
              "are copies of LDS.32's and LDSM.x4's."],
             tf.ROWS, ("latf", "thrf"), "calibration/h100/runs/2026-11-24-forms/forms.json", "tests/test_timing_forms.py")):
        out = tcal.simulate_rows(arch, rows, kinds)
        errors = tcal.throughput_errors(out, rows)
        lat = [out["lat", r["op"], r["ways"]] - r["cycles_per_dependent_load"] for r in rows["latency"]]
        inside = sum(abs(e) <= 0.05 for e in errors.values())
        lines += [f"## {title}", "", *what, "",
                  f"Source `{source}`, test `{test}`. Traces: `traces/timing/` (the loops' SASS, written by `calibration/timing_traces.py`).", "",
                  f"Cycles per dependent load, measured / simulated: {len(lat)} rows, the largest difference {max(map(abs, lat)):.2f} cycle.", ""]
        ways = sorted({r["ways"] for r in rows["latency"]})
        by_op: dict[str, dict[int, str]] = defaultdict(dict)
        for r in rows["latency"]:
            by_op[r["op"]][r["ways"]] = f"{r['cycles_per_dependent_load']:.2f} / {out['lat', r['op'], r['ways']]:.2f}"
        lines += table(["op", *(f"ways {w}" for w in ways)], [[op, *(cells.get(w, "") for w in ways)] for op, cells in by_op.items()])
        lines += ["", f"Cycles per warp-instruction, measured / simulated: **{inside} of {len(errors)} rows within 5%**, mean |error| "
                  f"{100 * mean(map(abs, errors.values())):.2f}%, largest {100 * max(map(abs, errors.values())):.1f}% (rows outside 5% in bold).", ""]
        warps = sorted({r["warps"] for r in rows["throughput"]})
        grid: dict[tuple[str, int], dict[int, str]] = defaultdict(dict)
        for r in rows["throughput"]:
            key = r["op"], r["ways"], r["warps"]
            meas, sim, e = r["cycles_per_warp_instruction"], out["thr", *key], errors[key]
            cell = f"{meas:.2f} / {sim:.2f}"
            grid[key[:2]][key[2]] = f"**{cell} ({100 * e:+.1f}%)**" if abs(e) > 0.05 else cell
        lines += table(["op, ways", *(f"{w} warp{'s' if w > 1 else ''}" for w in warps)],
                       [[f"{op}, {w}", *(cells.get(n, "") for n in warps)] for (op, w), cells in grid.items()])
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


KERNELS_PAGE = ROOT / "docs" / "validation-kernels.md"


def kernels_page(timed: dict | None = None) -> str:
    """The timed SM against the corpus, family by family: every entry of tests/test_realk_timing.py traced and timed on
    both configs (``timed``: that test's fixture, or made here: a few minutes)."""
    import statistics

    import test_realk_timing as trt

    timed = timed if timed is not None else {e["name"]: trt._timed(e) for e in trt.ENTRIES}
    families: dict[str, list] = defaultdict(list)
    for e in trt.ENTRIES:
        families[_kernel_family(e["name"])].append(e)
    rows, all_h200, all_h100, tops = [], [], [], 0
    for family, entries in sorted(families.items()):
        h200 = [abs(timed[e["name"]][1]["sm__cycles_elapsed.max"] - statistics.median(trt.MEASURED[e["name"]]["sm__cycles_elapsed.max"]))
                / statistics.median(trt.MEASURED[e["name"]]["sm__cycles_elapsed.max"]) for e in entries]
        h100 = [abs(timed[e["name"]][0]["sm__cycles_elapsed.max"] - statistics.median(trt._h100_runs(e))) / statistics.median(trt._h100_runs(e))
                for e in entries if "ncu" in e]
        top = 0
        for e in entries:
            hw, sim = trt._shares(trt.MEASURED[e["name"]], True), trt._shares(timed[e["name"]][1], False)
            top += max(hw, key=hw.get) == max(sim, key=sim.get)
        tops += top
        all_h200 += h200
        all_h100 += h100
        rows.append([family, len(entries), f"{100 * mean(h200):.1f}%", f"{100 * max(h200):.1f}%",
                     f"{100 * mean(h100):.1f}%" if h100 else "", f"{top} of {len(entries)}"])
    rows.append(["all", len(trt.ENTRIES), f"{100 * mean(all_h200):.1f}%", f"{100 * max(all_h200):.1f}%", f"{100 * mean(all_h100):.1f}%",
                 f"{tops} of {len(trt.ENTRIES)}"])
    within = {r: sum(abs(trt._shares(trt.MEASURED[e["name"]], True)[r] - trt._shares(timed[e["name"]][1], False)[r]) <= 0.10 for e in trt.ENTRIES)
              for r in trt.JUDGED}
    pairs = []
    for before, after in trt.PAIRS:
        cells = [f"{before} -> {after}"]
        for k in (0, 1):
            hw, apart = trt.measured_pair(before, after, k)
            sim = timed[before][k]["sm__cycles_elapsed.max"] / timed[after][k]["sm__cycles_elapsed.max"]
            cells += [f"{hw:.3f}{'' if apart else ' (runs overlap)'}", f"{sim:.3f}", f"{100 * (sim / hw - 1):+.1f}%"]
        pairs.append(cells)
    lines = ["# Real kernels in time: the timed SM against the H100 and the H200", "",
             "The corpus's kernels traced and timed by simsmem's timed SM ([timing-model.md](timing-model.md)), family by family:",
             "their cycles against an H100's and an H200's, their stall reasons against the H200's, and measured fixes.", "",
             "Every entry of calibration/realk that the H200 timing run measured (timing_h200.json, 5 ncu runs, 2026-11-29), timed",
             "with `sm_90` against the H100 (manifest.json, 5 runs) and `sm_90_h200` against the H200. Cycles:",
             "`sm__cycles_elapsed.max`, the median of the runs; the error of each entry is |simulated - measured| / measured. The",
             "largest stall reason: of `smsp__warps_issue_stalled_*` but `selected`, H200. Families by the name's first word.", "",
             "<!-- Generated: do not edit. Run `python docs/make_validation.py --kernels` (a few minutes); tests/test_realk_timing.py checks it. -->", "",
             *table(["family", "entries", "H200 MAPE", "H200 worst", "H100 MAPE", "largest stall right"], rows), "",
             "Each judged stall reason's share of the stall cycles within 10 percentage points of the H200's, of the "
             f"{len(trt.ENTRIES)} entries: " + ", ".join(f"{r} {v}" for r, v in within.items()) + ".", "",
             "## What a fix buys: measured pairs", "",
             "Cycles before over cycles after (above 1: the fix is a speed-up), measured (the medians of the runs) and simulated,",
             "and the simulated ratio's error. \"runs overlap\": some run of the kernel before the fix was as fast as some run of",
             "the one after, so the measured direction is within the run-to-run spread (the test judges the direction elsewhere).", "",
             *table(["pair", "H100 measured", "H100 simulated", "H100 error", "H200 measured", "H200 simulated", "H200 error"], pairs)]
    return "\n".join(lines) + "\n"


def _kernel_family(name: str) -> str:
    """A corpus entry's family: the first word of its name (``hop_wg`` and ``hop_tma`` apart)."""
    words = name.split("_")
    return "_".join(words[:2]) if words[0] == "hop" else words[0].rstrip("0123456789")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--engine", action="store_true", help="also docs/validation-timing.md (runs the timing engine, about a minute)")
    p.add_argument("--kernels", action="store_true", help="also docs/validation-kernels.md (traces and times the corpus, a few minutes)")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 if a page differs")
    a = p.parse_args(argv)
    pages = ([(VALIDATION, validation_page), (README, readme_text)] + ([(ENGINE_PAGE, engine_page)] if a.engine else [])
             + ([(KERNELS_PAGE, kernels_page)] if a.kernels else []))
    stale = []
    for path, make in pages:
        text = make()
        if a.check:
            if not path.exists() or path.read_text() != text:
                stale.append(path)
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    for path in stale:
        print(f"{path.relative_to(ROOT)} is out of date: run python docs/make_validation.py{' --engine' if path == ENGINE_PAGE else ''}", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
