"""Warp-level matrix multiply-accumulate (``mma.sync``, ``wmma``) and ``movmatrix``: HMMA, IMMA, BMMA, DMMA, MOVM.

The 32 lanes of a warp hold A (m x k, by rows), B (k x n, by columns, n = 8) and C = D (m x n) in registers as the
PTX ISA lays them out ("Matrix fragments for mma.m16n8k*"). With group g = lane / 4, t = lane % 4 and e elements in
a 32-bit register (f16, bf16: 2; s8, u8: 4; b1: 32; tf32, f32, s32: 1; an f64 takes a register pair, e = 1):

* A's register r holds row g (g + 8 for odd r when m = 16), columns 4e q + e t + i (i < e), q = r (r // 2 when m = 16);
* B's register r holds column g, rows 4e r + e t + i;
* C's and D's element j (in register order, e to a register) is row g + 8 (j // 2), column 2 t + j % 2.

Integer products are exact (IMMA: s32 sums wrap, or saturate with ``.SAT``; BMMA: popcounts of AND). Float sums are
rounded as the H200 rounds them (``_sum``, ``tensor_sum``), measured with calibration/isa's kernels.
"""

from __future__ import annotations

import functools
import math

import attrs
import numpy as np

from ...jit import compiled
from ..machine import LANES, ExecError, Machine
from ..sass import RZ, URZ, Instruction
from . import Env, alu, ieee, operand
from .floating import INVALID64, dfma_bits
from .operands import BuildError, registers

_G, _T = np.arange(LANES) // 4, np.arange(LANES) % 4
#: elements of each type in a 32-bit register (an f64 fills a register pair, counted as one register here)
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
def _index(form: Form, kind: str, warps: int) -> np.ndarray:
    """Where each element of ``warps`` warps' matrices (warps, rows, cols) sits among ``_values``'s flat values of the
    fragment (register, thread, element within the register)."""
    rows, cols = places(form, kind)
    e = _PER_WORD[{"A": form.a, "B": form.b, "C": form.c}[kind]]
    at = np.full({"A": (form.m, form.k), "B": (form.k, form.n), "C": (form.m, form.n)}[kind], -1)
    at[rows, cols] = np.arange(rows.size).reshape(rows.shape)  # element j of lane l: j * 32 + l
    if (at < 0).any():
        raise BuildError("a fragment that does not hold the whole matrix")
    element, lane = at // LANES, at % LANES
    threads = np.arange(warps)[:, None, None] * LANES + lane
    return (element // e) * (warps * LANES * e) + threads * e + element % e


@functools.cache
def _scatter(form: Form, warps: int) -> np.ndarray:
    """(elements, threads) indices into the flat (warps, m, n) result of each lane's elements of D, in register order."""
    rows, cols = places(form, "C")
    warp = np.repeat(np.arange(warps), LANES)
    return warp * form.m * form.n + np.tile(rows, warps) * form.n + np.tile(cols, warps)


def _values(words: np.ndarray, ty: str) -> np.ndarray:
    """(registers, threads) uint32 words as the values of their elements, flat in (register, thread, element) order
    (f64: one per register pair): float64 for floats, and for 8-bit integers and bits (exact, and BLAS multiplies them:
    ``_sum``); int64 for s32."""
    if ty == "f64":
        return (words[0::2].astype(np.uint64) | words[1::2].astype(np.uint64) << np.uint64(32)).view(np.float64).reshape(-1)
    if ty == "b1":
        return ((words[..., None] >> np.arange(32, dtype=np.uint32)) & np.uint32(1)).reshape(-1).astype(np.float64)
    if ty in ("f32", "tf32"):
        return (words & np.uint32(0xFFFFE000) if ty == "tf32" else words).view(np.float32).reshape(-1).astype(np.float64)
    if ty == "bf16":
        return (words.view(np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32).reshape(-1).astype(np.float64)
    narrow = words.view({"f16": np.float16, "s8": np.int8, "u8": np.uint8, "s32": np.int32}[ty]).reshape(-1)
    return narrow.astype(np.int64 if ty == "s32" else np.float64)


def _words(values: np.ndarray, ty: str) -> np.ndarray:
    """(elements, threads) results of C's type as (registers, threads) uint32 words."""
    if ty == "f64":
        bits = values.view(np.uint64)
        return np.stack([bits & np.uint64(0xFFFFFFFF), bits >> np.uint64(32)], axis=1).reshape(-1, values.shape[1]).astype(np.uint32)
    if ty == "f16":
        return values[0::2] | values[1::2] << np.uint32(16)
    return values.astype(np.uint32) if ty == "s32" else values.view(np.uint32)


#: fraction bits the tensor cores keep below the largest exponent of a sum (fitted: calibration/isa/runs/2026-11-29)
TENSOR_BITS = 25


def tensor_sum(A: np.ndarray, B: np.ndarray, C: np.ndarray) -> np.ndarray:
    """float32 D = A B + C as the tensor cores sum (HMMA: every one of the 20,480 results of calibration/isa's
    isa_mma_float on an H200, and the corpus's mma.sync GEMMs on an H100): the k exact products and c, aligned to the largest exponent E among them (a
    product's exponent is the sum of its factors', as if its significand were not normalized), each cut toward zero to
    a multiple of 2^(E - 25), added exactly, and the sum rounded toward zero to float32 (past float32's range:
    infinity). A NaN or infinite operand gives IEEE's result, every NaN 0x7FFFFFFF."""
    out = np.empty(C.shape, dtype=np.float32)
    _tensor_sum(*(np.ascontiguousarray(x) for x in (A, B, C)), out)
    return out


@compiled(cache=True, nogil=True)
def _exponent(bits) -> int:  # pragma: no cover - compiled
    """A normal float64's exponent from its bits (-1023 for zero, below any product's of the values here)."""
    return int((bits >> 52) & 0x7FF) - 1023


@compiled(cache=True, nogil=True)
def _pow2(e: int) -> float:  # pragma: no cover - compiled
    """2^e as compiled math.ldexp(1.0, e) gives it (a library call): infinity past float64's range; from its bits where
    it is a normal float64."""
    if e > 1023:
        return math.inf  # (plain Python's ldexp raises OverflowError)
    if e >= -1022:
        return np.uint64((e + 1023) << 52).view(np.float64)
    return math.ldexp(1.0, int(e))


@compiled(cache=True, nogil=True)
def _bit_length(units: int) -> int:  # pragma: no cover - compiled
    """The bits of a positive integer below 2^53 (math.frexp(float(units))[1]), from its float64's exponent."""
    return int(np.float64(units).view(np.uint64) >> 52) - 1022


@compiled(cache=True, nogil=True)
def _tensor_sum(A, B, C, out) -> None:  # pragma: no cover - compiled
    """``tensor_sum`` into ``out`` (float32), a row of D at a time: its n sums (``plain``: IEEE's, for NaN and
    infinities; ``top``: the largest exponent E; ``acc``: the cut terms' exact sum, in units of 2^(E - 25)) advance
    together through k, each in k order as one element's would."""
    a_bits, b_bits, c_bits, out_bits = A.view(np.uint64), B.view(np.uint64), C.view(np.uint64), out.view(np.uint32)
    n = C.shape[2]
    plain, acc, scale = np.empty(n), np.empty(n), np.empty(n)
    top = np.empty(n, dtype=np.int64)
    for w in range(C.shape[0]):
        for i in range(C.shape[1]):
            for j in range(n):
                plain[j] = C[w, i, j]
                top[j] = _exponent(c_bits[w, i, j])
            for k in range(A.shape[2]):
                a, ea = A[w, i, k], _exponent(a_bits[w, i, k])
                for j in range(n):
                    plain[j] += a * B[w, k, j]
                    top[j] = max(top[j], ea + _exponent(b_bits[w, k, j]))
            for j in range(n):
                scale[j] = _pow2(TENSOR_BITS - top[j])  # one over the sum's unit, 2^(top - 25)
                c = C[w, i, j]
                acc[j] = np.trunc(c * scale[j]) + 0.0 if c != 0 else c  # toward zero; a zero +0, as int() makes it
            for k in range(A.shape[2]):
                a = A[w, i, k]
                for j in range(n):
                    p = a * B[w, k, j]
                    acc[j] += np.trunc(p * scale[j]) + 0.0 if p != 0 else p
            for j in range(n):
                if math.isnan(plain[j]):
                    out_bits[w, i, j] = 0x7FFFFFFF
                    continue
                if math.isinf(plain[j]):  # an infinity in, none against it: IEEE's result
                    out[w, i, j] = plain[j]
                    continue
                units = abs(int(acc[j]))  # below 2^31: exact
                e = top[j] - TENSOR_BITS
                cut = max(_bit_length(units) - 24, -149 - e, 0) if units else 0  # float32's quantum there
                v = float(units >> cut << cut) * _pow2(e)  # exact: a normal float64 (or past float32's range)
                out[w, i, j] = acc[j] / scale[j] if units == 0 else (math.inf if v >= 2.0**128 else v) * (1.0 if acc[j] > 0 else -1.0)


@compiled(cache=True, nogil=True)
def _dmma(a, b, c, out) -> None:  # pragma: no cover - compiled
    """DMMA's D = A B + C per warp as float64 bits ((warps, m, k), (warps, k, n), (warps, m, n); ``out`` like C): each
    element's chain of DFMAs in k order, D = a_k b_k + D, from C (``floating.dfma_bits``: rounded to nearest each
    time, with DFMA's NaN). A warp with no NaN operand runs a row of D at a time, its n chains together (a NaN can
    then only come of an invalid operation, and stays: INVALID64, as dfma_bits would give)."""
    n = c.shape[2]
    af, bf, cf = a.view(np.float64), b.view(np.float64), c.view(np.float64)
    row = np.empty(n)
    for w in range(c.shape[0]):
        if np.isnan(af[w]).any() or np.isnan(bf[w]).any() or np.isnan(cf[w]).any():
            for i in range(c.shape[1]):
                for j in range(n):
                    d = c[w, i, j]
                    for k in range(a.shape[2]):
                        d = dfma_bits(a[w, i, k], b[w, k, j], d)
                    out[w, i, j] = d
            continue
        for i in range(c.shape[1]):
            for j in range(n):
                row[j] = cf[w, i, j]
            for k in range(a.shape[2]):
                x = af[w, i, k]
                for j in range(n):
                    row[j] = ieee.fma64(x, bf[w, k, j], row[j])
            for j in range(n):
                out[w, i, j] = INVALID64 if math.isnan(row[j]) else np.float64(row[j]).view(np.uint64)


def _sum(form: Form, A: np.ndarray, B: np.ndarray, C: np.ndarray) -> np.ndarray:
    """D = A B + C per warp, (warps, m, k) x (warps, k, n) + (warps, m, n), as the hardware computes it: integers
    exactly (wrapping or saturating to s32); f64 as a chain of fused multiply-adds in k order (DMMA, as DFMA rounds
    and propagates NaN: every result of isa_mma_f64); f32 as ``tensor_sum``; f16 that rounded to nearest f16."""
    if form.c == "s32":  # A B in float64 is exact in any order: every partial sum is an integer below 2^24 (k <= 256
        d = np.matmul(A, B).astype(np.int64) + C  # terms of |a b| < 2^16); numpy's integer matmul, without BLAS, is 6x slower
        return np.clip(d, -(2**31), 2**31 - 1) if form.sat else d & 0xFFFFFFFF
    if form.c == "f64":
        out = np.empty(C.shape, dtype=np.float64)
        _dmma(*(np.ascontiguousarray(x).view(np.uint64) for x in (A, B, C)), out.view(np.uint64))
        return out
    d = tensor_sum(A, B, C)
    return ieee.small(d.astype(np.float64), "F16") if form.c == "f16" else d


_ZERO = {"R": RZ, "UR": URZ}  # the zero register of each file: an RZ fragment reads as zeros, an RZ result is dropped


@alu("HMMA", "IMMA", "BMMA", "DMMA")
def _mma(ins: Instruction, env: Env):
    form = form_of(ins)
    wide = 2 if form.c == "f64" else 1
    (dfile, dr), (afile, ar), (bfile, br), (cfile, cr) = (
        registers(operand(ins, k), form.registers(kind) * wide) for k, kind in enumerate("CABC"))

    def fragment(m: Machine, file: str, regs: list[int], ty: str, ix: np.ndarray, whole: bool) -> np.ndarray:
        if regs[0] == _ZERO[file]:
            words = np.zeros((len(regs), len(ix)), dtype=np.uint32)
        else:
            rows = getattr(m, file)[regs[0] : regs[0] + len(regs)]
            words = rows if whole else rows[:, ix]
        return _values(words, ty)

    def f(m: Machine, ix: np.ndarray) -> None:
        whole = len(ix) == m.n  # every thread (sorted, distinct): whole warps
        first = ix[::LANES]
        if not whole and (len(ix) % LANES or (first % LANES).any() or (ix[LANES - 1 :: LANES] - first != LANES - 1).any()):
            raise ExecError(f"{ins.text}: every lane of a warp must execute {ins.name}", ins.pc)
        w = len(ix) // LANES
        A = fragment(m, afile, ar, form.a, ix, whole)[_index(form, "A", w)]
        B = fragment(m, bfile, br, form.b, ix, whole)[_index(form, "B", w)]
        C = fragment(m, cfile, cr, form.c, ix, whole)[_index(form, "C", w)]
        D = _sum(form, A, B, C)
        if dr[0] != _ZERO[dfile]:
            words = _words(D.reshape(-1)[_scatter(form, w)], form.c)
            out = getattr(m, dfile)
            if whole:
                out[dr[0] : dr[0] + len(dr)] = words
            else:
                out[dr[0] : dr[0] + len(dr), ix] = words
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
