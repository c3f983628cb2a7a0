"""LDGSTS (cp.async .ca) in trace v1, the model, the metrics and `simsmem run`.

Provenance: H100 rows of calibration/h100/{instructions_v2,followup,holdout,holdout2,ldgsts2}.json (runs
2026-11-22-design, -followup, -holdout2, -ldgsts2; ncu 2025.3.1), counters smsp__sass_l1tex_*_op_ldgsts; the rule:
RULES_v2.md, "LDGSTS", and calibration/harness/rule_ldgsts.py.
"""

import sys

import orjson
import pytest

from conftest import H100, ROOT
from simsmem.analysis import analyse
from simsmem.banks import count
from simsmem.cli import main
from simsmem.config import load_arch
from simsmem.corpus import corpus_trace, load_corpus
from simsmem.trace import write_trace
from test_hostile import jsonl, refused

sys.path.insert(0, str(ROOT / "calibration"))
from harness import rule_ldgsts  # noqa: E402

CA = [r for n in rule_ldgsts.CORPORA for r in load_corpus(H100 / f"{n}.json") if r["sass"] in rule_ldgsts.WIDTH]
ROWS = {r["name"]: r for r in CA}
LIN = [16 * lane for lane in range(32)]
GOOD = {"op": "LDGSTS", "width": 128, "addrs": LIN, "src": [4096 + a for a in LIN]}


def test_model_is_the_rule(sm90):
    """All 642 .ca rows: the numba model, the readable reference and the stdlib rule give the measured counts."""
    from simsmem.banks.reference import schedule

    trace = corpus_trace(CA)
    counts = count(trace.instructions, sm90)
    assert len(CA) == 642
    for i, r in enumerate(CA):
        measured = (r["ncu"][rule_ldgsts.WAVEFRONTS], r["ncu"][rule_ldgsts.CONFLICTS])
        s = schedule(trace.instructions[i], sm90)
        assert (counts.wavefronts[i], counts.bank_conflicts[i]) == (len(s.wavefronts), s.bank_conflicts) == rule_ldgsts.counts(r) == measured, r["name"]


def test_metrics_under_the_configured_counters(sm90):
    """instructions_v2.json row ldgsts_ca16_dst_lin_src_line_each_plus16: 32 wavefronts, 28 conflicts, 512 bytes, 1 instruction."""
    m = analyse(corpus_trace([ROWS["ldgsts_ca16_dst_lin_src_line_each_plus16"]]), sm90).metrics
    assert m[rule_ldgsts.WAVEFRONTS] == 32 and m[rule_ldgsts.CONFLICTS] == 28
    assert m["smsp__inst_executed_op_ldgsts.sum"] == 1 and m["smsp__sass_data_bytes_mem_shared_op_ldgsts.sum"] == 512
    assert m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"] == 0  # ncu's l1tex total counts LDGSTS differently (24 here)
    assert m["smsp__inst_executed_op_shared_ld.sum"] == 0


def test_exists_from_sm_80(tmp_path, capsys):
    path = jsonl(tmp_path / "t.jsonl", GOOD)
    assert main(["run", str(path), "--arch", "sm_80", "--engine", "analytic"]) == 0
    capsys.readouterr()
    refused(capsys, "run", path, "--arch", "sm_75", where=("instruction 0", "op"), what="LDGSTS does not exist on sm_75")


@pytest.mark.parametrize("suffix", ["jsonl", "json"])
@pytest.mark.parametrize("edit, where, what", [
    (lambda i: i.update(bypass=True), ("instruction 0",), "field 'bypass' is not valid for LDGSTS"),
    (lambda i: i.pop("src"), ("instruction 0",), "missing field 'src' for LDGSTS"),
    (lambda i: i.update(width=16), ("width",), "expected 32, 64 or 128"),
    (lambda i: i["src"].__setitem__(3, None), ("src[3]",), "null address in an active lane"),
    (lambda i: i["src"].__setitem__(3, -16), ("src[3]",), "out of range"),
    (lambda i: i["src"].__setitem__(3, 4104), ("src[3]",), "not aligned to the 16-byte copy"),
    (lambda i: i["src"].pop(), ("src",), "expected 32 entries"),
    (lambda i: i.update(op="LDS"), ("instruction 0",), "field 'src' is not valid for LDS"),
])
def test_bad_ldgsts_is_one_line(tmp_path, capsys, suffix, edit, where, what):
    ins = orjson.loads(orjson.dumps(GOOD))
    edit(ins)
    path = tmp_path / f"t.{suffix}"
    if suffix == "json":
        path.write_bytes(orjson.dumps({"simsmem_trace": 1, "instructions": [ins]}))
    else:
        jsonl(path, ins)
    refused(capsys, "run", path, "--engine", "analytic", where=where, what=what)


def test_inactive_lanes_take_null_sources(tmp_path, sm90):
    ins = {**GOOD, "mask": "0x0000ffff", "src": GOOD["src"][:16] + [None] * 16}
    path = jsonl(tmp_path / "t.jsonl", ins)
    from simsmem.trace import read_trace

    b = read_trace(path).instructions
    assert list(b.src[0, 16:]) == [-1] * 16 and b.src[0, 15] == 4096 + 240


@pytest.mark.parametrize("engine", ["full", "analytic"])
def test_run_counts_both_sides_conflicting(tmp_path, capsys, engine):
    """holdout2.json H2_ldgsts_ca4_0: sources share positions and destinations share banks; measured 6
    wavefronts, 5 conflicts (the earlier max-of-sides rule said 4 and ran with a note)."""
    path = tmp_path / "t.json"
    write_trace(corpus_trace([ROWS["H2_ldgsts_ca4_0"]]), path)
    assert main(["run", str(path), "--engine", engine, "--format", "json"]) == 0
    out, err = capsys.readouterr()
    metrics = orjson.loads(out)["metrics"]
    assert (metrics[rule_ldgsts.WAVEFRONTS], metrics[rule_ldgsts.CONFLICTS]) == (6, 5) and "note" not in err


def test_sm90_config_counts_ldgsts_by_its_sass_counters():
    spec = load_arch("sm_90").ops["LDGSTS"]
    assert (spec.wavefronts, spec.bank_conflicts) == (rule_ldgsts.WAVEFRONTS, rule_ldgsts.CONFLICTS)
    assert spec.source_line == 128 and not spec.broadcast and spec.merge_phases == 1
