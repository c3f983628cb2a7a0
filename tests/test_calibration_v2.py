"""The v2 H100 measurements (calibration/harness runs of 2026-11-22), replayed, and the harness that made them.

Provenance: calibration/h100/runs/*/env.txt — H100 80GB HBM3, driver 580.159.04, Nsight Compute 2025.3.1,
CUDA 13.0; one probe of calibration/probe.cu per launch. Every row of an op form the model has is replayed,
LDS.64 and LDS.128 included (their sibling-phase rule R4 of calibration/h100/RULES_v2.md was frozen before
holdout3.json was measured), and every LDGSTS row, .ca and .cg (RULES_v2.md, "LDGSTS"; harness/rule_ldgsts.py),
ldgsts2.json's hold-out 4 and ldgsts3.json's hold-out 5 included (each committed before it was measured; the .cg
rule was fixed before hold-out 5 was scored).
"""

import json

import pytest
from conftest import H100, ROOT
from simsmem.config import WAVEFRONTS
from simsmem.corpus import corpus_trace, load_corpus, sass_form
from simsmem.results.analysis import analyse
from simsmem.results.metrics import DATA_BYTES
from simsmem.results.ncu_csv import parse_report

from calibration.harness import patterns
from calibration.harness.agreement import modelled
from calibration.harness.corpus import build, read_text
from calibration.harness.sass import check

CORPORA = ("instructions_v2", "followup", "followup2", "holdout", "holdout2", "r4", "holdout3", "ldgsts2", "ldgsts3")
INSTRUCTIONS = (
    "smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum", "smsp__inst_executed_op_shared_atom.sum",
    "smsp__inst_executed_op_ldsm.sum", "smsp__inst_executed_op_shared_stsm.sum", "smsp__inst_executed_op_ldgsts.sum",
)
#: Instructions a probe ran besides its one: the compiler pads every LDGSTS with three ``@!PT LDS RZ, [RZ]``
#: (RULES_v2.md, "LDGSTS"), each an executed shared load.
PADDING = {"LDGSTS": {"smsp__inst_executed_op_shared_ld.sum": 3}}
RUNS = {"2026-11-22-design": ("design",), "2026-11-22-followup": ("followup", "holdout"), "2026-11-22-holdout2": ("followup2", "holdout2"),
        "2026-11-22-ldgsts2": ("ldgsts2",), "2026-11-22-ldgsts3": ("ldgsts3",)}


def _rows(sm90):
    out = []
    for name in CORPORA:
        out += [r for r in load_corpus(H100 / f"{name}.json") if modelled(r, sm90)]
    return out


@pytest.fixture(scope="module")
def replayed(sm90):
    rows = _rows(sm90)
    return rows, {r["name"]: analyse(corpus_trace([r], r["name"]), sm90).metrics for r in rows}


def test_every_modelled_row_matches_ncu(replayed, sm90):
    rows, metrics = replayed
    assert len(rows) == 4232  # every measured row of a form the model has (atomics included; LDGSTS .ca 642, .cg 1830)
    wrong = []
    for r in rows:
        m, n = metrics[r["name"]], r["ncu"]
        op = sass_form(r["sass"])["op"]
        spec = sm90.op(op)
        pad = PADDING.get(op, {})
        keys = (spec.wavefronts, spec.bank_conflicts, DATA_BYTES, *INSTRUCTIONS)
        wrong += [(r["name"], k, m[k], n[k]) for k in keys if m[k] != n[k] - pad.get(k, 0)]
    assert not wrong, wrong[:10]


def test_whole_v2_corpus_as_one_trace(replayed, sm90):
    rows, _ = replayed
    metrics = analyse(corpus_trace(rows), sm90).metrics
    for c in ("ld", "st", "atom"):
        assert metrics[WAVEFRONTS.format(c)] == sum(r["ncu"][WAVEFRONTS.format(c)] for r in rows)
    ldgsts = sm90.op("LDGSTS").wavefronts
    assert metrics[ldgsts] == sum(r["ncu"][ldgsts] for r in rows if r["sass"].startswith("LDGSTS")) > 0


@pytest.mark.parametrize("run", sorted(RUNS))
def test_probes_pass_the_sass_check(run):
    dump = read_text(H100 / "runs" / run / "sass.txt.gz")
    verdicts = check(dump)
    launched = {p.kernel for s in RUNS[run] for p in patterns.read_set(ROOT / "calibration" / "patterns" / f"{s}.json")}
    assert all(v.ok for v in verdicts if v.form.kernel in launched)


def test_corpus_rebuilds_from_the_raw_ncu_report():
    """The committed holdout2.json is what the harness makes of the committed raw CSV and SASS dump."""
    run = H100 / "runs" / "2026-11-22-holdout2"
    pats = patterns.read_set(ROOT / "calibration" / "patterns" / "holdout2.json")
    kernels = parse_report(read_text(run / "holdout2_raw1.csv.gz"), "holdout2")
    memory, misc = build(pats, kernels, read_text(run / "sass.txt.gz"), "holdout2")
    committed = load_corpus(H100 / "holdout2.json")
    assert not misc and memory == committed


@pytest.mark.parametrize("name, make", [("design", patterns.design), ("holdout", patterns.holdout), ("faults", patterns.faults),
                                        ("followup", patterns.followup), ("followup2", patterns.followup2),
                                        ("holdout2", patterns.holdout2), ("ldgsts2", patterns.ldgsts2), ("ldgsts3", patterns.ldgsts3)])
def test_pattern_sets_are_what_the_generator_makes(name, make):
    """The committed sets (measured as they are) are reproduced by their seeded generators."""
    from dataclasses import asdict

    committed = json.loads((ROOT / "calibration" / "patterns" / f"{name}.json").read_text())
    assert [asdict(p) for p in make()] == committed


def test_seed_kernels_rerun_reproduces_the_first_measurement():
    """The harness's re-run of the seed kernels (other day, same GPU model) gives every counter of seed_kernels.json."""
    first = {k["kernel"]: k["ncu"] for k in json.loads((H100 / "seed_kernels.json").read_text())["kernels"]}
    rerun = json.loads((H100 / "seed_kernels_rerun.json").read_text())["kernels"]
    assert len(rerun) == len(first) == 10
    for k in rerun:
        shared = set(k["ncu"]) & set(first[k["kernel"]])
        assert len(shared) >= 20
        assert {m: k["ncu"][m] for m in shared} == {m: first[k["kernel"]][m] for m in shared}


def test_timing_output_parses_to_the_committed_json():
    from calibration.harness.timing import parse

    text = (H100 / "runs" / "2026-11-22-design" / "timing.txt").read_text()
    committed = json.loads((H100 / "timing_rerun.json").read_text())
    assert parse(text) == {"latency": committed["latency"], "throughput": committed["throughput"]}


def test_forms_run_parses_to_the_committed_json():
    """runs/2026-11-24-forms: timing_forms.txt is forms.json's rows, and forms.json names timing_forms.cu."""
    from calibration.harness.timing import parse

    run = H100 / "runs" / "2026-11-24-forms"
    committed = json.loads((run / "forms.json").read_text())
    assert parse((run / "timing_forms.txt").read_text()) == {"latency": committed["latency"], "throughput": committed["throughput"]}
    assert committed["method"]["source"] == "calibration/h100/src/timing_forms.cu"
    assert committed["date"] == "2026-11-24T10:10:20Z"


def test_harness_names_a_missing_file_in_one_line(tmp_path):
    """A missing input: one line on stderr, exit status 2, nothing written."""
    import subprocess
    import sys

    out = tmp_path / "t.json"
    (tmp_path / "env.txt").write_text("NVIDIA H100 80GB HBM3, 580.159.04, 1980 MHz, 1980 MHz\n")
    done = subprocess.run([sys.executable, "-m", "harness", "timing", "--text", str(tmp_path / "none.txt"), "--env", str(tmp_path / "env.txt"),
                           "--out", str(out)], cwd=ROOT / "calibration", capture_output=True, text=True)
    assert done.returncode == 2 and not out.exists()
    assert done.stderr.count("\n") == 1 and "none.txt" in done.stderr
