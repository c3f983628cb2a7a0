"""Per-lane columns (``addrs``, ``src``) as a base and a pattern a row: the compact form ``.npz`` files store.

A warp's lanes keep one shape from row to row (``tid * 4``, ``tid * 16 + k * 512``) while the row's base moves with
its warp, CTA and loop step. So a column of ``n`` rows of 32 values is stored as ``n`` bases (each row's lowest
value), ``n`` pattern ids, and a table of the distinct patterns: each lane's offset from its row's base, ``INACTIVE``
where the lane gives no value (a row without values has base 0). Decoded, the column is the same value for value.
"""

from __future__ import annotations

import attrs
import numpy as np

from ..jit import compiled
from .lanes import INACTIVE, LANES


@attrs.frozen(eq=False)
class Patterns:
    """A per-lane column: ``table[pattern[i]]`` shifted by ``base[i]`` is row ``i``."""

    base: np.ndarray  # (n,), the column's dtype
    pattern: np.ndarray  # (n,) int32, rows of ``table``
    table: np.ndarray  # (p, 32), the column's dtype: offsets from the base, INACTIVE in lanes without a value

    @staticmethod
    def of(column: np.ndarray) -> Patterns:
        """The patterns of ``column`` (n, 32)."""
        active = column != INACTIVE
        highest = np.iinfo(column.dtype).max
        base = np.where(active, column, highest).min(axis=1, initial=highest)
        base = np.where(active.any(axis=1), base, 0).astype(column.dtype)
        offsets = np.ascontiguousarray(np.where(active, column - base[:, None], INACTIVE).astype(column.dtype))
        rows = offsets.view(np.dtype((np.void, offsets.itemsize * LANES))).ravel()  # one bytes key a row: a fast unique
        _, first, pattern = np.unique(rows, return_index=True, return_inverse=True)
        return Patterns(base, pattern.ravel().astype(np.int32), offsets[first])

    @staticmethod
    def quick(column: np.ndarray) -> Patterns:
        """The patterns of ``column`` (n, 32) in one compiled pass (``of`` sorts every row: 18 ms for 75,000 rows, this
        about a tenth), its table in first-seen order, a pattern repeated where two share a slot of the pass's hash."""
        n = len(column)
        base, pattern, table = np.empty(n, dtype=column.dtype), np.empty(n, dtype=np.int32), np.empty((n, LANES), dtype=column.dtype)
        p = _encode(np.ascontiguousarray(column), base, pattern, table, np.full(1 << 12, -1, dtype=np.int64))
        return Patterns(base, pattern, table[:p].copy())

    def problem(self) -> str | None:
        """What makes these arrays (of one integer dtype, ``pattern``'s int32) no column: the decoding would fail or overflow."""
        if self.base.ndim != 1 or self.pattern.shape != self.base.shape or self.table.ndim != 2 or self.table.shape[1] != LANES:
            return f"expected bases (n,), pattern ids (n,) and a table (p, {LANES})"
        n, p = len(self.base), len(self.table)
        if n and (int(self.pattern.min()) < 0 or int(self.pattern.max()) >= p):
            return f"a pattern id outside the table's {p} rows"
        if p and int(self.table.min()) < INACTIVE:
            return f"an offset below {INACTIVE}"
        top = np.iinfo(self.base.dtype).max
        fits = not n or int(self.base.max()) + max(int(self.table.max()), 0) <= top  # (the largest of each: most stop here)
        if not fits and (self.base > top - np.maximum(self.table.max(axis=1), 0)[self.pattern]).any():
            return f"a base and an offset beyond {self.base.dtype.name}"
        return None

    def column(self) -> np.ndarray:
        """The column (n, 32) (``problem()`` is None)."""
        out = np.empty((len(self.base), LANES), dtype=self.base.dtype)
        _decode(self.table, self.pattern, self.base, out)
        return out


@compiled(cache=True, nogil=True, plain=True)
def _decode(table: np.ndarray, pattern: np.ndarray, base: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """``out[i]``: row ``pattern[i]`` of ``table`` plus ``base[i]``, ``INACTIVE`` kept (one pass; numpy's gather, compare,
    add and select took four, a sixth of reading a chunk)."""
    for i in range(out.shape[0]):
        row, b = table[pattern[i]], base[i]
        for lane in range(out.shape[1]):
            v = row[lane]
            out[i, lane] = v if v == INACTIVE else v + b


@compiled(cache=True, nogil=True, plain=True)
def _encode(column: np.ndarray, base: np.ndarray, pattern: np.ndarray, table: np.ndarray, slots: np.ndarray) -> int:  # pragma: no cover - compiled
    """Each row's base (its lowest value; 0 without one) and pattern (its offsets from the base, ``INACTIVE`` kept): the
    pattern a hash slot of ``slots`` last saw where it is the same, else a new row of ``table``; the table's rows used."""
    used = 0
    for i in range(column.shape[0]):
        row = column[i]
        b, given = row[0], False
        for lane in range(LANES):
            if row[lane] != INACTIVE and (not given or row[lane] < b):
                b, given = row[lane], True
        if not given:
            b = row[0] - row[0]  # (0 of the column's dtype)
        h = np.int64(0)  # (of each offset's low 24 bits, kept below 2**40: no overflow, plain or compiled)
        for lane in range(LANES):
            h = (h * 31 + ((np.int64(row[lane]) - np.int64(b)) & 0xFFFFFF if row[lane] != INACTIVE else 0xFFFFFF)) & 0xFFFFFFFFFF
        slot = (h ^ (h >> 17)) & (len(slots) - 1)
        k = slots[slot]
        same = k >= 0
        if same:
            for lane in range(LANES):
                if table[k, lane] != (row[lane] - b if row[lane] != INACTIVE else INACTIVE):
                    same = False
                    break
        if not same:
            k = used
            for lane in range(LANES):
                table[k, lane] = row[lane] - b if row[lane] != INACTIVE else INACTIVE
            slots[slot] = k
            used += 1
        base[i] = b
        pattern[i] = k
    return used
