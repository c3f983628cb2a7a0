"""Warp-level matrix multiply-accumulate (``mma.sync``): HMMA.16816 and HMMA.1688 (f16, bf16, tf32).

Each lane holds fragments of A, B and C in registers as the PTX ISA lays them out (groupID = lane/4,
thread in group = lane%4); the product is formed per warp in float32 (float64 sums, rounded once).
"""

from __future__ import annotations

import numpy as np

from ..machine import LANES, ExecError, Machine
from ..sass import Instruction
from . import Env, alu, operand
from .floating import f32_to_bf16_bits, f32_to_f16_bits
from .operands import BuildError, registers


def _halves(words: np.ndarray, bf16: bool) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = words & np.uint32(0xFFFF), words >> np.uint32(16)
    if bf16:
        return (lo << np.uint32(16)).view(np.float32), (hi << np.uint32(16)).view(np.float32)
    return lo.astype(np.uint16).view(np.float16).astype(np.float32), hi.astype(np.uint16).view(np.float16).astype(np.float32)


@alu("HMMA")
def _hmma(ins: Instruction, env: Env):
    mods = ins.mods
    shape = mods[0]
    if shape not in ("16816", "1688"):
        raise BuildError(f"HMMA.{shape} is not modelled")
    f32_acc = mods[1] == "F32" if len(mods) > 1 else False
    bf16, tf32 = "BF16" in mods, "TF32" in mods
    k = 16 if shape == "16816" else 8
    a_regs = 4 if (k == 16 or tf32) else 2
    b_regs = 2 if (k == 16 or tf32) else 1
    c_regs = 4 if f32_acc else 2
    dfile, dr = registers(operand(ins, 0), c_regs)
    afile, ar = registers(operand(ins, 1), a_regs)
    bfile, br = registers(operand(ins, 2), b_regs)
    cfile, cr = registers(operand(ins, 3), c_regs)

    def f(m: Machine, ix: np.ndarray) -> None:
        warps = np.unique(ix // LANES)
        lanes = (warps[:, None] * LANES + np.arange(LANES)).reshape(-1)
        if len(lanes) != len(ix):
            raise ExecError(f"{ins.text}: every lane of a warp must execute mma.sync", ins.pc)
        W = len(warps)
        g, t = np.arange(LANES) // 4, np.arange(LANES) % 4
        A = np.zeros((W, 16, k), dtype=np.float64)
        B = np.zeros((W, k, 8), dtype=np.float64)
        C = np.zeros((W, 16, 8), dtype=np.float64)

        def reg(file, r):
            return getattr(m, file)[r, lanes].reshape(W, LANES)
        if tf32:
            for i, (row, col) in enumerate(((g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4))[:a_regs]):
                A[:, row, col] = (reg(afile, ar[i]) & np.uint32(0xFFFFE000)).view(np.float32)
            for i, krow in enumerate((t, t + 4)[:b_regs]):
                B[:, krow, g] = (reg(bfile, br[i]) & np.uint32(0xFFFFE000)).view(np.float32)
        else:
            a_places = ((g, 2 * t), (g + 8, 2 * t), (g, 2 * t + 8), (g + 8, 2 * t + 8))[:a_regs]
            for i, (row, col) in enumerate(a_places):
                lo, hi = _halves(reg(afile, ar[i]), bf16)
                A[:, row, col], A[:, row, col + 1] = lo, hi
            for i, krow in enumerate((2 * t, 2 * t + 8)[:b_regs]):
                lo, hi = _halves(reg(bfile, br[i]), bf16)
                B[:, krow, g], B[:, krow + 1, g] = lo, hi
        if f32_acc:
            for i in range(4):
                C[:, g + 8 * (i // 2), 2 * t + (i % 2)] = reg(cfile, cr[i]).view(np.float32)
        else:
            for i in range(2):
                lo, hi = _halves(reg(cfile, cr[i]), False)
                C[:, g + 8 * i, 2 * t], C[:, g + 8 * i, 2 * t + 1] = lo, hi
        D = (A @ B + C).astype(np.float32)
        out = getattr(m, dfile)
        if f32_acc:
            for i in range(4):
                if dr[i] != 255:
                    out[dr[i], lanes] = D[:, g + 8 * (i // 2), 2 * t + (i % 2)].view(np.uint32).reshape(-1)
        else:
            for i in range(2):
                lo = f32_to_f16_bits(D[:, g + 8 * i, 2 * t]) if not bf16 else f32_to_bf16_bits(D[:, g + 8 * i, 2 * t])
                hi = f32_to_f16_bits(D[:, g + 8 * i, 2 * t + 1]) if not bf16 else f32_to_bf16_bits(D[:, g + 8 * i, 2 * t + 1])
                if dr[i] != 255:
                    out[dr[i], lanes] = ((hi << np.uint32(16)) | lo).reshape(-1)
    return f
