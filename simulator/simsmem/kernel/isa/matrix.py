"""Warp-level matrix multiply-accumulate (``mma.sync``): HMMA.16816 and HMMA.1688 (f16, bf16, tf32).

Each lane holds fragments of A, B and C in registers as the PTX ISA lays them out (groupID = lane/4,
thread in group = lane%4); ``_places`` lists, per register, lane and half, the element it holds. The
product is formed per warp in float64 and rounded once to float32.
"""

from __future__ import annotations

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
    # C and D, float32: element i at row g + 8*(i//2), column 2t + i%2
    return np.array([g + 8 * (i // 2) for i in range(4)]), np.array([2 * t + i % 2 for i in range(4)])


def _unpack(words: np.ndarray, bf16: bool) -> np.ndarray:
    """(..., 2) float32 halves of uint32 words (f16 or bf16)."""
    h = words[..., None] >> np.array([0, 16], dtype=np.uint32) & np.uint32(0xFFFF)
    if bf16:
        return (h << np.uint32(16)).view(np.float32)
    return h.astype(np.uint16).view(np.float16).astype(np.float32)


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
    a_rows, a_cols = _places("A", k, not tf32)
    b_rows, b_cols = _places("B", k, not tf32)
    c_rows, c_cols = _places("C", k, False)
    if not f32_acc:  # f16 accumulators: register i holds elements 2i and 2i+1 (row g + 8i, columns 2t, 2t+1)
        c_rows, c_cols = c_rows.reshape(2, 2, LANES).transpose(0, 2, 1), c_cols.reshape(2, 2, LANES).transpose(0, 2, 1)

    def fragment(m: Machine, file: str, regs: list[int], lanes: np.ndarray, w: int) -> np.ndarray:
        if regs[0] == (255 if file == "R" else 63):  # RZ: a zero accumulator
            return np.zeros((w, len(regs), LANES), dtype=np.uint32)
        return getattr(m, file)[regs[0] : regs[0] + len(regs), lanes].reshape(len(regs), w, LANES).transpose(1, 0, 2)  # (warps, regs, 32)

    def f(m: Machine, ix: np.ndarray) -> None:
        w = len(ix) // LANES
        first = ix[::LANES]
        if len(ix) % LANES or (first % LANES).any() or (ix[LANES - 1 :: LANES] - first != LANES - 1).any():
            raise ExecError(f"{ins.text}: every lane of a warp must execute mma.sync", ins.pc)
        lanes = ix
        A = np.zeros((w, 16, k))
        B = np.zeros((w, k, 8))
        C = np.zeros((w, 16, 8))
        fa, fb = fragment(m, afile, ar, lanes, w), fragment(m, bfile, br, lanes, w)
        if tf32:
            A[:, a_rows, a_cols] = (fa & np.uint32(0xFFFFE000)).view(np.float32)
            B[:, b_rows, b_cols] = (fb & np.uint32(0xFFFFE000)).view(np.float32)
        else:
            A[:, a_rows, a_cols] = _unpack(fa, bf16)
            B[:, b_rows, b_cols] = _unpack(fb, bf16)
        fc = fragment(m, cfile, cr, lanes, w)
        C[:, c_rows, c_cols] = fc.view(np.float32) if f32_acc else _unpack(fc, False)
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
    return f
