"""``simsmem.explain.instruction``: conflicts read off the reference model's wavefronts, the one-line diagnosis, and
fixes found through the model, checked against what the H100 measured for the fixed layouts.

Provenance: calibration/h100/seed_kernels.json (H100 80GB HBM3, Nsight Compute 2025.3.1): kernel totals
of the seed kernels; traces/seeds/*.json are those kernels as traces; calibration/h100/instructions.json
for single instructions.
"""

import numpy as np
import orjson
import pytest
from conftest import H100, ROOT
from hypothesis import given
from rich.console import Console
from simsmem.banks import count, schedule
from simsmem.corpus import corpus_trace, load_corpus
from simsmem.errors import SimsmemError
from simsmem.explain.arrays import arrays_of
from simsmem.explain.distinct import of_trace
from simsmem.explain.fixes import search
from simsmem.explain.instruction import (
    choose,
    conflicts_of,
    explain,
    print_explanation,
    ranges,
)
from simsmem.traces import Instruction, InstructionBatch, Trace, load_trace
from strategies import instructions

ROWS = {r["name"]: r for r in load_corpus(H100 / "instructions.json")}
MEASURED = {k["kernel"].split("(")[0]: k["ncu"] for k in orjson.loads((H100 / "seed_kernels.json").read_bytes())["kernels"]}
CONFLICTS = ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")


def seed(name, sm90):
    return of_trace(load_trace(ROOT / "traces" / "seeds" / f"{name}.json"), sm90)


def test_ldsm_x4_diagnosis_names_rows_banks_and_fixes(sm90):
    """The seed's ldmatrix.x4 of an unswizzled 16x16 half tile (H100 row LDSM4_seed_v2: 8 wavefronts, 4 conflicts).
    The fixes' wording is a regression guard: a generated trace names no array, so the tile is ``tile``, 1-D (its
    16 rows of 32 bytes are contiguous), padded 8 halves per 64 (the least memory of the paddings that fix it)."""
    result = of_trace(load_trace(ROOT / "traces" / "ldsm_x4.json"), sm90)
    ex = explain(result, 0)
    assert (len(ex.schedule.wavefronts), ex.schedule.bank_conflicts) == (8, 4)
    assert ex.diagnosis == (
        "2-way conflict in each 8x8 matrix: rows 0-3 and 4-7 use the same banks (0-3, 8-11, 16-19, 24-27 in 8x8 matrix 0)"
        " -> tile[256]: tile[i + i / 64 * 8]; __shared__ half tile[280] (8 -> 4 wavefronts)"
    )
    assert [(c.group, c.extra) for c in ex.conflicts] == [(0, 1), (1, 1), (2, 1), (3, 1)]
    assert [(f.change.kind, f.wavefronts) for f in ex.fixes] == [("padding", 4), ("swizzle", 4)] and ex.after == (0, 0)
    assert ex.fixes[1].statement == "tile[i ^ (((i >> 6) & 1) << 3)]"  # CuTe Swizzle<1,3,3> on half offsets


@pytest.mark.parametrize(
    "broken, index, kind, statement, fixed",
    [
        # v5 is v4 with CuTe Swizzle<1,3,3> on the half offsets of each tile (seed 004's swizzle<3,1,3>)
        ("v4_mma", 2, "swizzle", "tile[i ^ (((i >> 6) & 1) << 3)]", "v5_mma_swizzle"),
        # trans_pad is trans_shm1 with s_data[32][33]
        ("trans_shm1", 32, "declaration", "__shared__ float tile[32][33]", "trans_pad"),
        # trans_swizzle is trans_shm2 with s_data[x][x ^ y] on ints
        ("trans_shm2", 0, "swizzle", "tile[row][col ^ (row & 31)]", "trans_swizzle"),
    ],
)
def test_the_fix_found_is_what_the_h100_measured_conflict_free(broken, index, kind, statement, fixed, sm90):
    """The stated change, applied to each conflicting array of the broken kernel's trace, gives exactly the fixed
    kernel's trace, which the H100 measured with no bank conflicts, and the model agrees."""
    result = seed(broken, sm90)
    (i, _), = choose(result, None, 1)
    assert i == index
    found = [f for f in search(result.batch, result.counts.wavefronts, result.counts.bank_conflicts, arrays_of(result.cta), sm90,
                               top=10, weight=result.weight) if f.change.kind == kind]
    assert statement in [f.statement for f in found]
    assert statement in [f.statement for f in explain(result, i).fixes]
    moved = result.cta.instructions
    for f in found:  # one per array
        moved = f.apply(moved)
    assert np.array_equal(moved.addrs, load_trace(ROOT / "traces" / "seeds" / f"{fixed}.json").instructions.addrs)
    assert int(count(moved, sm90).bank_conflicts.sum()) == 0 and all(MEASURED[fixed][c] == 0 for c in CONFLICTS)
    assert sum(MEASURED[broken][c] for c in CONFLICTS) == result.total(result.counts.bank_conflicts) * result.cta.ctas > 0


@pytest.mark.parametrize("name", ["v3_wmma_padding", "v4_mma", "trans_shm1", "trans_shm2", "v2_wmma"])
def test_only_changes_that_lower_the_kernel_are_fixes(name, sm90):
    """Every fix listed for the seeds' conflicting patterns lowers the whole kernel's wavefronts, and the list goes
    from the fewest up (none of them 'N -> N')."""
    result = seed(name, sm90)
    now = result.total(result.counts.wavefronts)
    for i, _ in choose(result, None, 5):
        waves = [f.wavefronts for f in explain(result, i).fixes]
        assert all(w < now for w in waves) and waves == sorted(waves)


def test_no_fix_found_is_said(sm90):
    """v3's padded 128-bit stores: lanes 1 and 6 share banks 4-7; no change of their tile lowers the kernel's
    wavefronts (a swizzle that frees this store costs the rest of the trace more)."""
    ex = explain(seed("v3_wmma_padding", sm90), 0)
    assert ex.diagnosis == (
        "2-way conflict in each quarter-warp, e.g. lanes 1 and 6 use the same banks (4-7 in quarter-warp 0)"
        " -> no padding or swizzle of tile lowers the kernel's wavefronts"
    )
    assert ex.fixes == ()


def test_column_read_of_a_float_tile(sm90):
    """H100 row LDS32_stride32: 32 lanes, one bank, 32 wavefronts (31 conflicts)."""
    result = of_trace(corpus_trace([ROWS["LDS32_stride32"]]), sm90)
    ex = explain(result, 0)
    assert ex.schedule.bank_conflicts == ROWS["LDS32_stride32"]["ncu"][CONFLICTS[0]] == 31
    assert ex.diagnosis.startswith("32-way conflict in the warp: lanes 0-31 (one per wavefront) use the same bank (0) -> ")


def test_atomics_on_one_word_serialize_and_cannot_be_fixed_by_layout(sm90):
    """H100 row ATOMS32_stride0: every lane adds to one word: 32 wavefronts."""
    result = of_trace(corpus_trace([ROWS["ATOMS32_stride0"]]), sm90)
    ex = explain(result, 0)
    assert len(ex.schedule.wavefronts) == ROWS["ATOMS32_stride0"]["ncu"]["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"] == 32
    assert "lanes updating one word serialize (no broadcast)" in ex.diagnosis
    assert ex.diagnosis.endswith("-> no padding or swizzle of tile lowers the kernel's wavefronts")


def test_halves_of_a_64_bit_load(sm90):
    """H100 row LDS64_stride2 (8-byte lanes 16 bytes apart): the two half-warps cannot share a wavefront."""
    row = ROWS["LDS64_stride2"]
    ex = explain(of_trace(corpus_trace([row]), sm90), 0)
    assert ex.schedule.bank_conflicts == row["ncu"][CONFLICTS[0]]
    assert ex.diagnosis.startswith(f"{len(ex.conflicts[0].lanes)}-way conflict in ")


@pytest.mark.parametrize("row", list(ROWS.values()), ids=list(ROWS))
def test_conflict_groups_account_for_every_bank_conflict(row, sm90):
    """Over the whole H100 corpus: the groups' extra wavefronts add up to ncu's bank conflicts."""
    s = schedule(corpus_trace([row]).instructions[0], sm90)
    assert sum(c.extra for c in conflicts_of(s)) == s.bank_conflicts


@given(instructions())
def test_fixes_are_counted_honestly(sm90, ins):
    """Each fix's counts are what the reference model gives for the moved instruction (the whole trace here), and
    they lower the kernel's wavefronts."""
    result = of_trace(Trace(InstructionBatch.from_instructions([ins])), sm90)
    ex = explain(result, 0)
    if not (ins.bypass and ins.zeroed):  # a .cg copy's zero-filled lanes: its conflicts are not its groups' (bank model, rule 6)
        assert sum(c.extra for c in ex.conflicts) == ex.schedule.bank_conflicts
    for f, after in zip(ex.fixes, ex.after):
        served = schedule(f.apply(result.cta.instructions)[0], sm90)
        assert (len(served.wavefronts), served.bank_conflicts) == (f.wavefronts, f.bank_conflicts) == (f.wavefronts, after)
        assert f.wavefronts < len(ex.schedule.wavefronts)


def test_worst_picks_distinct_patterns_and_counts_shifted_twins(sm90):
    """trans_shm1: 32 conflict-free stores, then 32 loads with one pattern shifted by a word per warp."""
    result = seed("trans_shm1", sm90)
    assert choose(result, None, 5) == [(32, 31)]
    assert choose(result, 0, 1) == [(0, 31)]
    assert choose(seed("trans_pad", sm90), None, 3) == []  # no conflicts at all


@pytest.mark.parametrize("index, worst, message", [(64, 1, "--index: no instruction 64: the trace has 64 (0..63)"), (None, 0, "--worst: expected a positive count, got 0")])
def test_bad_choices(index, worst, message, sm90):
    with pytest.raises(SimsmemError) as e:
        choose(seed("trans_shm1", sm90), index, worst)
    assert str(e.value) == message


def test_terminal_view_lists_banks_lanes_and_addresses(sm90):
    result = of_trace(load_trace(ROOT / "traces" / "ldsm_x4.json"), sm90)
    console = Console(record=True, width=140)
    print_explanation(explain(result, 0), console)
    text = console.export_text()
    # banks 0-3 serve rows 0 (W0, byte 0), 4 (W1, byte 0x80) of matrix 0, rows 8 and 12 in matrix 1
    row = next(line for line in text.splitlines() if line.startswith("│  0-3"))
    assert [c.strip() for c in row.split("│")[2:6]] == ["L0", "L4", "L8", "L12"]
    assert "0x0080" in text and "W7" in text and "diagnosis: 2-way conflict" in text
    assert "tile[i + i / 64 * 8]; __shared__ half tile[280]: 8 -> 4 wavefronts; this instruction 4 -> 0 bank conflicts" in text


def test_terminal_view_marks_broadcast_and_merges_lane_runs(sm90):
    """All 32 lanes on word 0 (H100 row LDS32_stride0: one wavefront), then lanes 0-31 on words 0-31."""
    same = Instruction(op="LDS", width=32, addrs=(0,) * 32)
    spread = Instruction(op="LDS", width=32, addrs=tuple(range(0, 128, 4)))
    result = of_trace(Trace(InstructionBatch.from_instructions([same, spread])), sm90)
    console = Console(record=True, width=140)
    print_explanation(explain(result, 0), console)
    print_explanation(explain(result, 1), console)
    text = console.export_text()
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in text.splitlines() if line.startswith("│")]
    assert ["0", "L0-31*"] in cells  # broadcast: 32 lanes share the word of bank 0
    assert ["0-31", "L0-31"] in cells  # lane k on bank k: one row
    assert text.count("no bank conflicts: 1 wavefront, as ideal") == 2


def test_ranges():
    assert ranges([3, 0, 1, 2, 8, 9, 11]) == "0-3, 8-9, 11"
    assert ranges([]) == ""
