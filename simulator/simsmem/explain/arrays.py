"""A traced kernel's shared arrays: name, base, element size and row length, as the kernel's accesses show them.

The trace header's ``kernel.shared`` names the arrays the PTX declares, where ptxas put them
(``kernel/shared.py``), and the PTX type of each access. The dynamic ``extern`` buffer (and shared memory that no
declaration names: a cubin's, a generated trace's) is split into arrays where its SASS instructions' address spans
do not overlap. Of each array:

- its element: the narrowest PTX type among its accesses (``ld.shared.v4.f32``: 4 bytes, ``float``), else the
  narrowest lane access (an ldmatrix row: 2-byte elements);
- its row: from the *fixed* strides of its accesses, those that are the same each time an instruction runs: the
  stride of a lane-index bit (lane ``l`` to ``l | 2**b``), and the shift from one instruction of a warp to its next
  with the same lane pattern. Strides within a lane pattern's own contiguous run move along a row; the others move
  between rows, and their greatest common divisor is the row. Where one SASS instruction, run once by the whole
  CTA, covers exactly a run of R bytes and the row strides of R and above have R as divisor, the row is R (a CTA
  storing ``As[k][0..127]`` at once: rows of 128, not the 64 that ``As[k][ty*4 + 64]`` alone would suggest). No
  such stride: one row (a 1-D array). The same addresses can come from several shapes; the fixes
  (``simsmem.explain.fixes``) also state each change on the flat index, which holds whatever the shape.
"""

from __future__ import annotations

import itertools
import math

import attrs
import numpy as np
from rich.console import Console
from rich.table import Table

from ..errors import SimsmemError
from ..traces import Trace
from ..traces.records import IS_LANES, IS_MATRIX, NO_PC

#: Bytes of an ldmatrix/stmatrix row (8 b16 elements), and of their element.
MATRIX_ROW, MATRIX_ELEM = 16, 2
#: PTX element types: (bytes, C type).
C_TYPES = {
    "f16": (2, "half"), "bf16": (2, "__nv_bfloat16"), "f32": (4, "float"), "f64": (8, "double"), "s8": (1, "signed char"),
    "u8": (1, "unsigned char"), "s16": (2, "short"), "u16": (2, "unsigned short"), "s32": (4, "int"), "u32": (4, "unsigned"),
    "s64": (8, "long long"), "u64": (8, "unsigned long long"), "b8": (1, "char"), "b16": (2, "half"), "b32": (4, "unsigned"),
    "b64": (8, "unsigned long long"),
}
#: C types of elements no access names a type for.
UNTYPED = {1: "char", 2: "half", 4: "float", 8: "double", 16: "float4"}
#: Rows of one CTA the shape is read from, at most (shared addresses repeat from CTA to CTA).
SAMPLE = 200_000


@attrs.frozen
class Array:
    """One shared array: where it is (bytes in the CTA's shared window), its element and its rows."""

    name: str
    base: int
    size: int  # bytes: declared, or (a split of the dynamic buffer, an unnamed array) the span its accesses reach
    elem: int  # bytes of an element
    ctype: str  # the element's C type
    row: int  # bytes from one row to the next (== size: a 1-D array)
    width: int  # bytes of a row the accesses reach (row - width: its padding)
    access: int  # bytes of its widest lane access
    extern: bool = False  # (a part of) the dynamic shared memory buffer
    offset: int = 0  # bytes into the extern buffer

    @property
    def rows(self) -> int:
        return -(-self.size // self.row)

    @property
    def two_d(self) -> bool:
        return self.rows > 1

    def shape(self, row: int | None = None) -> str:
        """``[8][128]`` (``[256]`` for a 1-D array), with rows of ``row`` bytes instead where given."""
        cols = (row or self.row) // self.elem
        return f"[{self.rows}][{cols}]" if self.two_d else f"[{-(-self.size // self.elem) if row is None else cols}]"

    def declaration(self, row: int | None = None, elems: int | None = None) -> str:
        """How the kernel declares it (rows of ``row`` bytes, or ``elems`` elements of a 1-D array, instead where given)."""
        if self.extern:
            n = elems if elems is not None else self.rows * (row or self.row) // self.elem
            if self.offset:
                return f"{self.ctype} *{self.name} ({n} {self.ctype}s from the extern buffer's byte {self.offset})"
            return f"extern __shared__ {self.ctype} {self.name}[] ({n * self.elem} bytes of dynamic shared memory: {n} {self.ctype}s)"
        return f"__shared__ {self.ctype} {self.name}" + (f"[{elems}]" if elems is not None else self.shape(row))

    def holds(self, addrs: np.ndarray) -> np.ndarray:
        return (addrs >= self.base) & (addrs < self.base + self.size)

    def __str__(self) -> str:
        return f"{self.name} at {self.base:#x}"


def arrays_of(trace: Trace) -> tuple[Array, ...]:
    """The shared arrays of ``trace``, by base."""
    view = _View.of(trace)
    spans = []  # (name, base, size, extern, offset)
    named = [a for a in view.info.get("arrays", []) if isinstance(a, dict) and isinstance(a.get("name"), str)
             and all(isinstance(a.get(k), int) and a[k] >= 0 for k in ("base", "bytes"))]  # a hand-edited header's others: unnamed
    outside = np.ones(view.addrs.shape, dtype=bool)
    for a in named:
        lo, hi = a["base"], a["base"] + max(a["bytes"], 1)
        outside &= ~((view.addrs >= lo) & (view.addrs < hi))
        if a.get("extern"):
            spans += [(a["name"] if s == lo else f"{a['name']}_{s - lo}", s, e - s, True, s - lo) for s, e in _clusters(view, view.addrs, lo, hi)]
        else:
            spans.append((a["name"], a["base"], a["bytes"], False, 0, True))
    loose = np.where(outside, view.addrs, -1)
    for s, e in _clusters(view, loose, 0, 1 << 31):
        spans.append(((f"shared_{s:x}" if view.kernel else "tile" + (f"_{s:x}" if s else "")), s, e - s, False, 0))
    out = [view.array(*span) for span in spans]
    return tuple(sorted((a for a in out if a is not None), key=lambda a: a.base))


def region(trace: Trace, base: int, size: int) -> Array:
    """The bytes ``[base, base + size)`` of ``trace``'s shared memory taken as one array."""
    view = _View.of(trace)
    if not ((view.addrs >= base) & (view.addrs < base + size)).any():
        raise SimsmemError("--region", f"no address of the trace falls in [{base:#x}, {base + size:#x})")
    return view.array(f"shared_{base:x}", base, size, False, 0, True)


def find(arrays: tuple[Array, ...], name: str) -> Array:
    """The array called ``name``."""
    for a in arrays:
        if a.name == name:
            return a
    known = ", ".join(a.name for a in arrays) or "none"
    raise SimsmemError("--region", f"no shared array named {name!r} (the trace's arrays: {known})")


def _sample(trace: Trace) -> np.ndarray:
    """Rows of the trace's first CTA (a kernel's trace numbers warps grid-wide), at most ``SAMPLE``."""
    b = trace.instructions
    rows = np.arange(len(b))
    warps = _warps(trace.kernel)
    if warps and len(b):
        rows = np.flatnonzero(b.warp // warps == int(b.warp.min()) // warps)
    return rows[:SAMPLE]


def _warps(kernel) -> int:
    """Warps per CTA of a traced kernel's header (0: not a traced kernel's, or not readable)."""
    block = kernel.get("block") if isinstance(kernel, dict) else None
    if not isinstance(block, list) or not block or not all(isinstance(n, int) and n > 0 for n in block):
        return 0
    return -(-int(np.prod(block)) // 32)


@attrs.frozen(eq=False)
class _View:
    """A trace's rows with lane addresses (its first CTA's), with what the arrays are read from."""

    b: object  # InstructionBatch
    addrs: np.ndarray  # int64 (rows, 32), -1 inactive
    access: np.ndarray  # bytes of each row's lane access
    types: dict  # SASS offset "0x0120" -> PTX type
    kernel: dict
    info: dict

    @staticmethod
    def of(trace: Trace) -> _View:
        kernel = trace.kernel if isinstance(trace.kernel, dict) else {}
        info = kernel.get("shared") if isinstance(kernel.get("shared"), dict) else {}
        types = info.get("types") if isinstance(info.get("types"), dict) else {}
        b = trace.instructions
        rows = _sample(trace)
        b = b.take(rows[IS_LANES[b.op[rows]]])
        access = np.where(IS_MATRIX[b.op], MATRIX_ROW, b.width.astype(np.int64) // 8)
        return _View(b, b.addrs.astype(np.int64), access, types, kernel, info)

    def array(self, name: str, base: int, size: int, extern: bool, offset: int, declared: bool = False) -> Array | None:
        """The array ``[base, base + size)``: its element and rows as its accesses show them (None: no access, no size);
        ``declared``: its size is the declaration's (else the span its accesses reach, taken to whole rows)."""
        inside = (self.addrs >= base) & (self.addrs < base + size)
        rows = np.flatnonzero(inside.any(axis=1))
        if not len(rows):
            return Array(name, base, size, 1, "char", size, size, 1, extern, offset) if size else None
        own = self.b.take(rows)
        off = np.where(inside[rows], self.addrs[rows] - base, -1)
        acc = self.access[rows]
        typed = [t for t in (self.types.get(f"{pc:#06x}") for pc in own.pc.tolist()) if t in C_TYPES]
        lane = np.where(IS_MATRIX[own.op], MATRIX_ELEM, acc)
        elem = min([C_TYPES[t][0] for t in typed] or [int(lane.min())])
        named = sorted({t for t in typed if C_TYPES[t][0] == elem}, key=lambda t: (t.startswith("b"), t))  # f32 before b32
        ctype = C_TYPES[named[0]][1] if named else UNTYPED.get(elem, "char")
        warps = _warps(self.kernel) or 1 << 30
        row = _row(own, off, acc, size, warps)
        if not declared:  # the span its accesses reach: whole rows
            size = -(-size // row) * row
        if row % elem or row <= int(acc.max()) or size % row:
            row = size
        used = np.where(off >= 0, off % row + acc[:, None], 0).max()
        width = min(row, -(-int(used) // elem) * elem)
        return Array(name, base, size, elem, ctype, row, width, int(acc.max()), extern, offset)


def _clusters(view: _View, addrs: np.ndarray, lo: int, hi: int) -> list[tuple[int, int]]:
    """Address spans ``[start, end)`` inside ``[lo, hi)`` that the trace's SASS instructions touch, merged where they
    overlap (rows without a SASS offset, a generated trace's: those with one lane pattern, shifted, count as one)."""
    inside = (addrs >= lo) & (addrs < hi)
    touched = inside.any(axis=1)
    if not touched.any():
        return []
    first = np.where(inside, addrs, np.iinfo(np.int64).max).min(axis=1)[touched]
    last = np.where(inside, addrs + view.access[:, None], -1).max(axis=1)[touched]
    b = view.b.take(np.flatnonzero(touched))
    low = np.where(addrs[touched] >= 0, addrs[touched], np.iinfo(np.int64).max).min(axis=1)
    rel = np.where(addrs[touched] >= 0, addrs[touched] - low[:, None], -1)
    pattern = np.unique(np.column_stack([b.op, b.width, b.num, b.mask.astype(np.int64), rel]), axis=0, return_inverse=True)[1].ravel()
    key = np.where(b.pc == NO_PC, -1 - pattern, b.pc)
    order = np.argsort(key, kind="stable")
    _, start = np.unique(key[order], return_index=True)
    starts = np.minimum.reduceat(first[order], start)
    ends = np.maximum.reduceat(last[order], start)
    merged: list[list[int]] = []
    for s, e in sorted(zip(starts.tolist(), ends.tolist())):
        if merged and s < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return [(s, min(e, hi)) for s, e in merged]


def _row(b, off: np.ndarray, acc: np.ndarray, size: int, warps: int) -> int:
    """The row stride (bytes) the accesses' fixed strides show (``size``: none shows)."""
    active = off >= 0
    low = np.where(active, off, np.iinfo(np.int64).max).min(axis=1)
    rel = np.where(active, off - low[:, None], -1)
    pattern = np.unique(np.column_stack([b.op, b.width, b.mask.astype(np.int64), acc, rel]), axis=0, return_index=True, return_inverse=True)
    runs = np.array([_longest_run(o[o >= 0], a) for o, a in zip(rel[pattern[1]], acc[pattern[1]])])[pattern[2].ravel()]
    pattern = pattern[2].ravel()
    # where each SASS instruction (each row without one) always moves by the same stride for a lane-index bit
    where = np.where(b.pc == NO_PC, -1 - np.arange(len(b)), b.pc)
    seen: dict[tuple[int, int], set] = {}
    lane = np.arange(32)
    for bit in range(5):
        lo = lane[(lane >> bit & 1) == 0]
        hi = lo | 1 << bit
        pair = active[:, lo] & active[:, hi]
        d = np.where(pair, off[:, hi] - off[:, lo], 0)
        big, small = np.where(pair, d, np.iinfo(np.int64).min).max(axis=1), np.where(pair, d, np.iinfo(np.int64).max).min(axis=1)
        rows = np.flatnonzero(pair.any(axis=1))
        steady = big[rows] == small[rows]
        for pc, value, run, ok in np.unique(np.column_stack([where[rows], big[rows], runs[rows], steady]), axis=0).tolist():
            seen.setdefault((pc, bit), set()).add((value, run) if ok else None)
    where = where.tolist()
    unsteady = {pc for (pc, _), values in seen.items() if None in values or len({v for v, _ in values}) > 1}
    strides = {abs(v) for (pc, _), values in seen.items() if pc not in unsteady for v, run in values if abs(v) > run}
    if not strides:  # no lane moves between rows: the shift from a warp's instruction to its next with the same lanes
        order = np.lexsort((np.arange(len(b)), b.warp))
        same = (b.warp[order][1:] == b.warp[order][:-1]) & (pattern[order][1:] == pattern[order][:-1])
        first, then = order[:-1][same], order[1:][same]
        shifts: dict[tuple[int, int], set[int]] = {}
        for pa, pc, shift, run in zip(b.pc[first].tolist(), b.pc[then].tolist(), (low[then] - low[first]).tolist(), runs[first].tolist()):
            if pa != NO_PC:
                shifts.setdefault((pa, pc), set()).add(abs(shift) if abs(shift) > run else 0)
        strides = {s for values in shifts.values() if len(values) == 1 for s in values if s}
    if not strides:
        return size
    row = math.gcd(*strides)
    whole = _cta_rows(b, off, acc, np.array([pc not in unsteady for pc in where]), warps)
    return max([w for w in whole if row % w == 0], default=row)


def _runs(offsets: np.ndarray, access: int) -> list[tuple[int, int]]:
    """The contiguous runs ``(start, end)`` that accesses of ``access`` bytes at ``offsets`` cover."""
    out: list[list[int]] = []
    for a in np.unique(offsets).tolist():
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], a + access)
        else:
            out.append([a, a + access])
    return [(s, e) for s, e in out]


def _longest_run(offsets: np.ndarray, access: int) -> int:
    """The longest contiguous run of bytes that accesses of ``access`` bytes at ``offsets`` cover."""
    return max((e - s for s, e in _runs(offsets, access)), default=0)


def _cta_rows(b, off: np.ndarray, acc: np.ndarray, fixed: np.ndarray, warps: int) -> set[int]:
    """Row lengths that a SASS instruction run once by every warp of a CTA (its k-th execution in each) shows: it
    covers several runs of one length ``L`` whose starts are multiples of ``L`` apart, each longer than one warp's
    own run, which is longer than one access (the lanes, then the warps, walk along whole rows of ``L`` bytes)."""
    groups: dict[tuple[int, int, int], list[int]] = {}
    seen: dict[tuple[int, int], int] = {}
    for i, (pc, warp) in enumerate(zip(b.pc.tolist(), b.warp.tolist())):
        if pc == NO_PC or not fixed[i]:
            continue
        k = seen.get((pc, warp), 0)
        seen[(pc, warp)] = k + 1
        groups.setdefault((pc, warp // warps, k), []).append(i)
    out = set()
    for rows in groups.values():
        o = off[rows]
        runs = _runs(o[o >= 0], int(acc[rows].max()))
        lengths = {e - s for s, e in runs}
        own = max(_longest_run(r[r >= 0], int(a)) for r, a in zip(o, acc[rows]))
        if len(runs) > 1 and len(lengths) == 1 and int(acc[rows].max()) < own < min(lengths):
            n = lengths.pop()
            if all((t[0] - s[0]) % n == 0 for s, t in itertools.pairwise(runs)):
                out.add(n)
    return out


def print_arrays(trace: Trace | None, console: Console) -> None:
    """A table of a trace's shared arrays (none: no trace, or no array): name, base, bytes, element and shape."""
    arrays = arrays_of(trace) if trace is not None else ()
    if not arrays:
        return
    table = Table(title="Shared arrays (the names --region takes)")
    for col in ("Array", "Base", "Bytes", "Element", "Shape", "Padding"):
        table.add_column(col, justify="left" if col in ("Array", "Element", "Shape") else "right")
    for a in arrays:
        pad = (a.row - a.width) // a.elem
        table.add_row(a.name + (" (extern)" if a.extern else ""), f"{a.base:#x}", f"{a.size:,}", f"{a.ctype} ({a.elem} B)", a.shape(),
                      f"{pad} per row" if a.two_d and pad else "")
    console.print(table)
