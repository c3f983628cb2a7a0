"""Search swizzles and row padding for the fewest wavefronts over an access set.

Every candidate tile (a ``Swizzle(B, M, S)`` and a row padding) gets the same access patterns
placed in it; all candidates' instructions go through the bank model as one batch
(``simsmem.banks.count``), so a search over hundreds of tiles costs one vectorised count.
"""

from __future__ import annotations

import attrs
import numpy as np

from ..banks import count
from ..config import ArchConfig
from ..errors import SimsmemError
from ..results.validate import check_against_arch
from ..tiles.layout import tile
from ..tiles.swizzle import IDENTITY, Swizzle, keeps_vectors, recast
from ..traces import InstructionBatch
from .access import Access, pattern, place


@attrs.frozen
class Score:
    """One candidate tile and what the access set costs in it."""

    swizzle: Swizzle  # in the units searched (element or byte offsets)
    pad_bytes: int
    wavefronts: int  # over the whole access set
    ideal: int  # ideal wavefronts
    per_access: tuple[int, ...]  # wavefronts of each access
    smem_bytes: int  # shared memory the tile spans

    @property
    def bank_conflicts(self) -> int:
        return self.wavefronts - self.ideal


@attrs.frozen
class SearchResult:
    """Scores best first (fewest wavefronts, then least padding, then the simplest swizzle)."""

    scores: tuple[Score, ...]
    skipped: int  # swizzles left out: they would move elements inside one access


def swizzles(max_bits: int, max_base: int, max_shift: int) -> list[Swizzle]:
    """Every ``Swizzle(B, M, S)`` with ``B <= max_bits``, ``M <= max_base``, ``B <= |S| <= max_shift``, one identity."""
    out = [IDENTITY]
    for b in range(1, max_bits + 1):
        for m in range(max_base + 1):
            out += [Swizzle(b, m, s) for s in range(-max_shift, max_shift + 1) if abs(s) >= b]
    return out


def search(accesses: list[Access], rows: int, cols: int, elem_bytes: int, arch: ArchConfig, *, unit_bytes: int | None = None,
           max_bits: int = 3, max_base: int = 4, max_shift: int = 4, max_pad_bytes: int = 128) -> SearchResult:
    """Score every swizzle (on element offsets, or on ``unit_bytes``-byte units) x padding (0 to
    ``max_pad_bytes`` in steps of the widest access) for ``accesses`` over a ``rows x cols`` tile."""
    if not accesses:
        raise SimsmemError("search", "give at least one access")
    patterns = [pattern(a, rows, cols, elem_bytes) for a in accesses]
    widest = max(a.access_bytes for a in accesses)
    tiles, chosen, skipped = [], [], 0
    for sw in swizzles(max_bits, max_base, max_shift):
        try:
            on_elements = recast(sw, unit_bytes, elem_bytes) if unit_bytes else sw
        except SimsmemError:
            on_elements = None
        if on_elements is None or not keeps_vectors(on_elements, widest // elem_bytes):
            skipped += 1
            continue
        for pad in range(0, max_pad_bytes + 1, widest):
            tiles.append(tile(rows, cols, elem_bytes, pad // elem_bytes, on_elements))
            chosen.append((sw, pad))
    if not tiles:
        raise SimsmemError("search", "no candidate left: every swizzle would split an access, or no padding fits")
    batch = InstructionBatch.concat([place(p, t) for t in tiles for p in patterns])
    check_against_arch(batch, arch, "search")
    counts = count(batch, arch)
    sizes = [len(p.instructions) for p in patterns]
    starts = np.cumsum([0] + sizes[:-1])
    waves = counts.wavefronts.reshape(len(tiles), sum(sizes))
    ideal = counts.ideal.reshape(len(tiles), sum(sizes)).sum(axis=1)
    per_access = np.add.reduceat(waves, starts, axis=1)
    scores = [
        Score(sw, pad, int(per_access[i].sum()), int(ideal[i]), tuple(int(x) for x in per_access[i]), t.footprint)
        for i, ((sw, pad), t) in enumerate(zip(chosen, tiles))
    ]
    scores.sort(key=lambda s: (s.wavefronts, s.pad_bytes, s.swizzle.bits, s.swizzle.base, abs(s.swizzle.shift), s.swizzle.shift < 0))
    return SearchResult(tuple(scores), skipped)
