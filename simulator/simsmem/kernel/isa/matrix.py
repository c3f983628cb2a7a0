"""Warp-level matrix multiply-accumulate (``mma.sync``): HMMA.16816 and HMMA.1688 (f16, bf16, tf32).

Each lane holds fragments of A, B and C in registers as the PTX ISA lays them out (groupID = lane/4,
thread in group = lane%4); ``_places`` lists, per register, lane and half, the element it holds. The
product is formed per warp in float64 and rounded once to float32.
"""

from __future__ import annotations

import functools

import numpy as np

from ..machine import LANES, ExecError, Machine
from ..sass import Instruction
from . import Env, alu, operand
from .floating import f32_to_bf16_bits, f32_to_f16_bits
from .operands import BuildError, registers

_G, _T = np.arange(LANES) // 4, np.arange(LANES) % 4


def _places(kind: str, k: int, halves: bool) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of the element each (register, lane[, half]) of fragment ``kind`` holds, as index arrays."""
    g, t = _G, _T
    if kind == "A":
        if halves:  # f16/bf16: registers of two halves, rows g / g+8, columns 2t(+1) / 2t+8(+1)
            regs = [(g, 2 * t), (g + 8, 2 * t), (g, 2 * t + 8), (g + 8, 2 * t + 8)][: 4 if k == 16 else 2]
            return (np.array([[r, r] for r, c in regs]).transpose(0, 2, 1), np.array([[c, c + 1] for r, c in regs]).transpose(0, 2, 1))
        regs = [(g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4)]  # tf32: one element a register
        return np.array([r for r, c in regs]), np.array([c for r, c in regs])
    if kind == "B":
        if halves:  # k rows 2t(+1) / 2t+8(+1), column g
            regs = [2 * t, 2 * t + 8][: 2 if k == 16 else 1]
            return np.array([[r, r + 1] for r in regs]).transpose(0, 2, 1), np.array([[g, g] for _ in regs]).transpose(0, 2, 1)
        return np.array([t, t + 4]), np.array([g, g])
    # C and D, float32: element i at row g + 8*(i//2), column 2t + i%2; f16 (halves): register i holds elements 2i and 2i+1
    rows, cols = np.array([g + 8 * (i // 2) for i in range(4)]), np.array([2 * t + i % 2 for i in range(4)])
    if halves:
        return rows.reshape(2, 2, LANES).transpose(0, 2, 1), cols.reshape(2, 2, LANES).transpose(0, 2, 1)
    return rows, cols


@functools.cache
def _held(kind: str, k: int, halves: bool) -> np.ndarray:
    """For each element of the matrix (A: 16 x k, B: k x 8, C: 16 x 8), its place among the fragment's values in
    ``_places`` order (flattened)."""
    rows, cols = _places(kind, k, halves)
    at = np.full({"A": (16, k), "B": (k, 8), "C": (16, 8)}[kind], -1)
    at[rows, cols] = np.arange(rows.size).reshape(rows.shape)
    if (at < 0).any():
        raise BuildError("a fragment that does not hold the whole matrix")
    return at


def _values(words: np.ndarray, form: str) -> np.ndarray:
    """(warps, values) float64 of (warps, registers, 32) uint32 fragments in ``_places`` order: f32, tf32 (the low 13 bits
    dropped), or f16/bf16 halves, the low one first."""
    w = len(words)
    if form in ("f32", "tf32"):
        bits = words & np.uint32(0xFFFFE000) if form == "tf32" else words
        return bits.reshape(w, -1).view(np.float32).astype(np.float64)
    halves = np.ascontiguousarray(words).view(np.uint16).reshape(w, -1)
    if form == "bf16":
        return (halves.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    return halves.view(np.float16).astype(np.float64)


@alu("HMMA")
def _hmma(ins: Instruction, env: Env):
    mods = ins.mods
    shape = mods[0]
    if shape not in ("16816", "1688"):
        raise BuildError(f"HMMA.{shape} is not modelled")
    f32_acc = len(mods) > 1 and mods[1] == "F32"
    bf16, tf32 = "BF16" in mods, "TF32" in mods
    k = 16 if shape == "16816" else 8
    a_regs = 4 if (k == 16 or tf32) else 2
    b_regs = 2 if (k == 16 or tf32) else 1
    c_regs = 4 if f32_acc else 2
    dfile, dr = registers(operand(ins, 0), c_regs)
    afile, ar = registers(operand(ins, 1), a_regs)
    bfile, br = registers(operand(ins, 2), b_regs)
    cfile, cr = registers(operand(ins, 3), c_regs)
    ab_form = "tf32" if tf32 else "bf16" if bf16 else "f16"
    c_form = "f32" if f32_acc else "f16"
    c_rows, c_cols = _places("C", k, not f32_acc)
    a_at, b_at, c_at = _held("A", k, not tf32), _held("B", k, not tf32), _held("C", k, not f32_acc)

    def fragment(m: Machine, file: str, regs: list[int], lanes: np.ndarray, w: int) -> np.ndarray:
        if regs[0] == (255 if file == "R" else 63):  # RZ: a zero accumulator
            return np.zeros((w, len(regs), LANES), dtype=np.uint32)
        return getattr(m, file)[regs[0] : regs[0] + len(regs)].take(lanes, axis=1).reshape(len(regs), w, LANES).transpose(1, 0, 2)  # (warps, regs, 32)

    def check(ix: np.ndarray) -> None:
        first = ix[::LANES]
        if len(ix) % LANES or (first % LANES).any() or (ix[LANES - 1 :: LANES] - first != LANES - 1).any():
            raise ExecError(f"{ins.text}: every lane of a warp must execute mma.sync", ins.pc)

    def general(m: Machine, ix: np.ndarray) -> None:
        w = len(ix) // LANES
        lanes = ix
        A = _values(fragment(m, afile, ar, lanes, w), ab_form)[:, a_at]
        B = _values(fragment(m, bfile, br, lanes, w), ab_form)[:, b_at]
        C = _values(fragment(m, cfile, cr, lanes, w), c_form)[:, c_at]
        D = (A @ B + C).astype(np.float32)
        out = getattr(m, dfile)
        if f32_acc:
            words = D[:, c_rows, c_cols].view(np.uint32)  # (warps, 4, 32)
        else:
            conv = f32_to_bf16_bits if bf16 else f32_to_f16_bits
            pair = conv(D[:, c_rows, c_cols])  # (warps, 2, 32, 2)
            words = pair[..., 0] | (pair[..., 1] << np.uint32(16))
        if dr[0] != (255 if dfile == "R" else 63):
            out[dr[0] : dr[0] + len(dr), lanes] = words.transpose(1, 0, 2).reshape(len(dr), -1)

    # The quick path (one register file, f16/bf16/tf32 inputs, a float32 accumulator): A and B gathered at once from
    # their registers' columns, C and D by flat indices made once per warp count; the same A, B and C (C-contiguous
    # float64) and the same A @ B + C as ``general``'s, so the same bits.
    ab_rows = np.array(ar + br)
    quick = f32_acc and afile == bfile == cfile == dfile == "R"
    indices: dict[int, tuple] = {}

    def index_of(w: int) -> tuple:
        n = w * LANES
        v = np.arange(w).reshape((w,) + (1,) * 2)
        if tf32:  # one value a register: place p is register p // 32, lane p % 32
            a_ix, b_ix = (p // LANES * n + v * LANES + p % LANES for p in (a_at, b_at + len(ar) * LANES))
        else:  # halves: place p is register p // 64, lane p // 2 % 32, half p % 2, in the (registers, 2n) uint16 view
            a_ix, b_ix = (p // 64 * 2 * n + (v * LANES + p // 2 % LANES) * 2 + p % 2 for p in (a_at, b_at + len(ar) * 64))
        c_ix = c_at // LANES * n + v * LANES + c_at % LANES
        d_ix = (np.arange(w)[None, :, None] * 128 + (c_rows * 8 + c_cols)[:, None, :]).reshape(len(dr), n)  # (4, n) into D (w, 16, 8)
        indices[w] = (a_ix, b_ix, c_ix, d_ix)
        return indices[w]

    def f(m: Machine, ix: np.ndarray) -> None:
        whole = len(ix) == m.n  # every thread (sorted, distinct): whole warps
        if not whole:
            check(ix)
        if not quick:
            return general(m, ix)
        w = len(ix) // LANES
        a_ix, b_ix, c_ix, d_ix = indices.get(w) or index_of(w)
        R = m.R
        ab = R[ab_rows] if whole else R[ab_rows[:, None], ix]  # (6, n): RZ rows read as zeros
        if tf32:
            flat = (ab & np.uint32(0xFFFFE000)).view(np.float32).reshape(-1)
        elif bf16:
            flat = (ab.view(np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32).reshape(-1)
        else:
            flat = ab.view(np.float16).reshape(-1)
        A = flat[a_ix].astype(np.float64)
        B = flat[b_ix].astype(np.float64)
        if cr[0] == 255:
            C = np.zeros((w, 16, 8))
        else:
            cw = R[cr[0] : cr[0] + len(cr)] if whole else R[cr[0] : cr[0] + len(cr)][:, ix]
            C = cw.view(np.float32).reshape(-1)[c_ix].astype(np.float64)
        D = (A @ B + C).astype(np.float32)
        if dr[0] != 255:
            words = D.reshape(-1)[d_ix].view(np.uint32)
            if whole:
                R[dr[0] : dr[0] + len(dr)] = words
            else:
                R[dr[0] : dr[0] + len(dr), ix] = words
    return f
