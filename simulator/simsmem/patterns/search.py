"""Search swizzles and row padding for the fewest wavefronts over an access set.

Every candidate tile (a ``Swizzle(B, M, S)`` and a row padding) gets the same access patterns
placed in it; all candidates' instructions go through the bank model as one batch
(``simsmem.banks.count``), so a search over hundreds of tiles costs one vectorised count.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs
import numpy as np

from ..banks import count
from ..banks.phases import MATRIX_ROW_BYTES
from ..config import ArchConfig
from ..errors import SimsmemError
from ..layout import tile
from ..swizzle import IDENTITY, Swizzle, keeps_vectors, recast
from ..trace import MATRIX_OPS, OPS, InstructionBatch
from ..validate import check_against_arch
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


Remap = Callable[[np.ndarray], np.ndarray]


def padding(row: int, pad: int) -> Remap:
    """Byte offsets with ``pad`` bytes after every ``row`` bytes."""
    return lambda a: a // row * (row + pad) + a % row


def remaps(used: np.ndarray, access: int, arch: ArchConfig) -> dict[str, list[tuple[str, Remap, tuple]]]:
    """The paddings (after every power-of-two row) and byte swizzles that could remove bank conflicts from accesses of
    ``access`` bytes to the byte offsets ``used``: by kind, each as (label, remap of byte offsets, simplicity key),
    those that keep every access inside shared memory."""
    top = int(used.max()).bit_length()  # every address is below 2**top
    bank_bits = (arch.phase_bytes - 1).bit_length()  # address bits that choose the bank
    lo = access.bit_length() - 1
    kinds = {
        "padding": [(f"pad {pad} bytes per {1 << r}-byte row", padding(1 << r, pad), (pad, r))
                    for r in range(lo, max(top, lo + 1)) for pad in range(access, arch.phase_bytes, access)],
        "swizzle": [(f"Swizzle({sw.bits},{sw.base},{sw.shift})", sw, (sw.bits, sw.base, abs(sw.shift), sw.shift < 0))
                    for sw in swizzles(bank_bits - lo, bank_bits - 1, top) if not sw.is_identity and keeps_vectors(sw, access)],
    }
    return {k: [c for c in cands if int(apply(used, c[1]).max()) + access <= arch.shared_memory_per_cta] for k, cands in kinds.items()}


def apply(addrs: np.ndarray, remap: Remap, region: tuple[int, int] | None = None, align: int = 128) -> np.ndarray:
    """``addrs`` remapped (inactive lanes, ``-1``, left as they are); with ``region`` (base, bytes), only the addresses
    inside it, as offsets from its base, and those above it move up by the bytes the remap adds to it, rounded up to
    ``align`` so that their banks stay (the arrays after a padded one move up)."""
    if region is None:
        return np.where(addrs >= 0, remap(np.maximum(addrs, 0)), addrs).astype(addrs.dtype)
    base, size = region
    grown = max(0, int(remap(np.arange(size)).max()) + 1 - size)
    inside = (addrs >= base) & (addrs < base + size)
    above = np.where(addrs >= base + size, addrs + -(-grown // align) * align, addrs)
    return np.where(inside, remap(np.maximum(addrs - base, 0)) + base, above).astype(addrs.dtype)


@attrs.frozen
class TraceScore:
    """A remap of a trace's shared-memory addresses and what the whole trace then costs."""

    what: str
    wavefronts: int
    bank_conflicts: int


def widest_access(batch: InstructionBatch) -> int:
    """Bytes of a trace's widest lane access (an 8x8 matrix row: 16)."""
    matrix = np.isin(batch.op, [OPS.index(op) for op in MATRIX_OPS])
    return int(np.where(matrix, MATRIX_ROW_BYTES, batch.width // 8).max())


def search_trace(batch: InstructionBatch, arch: ArchConfig, region: tuple[int, int] | None = None) -> list[TraceScore]:
    """Every padding and swizzle of ``remaps`` applied to a whole trace (or to its addresses inside ``region``), best
    first (fewest bank conflicts, then the simplest), the trace as it is first of all ("as traced")."""
    inside = batch.addrs[(batch.addrs >= 0) & ((batch.addrs >= region[0]) & (batch.addrs < sum(region)) if region else True)]
    if not inside.size:
        raise SimsmemError("--region", "no address of the trace falls in it")
    used = np.unique(inside - (region[0] if region else 0))
    # the trace's distinct rows, each counted once and weighed by how often it occurs
    keys = np.concatenate([batch.forms()[:, None], batch.addrs.astype(np.int64), batch.zfill[:, None].astype(np.int64),
                           batch.srcsize[:, None].astype(np.int64), batch.zeroed[:, None].astype(np.int64),
                           batch.pred[:, None].astype(np.int64)], axis=1)
    _, first, weight = np.unique(keys, axis=0, return_index=True, return_counts=True)
    rows = batch.take(first)
    now = count(rows, arch)
    out = [TraceScore("as traced", int(now.wavefronts @ weight), int(now.bank_conflicts @ weight))]
    order = {}
    access = widest_access(batch)
    for cands in remaps(used, access, arch).values():
        for what, remap, key in cands:
            addrs = apply(rows.addrs, remap, region, arch.phase_bytes)
            if int(addrs.max()) + access > arch.shared_memory_per_cta:
                continue
            c = count(attrs.evolve(rows, addrs=addrs), arch)
            out.append(TraceScore(what, int(c.wavefronts @ weight), int(c.bank_conflicts @ weight)))
            order[what] = key
    out[1:] = sorted(out[1:], key=lambda s: (s.bank_conflicts, s.wavefronts, order[s.what]))
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
