"""Every row of the H100 corpus, replayed through the model: counts must equal ncu's exactly.

Provenance: calibration/h100/instructions.json — H100 80GB HBM3, Nsight Compute 2025.3.1, CUDA 13.0,
one warp executing one shared-memory instruction per launch (310 launches).
"""

import pytest
from conftest import H100
from simsmem.banks import schedule
from simsmem.config import BANK_CONFLICTS, WAVEFRONTS
from simsmem.corpus import corpus_trace, load_corpus, row_instruction
from simsmem.results.analysis import analyse

ROWS = load_corpus(H100 / "instructions.json")
COUNTERS = ("ld", "st", "atom")
INSTRUCTION_COUNTERS = (
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "smsp__inst_executed_op_shared_atom.sum",
    "smsp__inst_executed_op_ldsm.sum",
    "smsp__inst_executed_op_shared_stsm.sum",
)


@pytest.fixture(scope="module")
def results(sm90):
    """Each row counted alone (its own one-instruction trace), vectorised model."""
    return {r["name"]: analyse(corpus_trace([r], r["name"]), sm90) for r in ROWS}


def test_corpus_is_whole():
    assert len(ROWS) == 310
    assert len({r["name"] for r in ROWS}) == 310


@pytest.mark.parametrize("row", ROWS, ids=[r["name"] for r in ROWS])
def test_row_matches_ncu(row, results):
    metrics = results[row["name"]].metrics
    for c in COUNTERS:
        assert metrics[WAVEFRONTS.format(c)] == row["ncu"][WAVEFRONTS.format(c)], f"wavefronts op_{c}"
        assert metrics[BANK_CONFLICTS.format(c)] == row["ncu"][BANK_CONFLICTS.format(c)], f"bank conflicts op_{c}"
    for name in INSTRUCTION_COUNTERS:
        assert metrics[name] == row["ncu"][name], name
    assert metrics["smsp__sass_data_bytes_mem_shared.sum"] == row["ncu"]["smsp__sass_data_bytes_mem_shared.sum"]


@pytest.mark.parametrize("row", ROWS, ids=[r["name"] for r in ROWS])
def test_reference_model_matches_ncu(row, sm90):
    s = schedule(row_instruction(row), sm90)
    n = row["ncu"]
    assert len(s.wavefronts) == sum(n[WAVEFRONTS.format(c)] for c in COUNTERS)
    assert s.bank_conflicts == sum(n[BANK_CONFLICTS.format(c)] for c in COUNTERS)


def test_whole_corpus_as_one_trace(sm90):
    """Counting all rows together (one vectorised pass) gives the per-row sums."""
    result = analyse(corpus_trace(ROWS), sm90)
    for c in COUNTERS:
        assert result.metrics[WAVEFRONTS.format(c)] == sum(r["ncu"][WAVEFRONTS.format(c)] for r in ROWS)
        assert result.metrics[BANK_CONFLICTS.format(c)] == sum(r["ncu"][BANK_CONFLICTS.format(c)] for r in ROWS)
