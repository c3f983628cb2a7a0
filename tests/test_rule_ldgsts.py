"""The LDGSTS rules (calibration/harness/rule_ldgsts.py) against every LDGSTS row of the v2 H100 corpora.

Provenance: calibration/h100/{instructions_v2,followup,holdout,holdout2,ldgsts2}.json (runs 2026-11-22-design,
-followup, -holdout2, -ldgsts2; H100, ncu 2025.3.1), counters smsp__sass_l1tex_*_op_ldgsts; RULES_v2.md section
"LDGSTS (cp.async)". ldgsts2.json's 120 H4_ rows are a hold-out committed before they were measured.
"""

import sys

from conftest import H100, ROOT
from simsmem.corpus import load_corpus

sys.path.insert(0, str(ROOT / "calibration"))
from harness.rule_ldgsts import CONFLICTS, CORPORA, WAVEFRONTS, WIDTH, cg_counts, counts  # noqa: E402

ROWS = {r["name"]: r for n in CORPORA for r in load_corpus(H100 / f"{n}.json") if r["sass"].startswith("LDGSTS")}
CA = {name: r for name, r in ROWS.items() if r["sass"] in WIDTH}


def measured(name):
    return ROWS[name]["ncu"][WAVEFRONTS], ROWS[name]["ncu"][CONFLICTS]


def test_every_ca_row_is_exact():
    """642 .ca rows: 138 designed, 24 + 30 earlier random, 350 few-lane structure rows, 90 hold-out-4 rows."""
    assert len(ROWS) == 1082 and len(CA) == 642
    assert sum(name.startswith("H4_") for name in CA) == 90
    assert [name for name in CA if counts(ROWS[name]) != measured(name)] == []


def test_both_sides_conflicting_add_up():
    """ldgsts2.json S3_ca4_001_010_lb: lane 0 shares its source position with lane 1 and its bank with lane 2;
    lanes 1 and 2 could share a pass, yet the copy takes 3 (the max-of-sides rule said 2)."""
    assert counts(ROWS["S3_ca4_001_010_lb"]) == measured("S3_ca4_001_010_lb") == (3, 2)
    assert counts(ROWS["S3_ca4_001_001_lb"]) == measured("S3_ca4_001_001_lb") == (2, 1)  # the same pair on both sides
    assert counts(ROWS["H2_ldgsts_ca4_0"]) == measured("H2_ldgsts_ca4_0") == (6, 5)  # holdout2: 3 on a source, 4 on a bank


def test_named_rows():
    assert counts(ROWS["ldgsts_ca4_dst_lin_src_line_each"]) == (32, 31)  # instructions_v2: 32 lines, one position
    assert counts(ROWS["ldgsts_ca4_dst_lin_src_lin_plus32"]) == (1, 0)  # two lines, distinct positions


def test_cg_candidate_rule():
    """.cg is not claimed: the candidate rule gives 438 of 440 rows, and both misses lie outside its stated domain."""
    cg = {name: r for name, r in ROWS.items() if r["sass"] == "LDGSTS.E.BYPASS.128"}
    assert all(counts(r) is None for r in cg.values())
    scored = {name: cg_counts(r) for name, r in cg.items()}
    inside = [name for name, (_, ok) in scored.items() if ok]
    assert len(cg) == 440 and len(inside) == 438
    assert all(scored[name][0] == measured(name)[0] for name in inside)
    assert all(scored[name][0] != measured(name)[0] for name in cg.keys() - set(inside))
