"""``simsmem explain`` of an op without lanes: which banks a wgmma's operands or a TMA box touch.

A wgmma's operand is read one 8 x 16-byte core matrix per wavefront (8 rows of 16 bytes of K, or, M/N-major, 8 K
rows of 16 bytes of M/N); a canonical layout puts the 8 rows on 8 different 16-byte groups of banks, so each
wavefront covers the 32 banks once. A TMA copy does not use the LSU data path: its rows are shown where they land.
"""

from __future__ import annotations

import attrs
import numpy as np
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..results.metrics import op_label
from ..tiles.hopper import WIDTH, Descriptor, addresses, box_addresses
from ..traces import Instruction
from ..traces.records import sass_at
from .distinct import Distinct

#: bytes of a wgmma operand type's element (b1: 32 bytes of K a row, as 8-bit elements)
ELEMENT = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1, "s8": 1, "u8": 1, "b1": 1}
#: the shared rows of a piece that explain shows
SHOWN = 4
MODE = {0: "no swizzle (8x16-byte core matrices)", 1: "128B swizzle", 2: "64B swizzle", 3: "32B swizzle"}


@attrs.frozen
class Piece:
    """One part of a block op: a wgmma operand or a TMA box, and its pieces' rows."""

    title: str
    groups: np.ndarray  # (pieces, columns): the 16-byte bank group of each (banks 4g..4g+3)
    starts: np.ndarray  # (pieces, columns): their shared addresses
    label: str  # what a piece is ("core matrix", "box row")
    column: str  # what its columns are ("row": a core matrix's rows; "chunk": a box row's 16-byte chunks)


@attrs.frozen
class BlockExplanation:
    """An op without lanes: what it moves, and where its first pieces fall in the banks."""

    index: int
    instruction: Instruction
    summary: str
    parts: tuple[Piece, ...]
    where: str = ""


def explain_block(d: Distinct, index: int) -> BlockExplanation:
    """The row ``index`` of a trace (its distinct rows ``d``), a wgmma or a copy."""
    ins, at = d.row(index), d.position(index)
    waves, conflicts = int(d.counts.wavefronts[at]), int(d.counts.bank_conflicts[at])
    code = sass_at(d.kernel, ins.pc)
    where = f"SASS {ins.pc:#06x} {code.get('sass', '')}" + (f", from {code['line']}" if code.get("line") else "") if code else ""
    if ins.op == "GMMA":
        parts = tuple(_operand(name, d, rows, ins) for name, d, rows in (("A", ins.desc_a, 64), ("B", ins.desc_b, ins.n)) if d)
        k = 32 // ELEMENT[ins.gtype] * (2 if ins.sparse else 1)
        conflict_free = all(len(set(g)) == 8 for p in parts for g in p.groups.tolist())
        summary = (f"GMMA m64n{ins.n}k{k} {ins.gtype}{' sparse' if ins.sparse else ''}{'' if ins.desc_a else ', A in registers'}: "
                   f"{waves} wavefronts, ideal {waves - conflicts}, {conflicts} bank conflicts: a wavefront reads one 8x16-byte core "
                   "matrix" + (", whose 8 rows cover the 32 banks once" if conflict_free else ""))
        return BlockExplanation(index, ins, summary, parts, where)
    if not ins.mask:
        summary = (f"{op_label(ins.op, 0, 0, False, store=ins.store)}: executed with its guard false in every lane: nothing copied; "
                   "ncu's warp-level instruction counter counts it, the SASS-level one does not")
        return BlockExplanation(index, ins, summary, (), where)
    if ins.op == "UBLKCP":
        into = "read from" if ins.store else "written to"
        summary = (f"{op_label(ins.op, 0, 0, False, store=ins.store)}: {ins.size} bytes {into} shared memory from {ins.smem:#x} "
                   f"({ins.size // 4} bank words); no LSU wavefronts (the copy does not use the LSU data path)")
        return BlockExplanation(index, ins, summary, (), where)
    span = {"none": 0, "32B": 32, "64B": 64, "128B": 128}[ins.swizzle]
    at = box_addresses(ins.smem, ins.box, ins.elem, span)
    row_units = max(ins.box[0] * ins.elem // 16, 1)
    chunks = at.reshape(-1, ins.box[0])[:, :: max(16 // ins.elem, 1)][:, :row_units]
    into = "written to" if ins.op == "UTMALDG" else "read from"
    summary = (f"{ins.op}: a {'x'.join(map(str, ins.box))} box of {ins.elem}-byte elements, {ins.swizzle} swizzle, at {ins.smem:#x}: "
               f"{ins.size} bytes {into} shared memory ({ins.size // 4} bank words); no LSU wavefronts (TMA does not use the LSU data path)")
    part = Piece("the box's rows, their 16-byte chunks", (chunks % 128) // 16, chunks, "box row", "chunk")
    return BlockExplanation(index, ins, summary, (part,), where)


def _operand(name: str, desc: int, rows: int, ins: Instruction) -> Piece:
    """A wgmma operand's core matrices (the first ``SHOWN``): the 16-byte bank group of each of their 8 rows."""
    size = ELEMENT[ins.gtype]
    k = 32 // size * (2 if ins.sparse and name == "B" else 1)
    mn = ins.tnsp in (name, "AB")
    at = addresses(np.array([desc], dtype=np.uint64), rows, k, size, mn)[0]  # (rows, k): each element's address
    chunk = 16 // size
    if mn:  # a core matrix: 8 K rows of 16 bytes of M/N
        cm = at[::chunk, :].T.reshape(k // 8, 8, rows // chunk).transpose(0, 2, 1).reshape(-1, 8)
    else:  # 8 rows of 16 bytes of K
        cm = at[:, ::chunk].reshape(rows // 8, 8, k // chunk).transpose(0, 2, 1).reshape(-1, 8)
    f = Descriptor.of(np.array([desc], dtype=np.uint64))
    mode = int(f.mode[0])
    title = (f"{name}: descriptor {desc:#018x}: {'M/N' if mn else 'K'}-major, {MODE[mode]}, start {int(f.start[0]):#x}, "
             f"LBO {int(f.lbo[0])}, SBO {int(f.sbo[0])}, base offset {int(f.base[0])}: {rows} x {k * size} bytes, {len(cm)} core "
             f"matrices (atom rows of {int(WIDTH[mode])} bytes)")
    return Piece(title, (cm % 128) // 16, cm, "core matrix", "row")


def print_block(ex: BlockExplanation, console: Console) -> None:
    """The summary, then each part's first pieces: their rows' shared addresses and bank groups."""
    console.print(Text(f"instruction {ex.index} (warp {ex.instruction.warp}): {ex.summary}", style="bold"), soft_wrap=True)
    if ex.where:
        console.print(Text("at: ", style="bold") + Text(ex.where), soft_wrap=True)
    for part in ex.parts:
        console.print(part.title, soft_wrap=True, markup=False)
        table = Table(show_header=True, pad_edge=False)
        table.add_column(part.label, justify="right")
        for r in range(part.starts.shape[1]):
            table.add_column(f"{part.column} {r}", justify="right", no_wrap=True)
        for k in range(min(SHOWN, len(part.starts))):
            table.add_row(str(k), *[f"{a:#x} b{4 * g}" for a, g in zip(part.starts[k].tolist(), part.groups[k].tolist())])
        console.print(table)
    if ex.parts:
        console.print(Text(f"cell: the shared address of 16 bytes and the first of the 4 banks they take; the first {SHOWN} "
                           f"{ex.parts[0].label}s of each", style="dim"), soft_wrap=True)
