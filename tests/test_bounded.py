"""Whole grids in bounded memory: ``analyse_stream(keep="cta")`` keeps one CTA's rows (and the timed SM's), and what is
computed from them equals what the whole trace gives.

Regression guards (simsmem's own output, no hardware): calibration/realk's transpose_smem_naive (ptxas 13.0.88's SASS)
on a 20x15 grid of 32x8 threads (300 CTAs: the timed SM of 132 runs CTAs 0, 132 and 264), inputs zero.
"""

import json

import attrs
import numpy as np
import pytest
from conftest import H100, REALK
from simsmem.cli import main
from simsmem.corpus import corpus_trace, load_corpus
from simsmem.kernel.tracer import StreamSink, launch_kernel
from simsmem.results.analysis import analyse_stream, with_launch, with_timeline
from simsmem.traces import Chunk, TraceStream, open_trace, stream_of, write_trace

PTX, KERNEL, GRID, BLOCK = REALK / "ptx" / "transpose.ptx", "transpose_smem_naive", (20, 15, 1), (32, 8, 1)
ARGS = ["zeros:1228800", "zeros:1228800", "640", "480"]
LAUNCH = ["--kernel", KERNEL, "--grid", "20,15", "--block", "32,8", *(f"--arg={a}" for a in ARGS), "-q"]
WARPS = 8  # a CTA's


def traced(sm90, keep: str):
    sink = StreamSink(sm90.sm.sms)
    stream, _ = launch_kernel(PTX, KERNEL, GRID, BLOCK, 0, ARGS, sink=sink)
    result = analyse_stream(stream, sm90, keep=keep, ctas=sink.ctas if keep == "cta" else frozenset())
    return with_launch(result, sink.streams(), sink.resources, sink.code, fixes=2)


@pytest.fixture(scope="module")
def both(sm90):
    return traced(sm90, "all"), traced(sm90, "cta")


def test_the_timed_sm_gets_the_same_launch_from_its_ctas_rows(both):
    whole, kept = both
    assert kept.instructions == whole.instructions == len(whole.trace.instructions) == 300 * WARPS * 8  # 4 STS and 4 LDS a warp
    assert sorted(set((kept.trace.instructions.warp // WARPS).tolist())) == [0, 132, 264]
    assert np.array_equal(kept.rows, np.flatnonzero(np.isin(whole.trace.instructions.warp // WARPS, [0, 132, 264])))
    assert kept.metrics == whole.metrics and kept.launch.by_pc == whole.launch.by_pc
    assert [(w.pcs, w.conflicts, w.timing.metrics) for w in kept.what_if] == [(w.pcs, w.conflicts, w.timing.metrics) for w in whole.what_if]
    assert kept.what_if[0].conflicts == 300 * WARPS * 31  # one LDS (unrolled: 4 SASS instructions) a warp: 32 wavefronts, 1 ideal


def test_the_timing_engine_gets_the_same_cta(both, sm90, tmp_path):
    """A trace file of the grid: the first CTA's timeline from its rows alone, as from the whole trace."""
    whole, _ = both
    path = tmp_path / "t.npz"
    write_trace(whole.trace, path)
    kept = with_timeline(analyse_stream(open_trace(path), sm90, keep="cta"))
    every = with_timeline(analyse_stream(open_trace(path), sm90, keep="all"))
    assert kept.rows.tolist() == np.flatnonzero(whole.trace.instructions.warp < WARPS).tolist() and len(kept.rows) == WARPS * 8
    assert kept.timeline.cycles == every.timeline.cycles
    assert np.array_equal(kept.timeline.complete, every.timeline.complete)


def test_a_lower_cta_later_in_the_trace_becomes_the_first(both, sm90):
    """Chunks whose CTAs come 7, 3, 5, 0: the rows kept are CTA 0's (and those of the CTAs asked for)."""
    whole, _ = both
    b = whole.trace.instructions
    cta = b.warp // WARPS
    chunks = [Chunk(b.take(np.flatnonzero(cta == c)), 0, 0) for c in (7, 3, 5, 0)]
    chunks = [attrs.evolve(c, first=k * WARPS * 8) for k, c in enumerate(chunks)]
    stream = TraceStream("t", whole.name, None, 1, 0, iter(chunks), kernel=whole.kernel)
    kept = analyse_stream(stream, sm90, keep="cta", ctas=frozenset({5}))
    assert sorted(set((kept.trace.instructions.warp // WARPS).tolist())) == [0, 5]
    assert kept.rows.tolist() == list(range(2 * WARPS * 8, 4 * WARPS * 8))


def test_json_of_a_traced_kernel_is_per_sass_instruction(both, capsys):
    """The grid's executions, wavefronts and conflicts of each of the kernel's 8 shared-memory SASS instructions."""
    whole, _ = both
    assert main(["run", str(PTX), *LAUNCH, "--format", "json", "--engine", "analytic"]) == 0
    rows = json.loads(capsys.readouterr().out)["instructions"]
    assert [(r["pc"], r["executed"], r["wavefronts"], r["bank_conflicts"]) for r in rows] == [
        (pc, *whole.by_pc[pc][:2], whole.by_pc[pc][3]) for pc in sorted(whole.by_pc)]
    assert len(rows) == 8 and all(r["sass"].startswith(("LDS", "STS")) and r["line"].startswith("transpose.ptx:") for r in rows)


def test_keep_cta_of_a_trace_of_one_cta_is_all_of_it(sm90):
    trace = corpus_trace(load_corpus(H100 / "instructions.json")[:10])
    kept = analyse_stream(stream_of(trace, chunk=3), sm90, keep="cta")
    assert kept.rows is None and len(kept.trace.instructions) == 10


def test_fix_timing_from_distinct_rows_is_the_whole_traces(sm90):
    """explain's timing of a kernel (``fixes.distinct_timing``: wavefronts per distinct row, through the kept CTAs'
    rows) gives the timed SM's cycles of the whole trace's rows: as traced, and with every row at its ideal."""
    from simsmem.explain.distinct import gather
    from simsmem.explain.fixes import cycles_of, distinct_timing, launch_timing

    sink = StreamSink(sm90.sm.sms)
    stream, _ = launch_kernel(PTX, KERNEL, GRID, BLOCK, 0, ARGS, sink=sink)
    d = gather(stream, sm90, ctas=sink.ctas)
    timing = cycles_of(distinct_timing(d, sink.streams(), sink.resources, sink.code))
    sink_all = StreamSink(sm90.sm.sms)
    stream, _ = launch_kernel(PTX, KERNEL, GRID, BLOCK, 0, ARGS, sink=sink_all)
    whole = analyse_stream(stream, sm90, keep="all")
    every = cycles_of(launch_timing(sink_all.streams(), whole.trace.instructions, sm90, sink_all.resources, sink_all.code))
    assert len(d.batch) == 64 and len(d.rows) == 3 * WARPS * 8
    assert timing(d.counts.wavefronts) == every(whole.counts.wavefronts)
    assert timing(d.counts.ideal) == every(whole.counts.ideal) < timing(d.counts.wavefronts)
