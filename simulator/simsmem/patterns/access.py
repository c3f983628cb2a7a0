"""Access patterns: which tile element each lane of each instruction touches, before any layout.

An ``Access`` names an instruction form (in SASS spelling, as ``simsmem run`` prints it) and how
the threads walk a ``rows x cols`` tile:

- ``row``: thread ``t`` takes the ``t``-th access of a row-by-row walk, each lane moving one
  access (``width`` bits, several elements) — CUDA's ``tile[ty][tx]``, a 128-bit g2s copy; with
  ``block_x`` threads per row (CUDA's ``blockDim.x``, which shapes the warp: ``32 / block_x`` rows of
  ``block_x`` lanes) the walk covers panels ``block_x`` accesses wide, left to right;
- ``col``: the same down the columns — ``tile[tx][ty]``, ``block_x`` threads down a column;
- ``acc``: an mma accumulator fragment stored per 16x16 block (``wmma::store_matrix_sync``: four
  stores, lane ``l`` holds the two elements at row ``l/4 (+8)``, column ``2*(l%4) (+8)``);
- ``frag``: ldmatrix/stmatrix fragments: lane ``l`` gives the row address of row ``l % 16`` (``l % 8``
  for .x1), 16-byte column block ``l // 16``, one instruction per block of the tile.

Warp ``t // 32`` runs threads ``t`` of a walk (one instruction each); a fragment or accumulator
access is one warp's (warp 0) sequence over all blocks. ``place`` turns a pattern into instructions
of a trace for a given ``Tile``.
"""

from __future__ import annotations

import attrs
import numpy as np

from ..corpus import sass_form
from ..errors import SimsmemError
from ..results.metrics import op_label
from ..tiles.layout import Tile
from ..traces import (
    FULL_MASK,
    INACTIVE,
    LANES,
    MATRIX_OPS,
    NO_WAIT,
    OPS,
    InstructionBatch,
    Trace,
)
from ..traces.records import SOURCE_OPS

MATRIX_ROW_BYTES = 16  # one 8x8 b16 matrix row
MAX_ADDRESS = 2**31 - 1


@attrs.frozen
class Access:
    """One instruction form and how the threads walk the tile with it."""

    op: str
    width: int = 0  # access bits (LDS/STS/ATOMS); 0 for matrix ops
    num: int = 0  # matrices (LDSM/STSM)
    trans: bool = False
    walk: str = attrs.field()  # default: ``frag`` for matrix ops, ``row`` otherwise
    bypass: bool = False  # LDGSTS: cp.async .cg (LDGSTS.E.BYPASS.128)
    generic: bool = False  # a generic LD/ST into shared memory (same data path, not an LDS/STS)
    threads: int = 0  # row/col walks: only the first ``threads`` threads (0: cover the tile once)
    block_x: int = 0  # row/col walks: threads along a row (row walk) or down a column (col walk); 0: all of it

    @walk.default
    def _default_walk(self) -> str:
        return "frag" if self.op in MATRIX_OPS else "row"

    def __attrs_post_init__(self) -> None:
        allowed = ("frag",) if self.op in MATRIX_OPS else ("row", "col", "acc")
        if self.threads < 0 or self.block_x < 0:
            raise SimsmemError(str(self), f"threads and block_x must be >= 0, got {self.threads} and {self.block_x}")
        if self.walk not in allowed:
            raise SimsmemError(str(self), f"walk {self.walk!r} is not one of {', '.join(allowed)} for {self.op}")

    @property
    def access_bytes(self) -> int:
        """Bytes one lane moves."""
        return MATRIX_ROW_BYTES if self.op in MATRIX_OPS else self.width // 8

    def __str__(self) -> str:
        label = op_label(self.op, self.width, self.num, self.trans, bypass=self.bypass)
        return label if self.walk in ("row", "frag") else f"{label}@{self.walk}"


def parse_access(spec: str) -> Access:
    """``STS.128``, ``LDS@col``, ``STS@acc``, ``LDSM.16.MT88.4``: a SASS opcode and an optional ``@walk``."""
    head, at, walk = spec.partition("@")
    form = sass_form(head)
    return Access(**form, walk=walk) if at else Access(**form)


@attrs.frozen(eq=False)
class Pattern:
    """An access's instructions with tile coordinates per lane (``-1``: the lane gives no address)."""

    access: Access
    instructions: InstructionBatch  # every field but addrs, which ``place`` fills in
    row: np.ndarray  # int64 (n, 32)
    col: np.ndarray  # int64 (n, 32)


def pattern(access: Access, rows: int, cols: int, elem_bytes: int) -> Pattern:
    """The instructions ``access`` makes over a ``rows x cols`` tile of ``elem_bytes``-byte elements."""
    where = str(access)
    vec, rest = divmod(access.access_bytes, elem_bytes)
    if rest or vec < 1:
        raise SimsmemError(where, f"a {access.access_bytes}-byte access does not cover whole {elem_bytes}-byte elements")
    if access.walk in ("row", "col"):
        _divides(vec, cols, "cols", where)
        lines, length = (rows, cols // vec) if access.walk == "row" else (cols // vec, rows)
        across = access.block_x or length
        _divides(across, length, "accesses per " + ("row" if access.walk == "row" else "column"), where)
        # Panels of `across` accesses per line, line after line (CUDA: blockDim.x = across).
        t = np.arange(lines * length)
        line, k = t % (lines * across) // across, t // (lines * across) * across + t % across
        r, c = (line, k * vec) if access.walk == "row" else (k, line * vec)
        if access.threads:
            if access.threads > len(r):
                raise SimsmemError(where, f"{access.threads} threads but the tile holds only {len(r)} accesses")
            r, c = r[: access.threads], c[: access.threads]
        lanes = -(-len(r) // LANES) * LANES
        row = np.pad(r, (0, lanes - len(r)), constant_values=-1).reshape(-1, LANES)
        col = np.pad(c, (0, lanes - len(c)), constant_values=-1).reshape(-1, LANES)
        warp = np.arange(len(row))
    elif access.walk == "acc":
        if vec != 2:
            raise SimsmemError(where, f"an accumulator store moves 2 elements per lane: {16 * elem_bytes} bits for {elem_bytes}-byte elements")
        _divides(16, rows, "rows", where)
        _divides(16, cols, "cols", where)
        lane = np.arange(LANES)
        i = np.arange(4)[:, None]
        r_in = lane // 4 + 8 * (i % 2)  # the four stores: rows +0/+8, columns +0/+8
        c_in = 2 * (lane % 4) + 8 * (i // 2)
        row, col = _blocks(r_in, c_in, rows, cols, 16, 16)
        warp = np.zeros(len(row), dtype=np.int64)
    else:
        per_row = MATRIX_ROW_BYTES // elem_bytes
        height = 8 * min(access.num, 2)
        width = per_row * max(1, access.num // 2)
        _divides(height, rows, "rows", where)
        _divides(width, cols, "cols", where)
        lane = np.arange(LANES)
        given = lane < 8 * access.num
        r_in = np.where(given, lane % height, -1)[None]
        c_in = np.where(given, (lane // height) * per_row, -1)[None]
        row, col = _blocks(r_in, c_in, rows, cols, height, width)
        warp = np.zeros(len(row), dtype=np.int64)
    n = len(row)
    active = row >= 0
    matrix = access.op in MATRIX_OPS
    mask = FULL_MASK if matrix else (active.astype(np.uint64) << np.arange(LANES, dtype=np.uint64)).sum(axis=1)
    batch = InstructionBatch(
        op=np.full(n, OPS.index(access.op), dtype=np.uint8),
        width=np.full(n, access.width, dtype=np.uint8),
        num=np.full(n, access.num, dtype=np.uint8),
        trans=np.full(n, access.trans, dtype=bool),
        mask=np.broadcast_to(np.asarray(mask, dtype=np.uint32), (n,)).copy(),
        warp=warp.astype(np.int32),
        wait=np.full(n, NO_WAIT, dtype=np.int32),
        delay=np.zeros(n, dtype=np.int64),
        issue=np.zeros(n, dtype=np.int32),
        generic=np.full(n, access.generic, dtype=bool),
        atom=np.zeros(n, dtype=np.uint8),
        addrs=np.full((n, LANES), INACTIVE, dtype=np.int32),
        bypass=np.full(n, access.bypass, dtype=bool),
    )
    return Pattern(access, batch, row, col)


def place(p: Pattern, t: Tile) -> InstructionBatch:
    """The pattern's instructions with each lane's byte address in tile ``t``. A copy from global
    memory (LDGSTS) reads its element from a row-major, unpadded copy of the tile at global address 0."""
    t.check_vectors(p.access.access_bytes, str(p.access))
    active = p.row >= 0
    row, col = np.where(active, p.row, 0), np.where(active, p.col, 0)
    addrs = np.where(active, t.byte_offset(row, col), INACTIVE)
    if addrs.max(initial=0) > MAX_ADDRESS:
        raise SimsmemError(str(t), "addresses past 2**31")
    out = attrs.evolve(p.instructions, addrs=addrs.astype(np.int32))
    if p.access.op in SOURCE_OPS:
        out = attrs.evolve(out, src=np.where(active, (row * t.cols + col) * t.elem_bytes, INACTIVE).astype(np.int64))
    return out


def steps_trace(steps: list[tuple[Access, Tile]], name: str, ctas: int = 1, arch: str | None = None) -> Trace:
    """A trace of ``(access, tile)`` steps, each step's instructions after the previous step's."""
    batches = [place(pattern(a, t.rows, t.cols, t.elem_bytes), t) for a, t in steps]
    return Trace(InstructionBatch.concat(batches), name=name, arch=arch, ctas=ctas)


def _blocks(r_in: np.ndarray, c_in: np.ndarray, rows: int, cols: int, height: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-block instructions (``r_in``/``c_in``: (per block, 32) offsets in a block), blocks row by row."""
    r0, c0 = np.meshgrid(np.arange(0, rows, height), np.arange(0, cols, width), indexing="ij")
    r0, c0 = r0.ravel()[:, None, None], c0.ravel()[:, None, None]
    given = r_in >= 0
    row = np.where(given, r0 + r_in, -1).reshape(-1, LANES)
    col = np.where(given, c0 + c_in, -1).reshape(-1, LANES)
    return row, col


def _divides(step: int, extent: int, name: str, where: str) -> None:
    if extent < 1 or extent % step:
        raise SimsmemError(where, f"{name} = {extent} is not a positive multiple of {step}")
