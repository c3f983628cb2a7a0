"""One call from a validated trace to everything the reports show.

``analyse`` takes a whole trace and keeps every instruction's counts; ``summarise`` reads a
``TraceStream`` chunk by chunk and keeps only totals and the worst instructions, so a trace of any
length is counted in the memory of one chunk.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs
import numpy as np

from .banks import Counts, count
from .config import ArchConfig, load_arch
from .errors import ConfigError, SimsmemError
from .engine import Timeline, simulate
from .metrics import kernel_counters, kernel_metrics, labels
from .trace import InstructionBatch, Trace, TraceStream, check_against_arch


@attrs.frozen(eq=False)
class Result:
    """A trace, the arch it ran on, per-instruction counts and the kernel's ncu metrics."""

    trace: Trace
    arch: ArchConfig
    counts: Counts
    metrics: dict[str, int]
    timeline: Timeline | None = None  # issue and completion cycles of one CTA (``with_timeline``)
    timed: np.ndarray | None = None  # the rows the timeline covers (a traced kernel: its first CTA's); None: all


def resolve_arch(trace: Trace | TraceStream, arch: str | None, where: str = "trace") -> ArchConfig:
    """``--arch`` wins over the trace's own ``arch`` (errors about that one name ``where``); with neither, sm_90."""
    if arch or not trace.arch:
        return load_arch(arch or "sm_90")
    try:
        return load_arch(trace.arch)
    except ConfigError as exc:
        raise ConfigError(f"{where}: arch", exc.what) from None


def analyse(trace: Trace, arch: ArchConfig, where: str = "trace", first_line: int | None = None) -> Result:
    """Check the trace against the arch (errors name file lines from ``first_line`` where the file has one
    instruction per line: ``TraceStream.first_line``), then count every instruction."""
    check_against_arch(trace.instructions, arch, where, first_line=first_line)
    counts = count(trace.instructions, arch)
    return Result(trace, arch, counts, {**kernel_metrics(trace, counts, arch), **kernel_counters(trace.kernel)})


def first_cta_rows(trace: Trace) -> np.ndarray | None:
    """A traced kernel's rows of its first traced CTA (its warps are that CTA's, numbered grid-wide); None for other traces,
    whose instructions are one CTA's."""
    k = trace.kernel
    if not k or not isinstance(k.get("block"), list) or not trace.instructions.warp.size:
        return None
    threads = int(np.prod(k["block"]))
    warps = -(-threads // 32)
    first = int(trace.instructions.warp.min()) // warps
    return np.flatnonzero(trace.instructions.warp // warps == first)


def with_timeline(result: Result, advance: Callable[[int], None] | None = None) -> Result:
    """``result`` and the timing engine's timeline of one CTA of its trace (``advance``: issued instructions);
    for a traced kernel, its first traced CTA's."""
    rows = first_cta_rows(result.trace)
    b, counts = result.trace.instructions, result.counts
    if rows is not None:
        b, counts = b.take(rows), Counts(*(getattr(counts, f.name)[rows] for f in attrs.fields(Counts)))
    return attrs.evolve(result, timeline=simulate(b, counts, result.arch, advance=advance), timed=rows)


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
class Summary:
    """A trace's kernel metrics, per-form totals and worst instructions (what the table and CSV show)."""

    name: str
    arch: ArchConfig
    ctas: int
    instructions: int  # in the trace (one CTA)
    metrics: dict[str, int]  # kernel totals: all CTAs
    forms: dict[str, tuple[int, int, int, int]]  # SASS form: instructions, wavefronts, ideal wavefronts, bank conflicts (one CTA)
    worst: tuple[Worst, ...]  # most bank conflicts first (ties: trace order); only those with conflicts
    notes: tuple[str, ...] = ()  # what the reader left out
    #: traced kernels: per SASS instruction (its offset): instructions, wavefronts, ideal wavefronts, bank conflicts (all CTAs)
    by_pc: dict[int, tuple[int, int, int, int]] = attrs.field(factory=dict)
    kernel: dict | None = None  # the trace header's ``kernel`` object


def summarise(stream: TraceStream, arch: ArchConfig, worst: int = 10, advance: Callable[[int], None] = lambda steps: None) -> Summary:
    """Check and count ``stream`` chunk by chunk; ``advance`` gets the bytes of the file read as it goes."""
    if worst < 1:
        raise SimsmemError("--worst", f"expected a positive count, got {worst}")
    empty = InstructionBatch.empty()
    metrics = kernel_metrics(Trace(empty), count(empty, arch), arch)  # every counter, at zero
    forms: dict[str, np.ndarray] = {}
    by_pc: dict[int, np.ndarray] = {}
    top: list[Worst] = []
    total = done = 0
    for chunk in stream.chunks:
        b = chunk.instructions
        check_against_arch(b, arch, stream.where, chunk.first, stream.first_line)
        counts = count(b, arch)
        for name, value in kernel_metrics(Trace(b, ctas=stream.ctas), counts, arch).items():
            metrics[name] += value
        # the SASS form of each row, labelled once per distinct form (``forms()``: every field a label depends on)
        keys, first, which = np.unique(b.forms(), return_index=True, return_inverse=True)
        sums = [np.bincount(which, weights=w, minlength=len(keys)) for w in (None, counts.wavefronts, counts.ideal, counts.bank_conflicts)]
        for i, label in enumerate(labels(b.take(first))):
            forms[label] = forms.get(label, np.zeros(4, dtype=np.int64)) + np.array([int(s[i]) for s in sums])
        placed = np.flatnonzero(b.pc >= 0)
        if len(placed):
            pcs, which = np.unique(b.pc[placed], return_inverse=True)
            sums = [np.bincount(which, weights=w[placed] if w is not None else None, minlength=len(pcs))
                    for w in (None, counts.wavefronts, counts.ideal, counts.bank_conflicts)]
            for k, pc in enumerate(pcs.tolist()):
                by_pc[pc] = by_pc.get(pc, np.zeros(4, dtype=np.int64)) + np.array([int(s[k]) for s in sums]) * stream.ctas
        rows = np.flatnonzero(counts.bank_conflicts > 0)
        rows = rows[np.argsort(-counts.bank_conflicts[rows], kind="stable")[:worst]]
        top += [Worst(chunk.first + int(i), int(b.warp[i]), name, int(counts.wavefronts[i]), int(counts.ideal[i]), int(counts.bank_conflicts[i]))
                for i, name in zip(rows, labels(b.take(rows)))]
        top = sorted(top, key=lambda w: (-w.bank_conflicts, w.index))[:worst]
        total += len(b)
        advance(chunk.done - done)
        done = chunk.done
    metrics.update(kernel_counters(stream.kernel))
    return Summary(stream.name, arch, stream.ctas, total, metrics, {k: tuple(int(x) for x in v) for k, v in sorted(forms.items())}, tuple(top),
                   stream.notes, {pc: tuple(int(x) for x in v) for pc, v in sorted(by_pc.items())}, stream.kernel)
