"""The LDGSTS rules (calibration/harness/rule_ldgsts.py) against every LDGSTS row of the v2 H100 corpora.

Provenance: calibration/h100/{instructions_v2,followup,holdout,holdout2,ldgsts2,ldgsts3}.json (runs 2026-11-22-design,
-followup, -holdout2, -ldgsts2, -ldgsts3; H100, ncu 2025.3.1), counters smsp__sass_l1tex_*_op_ldgsts; RULES_v2.md section
"LDGSTS (cp.async)". ldgsts2.json's 120 H4_ rows and ldgsts3.json's 40 H5_ rows are hold-outs committed before
they were measured; the .cg rule was fixed before the H5_ rows were scored.
"""


from calibration.harness.rule_ldgsts import BYPASS, CONFLICTS, CORPORA, WAVEFRONTS, WIDTH, counts
from conftest import H100
from simsmem.corpus import load_corpus

ROWS = {r["name"]: r for n in CORPORA for r in load_corpus(H100 / f"{n}.json") if r["sass"].startswith("LDGSTS")}
CA = {name: r for name, r in ROWS.items() if r["sass"] in WIDTH}


def measured(name):
    return ROWS[name]["ncu"][WAVEFRONTS], ROWS[name]["ncu"][CONFLICTS]


def test_every_ca_row_is_exact():
    """642 .ca rows: 138 designed, 24 + 30 earlier random, 350 few-lane structure rows, 90 hold-out-4 rows."""
    assert len(ROWS) == 2472 and len(CA) == 642
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


CG = {name: r for name, r in ROWS.items() if r["sass"] == BYPASS}


def test_every_cg_row_is_exact():
    """1830 .cg rows: 440 from the earlier runs (incl. 44 random hold-out rows), 1390 from ldgsts3 (40 hold-out-5)."""
    assert len(CG) == 1830 and sum(name.startswith("H5_") for name in CG) == 40
    assert [name for name in CG if counts(CG[name]) != measured(name)] == []
    assert {measured(name)[1] for name in CG} == {0}  # ncu counts no .cg bank conflicts


def test_cg_sector_moves_of_one_mask_share_a_wavefront():
    """ldgsts3 C_x0_*: chunk c copied to chunk c. Chunks {0, 1, 2, 5}: sector 0 whole, sector 1 low half,
    sector 2 high half: three masks, three wavefronts, though two would carry the four chunks."""
    assert counts(CG["C_x0_00100111"]) == measured("C_x0_00100111") == (3, 0)
    assert counts(CG["C_x0_11111111"]) == measured("C_x0_11111111") == (1, 0)


def test_cg_xor_bit_6_is_free():
    """ldgsts2 S2_cg16_00_26: chunks 0->0 and 2->6 (source XOR destination 0 and 64) share one wavefront."""
    assert counts(CG["S2_cg16_00_26"]) == measured("S2_cg16_00_26") == (1, 0)


def test_cg_rounds_follow_the_last_reader():
    """ldgsts3 C_twice_17: chunk 3 goes to 7 and to 5, both in half order 0: the first copy waits a round,
    so 3->7 no longer shares its sector move with 2->6 (4 wavefronts; sector moves alone say 3).
    C_twice_0: chunk 5 goes to 7 (half order 0) and to 4 (order 1): no round, 2 wavefronts."""
    assert counts(CG["C_twice_17"]) == measured("C_twice_17") == (4, 0)
    assert counts(CG["C_twice_0"]) == measured("C_twice_0") == (2, 0)
