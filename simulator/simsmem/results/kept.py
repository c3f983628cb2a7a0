"""The rows of one CTA, kept whole from a trace of any length: what the timing engine, the timed SM and the shared
arrays need of a whole grid.

A traced kernel's rows number warps grid-wide (a row's CTA is its warp // the CTA's warps). ``Kept`` takes a trace
chunk by chunk and keeps the rows of its lowest CTA (the first traced), of the CTAs asked for (the timed SM's) and
of one row asked for, each with values of its own (its counts); a trace that is not a traced kernel's is one CTA's,
and all of it is kept.
"""

from __future__ import annotations

import numpy as np

from ..traces import InstructionBatch

#: What may be kept of the rows: none, one CTA's, or all.
KEEP = ("none", "cta", "all")


def warps_per_cta(kernel: dict | None) -> int | None:
    """A traced kernel's warps per CTA; None for other traces, whose instructions are one CTA's."""
    block = (kernel or {}).get("block")
    return -(-int(np.prod(block)) // 32) if isinstance(block, list) and block else None


class Kept:
    """Rows kept (``keep``, one of ``KEEP``) with per-row values: every row, or those of the lowest CTA seen so far (at
    most ``limit`` of them), of ``ctas`` (linear CTA indices) and row ``index``; ``warps``: a CTA's (None: the trace is
    one CTA's)."""

    def __init__(self, keep: str, warps: int | None, ctas: frozenset[int] = frozenset(), index: int | None = None,
                 limit: int | None = None) -> None:
        if keep not in KEEP:
            raise ValueError(f"keep: one of {KEEP}, not {keep!r}")
        self.keep, self.warps, self.index, self.limit = keep, warps, index, limit
        self.ctas = np.array(sorted(ctas), dtype=np.int64)
        self.first: int | None = None  # the lowest CTA so far
        self.held = 0  # rows kept for being the first CTA's (or, one CTA, the trace's) alone
        self.parts: list[tuple[np.ndarray, InstructionBatch, tuple[np.ndarray, ...]]] = []  # (trace indices, rows, values)

    def add(self, b: InstructionBatch, first: int, *values: np.ndarray) -> None:
        """Take in the rows ``b`` (trace indices ``first``...) and their ``values`` (one array each, a row per row)."""
        self.take(np.arange(first, first + len(b)), b, values)

    def take(self, rows: np.ndarray, b: InstructionBatch, values: tuple[np.ndarray, ...]) -> None:
        """Take in the rows ``b`` (trace indices ``rows``, rising, after those taken before) and their ``values``: a
        chunk's, or the ``parts`` another ``Kept`` kept of it (the same rows are kept)."""
        if self.keep == "none" or not len(b):
            return
        part = (rows, b, values)
        if self.keep == "all":
            self.parts.append(part)
            return
        asked = np.isin(b.warp // self.warps, self.ctas) if self.warps is not None and len(self.ctas) else np.zeros(len(b), dtype=bool)
        if self.index is not None:
            asked |= rows == self.index
        own = np.ones(len(b), dtype=bool)
        if self.warps is not None:
            cta = b.warp // self.warps
            low = int(cta.min())
            if self.first is None or low < self.first:  # a lower CTA: the rows kept as the first CTA's are not
                self.first, self.held = low, 0
                self.parts = [self._take(p, np.isin(p[1].warp // self.warps, self.ctas) | (p[0] == self.index)) for p in self.parts]
            own = cta == self.first
        if self.limit is not None:
            own &= np.cumsum(own & ~asked) <= self.limit - self.held
        self.held += int((own & ~asked).sum())
        which = own | asked
        if which.any():
            self.parts.append(part if which.all() else self._take(part, which))

    @staticmethod
    def _take(part, which: np.ndarray):
        rows, b, values = part
        return rows[which], b.take(which), tuple(v[which] for v in values)

    def whole(self) -> tuple[InstructionBatch, np.ndarray, tuple[np.ndarray, ...]]:
        """The kept rows, their trace indices and their values (each concatenated; None where nothing was kept)."""
        if not self.parts:
            return InstructionBatch.empty(), np.zeros(0, dtype=np.int64), ()
        return (InstructionBatch.concat([b for _, b, _ in self.parts]), np.concatenate([r for r, _, _ in self.parts]),
                tuple(np.concatenate(v) for v in zip(*(v for _, _, v in self.parts))))
