"""The LDGSTS .ca rule (calibration/harness/rule_ldgsts.py) against every LDGSTS row of the v2 H100 corpora.

Provenance: calibration/h100/{instructions_v2,followup,holdout,holdout2}.json (runs 2026-11-22-design,
-followup, -holdout2), counters smsp__sass_l1tex_*_op_ldgsts; RULES_v2.md section "LDGSTS (cp.async)".
"""

import sys

from conftest import H100, ROOT
from simsmem.corpus import load_corpus

sys.path.insert(0, str(ROOT / "calibration"))
from harness.rule_ldgsts import CONFLICTS, WAVEFRONTS, counts  # noqa: E402

ROWS = {r["name"]: r for n in ("instructions_v2", "followup", "holdout", "holdout2") for r in load_corpus(H100 / f"{n}.json") if r["sass"].startswith("LDGSTS")}


def test_every_claimed_row_is_exact():
    claimed = {name: counts(r) for name, r in ROWS.items() if counts(r) is not None}
    assert len(ROWS) == 292 and len(claimed) == 118  # 94 designed + 24 random of the 202 .ca rows
    assert sum(name.startswith(("R_", "F_", "H_", "H2_")) for name in claimed) == 24
    assert all(c == (ROWS[n]["ncu"][WAVEFRONTS], ROWS[n]["ncu"][CONFLICTS]) for n, c in claimed.items())


def test_what_is_not_claimed():
    assert counts(ROWS["ldgsts_cg16_dst_lin_src_lin"]) is None  # .cg (BYPASS): not modelled
    # holdout2.json: sources share positions and destinations share banks; measured 6, max rule 4
    assert counts(ROWS["H2_ldgsts_ca4_0"]) is None and ROWS["H2_ldgsts_ca4_0"]["ncu"][WAVEFRONTS] == 6


def test_named_rows():
    assert counts(ROWS["ldgsts_ca4_dst_lin_src_line_each"]) == (32, 31)  # instructions_v2: 32 lines, one position
    assert counts(ROWS["ldgsts_ca4_dst_lin_src_lin_plus32"]) == (1, 0)  # two lines, distinct positions
