"""Warp-level matrix multiply-accumulate (``mma.sync``, ``wmma``) and ``movmatrix``: HMMA, IMMA, BMMA, DMMA, MOVM.

The 32 lanes of a warp hold A (m x k, by rows), B (k x n, by columns, n = 8) and C = D (m x n) in registers as the
PTX ISA lays them out ("Matrix fragments for mma.m16n8k*"). With group g = lane / 4, t = lane % 4 and e elements in
a 32-bit register (f16, bf16: 2; s8, u8: 4; b1: 32; tf32, f32, s32: 1; an f64 takes a register pair, e = 1):

* A's register r holds row g (g + 8 for odd r when m = 16), columns 4e q + e t + i (i < e), q = r (r // 2 when m = 16);
* B's register r holds column g, rows 4e r + e t + i;
* C's and D's element j (in register order, e to a register) is row g + 8 (j // 2), column 2 t + j % 2.

Integer products are exact (IMMA: s32 sums wrap, or saturate with ``.SAT``; BMMA: popcounts of AND). A float
product is formed per warp from the exact products of the element pairs, as ``_sum`` says the hardware adds them.
"""

from __future__ import annotations

import functools

import attrs
import numpy as np

from ..machine import LANES, ExecError, Machine
from ..sass import RZ, URZ, Instruction
from . import Env, alu, ieee, operand
from .operands import BuildError, registers

_G, _T = np.arange(LANES) // 4, np.arange(LANES) % 4
#: bits of an element of each type (f64: one a register pair, counted as one 32-bit "register" of one element)
_PER_WORD = {"f16": 2, "bf16": 2, "s8": 4, "u8": 4, "b1": 32, "tf32": 1, "f32": 1, "s32": 1, "f64": 1}


@attrs.frozen
class Form:
    """One MMA instruction's shape and element types: A and B (``a``, ``b``), the accumulators C and D (``c``)."""

    m: int
    k: int
    a: str
    b: str
    c: str
    sat: bool = False
    n: int = 8

    def registers(self, kind: str) -> int:
        """32-bit registers (f64: register pairs) a lane holds of fragment ``kind``."""
        rows, cols = {"A": (self.m, self.k), "B": (self.k, self.n), "C": (self.m, self.n)}[kind]
        per = _PER_WORD[{"A": self.a, "B": self.b, "C": self.c}[kind]]
        return rows * cols // LANES // per


def form_of(ins: Instruction) -> Form:
    """The form an MMA opcode names: HMMA.16816.F32.BF16, IMMA.16832.S8.U8.SAT, BMMA.168256.AND.POPC, DMMA.16x8x8."""
    name, mods = ins.name, ins.mods
    if name == "DMMA":
        m, n, k = (int(x) for x in mods[0].split("x"))
        return Form(m, k, "f64", "f64", "f64", n=n)
    shape = mods[0]
    m = 16 if shape.startswith("168") else 8
    if not shape.startswith(f"{m}8"):
        raise BuildError(f"{ins.opcode}: shape {shape} not understood")
    k = int(shape[len(str(m)) + 1 :])
    if name == "HMMA":
        ab = "bf16" if "BF16" in mods else "tf32" if "TF32" in mods else "f16"
        if (k, ab) not in ((16, "f16"), (16, "bf16"), (8, "f16"), (8, "bf16"), (8, "tf32"), (4, "tf32")) or m != 16:
            raise BuildError(f"{ins.opcode} is not modelled")
        return Form(m, k, ab, ab, "f32" if mods[1] == "F32" else "f16")
    if name == "IMMA":
        if mods[1:3] not in (("S8", "S8"), ("S8", "U8"), ("U8", "S8"), ("U8", "U8")) or (m, k) not in ((8, 16), (16, 16), (16, 32)):
            raise BuildError(f"{ins.opcode} is not modelled")
        return Form(m, k, mods[1].lower(), mods[2].lower(), "s32", sat="SAT" in mods)
    if mods[1:] != ("AND", "POPC"):  # BMMA: sm_90 has only AND.POPC (ptxas builds mma's .xor.popc from it)
        raise BuildError(f"{ins.opcode} is not modelled")
    return Form(m, k, "b1", "b1", "s32")


@functools.cache
def places(form: Form, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of each element a lane holds of fragment ``kind``, as (elements, 32) arrays, elements in
    register order (a register's low element first)."""
    e = _PER_WORD[{"A": form.a, "B": form.b, "C": form.c}[kind]]
    j = np.arange(form.registers(kind) * e)[:, None]
    r, i = j // e, j % e
    if kind == "A":
        rows = _G + 8 * (r % 2) if form.m == 16 else _G + 0 * r
        q = r // 2 if form.m == 16 else r
        return rows, 4 * e * q + e * _T + i
    if kind == "B":
        return 4 * e * r + e * _T + i, _G + 0 * r
    return _G + 8 * (j // 2), 2 * _T + j % 2


@functools.cache
def _held(form: Form, kind: str) -> np.ndarray:
    """For each element of the matrix, its place among the fragment's (elements, 32) values, flattened."""
    rows, cols = places(form, kind)
    at = np.full({"A": (form.m, form.k), "B": (form.k, form.n), "C": (form.m, form.n)}[kind], -1)
    at[rows, cols] = np.arange(rows.size).reshape(rows.shape)
    if (at < 0).any():
        raise BuildError("a fragment that does not hold the whole matrix")
    return at.reshape(-1)


def _elements(words: np.ndarray, ty: str) -> np.ndarray:
    """(registers, threads) uint32 words (f64: the low words of the pairs, then the high ones) as (elements, threads)
    values: float64 for floats, int64 for integers, 0/1 for b1."""
    if ty == "f64":
        half = len(words) // 2
        return (words[:half].astype(np.uint64) | words[half:].astype(np.uint64) << np.uint64(32)).view(np.float64)
    e = _PER_WORD[ty]
    if ty == "b1":
        bits = (words[:, None, :] >> np.arange(32, dtype=np.uint32)[None, :, None]) & np.uint32(1)
        return bits.reshape(-1, words.shape[1]).astype(np.int64)
    if ty in ("f32", "tf32"):
        return (words & np.uint32(0xFFFFE000) if ty == "tf32" else words).view(np.float32).astype(np.float64)
    if ty == "s32":
        return words.view(np.int32).astype(np.int64)
    narrow = np.ascontiguousarray(words.T).view({"f16": np.float16, "bf16": np.uint16, "s8": np.int8, "u8": np.uint8}[ty])
    narrow = narrow.reshape(words.shape[1], -1, e).transpose(1, 2, 0).reshape(-1, words.shape[1])
    if ty == "bf16":
        return (narrow.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    return narrow.astype(np.float64 if ty == "f16" else np.int64)


def _words(values: np.ndarray, ty: str) -> np.ndarray:
    """(elements, threads) results as (registers, threads) uint32 words: the inverse of ``_elements`` for C's types."""
    if ty == "f64":
        bits = values.view(np.uint64)
        return np.concatenate([(bits & np.uint64(0xFFFFFFFF)).astype(np.uint32), (bits >> np.uint64(32)).astype(np.uint32)])
    if ty == "f16":
        return values[0::2] | values[1::2] << np.uint32(16)
    return values.astype(np.uint32) if ty == "s32" else values.view(np.uint32)


def _sum(form: Form, A: np.ndarray, B: np.ndarray, C: np.ndarray) -> np.ndarray:
    """D = A B + C per warp, (warps, m, k) x (warps, k, n) + (warps, m, n), as the hardware computes it: integers
    exactly (wrapping or saturating to s32); floats as exact products summed in float64, rounded once (f32, or f16
    bit patterns)."""
    if form.c == "s32":
        d = np.matmul(A, B) + C
        return np.clip(d, -(2**31), 2**31 - 1) if form.sat else d & 0xFFFFFFFF
    with np.errstate(invalid="ignore", over="ignore"):
        d = np.matmul(A, B) + C
    if form.c == "f64":
        return d
    if form.c == "f16":
        return ieee.small(d.astype(np.float32).astype(np.float64), "F16")
    return ieee.canonical_nan(d.astype(np.float32))


_ZERO = {"R": RZ, "UR": URZ}  # the zero register of each file: an RZ fragment reads as zeros, an RZ result is dropped


@alu("HMMA", "IMMA", "BMMA", "DMMA")
def _mma(ins: Instruction, env: Env):
    form = form_of(ins)
    wide = 2 if form.c == "f64" else 1
    (dfile, dr), (afile, ar), (bfile, br), (cfile, cr) = (
        registers(operand(ins, k), form.registers(kind) * wide) for k, kind in enumerate("CABC"))
    a_at, b_at, c_at = _held(form, "A"), _held(form, "B"), _held(form, "C")
    c_rows, c_cols = places(form, "C")

    def fragment(m: Machine, file: str, regs: list[int], ix: np.ndarray) -> np.ndarray:
        """(registers, threads) words; f64 pairs reordered to the low words, then the high ones."""
        if regs[0] == _ZERO[file]:
            return np.zeros((len(regs), len(ix)), dtype=np.uint32)
        words = getattr(m, file)[regs[0] : regs[0] + len(regs)][:, ix]
        return np.concatenate([words[0::2], words[1::2]]) if wide == 2 else words

    def matrix(values: np.ndarray, at: np.ndarray, rows: int, cols: int, w: int) -> np.ndarray:
        """(elements, w * 32) fragment values as (w, rows, cols) matrices."""
        per_warp = values.reshape(len(values), w, LANES).transpose(1, 0, 2).reshape(w, -1)
        return per_warp[:, at].reshape(w, rows, cols)

    def f(m: Machine, ix: np.ndarray) -> None:
        first = ix[::LANES]
        if len(ix) % LANES or (first % LANES).any() or (ix[LANES - 1 :: LANES] - first != LANES - 1).any():
            raise ExecError(f"{ins.text}: every lane of a warp must execute {ins.name}", ins.pc)
        w = len(ix) // LANES
        A = matrix(_elements(fragment(m, afile, ar, ix), form.a), a_at, form.m, form.k, w)
        B = matrix(_elements(fragment(m, bfile, br, ix), form.b), b_at, form.k, form.n, w)
        C = matrix(_elements(fragment(m, cfile, cr, ix), form.c), c_at, form.m, form.n, w)
        D = _sum(form, A, B, C)
        if dr[0] == _ZERO[dfile]:
            return
        d = D[:, c_rows, c_cols].transpose(1, 0, 2).reshape(len(c_rows), -1)  # (elements, threads)
        words = _words(d, form.c)
        if wide == 2:  # back to register pairs
            words = np.stack([words[: len(words) // 2], words[len(words) // 2 :]], axis=1).reshape(len(dr), -1)
        getattr(m, dfile)[dr[0] : dr[0] + len(dr), ix] = words
    return f


@alu("MOVM")
def _movm(ins: Instruction, env: Env):
    """MOVM.16.MT88 d, a (``movmatrix.m8n8.trans.b16``): the warp's 8x8 matrix of 16-bit elements, element (g, 2t + i)
    in half i of lane 4g + t's register, transposed."""
    if ins.mods != ("16", "MT88"):
        raise BuildError(f"{ins.opcode} is not modelled")
    (dfile, dr), (afile, ar) = registers(operand(ins, 0), 1), registers(operand(ins, 1), 1)
    # half i of lane 4g + t gets the source's element (r, c) = (2t + i, g), which is half c % 2 of lane 4r + c // 2
    r, c = 2 * _T[:, None] + np.arange(2), _G[:, None]
    source = (4 * r + c // 2) * 2 + c % 2  # (32, 2): index into a warp's 64 halves

    def f(m: Machine, ix: np.ndarray) -> None:
        if len(ix) % LANES:
            raise ExecError(f"{ins.text}: every lane of a warp must execute MOVM", ins.pc)
        w = len(ix) // LANES
        words = getattr(m, afile)[ar[0]][ix] if ar[0] != _ZERO[afile] else np.zeros(len(ix), np.uint32)
        halves = np.ascontiguousarray(words).view(np.uint16).reshape(w, 2 * LANES)
        out = halves[:, source].reshape(w, LANES, 2)
        result = out[..., 0].astype(np.uint32) | out[..., 1].astype(np.uint32) << np.uint32(16)
        if dr[0] != _ZERO[dfile]:
            getattr(m, dfile)[dr[0], ix] = result.reshape(-1)
    return f
