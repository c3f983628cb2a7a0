"""One pass over a trace, one result: each chunk checked against the arch (``validate``), counted
(``banks.count``) and added to a ``Result``.

The result holds the kernel's ncu metrics, totals per SASS form, the instructions with the most bank
conflicts and, for a traced kernel, totals per SASS instruction: a trace of any length is counted
in the memory of one chunk. ``keep`` also keeps some rows whole, with their counts: one CTA's (``"cta"``: what the
timing engine, the timed SM and the shared arrays need, in the memory of a CTA whatever the grid), or all of them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import attrs
import numpy as np

from ..banks import Counts, count, loaded
from ..config import ArchConfig
from ..engine import Timeline, simulate
from ..errors import SimsmemError
from ..progress import noting
from ..sm import LaunchTiming, WhatIf, time_launch, what_if
from ..traces import InstructionBatch, Trace, TraceStream, stream_of
from ..traces.records import IS_LANES, launch_of
from ..traces.stream import Chunk, Piece
from .kept import Kept, warps_per_cta
from .metrics import (BANK_READS, BANK_WRITES, INST_EXECUTED, bank_unknown, bank_unmodelled, bank_words, instructions, kernel_metrics, labels,
                      settled, unmodelled, with_kernel_counters, with_total)
from .validate import check_against_arch


@attrs.frozen
class Worst:
    """One of the instructions with the most bank conflicts."""

    index: int
    warp: int
    sass: str
    wavefronts: int
    ideal: int
    bank_conflicts: int


@attrs.frozen(eq=False)
class Result:
    """What a trace gives on an arch: its kernel metrics, totals and worst instructions; every instruction and its
    counts where kept; the timing engine's timeline where simulated (``with_timeline``)."""

    name: str
    arch: ArchConfig
    ctas: int
    instructions: int  # in the trace (one CTA)
    warps: int  # the highest warp number + 1 (0: no instructions)
    metrics: dict[str, int]  # kernel totals: all CTAs; not those of ``unmodelled``
    forms: dict[str, tuple[int, int, int, int]]  # SASS form: instructions, wavefronts, ideal wavefronts, bank conflicts (one CTA)
    worst: tuple[Worst, ...]  # most bank conflicts first (ties: trace order); only those with conflicts
    #: traced kernels: per SASS instruction (its offset): instructions, wavefronts, ideal wavefronts, bank conflicts (all CTAs)
    by_pc: dict[int, tuple[int, int, int, int]] = attrs.field(factory=dict)
    kernel: dict | None = None  # the trace header's ``kernel`` object
    notes: tuple[str, ...] = ()  # what the reader left out
    trace: Trace | None = None  # the rows kept (``keep``)
    counts: Counts | None = None  # their counts
    rows: np.ndarray | None = None  # their indices in the trace (None: every row was kept)
    timeline: Timeline | None = None  # issue and completion cycles of one CTA (``with_timeline``)
    timed: np.ndarray | None = None  # the kept rows the timeline covers (a traced kernel: its first CTA's); None: all
    launch: LaunchTiming | None = None  # a traced kernel's whole launch on the timed SM (``with_launch``)
    what_if: tuple[WhatIf, ...] = ()  # the launch again with some instructions' bank conflicts removed (``with_launch``)

    @property
    def shape(self) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """The launch's grid and block: a traced kernel's own, else the trace's CTAs (in x) of its warps' threads (in x)."""
        return launch_of(self.kernel) or ((self.ctas, 1, 1), (max(self.warps, 1) * self.arch.warp_size, 1, 1))
    unmodelled: dict[str, str] = attrs.field(factory=dict)  # counters of ncu's this trace leaves unknown, and why (``metrics.unmodelled``)


#: What a bar says while the first count of a process loads the counting loop (measured: docs/performance.md).
COMPILING = "loading the counting model; numba compiles it on a machine's first run, about 5 s"


def analyse_stream(stream: TraceStream, arch: ArchConfig, *, keep: str = "none", ctas: frozenset[int] = frozenset(), worst: int = 10,
                   advance: Callable[[int], None] | None = None, spread: Spread | None = None) -> Result:
    """Check and count ``stream`` chunk by chunk into one result; ``keep`` (``kept.KEEP``): also keep rows whole with their
    counts: ``"cta"``, a traced kernel's first traced CTA's and those of ``ctas`` (linear CTA indices; a trace that is
    not a traced kernel's is one CTA: all of it), or ``"all"``; ``worst``: how many of the worst instructions to
    list; ``advance`` gets the bytes of the file read as it goes. ``spread``: read and count the stream's pieces with
    it (on workers), where the reader hands them out and few rows are kept (``keep`` "none", or a traced kernel's CTAs):
    the same result."""
    if worst < 1:
        raise SimsmemError("--worst", f"expected a positive count, got {worst}")
    sums = _Sums(arch, stream.ctas, worst, stream.kernel)
    kept = Kept(keep, warps_per_cta(stream.kernel), ctas)
    counting = Counting(arch, stream.where, stream.first_line, stream.ctas, worst, stream.kernel, keep, ctas)
    apart = spread is not None and stream.pieces is not None and (keep == "none" or kept.warps is not None and keep == "cta")
    done = 0
    for part in spread(count_piece, stream.pieces, counting) if apart else map(counting.chunk, stream.chunks):
        sums.merge(part.sums)
        for rows, b, values in part.kept:
            kept.take(rows, b, values)
        if advance is not None:
            advance(part.done - done)
            done = part.done
    whole = {}
    if keep != "none":
        batch, rows, values = kept.whole()
        whole = {"trace": Trace(batch, stream.name, stream.arch, stream.ctas, stream.kernel), "counts": Counts(*values) if values else count(batch, arch),
                 "rows": None if len(rows) == sums.total else rows}
    why = bank_unknown(stream.kernel, arch)
    unknown = {**settled(sums.unmodelled, stream.kernel), **(dict.fromkeys((BANK_READS, BANK_WRITES), why) if why else {})}
    words = bank_words(sums.bank_words, stream.kernel, arch)
    metrics, unknown = with_total({**with_kernel_counters(sums.metrics, stream.kernel), **words}, unknown, stream.kernel, arch)
    return Result(stream.name, arch, stream.ctas, sums.total, sums.warps, metrics,
                  {k: tuple(int(x) for x in v) for k, v in sorted(sums.forms.items())}, tuple(sums.top),
                  {pc: tuple(int(x) for x in v) for pc, v in sorted(sums.by_pc.items())}, stream.kernel, tuple(stream.notes), **whole,
                  unmodelled=unknown)


#: ``work(shared, item)`` over ``items`` on workers, the results in the items' order (``scale.parallel.ordered``).
Spread = Callable[[Callable, Iterator, object], Iterator]


@attrs.frozen(eq=False)
class Counted:
    """One chunk checked against its arch and counted: its totals, the rows of it kept (``Kept.parts``), and the bytes
    of the file read once it was."""

    sums: _Sums
    kept: list
    done: int


@attrs.frozen(eq=False)
class Counting:
    """How every chunk of a stream is checked, counted and kept (sent to each worker once)."""

    arch: ArchConfig
    where: str
    first_line: int | None
    ctas: int
    worst: int
    kernel: dict | None
    keep: str
    kept_ctas: frozenset[int]

    def chunk(self, chunk: Chunk) -> Counted:
        """``chunk`` checked against the arch (errors name its file lines), counted, added up and its rows kept."""
        b = chunk.instructions
        check_against_arch(b, self.arch, self.where, chunk.first, self.first_line)
        with contextlib.nullcontext() if loaded() else noting(COMPILING):
            counts = count(b, self.arch)
        sums = _Sums(self.arch, self.ctas, self.worst, self.kernel)
        sums.add(b, counts, chunk.first)
        kept = Kept(self.keep, warps_per_cta(self.kernel), self.kept_ctas)
        kept.add(b, chunk.first, *(getattr(counts, f.name) for f in attrs.fields(Counts)))
        return Counted(sums, kept.parts, chunk.done)


def count_piece(counting: Counting, piece: Piece) -> Counted:
    """A piece of a stream read, checked and counted (a worker's task)."""
    return counting.chunk(piece.chunk())


def analyse(trace: Trace, arch: ArchConfig) -> Result:
    """A whole trace in memory, checked, counted and kept (``analyse_stream`` of it)."""
    return analyse_stream(stream_of(trace), arch, keep="all")


def first_cta_rows(trace: Trace) -> np.ndarray | None:
    """A traced kernel's rows of its first traced CTA; None for other traces, whose instructions are one CTA's."""
    warps = warps_per_cta(trace.kernel)
    if warps is None or not trace.instructions.warp.size:
        return None
    first = int(trace.instructions.warp.min()) // warps
    return np.flatnonzero(trace.instructions.warp // warps == first)


def with_timeline(result: Result, advance: Callable[[int], None] | None = None) -> Result:
    """``result`` (kept) and the timing engine's timeline of one CTA of its trace (``advance``: issued instructions);
    for a traced kernel, its first traced CTA's."""
    if result.trace is None or result.counts is None:
        raise ValueError("the timing engine needs a CTA's rows: analyse_stream(..., keep='cta')")
    rows = first_cta_rows(result.trace)
    b, counts = result.trace.instructions, result.counts
    if rows is not None or not IS_LANES[b.op].all():
        rows = _with_lanes(b, np.arange(len(b)) if rows is None else rows)
        b, counts = _lanes_only(b.take(rows), rows, b), Counts(*(getattr(counts, f.name)[rows] for f in attrs.fields(Counts)))
    return attrs.evolve(result, timeline=simulate(b, counts, result.arch, advance=advance), timed=rows)


def with_launch(result: Result, streams, resources: dict[str, int], code: dict[int, dict[str, str]] | None = None, fixes: int = 0,
                sampling: bool = False) -> Result:
    """``result`` (kept, of a traced kernel) with its launch timed on the SM (``simsmem.sm``): ``streams``, the warp
    streams of one SM's CTAs that the tracer kept, and the kernel's ``resources``; the launch's counters join the
    metrics. ``fixes``: also time the launch with the bank conflicts of each of the ``fixes`` SASS instructions with
    the most removed, one at a time, then with every instruction's removed; ``sampling``: also the warp states ncu's
    sampler would take (``LaunchTiming.samples``)."""
    if result.trace is None or result.counts is None:
        raise ValueError("the timed SM needs its CTAs' rows: analyse_stream(..., keep='cta', ctas=the sink's CTAs)")
    b, counts = result.trace.instructions, result.counts
    streams = renumbered(streams, result.rows)
    launch = time_launch(streams, b, counts.wavefronts, result.arch, resources, code, sampling)
    conflicting = [pc for pc, (_, _, _, conflicts) in sorted(result.by_pc.items(), key=lambda kv: -kv[1][3]) if conflicts]
    sets = [(pc,) for pc in conflicting[:fixes]] + ([tuple(conflicting)] if fixes and len(conflicting) > 1 else [])
    # the conflicts each removes: the whole grid's, from the totals per SASS instruction (the kept rows are some CTAs')
    fixed = tuple(attrs.evolve(what_if(streams, b, counts.wavefronts, counts.ideal, result.arch, resources, pcs),
                               conflicts=sum(result.by_pc[pc][1] - result.by_pc[pc][2] for pc in pcs)) for pcs in sets)
    metrics = {**result.metrics, **launch.metrics}
    for name in CLASHING:  # the timing-dependent store wavefronts: counted as wavefronts and as bank conflicts
        if name in metrics:
            metrics[name] += launch.store_clashes
    if INST_EXECUTED in metrics:  # the spin loops' further trips (setmaxnreg, try_wait), which the trace's execution has not
        metrics[INST_EXECUTED] += launch.spins
    return attrs.evolve(result, launch=launch, what_if=fixed, metrics=metrics, notes=result.notes + tuple(f"timed SM: {n}" for n in launch.run.notes))


def renumbered(streams, rows: np.ndarray | None):
    """``streams`` (``kernel.streams.WarpStreams``) with each trace row it names as its position among the kept
    ``rows`` (None: every row was kept; each named row must be among them)."""
    if rows is None:
        return streams
    at = tuple(np.searchsorted(rows, r) for r in streams.rows)
    if not all(np.array_equal(rows[np.minimum(a, len(rows) - 1)][r >= 0], r[r >= 0]) for a, r in zip(at, streams.rows)):
        raise ValueError("the timed SM's rows were not kept: analyse_stream(..., keep='cta', ctas=the sink's CTAs)")
    return attrs.evolve(streams, rows=tuple(np.where(r >= 0, a, -1) for a, r in zip(at, streams.rows)))


#: The counters a .cg copy writing beside shared stores adds to (calibration/realk/runs/2026-11-29-variance).
CLASHING = (*(f"l1tex__data_{kind}_mem_shared{op}.sum" for kind in ("pipe_lsu_wavefronts", "bank_conflicts_pipe_lsu") for op in ("_op_st", "")),
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum")


def _with_lanes(b: InstructionBatch, rows: np.ndarray) -> np.ndarray:
    """The ``rows`` of instructions with lanes: the engine models the LSU, not a wgmma's or a copy's own path."""
    return rows[IS_LANES[b.op[rows]]]


def _lanes_only(kept: InstructionBatch, rows: np.ndarray, b: InstructionBatch) -> InstructionBatch:
    """``kept`` (``b``'s ``rows``, all with lanes) with each block op left out counted as one of the other instructions its
    warp issues before its next kept one (with the others the block op's own ``issue`` counts)."""
    block = np.flatnonzero(~IS_LANES[b.op])
    block = block[np.isin(b.warp[block], kept.warp)]
    if not len(block):
        return kept
    extra = np.zeros(len(rows), dtype=np.int64)
    for warp in np.unique(b.warp[block]):
        mine = rows[b.warp[rows] == warp]
        at = np.searchsorted(mine, block[b.warp[block] == warp])  # the warp's next kept row after each block op
        inside = at < len(mine)
        np.add.at(extra, np.searchsorted(rows, mine[at[inside]]), b.issue[block[b.warp[block] == warp][inside]] + 1)
    return attrs.evolve(kept, issue=(kept.issue + extra).astype(kept.issue.dtype))


def _grouped(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``values``, sorted, and the index among them of each value (``np.unique``'s, without its sort of
    every row: a chunk holds few forms and SASS instructions)."""
    keys = np.unique(values)
    return keys, np.searchsorted(keys, values)


class _Sums:
    """What ``analyse_stream`` adds up chunk by chunk."""

    def __init__(self, arch: ArchConfig, ctas: int, worst: int, kernel: dict | None) -> None:
        self.arch, self.ctas, self.worst, self.kernel = arch, ctas, worst, kernel
        self.unmodelled: dict[str, str] = {}
        empty = InstructionBatch.empty()
        self.metrics = kernel_metrics(Trace(empty), count(empty, arch), arch)  # every counter, at zero
        self.forms: dict[str, np.ndarray] = {}
        self.by_pc: dict[int, np.ndarray] = {}
        self.top: list[Worst] = []
        self.total = self.warps = 0
        self.bank_words: dict[int, np.ndarray] = {}  # a traced kernel's CTAs: linear CTA -> bank words [read, written]

    def __getstate__(self) -> dict:  # (back from a worker: the totals; the arch and kernel stay with the caller)
        return {k: v for k, v in vars(self).items() if k not in ("arch", "kernel")}

    def merge(self, other: _Sums) -> None:
        """Add the totals of another's chunks (counted apart, in trace order after this one's), as ``add`` would have."""
        for name, value in other.metrics.items():
            self.metrics[name] += value
        self.unmodelled.update(other.unmodelled)
        for label, sums in other.forms.items():
            self.forms[label] = self.forms.get(label, np.zeros(4, dtype=np.int64)) + sums
        for pc, sums in other.by_pc.items():
            self.by_pc[pc] = self.by_pc.get(pc, np.zeros(4, dtype=np.int64)) + sums
        self.top = sorted(self.top + other.top, key=lambda w: (-w.bank_conflicts, w.index))[: self.worst]
        for cta, words in other.bank_words.items():
            self.bank_words[cta] = self.bank_words.get(cta, 0) + words
        self.total += other.total
        self.warps = max(self.warps, other.warps)

    def add(self, b: InstructionBatch, counts: Counts, first: int) -> None:
        """Add the instructions ``b`` (trace indices ``first``...) and their counts."""
        for name, value in kernel_metrics(Trace(b, ctas=self.ctas), counts, self.arch).items():
            self.metrics[name] += value
        self.unmodelled.update(unmodelled(b, self.kernel, self.arch))
        self.unmodelled.update(bank_unmodelled(b, counts, self.kernel))
        wpc = warps_per_cta(self.kernel)
        if wpc is not None and len(b):
            ctas, which = np.unique(b.warp // wpc, return_inverse=True)
            words = np.stack([np.bincount(which, weights=w, minlength=len(ctas)) for w in (counts.bank_reads, counts.bank_writes)], axis=1)
            for cta, w in zip(ctas.tolist(), words.astype(np.int64)):
                self.bank_words[cta] = self.bank_words.get(cta, 0) + w
        per_row = (instructions(b, self.arch), counts.wavefronts, counts.ideal, counts.bank_conflicts)
        # the SASS form of each row, labelled once per distinct form (``forms()``: every field a label depends on)
        keys, which = _grouped(b.forms())
        firsts = np.full(len(keys), len(b))
        np.minimum.at(firsts, which, np.arange(len(b)))
        sums = [np.bincount(which, weights=w, minlength=len(keys)) for w in per_row]
        for i, label in enumerate(labels(b.take(firsts))):
            self.forms[label] = self.forms.get(label, np.zeros(4, dtype=np.int64)) + np.array([int(s[i]) for s in sums])
        placed = np.flatnonzero(b.pc >= 0)
        if len(placed):
            pcs, which = _grouped(b.pc[placed])
            sums = [np.bincount(which, weights=w[placed], minlength=len(pcs)) for w in per_row]
            for k, pc in enumerate(pcs.tolist()):
                self.by_pc[pc] = self.by_pc.get(pc, np.zeros(4, dtype=np.int64)) + np.array([int(s[k]) for s in sums]) * self.ctas
        rows = np.flatnonzero(counts.bank_conflicts > 0)
        if len(rows) > self.worst:  # those with at least the conflicts of the worst-th most, then sorted
            conflicts = counts.bank_conflicts[rows]
            rows = rows[conflicts >= np.partition(conflicts, len(rows) - self.worst)[len(rows) - self.worst]]
        rows = rows[np.argsort(-counts.bank_conflicts[rows], kind="stable")[: self.worst]]
        self.top += [Worst(first + int(i), int(b.warp[i]), name, int(counts.wavefronts[i]), int(counts.ideal[i]), int(counts.bank_conflicts[i]))
                     for i, name in zip(rows, labels(b.take(rows)))]
        self.top = sorted(self.top, key=lambda w: (-w.bank_conflicts, w.index))[: self.worst]
        self.total += len(b)
        if len(b):
            self.warps = max(self.warps, int(b.warp.max()) + 1)
