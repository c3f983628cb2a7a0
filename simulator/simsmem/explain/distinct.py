"""A trace as ``explain`` and the fix search see it, in bounded memory: each distinct row once, with how many rows it
stands for, and one CTA's rows whole.

Two rows are the same here when they differ only in who issues them and when: the warp and the timing fields
(``wait``, ``issue``, ``delay``, ...; their meanings start with "timing"), and their LDGSTS sources by a multiple of
``SOURCE_PERIOD`` bytes. Such rows have the same counts (the bank model reads neither; of a source it reads where the
lanes fall in their lines and sectors), the same explanation and the same fixes. A grid whose CTAs use shared memory
alike (a GEMM's 4,096 CTAs) has the distinct rows of one CTA, so ``gather`` holds them, not the grid's: each chunk
is keyed by its lane patterns (``trace.patterns``: two numbers a row, where the 32 addresses were), hashed, made
unique, and checked value for value against the row it was taken for (a hash collision splits, never merges).
Only the distinct rows are counted.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import attrs
import numpy as np

from ..banks import Counts, count, loaded
from ..config import ArchConfig
from ..progress import noting
from ..results.analysis import COMPILING
from ..results.kept import Kept, warps_per_cta
from ..results.validate import validated
from ..traces import Instruction, InstructionBatch, Trace, TraceStream, stream_of
from ..traces.lanes import holds_no_sources
from ..traces.patterns import Patterns
from ..traces.records import COLUMNS
from .arrays import SAMPLE

#: LDGSTS sources that differ by a multiple of this many bytes count alike: the bank model reads a source's position in
#: its line (at most 128 bytes) and its 32-byte sector (tests/test_distinct.py counts shifted sources to hold it).
SOURCE_PERIOD = 4096
#: The columns a row is keyed by besides its lanes: all but the warp and the timing fields.
KEYED = tuple(name for name, f in COLUMNS.items() if name != "warp" and not f.lanes and not f.meaning.startswith("timing"))
_MIX = np.uint64(0x9E3779B97F4A7C15)  # an odd 64-bit multiplier (the golden ratio's)


@attrs.frozen(eq=False)
class Distinct:
    """A trace's distinct rows (each as it first occurs), and the rows of one CTA kept whole with the distinct row of
    each (``gather``)."""

    name: str
    arch: ArchConfig
    kernel: dict | None
    instructions: int  # rows of the trace
    batch: InstructionBatch  # each distinct row once
    first: np.ndarray  # int64: the trace index of its first occurrence
    weight: np.ndarray  # int64: the rows of the trace it stands for
    counts: Counts  # its counts: those of every row it stands for
    cta: Trace  # the rows kept whole: a traced kernel's first CTA's (and those asked for), else every row
    rows: np.ndarray  # their trace indices
    ids: np.ndarray  # their distinct rows

    def position(self, index: int) -> int:
        """The distinct row of trace row ``index`` (a first occurrence, or a kept row)."""
        at = np.flatnonzero(self.first == index)
        if len(at):
            return int(at[0])
        kept = np.flatnonzero(self.rows == index)
        if not len(kept):
            raise KeyError(f"trace row {index} is neither kept nor the first of its kind: gather(..., index={index})")
        return int(self.ids[kept[0]])

    def row(self, index: int) -> Instruction:
        """Trace row ``index`` (its own warp and timing where it was kept)."""
        kept = np.flatnonzero(self.rows == index)
        return self.cta.instructions[int(kept[0])] if len(kept) else self.batch[self.position(index)]

    def total(self, values: np.ndarray) -> int:
        """The trace's total of a per-distinct-row value."""
        return int(values @ self.weight)


class Gatherer:
    """``Distinct``'s rows, chunk by chunk."""

    def __init__(self, arch: ArchConfig) -> None:
        self.arch = arch
        self.seen: dict[bytes, int] = {}  # a distinct row's key -> its number
        self.patterns: dict[str, dict[bytes, int]] = {"addrs": {}, "src": {}}  # lane patterns, numbered across chunks
        self.parts: list[tuple[InstructionBatch, np.ndarray, Counts]] = []  # new distinct rows: rows, trace indices, counts
        self.weight = np.zeros(1024, dtype=np.int64)
        self.rows = 0

    def add(self, b: InstructionBatch, first: int, lanes: dict[str, Patterns] | None = None) -> np.ndarray:
        """Take in the rows ``b`` (trace indices ``first``...; ``lanes``: their lane patterns where the reader had them);
        the distinct row of each."""
        if not len(b):
            return np.zeros(0, dtype=np.int64)
        key = self._key(b, lanes or {})
        rows, inverse = _unique_rows(key)
        keys = np.ascontiguousarray(np.column_stack([k[rows] for k in key]))
        ids = np.array([self.seen.setdefault(k, len(self.seen)) for k in keys.view(np.dtype((np.void, keys.shape[1] * 8))).ravel().tolist()])
        new = ids >= self.rows
        if new.any():
            taken = b.take(rows[new])
            with contextlib.nullcontext() if loaded() else noting(COMPILING):
                self.parts.append((taken, first + rows[new], count(taken, self.arch)))
            self.rows = len(self.seen)
        if self.rows > len(self.weight):
            self.weight = np.concatenate([self.weight, np.zeros(max(self.rows, 2 * len(self.weight)) - len(self.weight), dtype=np.int64)])
        np.add.at(self.weight, ids, np.bincount(inverse, minlength=len(rows)))
        return ids[inverse]

    def _key(self, b: InstructionBatch, lanes: dict[str, Patterns]) -> list[np.ndarray]:
        """The columns a row is keyed by, as uint64: ``KEYED``, then each per-lane column as its base and pattern number."""
        key = [getattr(b, name).astype(np.uint64) for name in KEYED]
        for name in ("addrs", "src"):
            column = getattr(b, name)
            if name == "src" and holds_no_sources(column):
                continue
            p = lanes.get(name) or Patterns.of(column)
            numbers = self.patterns[name]
            number = np.array([numbers.setdefault(t.tobytes(), len(numbers)) for t in p.table], dtype=np.uint64)
            base = p.base if name == "addrs" else p.base % SOURCE_PERIOD
            key += [base.astype(np.uint64), number[p.pattern] + np.uint64(1)]  # 0: a chunk without sources
        return key

    def distinct(self) -> tuple[InstructionBatch, np.ndarray, np.ndarray, Counts]:
        """The distinct rows so far, their first trace indices, weights and counts."""
        if not self.parts:
            empty = InstructionBatch.empty()
            return empty, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), count(empty, self.arch)
        counts = Counts(*(np.concatenate([getattr(c, f.name) for _, _, c in self.parts]) for f in attrs.fields(Counts)))
        return (InstructionBatch.concat([b for b, _, _ in self.parts]), np.concatenate([r for _, r, _ in self.parts]),
                self.weight[: self.rows].copy(), counts)


def _unique_rows(key: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The first row of each distinct key, in row order, and each row's distinct key (its place among them), by a 64-bit
    hash of the columns that vary, checked against the columns themselves (exact ``np.unique`` if any two differ)."""
    varying = [k for k in key if len(k) and (k != k[0]).any()]
    h = np.zeros(len(key[0]), dtype=np.uint64)
    for k in varying:
        h = (h ^ k) * _MIX
        h ^= h >> np.uint64(29)
    _, rows, inverse = np.unique(h, return_index=True, return_inverse=True)
    if not all((k == k[rows][inverse]).all() for k in varying):
        _, rows, inverse = np.unique(np.column_stack(varying), axis=0, return_index=True, return_inverse=True)
    order = np.argsort(rows)
    place = np.empty_like(order)
    place[order] = np.arange(len(order))
    return rows[order], place[inverse.ravel()]


def gather(stream: TraceStream, arch: ArchConfig, *, keep: str = "cta", ctas: frozenset[int] = frozenset(), index: int | None = None,
           advance: Callable[[int], None] | None = None) -> Distinct:
    """Check ``stream`` against ``arch`` and take in every chunk: its distinct rows (counted), and whole, the rows of its
    first CTA (a traced kernel's lowest; a trace that is not a traced kernel's is one CTA: its first ``arrays.SAMPLE``
    rows, what the arrays are read from), of ``ctas`` and row ``index`` (``keep="all"``: every row). ``advance`` gets
    the bytes of the file read as it goes."""
    gatherer = Gatherer(arch)
    warps = warps_per_cta(stream.kernel)
    kept = Kept(keep, warps, ctas, index, SAMPLE if warps is None else None)
    done = total = 0
    for chunk in validated(stream, arch).chunks:
        kept.add(chunk.instructions, chunk.first, gatherer.add(chunk.instructions, chunk.first, chunk.lanes))
        total += len(chunk.instructions)
        if advance is not None:
            advance(chunk.done - done)
            done = chunk.done
    batch, first, weight, counts = gatherer.distinct()
    rows_batch, rows, values = kept.whole()
    return Distinct(stream.name, arch, stream.kernel, total, batch, first, weight, counts,
                    Trace(rows_batch, stream.name, stream.arch, stream.ctas, stream.kernel), rows,
                    values[0] if values else np.zeros(0, dtype=np.int64))


def of_trace(trace: Trace, arch: ArchConfig) -> Distinct:
    """A trace in memory, gathered with every row kept (``Distinct.cta`` is the whole trace)."""
    return gather(stream_of(trace), arch, keep="all")
