"""``distinct.gather``: a trace's distinct rows with their weights, counted once each, stand for the whole trace.

Regression guards and model checks (no hardware): the per-row counts of the bank model (``banks.count``) are the
oracle; the grid is calibration/realk's transpose_smem_naive on 20x15 CTAs of 32x8 threads (ptxas 13.0.88's SASS),
the explanations those of tests/test_explain.py's seed traces.
"""

import attrs
import numpy as np
import pytest
from conftest import REALK, ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from simsmem.banks import count
from simsmem.cli import main
from simsmem.explain import distinct
from simsmem.explain.distinct import SOURCE_PERIOD, gather, of_trace
from simsmem.explain.instruction import choose, explain
from simsmem.kernel.tracer import trace_kernel
from simsmem.results.analysis import analyse_stream
from simsmem.traces import (
    InstructionBatch,
    Trace,
    load_trace,
    open_trace,
    stream_of,
    write_trace,
)
from strategies import FORMS, instructions

PTX, KERNEL, GRID, BLOCK = REALK / "ptx" / "transpose.ptx", "transpose_smem_naive", (20, 15, 1), (32, 8, 1)
ARGS = ["zeros:1228800", "zeros:1228800", "640", "480"]
COPIES = [f for f in FORMS if f[0] == "LDGSTS"]


def per_row(trace: Trace, sm90, chunk: int):
    """The distinct rows of ``trace`` read in chunks of ``chunk``, and the bank model's counts of every row."""
    d = gather(stream_of(trace, chunk=chunk), sm90, keep="all")
    return d, count(trace.instructions, sm90)


@settings(max_examples=25)
@given(st.lists(instructions(), min_size=1, max_size=50), st.integers(0, 8), st.integers(1, 64))
def test_distinct_rows_stand_for_every_row(sm90, instrs, repeats, chunk):
    """Rows repeated by other warps and with other timing fields: each row's counts are its distinct row's, the
    weights count the rows, and each distinct row is its first occurrence."""
    rows = [attrs.evolve(i, warp=w, delay=w % 3, issue=w) for w in range(repeats + 1) for i in instrs]
    trace = Trace(InstructionBatch.from_instructions(rows))
    d, counts = per_row(trace, sm90, chunk)
    assert d.instructions == len(rows) == int(d.weight.sum()) and np.array_equal(d.rows, np.arange(len(rows)))
    for f in attrs.fields(type(counts)):
        assert np.array_equal(getattr(d.counts, f.name)[d.ids], getattr(counts, f.name)), f.name
    assert np.array_equal(d.ids[d.first], np.arange(len(d.batch))) and len(d.batch) <= len(instrs)
    assert np.array_equal(d.batch.addrs, trace.instructions.addrs[d.first])


@settings(max_examples=25)
@given(st.lists(instructions(forms=COPIES), min_size=1, max_size=20), st.integers(1, 1000))
def test_sources_a_period_apart_count_alike(sm90, instrs, k):
    """The rule ``SOURCE_PERIOD`` rests on: cp.async rows whose sources move by a multiple of it count the same."""
    b = InstructionBatch.from_instructions(instrs)
    moved = attrs.evolve(b, src=np.where(b.src >= 0, b.src + k * SOURCE_PERIOD, b.src))
    before, after = count(b, sm90), count(moved, sm90)
    for f in attrs.fields(type(before)):
        assert np.array_equal(getattr(before, f.name), getattr(after, f.name)), f.name


def test_a_hash_collision_splits_never_merges(sm90, monkeypatch):
    """With every hash equal, the rows are still told apart by their values."""
    trace = load_trace(ROOT / "traces" / "seeds" / "trans_shm1.json")
    exact = of_trace(trace, sm90)
    monkeypatch.setattr(distinct, "_MIX", np.uint64(0))
    colliding = of_trace(trace, sm90)
    assert len(colliding.batch) == len(exact.batch) and np.array_equal(colliding.ids, exact.ids)


@pytest.fixture(scope="module")
def grid(sm90, tmp_path_factory):
    path = tmp_path_factory.mktemp("grid") / "t.npz"
    write_trace(trace_kernel(PTX, KERNEL, GRID, BLOCK, 0, ARGS).read(), path)
    return path


def test_a_grid_is_its_distinct_rows(grid, sm90):
    """300 CTAs, 19,200 rows: the counters from the distinct rows are the whole trace's; a row a warp and SASS
    instruction of one CTA; one CTA's rows kept."""
    d = gather(open_trace(grid), sm90)
    whole = analyse_stream(open_trace(grid), sm90)
    assert d.instructions == whole.instructions == 19_200
    assert len(d.batch) == 64 and len(d.rows) == 64  # 8 warps x 8 SASS instructions: the same in every CTA
    assert d.total(d.counts.bank_conflicts) == whole.metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"] == 300 * 8 * 4 * 31
    waves = sum(whole.metrics[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"] for op in ("ld", "st"))
    assert d.total(d.counts.wavefronts) == waves


def test_explain_from_distinct_rows_is_explain_from_every_row(grid, sm90):
    d, every = gather(open_trace(grid), sm90), of_trace(load_trace(grid), sm90)
    assert choose(d, None, 3) == choose(every, None, 3)
    (i, twins), = choose(d, None, 1)
    a, b = explain(d, i, twins), explain(every, i, twins)
    assert (a.diagnosis, [(f.statement, f.wavefronts) for f in a.fixes]) == (b.diagnosis, [(f.statement, f.wavefronts) for f in b.fixes])
    assert a.fixes[0].statement == "__shared__ float tile[32][33]" and a.fixes[0].wavefronts < a.fixes[0].wavefronts_now


def test_explain_any_index_of_a_later_cta(grid, sm90, capsys):
    """--index of a row of CTA 299: kept by the reading pass, explained with its own warp."""
    b = load_trace(grid).instructions
    index = int(np.flatnonzero(b.warp // 8 == 299)[-1])
    assert main(["explain", str(grid), "--index", str(index), "-q"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"instruction {index} (warp {int(b.warp[index])}): LDS:")


def test_the_fix_search_moves_a_batch_of_rows_at_a_time(sm90, monkeypatch):
    """The candidates are moved and counted a batch of rows at a time (all of them moved at once held 17 GB for 200,000
    random distinct rows), and a timed fix's rows are counted again when timed: the same fixes as in one batch."""
    from simsmem.explain import fixes
    from simsmem.explain.arrays import arrays_of

    d = of_trace(load_trace(ROOT / "traces" / "seeds" / "trans_shm1.json"), sm90)
    args = (d.batch, d.counts.wavefronts, d.counts.bank_conflicts, arrays_of(d.cta), sm90, lambda w: float(w @ np.arange(len(w))), 5, d.weight)
    whole = fixes.search(*args)
    sizes = []
    monkeypatch.setattr(fixes, "BATCH_ROWS", 128)
    monkeypatch.setattr(fixes, "count", lambda b, arch: sizes.append(len(b)) or count(b, arch))
    assert [(f.statement, f.wavefronts, f.cycles) for f in fixes.search(*args)] == [(f.statement, f.wavefronts, f.cycles) for f in whole]
    assert whole and max(sizes) == 128  # 64 rows touch the tile: two candidates a batch
