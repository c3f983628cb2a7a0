"""Fixes in the kernel author's terms: a new declaration, a padding or a swizzle of one shared array, each tried
over the whole trace and ranked by what it does to the whole kernel.

For an array of ``E``-byte elements (``arrays.Array``) the candidates are:

- *declaration*: its rows re-declared ``P`` elements longer or shorter (``As[8][128]`` -> ``As[8][132]``,
  ``tile[64][80]`` -> ``tile[64][72]``), every ``P`` that keeps its widest access aligned, from no padding at all
  up to one row of banks more than its accesses reach (beyond, the banks repeat). 2-D arrays only.
- *padding*: ``P`` elements after every ``C`` of its flat index (``sdata[i + i / 32]``), ``C`` a power of two
  other than its row, ``P`` any multiple of the element size up to a row of banks that keeps accesses aligned.
- *swizzle*: CuTe's ``Swizzle<B,M,S>`` on its element index, stated on the 2-D index where it xors column bits
  with row bits (``col ^ (((row >> 2) & 1) << 4)``), else on the flat index (``i ^ ((i >> 5) & 7)``).

Each moves only that array's addresses (arrays above one that grows move up by whole rows of banks, so theirs keep
their banks) and is counted over the whole trace: the rows that touch the array, each distinct one once, weighed
by how often it occurs. The ranking: predicted cycles (where the kernel is timed: the timed SM run with each row's
new wavefronts, in steps of 1% of the kernel's cycles), then the kernel's total wavefronts, then the simplest
(those that keep a 2-D array's index before those that index it flat; a declaration, a padding, a swizzle; the
least shared memory; the smallest numbers). A change that does not lower the kernel's wavefronts is no fix and is
never listed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs
import numpy as np

from ..banks import Counts, count
from ..config import ArchConfig
from ..results.analysis import renumbered
from ..sm import LaunchTiming, time_launch
from ..tiles.swizzle import Swizzle
from ..traces import InstructionBatch, Trace
from ..traces.records import IS_LANES
from .arrays import Array, arrays_of

if TYPE_CHECKING:
    from ..kernel.streams import WarpStreams
    from .distinct import Distinct

KINDS = ("declaration", "padding", "swizzle")
#: The timed SM's counter that ranks fixes where a kernel is timed.
CYCLES = "sm__cycles_elapsed.max"
#: Candidates counted in one batch of rows (bounds the memory of a search).
BATCH_ROWS = 1 << 18


@attrs.frozen
class Candidate:
    """A change of one array in the author's terms, and the remap of its byte offsets that it makes."""

    kind: str  # one of KINDS
    declaration: str  # how the array is then declared ("": as it is)
    index: str  # the index expression to write ("": as written)
    what: str  # the same change on byte offsets, the trace's terms
    remap: Callable[[np.ndarray], np.ndarray] = attrs.field(eq=False, repr=False)
    extra: int  # bytes of shared memory it adds (negative: frees)
    key: tuple  # simplest first
    flattens: bool = False  # the 2-D array must be indexed flat (declared 1-D) to take it

    @property
    def statement(self) -> str:
        """One line: what to write (a padding or a swizzle: the index, and the declaration it needs)."""
        if self.kind == "declaration":
            return self.declaration
        return f"{self.index}; {self.declaration}" if self.declaration else self.index


@attrs.frozen
class Fix:
    """A candidate tried over the whole trace: the kernel's wavefronts and bank conflicts then (and its cycles, timed)."""

    array: Array
    change: Candidate
    wavefronts: int
    bank_conflicts: int
    cycles: float | None = None
    wavefronts_now: int = 0  # the kernel's, as traced
    cycles_now: float | None = None

    @property
    def statement(self) -> str:
        return self.change.statement

    def apply(self, batch: InstructionBatch) -> InstructionBatch:
        """``batch`` with the array's addresses moved by the change."""
        return attrs.evolve(batch, addrs=apply(batch.addrs, self.change.remap, (self.array.base, self.array.size)))

    def effect(self) -> str:
        """``6,912 -> 6,656 wavefronts, 24,166 -> 23,886 cycles`` (cycles where timed)."""
        out = f"{self.wavefronts_now:,} -> {self.wavefronts:,} wavefronts"
        if self.cycles is not None and self.cycles_now is not None:
            out += f", {self.cycles_now:,.0f} -> {self.cycles:,.0f} cycles"
        return out


def candidates(a: Array, arch: ArchConfig) -> list[Candidate]:
    """Every re-declaration, padding and swizzle of array ``a`` (see the module's docstring)."""
    bank_row = arch.phase_bytes
    step = max(a.access, a.elem)
    out: list[Candidate] = []
    if a.two_d:
        for row in range(-(-a.width // step) * step, a.width + bank_row + 1, step):
            if row != a.row:
                out.append(_redeclared(a, row))
    r = max(step, 1)
    while r < a.size:
        if r != a.row or not a.two_d:
            out += [_padded(a, r, pad) for pad in range(step, bank_row + 1, step)]
        r *= 2
    elem_bits = (bank_row // a.elem).bit_length() - 1  # element-index bits that choose the bank
    low = (step // a.elem).bit_length() - 1  # bits inside one access: kept
    n = -(-a.size // a.elem)
    top = max(1, (n - 1).bit_length())
    index = np.arange(n)
    for bits in range(1, elem_bits - low + 1):
        for base in range(low, elem_bits - bits + 1):
            for shift in [*range(bits - top + base, -bits + 1), *range(bits, top - base - bits + 1)]:
                sw = Swizzle(bits, base, shift)
                if int(sw(index).max()) < n and not a.elem & (a.elem - 1):  # it stays inside the array
                    out.append(_swizzled(a, sw))
    return out


def search(batch: InstructionBatch, wavefronts: np.ndarray, conflicts: np.ndarray, arrays: tuple[Array, ...], arch: ArchConfig,
           timing: Callable[[np.ndarray], float] | None = None, top: int = 5, weight: np.ndarray | None = None) -> list[Fix]:
    """The fixes of ``arrays`` (each a change of one array) that lower the kernel's wavefronts, best first, at most
    ``top``; ``wavefronts`` and ``conflicts``: each row's as traced; ``timing``: the kernel's cycles for given per-row
    wavefronts (a timed kernel); ``weight``: the rows of the trace each row stands for (``distinct.Distinct``; None: 1)."""
    weight = np.ones(len(batch), dtype=np.int64) if weight is None else weight
    now = int(wavefronts @ weight)
    found: list[tuple[Fix, np.ndarray, Callable[[], np.ndarray]]] = []
    for a in arrays:
        found += _tried(batch, wavefronts, conflicts, weight, a, arch)
    found = [f for f in found if f[0].wavefronts < now]
    found.sort(key=lambda f: _rank(f[0]))
    seen: set[tuple[str, str]] = set()
    best = []
    for f in found:  # the best of each kind of change of each array
        if (f[0].array.name, f[0].change.kind) not in seen and len(best) < top:
            seen.add((f[0].array.name, f[0].change.kind))
            best.append(f)
    if timing is None or not best:
        return [f for f, _, _ in best]
    cycles_now = timing(wavefronts)
    timed = []
    for fix, rows, per_row in best:
        w = wavefronts.copy()
        w[rows] = per_row()
        timed.append(attrs.evolve(fix, cycles=timing(w), cycles_now=cycles_now))
    return sorted(timed, key=lambda f: (round(f.cycles / max(cycles_now, 1) * 100), *_rank(f)))


def of_trace(trace: Trace, counts: Counts, arch: ArchConfig, timing: Callable[[np.ndarray], float] | None = None, top: int = 5) -> list[Fix]:
    """``search`` over every shared array of a trace counted as ``counts`` (``simsmem.results.analysis.Result``'s)."""
    return search(trace.instructions, counts.wavefronts, counts.bank_conflicts, arrays_of(trace), arch, timing, top)


def launch_timing(streams: WarpStreams, batch: InstructionBatch, arch: ArchConfig, resources: dict[str, int],
                  code: dict[int, dict[str, str]] | None = None) -> Callable[[np.ndarray], LaunchTiming]:
    """The timed SM's timing of a launch (the tracer's ``StreamSink``: ``streams``, ``resources``, ``code``) for given
    wavefronts of each row of ``batch``."""
    return lambda wavefronts: time_launch(streams, batch, wavefronts, arch, resources, code)


def distinct_timing(d: Distinct, streams: WarpStreams, resources: dict[str, int], code: dict[int, dict[str, str]] | None = None
                    ) -> Callable[[np.ndarray], LaunchTiming]:
    """``launch_timing`` for given wavefronts of each of ``d``'s distinct rows (the timed SM's CTAs are among its kept
    rows: ``distinct.gather(..., ctas=the sink's CTAs)``)."""
    timing = launch_timing(renumbered(streams, d.rows), d.cta.instructions, d.arch, resources, code)
    return lambda wavefronts: timing(wavefronts[d.ids])


def cycles_of(timing: Callable[[np.ndarray], LaunchTiming]) -> Callable[[np.ndarray], float]:
    """A launch's ``sm__cycles_elapsed.max`` for given wavefronts: ``search``'s ``timing``."""
    return lambda wavefronts: timing(wavefronts).metrics[CYCLES]


def _rank(f: Fix) -> tuple:
    return (f.wavefronts, f.change.flattens, KINDS.index(f.change.kind), f.change.extra, f.change.key)


def _tried(batch: InstructionBatch, wavefronts: np.ndarray, conflicts: np.ndarray, weight: np.ndarray, a: Array, arch: ArchConfig) -> list:
    """Every candidate of ``a`` counted over the trace (each row ``weight`` times): (fix, the rows it changes, what
    counts their new wavefronts)."""
    lanes = IS_LANES[batch.op]
    rows = np.flatnonzero(lanes & a.holds(batch.addrs).any(axis=1))
    if not len(rows):
        return []
    own = batch.take(rows)
    keys = np.concatenate([own.forms()[:, None], own.addrs.astype(np.int64), own.zfill[:, None].astype(np.int64),
                           own.srcsize[:, None].astype(np.int64), own.zeroed[:, None].astype(np.int64),
                           own.pred[:, None].astype(np.int64)], axis=1)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    distinct = own.take(first)
    now, now_conflicts = int(wavefronts @ weight), int(conflicts @ weight)
    here, here_conflicts = int(wavefronts[rows] @ weight[rows]), int(conflicts[rows] @ weight[rows])
    weight = np.bincount(inverse, weights=weight[rows], minlength=len(first)).astype(np.int64)
    def moved(c: Candidate) -> np.ndarray:
        return apply(distinct.addrs, c.remap, (a.base, a.size), arch.phase_bytes)

    def per_row(c: Candidate) -> Callable[[], np.ndarray]:  # a fix's rows' new wavefronts, counted again when asked
        return lambda: count(attrs.evolve(distinct, addrs=moved(c)), arch).wavefronts[inverse]

    out = []
    cands = candidates(a, arch)
    per = max(1, BATCH_ROWS // len(distinct))
    for start in range(0, len(cands), per):  # a batch of candidates at a time: the moved rows never exceed BATCH_ROWS
        part, addrs = [], []
        for c in cands[start : start + per]:
            m = moved(c)
            if int(m.max()) + a.access <= arch.shared_memory_per_cta:
                part.append(c)
                addrs.append(m)
        if not part:
            continue
        counted = count(InstructionBatch.concat([attrs.evolve(distinct, addrs=m) for m in addrs]), arch)
        w = counted.wavefronts.reshape(len(part), len(distinct))
        k = counted.bank_conflicts.reshape(len(part), len(distinct))
        for c, wc, kc in zip(part, w, k):
            fix = Fix(a, c, now - here + int(wc @ weight), now_conflicts - here_conflicts + int(kc @ weight), wavefronts_now=now)
            out.append((fix, rows, per_row(c)))
    return out


def _redeclared(a: Array, row: int) -> Candidate:
    """Rows of ``row`` bytes instead of ``a.row``: ``As[8][132]``."""
    cols, diff = row // a.elem, (row - a.row) // a.elem
    return Candidate("declaration", a.declaration(row=row), f"{a.name}[row * {cols} + col] where it is indexed flat",
                     f"rows of {row} bytes instead of {a.row}", _restride(a.row, row), a.rows * (row - a.row), (abs(diff), diff < 0))


def _padded(a: Array, every: int, pad: int) -> Candidate:
    """``pad`` bytes after every ``every`` bytes of the array: ``sdata[i + i / 32]``."""
    c, p = every // a.elem, pad // a.elem
    index = f"{a.name}[i + i / {c}" + (f" * {p}" if p > 1 else "") + "]"
    n = -(-a.size // a.elem)
    elems = n + (n - 1) // c * p
    where = f" with i = row * {a.row // a.elem} + col" if a.two_d else ""
    return Candidate("padding", a.declaration(elems=elems), index + where, f"pad {pad} bytes per {every}-byte row",
                     _restride(every, every + pad), (elems - n) * a.elem, (p, c), a.two_d)


def _swizzled(a: Array, sw: Swizzle) -> Candidate:
    """``sw`` on the array's element index, as the index to write."""
    cols = a.row // a.elem
    c = cols.bit_length() - 1
    declaration = ""
    power = a.two_d and cols == 1 << c
    if power and sw.shift > 0 and sw.base + sw.bits <= c <= sw.base + sw.shift:  # column bits flipped by row bits
        index = f"{a.name}[row][col ^ {_moved('row', sw.base + sw.shift - c, sw.bits, sw.base)}]"
    elif power and sw.shift < 0 and sw.base + sw.bits <= c <= sw.base - sw.shift:  # row bits flipped by column bits
        index = f"{a.name}[row ^ {_moved('col', sw.base, sw.bits, sw.base - sw.shift - c)}][col]"
    else:  # on the flat index (a 2-D array declared 1-D to take it)
        read, to = (sw.base + sw.shift, sw.base) if sw.shift > 0 else (sw.base, sw.base - sw.shift)
        index = f"{a.name}[i ^ {_moved('i', read, sw.bits, to)}]" + (f" with i = row * {cols} + col" if a.two_d else "")
        declaration = a.declaration(elems=-(-a.size // a.elem)) if a.two_d else ""
    on_bytes = Swizzle(sw.bits, sw.base + a.elem.bit_length() - 1, sw.shift)
    return Candidate("swizzle", declaration, index, f"{on_bytes} on the array's byte offsets", on_bytes, 0,
                     (sw.bits, sw.base, abs(sw.shift), sw.shift < 0), bool(declaration))


def _moved(var: str, at: int, bits: int, to: int) -> str:
    """``((var >> at) & mask) << to`` written as simply as it goes."""
    e = f"({var} >> {at})" if at else var
    e = f"({e} & {(1 << bits) - 1})"
    return f"({e} << {to})" if to else e


def apply(addrs: np.ndarray, remap: Callable[[np.ndarray], np.ndarray], region: tuple[int, int], align: int = 128) -> np.ndarray:
    """``addrs`` with those inside ``region`` (base, bytes) remapped as offsets from its base (inactive lanes, ``-1``, left
    as they are); those above it move up by the bytes the remap adds to it, rounded up to ``align`` so that their banks
    stay (the arrays after a grown one move up)."""
    base, size = region
    grown = max(0, int(remap(np.arange(size)).max()) + 1 - size)
    inside = (addrs >= base) & (addrs < base + size)
    above = np.where(addrs >= base + size, addrs + -(-grown // align) * align, addrs)
    return np.where(inside, remap(np.maximum(addrs - base, 0)) + base, above).astype(addrs.dtype)


def _restride(row: int, to: int) -> Callable[[np.ndarray], np.ndarray]:
    """Byte offsets with rows of ``row`` bytes moved to rows of ``to`` bytes."""
    return lambda o: o // row * to + o % row
