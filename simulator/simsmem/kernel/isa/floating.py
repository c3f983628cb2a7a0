"""Floating-point instructions: f32 (FADD, FFMA, MUFU, ...), f16x2 (HADD2, HFMA2, ...), f64 (DADD, ...), conversions.

Results are the H100's bit for bit: every IEEE operation (add, multiply, fused multiply-add, conversions) is
rounded once, correctly, in the mode the instruction names (``.RZ``, ``.RM``, ``.RP``; else to nearest
even; see ieee.py), denormals kept unless ``.FTZ`` flushes them. NaN results are the GPU's: float32 ones
the canonical 0x7FFFFFFF, float16/bfloat16 ones 0x7FFF, float64 ones the operand's NaN, quieted (see
DADD). Only MUFU's approximations (RCP, RSQ, SQRT, EX2, LG2, SIN, COS, TANH) are modelled as the exact
function rounded, which differs from the hardware's in the last bits.
"""

from __future__ import annotations

import math

import numpy as np

from ...jit import compiled
from ..machine import Machine
from ..sass import Instruction, Operand
from . import Env, alu, ieee, operand
from .operands import BuildError, float_value, read, write

F32 = np.float32
TINY = np.float32(np.finfo(np.float32).tiny)
ROUNDINGS = ("RN", "RZ", "RM", "RP")


def rounding(ins: Instruction) -> str:
    return next((m for m in ins.mods if m in ROUNDINGS), "RN")


def flush(x):
    """Denormals to zero of their sign (.FTZ)."""
    x = np.asarray(x)
    return np.where(np.abs(x) < np.finfo(x.dtype).tiny, np.copysign(np.zeros_like(x), x), x)


def to_f32(x: np.ndarray, mode: str = "RN") -> np.ndarray:
    """float64 values rounded to float32 as ``mode`` says."""
    x = np.asarray(x, dtype=np.float64)
    r = x.astype(F32)
    if mode == "RN":
        return r
    back = r.astype(np.float64)
    if mode == "RZ":
        step = np.abs(back) > np.abs(x)
        return np.where(step, np.nextafter(r, F32(0)), r)
    if mode == "RM":
        return np.where(back > x, np.nextafter(r, F32(-np.inf)), r)
    return np.where(back < x, np.nextafter(r, F32(np.inf)), r)


def _finish(ins: Instruction):
    """The function giving a float32 result after .FTZ (denormals to zero) and .SAT (clamped to [0, 1], NaN to +0); NaN
    canonical."""
    ftz, sat = "FTZ" in ins.mods, "SAT" in ins.mods

    def finish(r: np.ndarray) -> np.ndarray:
        if ftz:
            r = flush(r)
        if sat:
            r = np.where(np.isnan(r), F32(0), np.clip(r, F32(0), F32(1))) + F32(0)  # + 0: -0 to +0
        return ieee.canonical_nan(r)
    return finish


def _inputs(ins: Instruction, env: Env, count: int, ty: str = "f32"):
    return [read(operand(ins, k), ty, env.constants) for k in range(1, count + 1)]


@alu("FADD", "FMUL", "FADD32I", "FMUL32I")
def _fadd(ins: Instruction, env: Env):
    """a + b or a * b rounded once in the instruction's mode; FMUL.D2 .. .M8 scale the product by a power of two."""
    d = write(operand(ins, 0), "f32")
    a, b = _inputs(ins, env, 2)
    mode = rounding(ins)
    ftz = "FTZ" in ins.mods
    mul = ins.name.startswith("FMUL")
    scale = {"D2": 0.5, "D4": 0.25, "D8": 0.125, "M2": 2.0, "M4": 4.0, "M8": 8.0}.get(next((m for m in ins.mods if m[:1] in "DM" and m[1:].isdigit()), ""), 1.0)
    finish = _finish(ins)

    def f(m: Machine, ix: np.ndarray) -> None:
        x, y = np.asarray(a(m, ix), dtype=F32), np.asarray(b(m, ix), dtype=F32)
        if ftz:
            x, y = flush(x), flush(y)
        if mode == "RN" and scale == 1.0:  # numpy's float32 arithmetic is IEEE's, rounded to nearest even
            r = (np.multiply if mul else np.add)(x, y)
        elif mul:
            r = ieee.fma(x.astype(np.float64) * scale, y, None, mode, F32)
        else:
            r = ieee.fma(x, F32(1), y, mode, F32)
        d(m, ix, finish(r))
    return f


@alu("FFMA", "FFMA32I")
def _ffma(ins: Instruction, env: Env):
    """a * b + c rounded once (fused) in the instruction's mode."""
    d = write(operand(ins, 0), "f32")
    a, b, c = _inputs(ins, env, 3)
    mode = rounding(ins)
    ftz = "FTZ" in ins.mods
    finish = _finish(ins)

    def f(m: Machine, ix: np.ndarray) -> None:
        x, y, z = a(m, ix), b(m, ix), c(m, ix)
        if ftz:
            x, y, z = flush(x), flush(y), flush(z)
        d(m, ix, finish(ieee.fma(x, y, z, mode, F32)))
    return f


@alu("FMNMX", "FMNMX32I")
def _fmnmx(ins: Instruction, env: Env):
    """min (p true) or max (p false); a NaN operand gives the other (.NAN: gives NaN), -0 below +0; NaN canonical;
    .XORSIGN: the result's sign is the XOR of the operands' signs (max.xorsign.abs)."""
    d = write(operand(ins, 0), "f32")
    a, b = _inputs(ins, env, 2)
    p = read(operand(ins, 3), "pred")
    nan = "NAN" in ins.mods
    xorsign = "XORSIGN" in ins.mods
    raw = [read(attrs_plain(operand(ins, k)), "f32", env.constants) for k in (1, 2)] if xorsign else None

    def f(m: Machine, ix: np.ndarray) -> None:
        x, y = np.asarray(a(m, ix), dtype=F32), np.asarray(b(m, ix), dtype=F32)
        if "FTZ" in ins.mods:
            x, y = flush(x), flush(y)
        r = min_max(x, y, np.broadcast_to(p(m, ix), (len(ix),)), nan)
        if xorsign:
            sx, sy = (np.signbit(np.asarray(v(m, ix), dtype=F32)) for v in raw)
            r = np.where(np.isnan(r), r, np.copysign(np.abs(r), np.where(sx ^ sy, F32(-1), F32(1))))
        d(m, ix, np.broadcast_to(ieee.canonical_nan(r), (len(ix),)))
    return f


ORDERED = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal, "GT": np.greater, "GE": np.greater_equal}


def float_compare(cmp: str):
    """The comparison of a FSETP/DSETP/HSETP2 condition: ordered (false on NaN) or unordered (U: true on NaN)."""
    if cmp == "NUM":
        return lambda x, y: ~(np.isnan(x) | np.isnan(y))
    if cmp == "NAN":
        return lambda x, y: np.isnan(x) | np.isnan(y)
    if cmp == "T":
        return lambda x, y: np.ones(np.broadcast(x, y).shape, dtype=bool)
    if cmp == "F":
        return lambda x, y: np.zeros(np.broadcast(x, y).shape, dtype=bool)
    if cmp.endswith("U") and cmp[:-1] in ORDERED:
        base = ORDERED[cmp[:-1]]
        return lambda x, y: base(x, y) | np.isnan(x) | np.isnan(y)
    base = ORDERED[cmp]
    if cmp == "NE":
        return lambda x, y: base(x, y) & ~(np.isnan(x) | np.isnan(y))
    return base


def _setp(ins: Instruction, env: Env, ty: str):
    from .integer import BOOLEAN

    cmp = float_compare(next(m for m in ins.mods if m in ("NUM", "NAN", "T", "F") or m.rstrip("U") in ORDERED))
    bop = BOOLEAN[next(m for m in ins.mods if m in BOOLEAN)]
    d0, d1 = write(operand(ins, 0), "pred"), write(operand(ins, 1), "pred")
    a, b = read(operand(ins, 2), ty, env.constants), read(operand(ins, 3), ty, env.constants)
    c = read(operand(ins, 4), "pred")
    ftz = "FTZ" in ins.mods

    def f(m: Machine, ix: np.ndarray) -> None:
        x, y = a(m, ix), b(m, ix)
        if ftz:
            x, y = flush(x), flush(y)
        r = np.broadcast_to(cmp(x, y), (len(ix),))
        cp = c(m, ix)
        d0(m, ix, np.broadcast_to(bop(r, cp), (len(ix),)))
        d1(m, ix, np.broadcast_to(bop(~r, cp), (len(ix),)))
    return f


@alu("FSETP")
def _fsetp(ins: Instruction, env: Env):
    return _setp(ins, env, "f32")


@alu("DSETP")
def _dsetp(ins: Instruction, env: Env):
    if "MIN" in ins.mods or "MAX" in ins.mods:
        return _dminmax(ins, env)
    return _setp(ins, env, "f64")


def _dminmax(ins: Instruction, env: Env):
    """DSETP.MIN/MAX P, Q, a, b: P where a is the result of min/max(a, b) (b NaN: a), Q where both are NaN."""
    d0, d1 = write(operand(ins, 0), "pred"), write(operand(ins, 1), "pred")
    a, b = read(operand(ins, 2), "f64", env.constants), read(operand(ins, 3), "f64", env.constants)
    smaller = "MIN" in ins.mods

    def f(m: Machine, ix: np.ndarray) -> None:
        x, y = (np.broadcast_to(np.asarray(v(m, ix), dtype=np.float64), (len(ix),)) for v in (a, b))
        tie = (x == y) & (np.signbit(x) if smaller else ~np.signbit(x))
        pick_a = ((x < y) if smaller else (x > y)) | tie | np.isnan(y)
        d0(m, ix, pick_a & ~(np.isnan(x) & ~np.isnan(y)))
        d1(m, ix, np.isnan(x) & np.isnan(y))
    return f


@alu("FSET")
def _fset(ins: Instruction, env: Env):
    from .integer import BOOLEAN

    cmp = float_compare(next(m for m in ins.mods if m in ("NUM", "NAN", "T", "F") or m.rstrip("U") in ORDERED))
    bop = BOOLEAN[next(m for m in ins.mods if m in BOOLEAN)]
    d = write(operand(ins, 0), "u32")
    a, b = read(operand(ins, 1), "f32", env.constants), read(operand(ins, 2), "f32", env.constants)
    c = read(operand(ins, 3), "pred")
    as_float = "BF" in ins.mods

    def f(m: Machine, ix: np.ndarray) -> None:
        r = np.broadcast_to(bop(cmp(a(m, ix), b(m, ix)), c(m, ix)), (len(ix),))
        d(m, ix, np.where(r, np.uint32(0x3F800000) if as_float else np.uint32(0xFFFFFFFF), np.uint32(0)))
    return f


@alu("MUFU")
def _mufu(ins: Instruction, env: Env):
    """The special function unit's approximations, modelled as the exact function rounded to nearest (the GPU's
    differ in the last bits: RCP, RSQ, SQRT, EX2, LG2 by about 1 ulp, SIN, COS, TANH by more); NaN canonical."""
    fn = ins.mods[0]
    if fn in ("RCP64H", "RSQ64H"):
        d, a = write(operand(ins, 0)), read(operand(ins, 1), "u32", env.constants)

        def high(m: Machine, ix: np.ndarray) -> None:
            x = (np.asarray(a(m, ix), dtype=np.uint64) << np.uint64(32)).view(np.float64)
            r = 1.0 / x if fn == "RCP64H" else 1.0 / np.sqrt(x)
            d(m, ix, np.broadcast_to((np.asarray(r, dtype=np.float64).view(np.uint64) >> np.uint64(32)).astype(np.uint32), (len(ix),)))
        return high
    funcs = {
        "RCP": lambda x: 1.0 / x, "RSQ": lambda x: 1.0 / np.sqrt(x), "SQRT": np.sqrt, "EX2": np.exp2, "LG2": np.log2,
        "SIN": lambda x: np.sin(x * 2 * np.pi), "COS": lambda x: np.cos(x * 2 * np.pi), "TANH": np.tanh,
    }
    if fn not in funcs:
        raise BuildError(f"MUFU.{fn} is not modelled")
    func = funcs[fn]
    if "F16" in ins.mods:  # MUFU.EX2.F16 d, a(.H1): one float16 half in, its float16 result in d's low half
        d, a = write(operand(ins, 0)), _half_in(operand(ins, 1), env)

        def half(m: Machine, ix: np.ndarray) -> None:
            with np.errstate(all="ignore"):
                r = func(np.asarray(a(m, ix), dtype=F32).astype(np.float64))
            d(m, ix, np.broadcast_to(ieee.small(r, "F16"), (len(ix),)))
        return half
    d, a = write(operand(ins, 0), "f32"), read(operand(ins, 1), "f32", env.constants)
    keep = fn == "TANH"  # tanh(x) is x for denormal x; the others flush denormal operands and results

    def f(m: Machine, ix: np.ndarray) -> None:
        x = np.asarray(a(m, ix), dtype=F32)
        x = (x if keep else flush(x)).astype(np.float64)
        with np.errstate(all="ignore"):
            r = to_f32(func(x))
        d(m, ix, np.broadcast_to(ieee.canonical_nan(r if keep else flush(r)), (len(ix),)))
    return f


@alu("FCHK")
def _fchk(ins: Instruction, env: Env):
    """FCHK P, a, b: whether the division a / b needs the slow path. With ea, eb the biased exponent fields, the
    fast path is taken only where 2 <= eb <= 251, 25 <= ea <= 254 and -124 <= ea - eb <= 126, signs and
    significands aside (timed on an sm_90 GPU, an H200, for every pair of exponents: 264172 pairs)."""
    d = write(operand(ins, 0), "pred")
    a, b = read(operand(ins, 1), "u32", env.constants), read(operand(ins, 2), "u32", env.constants)

    def f(m: Machine, ix: np.ndarray) -> None:
        ea = (np.asarray(a(m, ix), dtype=np.uint32) >> np.uint32(23) & np.uint32(0xFF)).astype(np.int64)
        eb = (np.asarray(b(m, ix), dtype=np.uint32) >> np.uint32(23) & np.uint32(0xFF)).astype(np.int64)
        fast = (eb >= 2) & (eb <= 251) & (ea >= 25) & (ea <= 254) & (ea - eb >= -124) & (ea - eb <= 126)
        d(m, ix, np.broadcast_to(~fast, (len(ix),)))
    return f


def _source_type(mods: tuple[str, ...], default: str) -> str:
    kinds = [m for m in mods if m in ("F16", "BF16", "F32", "F64", "TF32", "E4M3", "E5M2")]
    return kinds


def _half_in(op: Operand, env: Env, bf16: bool = False):
    """A 16-bit float operand (the low half, or the half ``.H1`` names) as float32."""
    raw = read(op, "u32", env.constants) if op.kind != "imm" else None
    if raw is None:
        v = np.float32(float_value(op.text))
        return lambda m, ix: v
    high = "H1" in op.suffix

    def f(m: Machine, ix: np.ndarray) -> np.ndarray:
        bits = np.asarray(raw(m, ix), dtype=np.uint32)
        h = ((bits >> np.uint32(16)) if high else bits) & np.uint32(0xFFFF)
        if bf16:
            x = (h << np.uint32(16)).view(np.float32)
        else:
            x = h.astype(np.uint16).view(np.float16).astype(np.float32)
        return -np.abs(x) if op.neg and op.abs else np.abs(x) if op.abs else -x if op.neg else x
    return f


def f32_to_bf16_bits(x: np.ndarray, mode: str = "RN") -> np.ndarray:
    """bfloat16 bit patterns of float32 values, rounded in ``mode``; NaN 0x7FFF."""
    return ieee.small(np.asarray(x, dtype=F32).astype(np.float64), "BF16", mode)


def f32_to_f16_bits(x: np.ndarray, mode: str = "RN") -> np.ndarray:
    """float16 bit patterns of float32 (or float64) values, rounded in ``mode``; NaN 0x7FFF."""
    return ieee.small(np.asarray(x).astype(np.float64), "F16", mode)


@alu("F2F")
def _f2f(ins: Instruction, env: Env):
    """Float to float, rounded once in the instruction's mode. Between float32 and float64 a NaN keeps its sign and the
    top of its payload, quieted (as x86 converts); to float16 and bfloat16 it becomes 0x7FFF."""
    kinds = _source_type(ins.mods, "F32")
    if len(kinds) < 2:
        raise BuildError("F2F without a destination and a source type")
    to, frm = kinds[0], kinds[1]
    mode = rounding(ins)
    src = operand(ins, 1)
    if frm == "F64":
        a = read(src, "f64", env.constants)
    elif frm in ("F16", "BF16"):
        a = _half_in(src, env, frm == "BF16")
    else:
        a = read(src, "f32", env.constants)
    d = write(operand(ins, 0), "f64" if to == "F64" else "u32" if to in ("F16", "BF16") else "f32")

    def f(m: Machine, ix: np.ndarray) -> None:
        x = np.asarray(a(m, ix))
        if to == "F64":
            r = x.astype(np.float64)
        elif to == "F32":
            with np.errstate(over="ignore"):
                r = to_f32(x.astype(np.float64), mode) if frm == "F64" else x.astype(F32)
            if "FTZ" in ins.mods:
                r = flush(r)
        else:
            r = ieee.small(x.astype(np.float64), to, mode)  # exact: float32 and float64 sources fit a float64
        d(m, ix, np.broadcast_to(r, (len(ix),)))
    return f


INTS = {"U8": (8, False), "S8": (8, True), "U16": (16, False), "S16": (16, True), "U32": (32, False), "S32": (32, True), "U64": (64, False), "S64": (64, True)}


def _round_int(x: np.ndarray, mods: tuple[str, ...]) -> np.ndarray:
    if "TRUNC" in mods:
        return np.trunc(x)
    if "FLOOR" in mods:
        return np.floor(x)
    if "CEIL" in mods:
        return np.ceil(x)
    return np.rint(x)


def saturate_int(r: np.ndarray, bits: int, signed: bool) -> np.ndarray:
    """Whole float64 values clamped to the integer type's range, as int64 (uint64 for unsigned 64-bit)."""
    lo, hi = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    top = np.where(r >= float(hi) + 1, True, False)  # float(hi) + 1 is a power of two: exact
    low = r <= float(lo)
    safe = np.where(top | low | np.isnan(r), 0.0, r)
    dtype = np.uint64 if bits == 64 and not signed else np.int64
    v = safe.astype(dtype)
    return np.where(top, dtype(hi), np.where(low, dtype(lo) if lo else dtype(0), v))


@alu("F2I")
def _f2i(ins: Instruction, env: Env):
    """Float to integer, rounded as .TRUNC/.FLOOR/.CEIL say (else to nearest even), saturated to the type's range;
    NaN gives 0 under .NTZ, else the integer with only its top bit set (0x80000000, 0x8000000000000000), signed or not.
    8- and 16-bit results are sign- or zero-extended to 32 bits."""
    ints = [m for m in ins.mods if m in INTS]
    bits, signed = INTS[ints[0]] if ints else (32, True)
    source64 = "F64" in ins.mods
    a = read(operand(ins, 1), "f64" if source64 else "f32", env.constants)
    d = write(operand(ins, 0), "u64" if bits == 64 else "u32")
    nan = 0 if "NTZ" in ins.mods else 1 << (max(bits, 32) - 1)

    def f(m: Machine, ix: np.ndarray) -> None:
        x = np.asarray(a(m, ix)).astype(np.float64)
        if "FTZ" in ins.mods:
            x = flush(x)
        r = _round_int(x, ins.mods)
        v = saturate_int(r, bits, signed)
        if bits == 64:
            v = np.where(np.isnan(r), np.uint64(nan), v.view(np.uint64) if v.dtype == np.int64 else v)
        else:
            v = np.where(np.isnan(r), np.uint32(nan), v.astype(np.int64).astype(np.uint32))
        d(m, ix, np.broadcast_to(v, (len(ix),)))
    return f


@alu("I2F", "I2FP")
def _i2f(ins: Instruction, env: Env):
    """Integer (8 to 64 bits, a byte or half of the source as .B1/.H1 name) to float, rounded once in the mode."""
    ints = [m for m in ins.mods if m in INTS]
    bits, signed = INTS[ints[0]] if ints else (32, True)
    to64 = "F64" in ins.mods
    to16 = "F16" in ins.mods
    mode = rounding(ins)
    src = operand(ins, 1)
    a = read(src, "u64" if bits == 64 else "u32", env.constants)
    byte = next((int(s[1]) for s in src.suffix if s in ("B0", "B1", "B2", "B3")), 0)
    half = next((int(s[1]) for s in src.suffix if s in ("H0", "H1")), 0)
    d = write(operand(ins, 0), "f64" if to64 else "u32" if to16 else "f32")

    def f(m: Machine, ix: np.ndarray) -> None:
        raw = np.asarray(a(m, ix))
        if bits == 64:
            wide = raw.view(np.int64) if signed else raw.astype(np.uint64)
        else:
            raw = raw.astype(np.uint32) >> np.uint32(8 * byte if bits == 8 else 16 * half if bits == 16 else 0)
            mask = np.uint32((1 << bits) - 1) if bits < 32 else np.uint32(0xFFFF_FFFF)
            u = raw & mask
            wide = np.where(signed & (u >> np.uint32(bits - 1) & np.uint32(1)).astype(bool), u.astype(np.int64) - (1 << bits), u.astype(np.int64))
        exact = np.asarray(wide).astype(ieee.LONG)  # every 64-bit integer is a long double
        if to16:  # via a float64 rounded to odd, which a second rounding to float16 leaves correct
            near = exact.astype(np.float64)
            r = ieee.small(ieee.round_odd(near, (exact - near.astype(ieee.LONG)).astype(np.float64)), "F16", mode)
        else:
            r = ieee.narrow(exact, np.float64 if to64 else F32, mode)
        d(m, ix, np.broadcast_to(r, (len(ix),)))
    return f


@alu("FRND")
def _frnd(ins: Instruction, env: Env):
    double = "F64" in ins.mods
    a = read(operand(ins, 1), "f64" if double else "f32", env.constants)
    d = write(operand(ins, 0), "f64" if double else "f32")

    def f(m: Machine, ix: np.ndarray) -> None:
        x = np.asarray(a(m, ix))
        if "FTZ" in ins.mods:
            x = flush(x)
        r = _round_int(x, ins.mods)
        d(m, ix, np.broadcast_to(r if double else ieee.canonical_nan(r), (len(ix),)))
    return f


def fp8_to_f32(byte: np.ndarray, e4m3: bool) -> np.ndarray:
    """float8 (e4m3: bias 7, no infinities, S.1111.111 NaN; e5m2: the top byte of a float16) as float32."""
    byte = byte.astype(np.uint32)
    if not e4m3:
        return (byte << np.uint32(8)).astype(np.uint16).view(np.float16).astype(np.float32)
    sign = np.where(byte & 0x80, -1.0, 1.0)
    exp, man = (byte >> 3) & 0xF, byte & 0x7
    value = np.where(exp == 0, man / 8.0 * 2.0**-6, (1 + man / 8.0) * 2.0 ** (exp.astype(np.int64) - 7))
    return np.where((exp == 15) & (man == 7), np.nan, sign * value).astype(np.float32)


@alu("F2FP")
def _f2fp(ins: Instruction, env: Env):
    """Two floats to a packed pair: F2FP.{F16,BF16}.F32.PACK_AB d, a, b: a to the high half, b to the low, rounded in
    the mode (.RELU: negatives to +0 first; NaN 0x7FFF); F2FP.SATFINITE.{E4M3,E5M2}.F32.PACK_AB_MERGE_C d, a, b, c:
    two float8 (a the high byte) in the low halfword, the high halfword c's; F2FP.F16.{E4M3,E5M2}.UNPACK_B d, a: the
    two float8 of a's low halfword (a.H1: its high one) to two float16."""
    if "UNPACK_B" in ins.mods:  # two float8 of the low halfword (of the high one, for a .H1 operand) to two float16
        e4m3 = "E4M3" in ins.mods
        d, a = write(operand(ins, 0)), read(operand(ins, 1), "u32", env.constants)
        shift = np.uint32(16 if "H1" in operand(ins, 1).suffix else 0)

        def unpack(m: Machine, ix: np.ndarray) -> None:
            x = np.broadcast_to(np.asarray(a(m, ix), dtype=np.uint32) >> shift, (len(ix),))
            lo, hi = fp8_to_f32(x & np.uint32(0xFF), e4m3), fp8_to_f32((x >> np.uint32(8)) & np.uint32(0xFF), e4m3)
            d(m, ix, (f32_to_f16_bits(hi) << np.uint32(16)) | f32_to_f16_bits(lo))
        return unpack
    fmt = next((k for k in ("E4M3", "E5M2", "BF16") if k in ins.mods), "F16")
    d = write(operand(ins, 0))
    a, b = read(operand(ins, 1), "f32", env.constants), read(operand(ins, 2), "f32", env.constants)
    merge = read(operand(ins, 3), "u32", env.constants) if "PACK_AB_MERGE_C" in ins.mods else None
    relu = "RELU" in ins.mods
    satfinite = "SATFINITE" in ins.mods
    mode = rounding(ins)
    width = 8 if fmt in ("E4M3", "E5M2") else 16

    def conv(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=F32)
        if relu:
            x = np.where(x <= 0, F32(0), x)  # -0 too
        return ieee.small(x.astype(np.float64), fmt, mode, satfinite)

    def f(m: Machine, ix: np.ndarray) -> None:
        r = (conv(a(m, ix)) << np.uint32(width)) | conv(b(m, ix))
        if merge is not None:
            r = r | (np.asarray(merge(m, ix), dtype=np.uint32) & np.uint32(0xFFFF_0000))
        d(m, ix, np.broadcast_to(r, (len(ix),)))
    return f


def _halves(ops: list[Operand], count: int, env: Env, bf16: bool):
    """``count`` f16x2 sources from an operand list where an immediate pair is printed as two operands (high, low)."""
    out = []
    k = 0
    while len(out) < count:
        if k >= len(ops):
            raise BuildError("too few operands for a packed-half instruction")
        op = ops[k]
        if op.kind == "imm" and k + 1 < len(ops) and ops[k + 1].kind == "imm":
            hi, lo = np.float32(float_value(op.text)), np.float32(float_value(ops[k + 1].text))
            pair = np.array([lo, hi], dtype=np.float32)
            out.append(lambda m, ix, p=pair: np.broadcast_to(p, (len(ix), 2)))
            k += 2
            continue
        out.append(_pair(op, env, bf16))
        k += 1
    return out, ops[k:]


def _pair(op: Operand, env: Env, bf16: bool):
    """A packed-half operand as (n, 2) float32 [low, high], with .H0_H0 / .H1_H1 swizzles, .F32 sources, -x and |x|."""
    if op.kind == "imm":
        v = np.float32(float_value(op.text))
        return lambda m, ix: np.broadcast_to(np.array([v, v], dtype=np.float32), (len(ix), 2))
    if "F32" in op.suffix:
        single = read(op, "f32", env.constants)
        return lambda m, ix: np.repeat(np.asarray(single(m, ix), dtype=np.float32).reshape(-1, 1), 2, axis=1)
    raw = read(attrs_plain(op), "u32", env.constants)
    swz = next((s for s in op.suffix if s in ("H0_H0", "H1_H1", "H1_H0", "H0_H1")), "H1_H0")

    def f(m: Machine, ix: np.ndarray) -> np.ndarray:
        bits = np.broadcast_to(np.asarray(raw(m, ix), dtype=np.uint32), (len(ix),))
        lo, hi = bits & np.uint32(0xFFFF), bits >> np.uint32(16)
        if bf16:
            lo_f, hi_f = (lo << np.uint32(16)).view(np.float32), (hi << np.uint32(16)).view(np.float32)
        else:
            lo_f, hi_f = lo.astype(np.uint16).view(np.float16).astype(np.float32), hi.astype(np.uint16).view(np.float16).astype(np.float32)
        choice = {"H1_H0": (lo_f, hi_f), "H0_H0": (lo_f, lo_f), "H1_H1": (hi_f, hi_f), "H0_H1": (hi_f, lo_f)}[swz]
        x = np.stack(choice, axis=1)
        if op.abs:
            x = np.abs(x)
        if op.neg:
            x = -x
        return x
    return f


def attrs_plain(op: Operand) -> Operand:
    import attrs

    return attrs.evolve(op, neg=False, abs=False)


def _pack(r: np.ndarray, bf16: bool) -> np.ndarray:
    conv = (lambda x: f32_to_bf16_bits(x)) if bf16 else f32_to_f16_bits
    return (conv(r[:, 1]) << np.uint32(16)) | conv(r[:, 0])


def min_max(x: np.ndarray, y: np.ndarray, smaller, nan_wins: bool = False) -> np.ndarray:
    """min (``smaller`` true) or max of float arrays: -0 below +0; a NaN operand gives the other operand (both NaN, or
    either under ``nan_wins``: NaN)."""
    x, y = np.broadcast_arrays(x, y)
    below = (x < y) | ((x == y) & np.signbit(x) & ~np.signbit(y))
    above = (x > y) | ((x == y) & ~np.signbit(x) & np.signbit(y))
    r = np.where(np.where(smaller, below, above) | (x == y) & (np.signbit(x) == np.signbit(y)), x, y)
    r = np.where(np.isnan(y), x, np.where(np.isnan(x), y, r))
    if nan_wins:
        r = np.where(np.isnan(x) | np.isnan(y), x.dtype.type(np.nan), r)
    return r


def _half_value(bits: np.ndarray, bf16: bool) -> np.ndarray:
    """16-bit float patterns as float32."""
    bits = np.asarray(bits, dtype=np.uint32) & np.uint32(0xFFFF)
    return (bits << np.uint32(16)).view(F32) if bf16 else bits.astype(np.uint16).view(np.float16).astype(F32)


@alu("HADD2", "HMUL2", "HFMA2", "HMNMX2")
def _hfma2(ins: Instruction, env: Env):
    """Packed pairs of float16 (or bfloat16, .BF16_V2) values, each half rounded once (a sum, product or fused
    multiply-add) to the pair's format, or to float32 (.F32: the low half's result alone); NaN results canonical
    (0x7FFF, 0x7FFFFFFF). .SAT clamps to [0, 1] (NaN to 0), .RELU negatives to 0 (NaN stays NaN). HMNMX2: min (p
    true) or max per half as FMNMX (.NAN: a NaN operand gives NaN)."""
    bf16 = "BF16" in ins.mods or "BF16_V2" in ins.mods
    fmt = "BF16" if bf16 else "F16"
    out32 = "F32" in ins.mods
    n = 3 if ins.name == "HFMA2" else 2
    srcs, rest = _halves(list(ins.operands[1:]), n, env, bf16)
    d = write(operand(ins, 0), "f32" if out32 else "u32")
    name = ins.name
    mode = rounding(ins)
    pmin = read(rest[0], "pred") if name == "HMNMX2" and rest else None
    target = F32 if out32 else fmt

    def f(m: Machine, ix: np.ndarray) -> None:
        vals = [np.asarray(v(m, ix), dtype=F32) for v in srcs]
        if name == "HMNMX2":
            p = np.broadcast_to(pmin(m, ix), (len(ix),)).reshape(-1, 1)
            r = min_max(vals[0], vals[1], p, "NAN" in ins.mods)
            bits = None
        else:
            if name == "HADD2":
                bits = ieee.fma(vals[0], F32(1), vals[1], mode, target)
            elif name == "HMUL2":
                bits = ieee.fma(vals[0], vals[1], None, mode, target)
            else:
                bits = ieee.fma(vals[0], vals[1], vals[2], mode, target)
            r = bits if out32 else _half_value(bits, bf16)
        if "SAT" in ins.mods or "RELU" in ins.mods:
            top = F32(1) if "SAT" in ins.mods else F32(np.inf)
            clamped = np.where(r <= 0, F32(0), np.minimum(r, top))
            r = np.where(np.isnan(r), F32(0) if "SAT" in ins.mods else r, clamped)
            bits = None
        if out32:
            d(m, ix, ieee.canonical_nan(r[:, 0]))
        elif bits is not None:
            d(m, ix, (bits[:, 1] << np.uint32(16)) | bits[:, 0])
        else:
            d(m, ix, _pack(np.asarray(r, dtype=F32), bf16))
    return f


@alu("HSET2")
def _hset2(ins: Instruction, env: Env):
    """Per half: the comparison's result as 1.0/0.0 (.BF) or an all-ones/zero mask."""
    from .integer import BOOLEAN

    cmp = float_compare(next(m for m in ins.mods if m in ("NUM", "NAN", "T", "F") or m.rstrip("U") in ORDERED))
    bop = BOOLEAN[next(m for m in ins.mods if m in BOOLEAN)]
    bf16 = "BF16_V2" in ins.mods
    d = write(operand(ins, 0))
    srcs, rest = _halves(list(ins.operands[1:]), 2, env, bf16)
    c = read(rest[0], "pred")
    one = np.uint32(0x3F80 if bf16 else 0x3C00) if "BF" in ins.mods else np.uint32(0xFFFF)

    def f(m: Machine, ix: np.ndarray) -> None:
        r = cmp(srcs[0](m, ix), srcs[1](m, ix))
        cp = np.broadcast_to(c(m, ix), (len(ix),))
        lo, hi = bop(r[:, 0], cp), bop(r[:, 1], cp)
        d(m, ix, (np.where(hi, one, 0).astype(np.uint32) << np.uint32(16)) | np.where(lo, one, 0).astype(np.uint32))
    return f


@alu("F2IP")
def _f2ip(ins: Instruction, env: Env):
    """Two floats to two saturated 8-bit (or 16-bit) integers, packed into the low part of c: F2IP.U8.F32 Rd, Ra(high), Rb(low), Rc."""
    kinds = [m for m in ins.mods if m in INTS]
    bits, signed = INTS[kinds[0]] if kinds else (8, False)
    d = write(operand(ins, 0))
    hi, lo = read(operand(ins, 1), "f32", env.constants), read(operand(ins, 2), "f32", env.constants)
    keep = read(operand(ins, 3), "u32", env.constants)
    low, top = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)

    def conv(x):
        r = _round_int(np.asarray(x, dtype=np.float64), ins.mods)
        return (np.where(np.isnan(r), 0, np.clip(r, low, top)).astype(np.int64) & ((1 << bits) - 1)).astype(np.uint32)

    def f(m: Machine, ix: np.ndarray) -> None:
        base = np.asarray(keep(m, ix), dtype=np.uint32) & np.uint32((0xFFFF_FFFF << (2 * bits)) & 0xFFFF_FFFF)
        d(m, ix, np.broadcast_to(base | (conv(hi(m, ix)) << np.uint32(bits)) | conv(lo(m, ix)), (len(ix),)))
    return f


@alu("HSETP2")
def _hsetp2(ins: Instruction, env: Env):
    from .integer import BOOLEAN

    cmp = float_compare(next(m for m in ins.mods if m in ("NUM", "NAN", "T", "F") or m.rstrip("U") in ORDERED))
    bop = BOOLEAN[next(m for m in ins.mods if m in BOOLEAN)]
    both = "H_AND" in ins.mods
    d0, d1 = write(operand(ins, 0), "pred"), write(operand(ins, 1), "pred")
    srcs, rest = _halves(list(ins.operands[2:]), 2, env, "BF16" in ins.mods)
    c = read(rest[0], "pred")

    def f(m: Machine, ix: np.ndarray) -> None:
        r = cmp(srcs[0](m, ix), srcs[1](m, ix))
        lo, hi = r[:, 0], r[:, 1]
        cp = c(m, ix)
        if both:
            d0(m, ix, bop(lo & hi, cp))
            d1(m, ix, bop(~(lo & hi), cp))
        else:
            d0(m, ix, bop(lo, cp))
            d1(m, ix, bop(hi, cp))
    return f


QUIET64 = np.uint64(1 << 51)


def nan64(bits: np.ndarray, sources: list[tuple[np.ndarray, np.ndarray]], where=True) -> np.ndarray:
    """float64 result bits with the float64 units' NaN: a NaN operand makes the result that NaN, quieted, as the register
    holds it; of several, the last of ``sources`` ((register bits, value) pairs, in rising priority)."""
    for raw, x in sources:
        bits = np.where(np.isnan(x) & where, raw | QUIET64, bits)
    return bits


#: The NaN DADD, DMUL and DFMA give for an invalid operation (0 x infinity, infinity - infinity) of non-NaN operands.
INVALID64 = np.uint64(0xFFF8_0000_0000_0000)


@compiled(cache=True, nogil=True)
def dfma_bits(a, b, c):  # pragma: no cover - compiled
    """DFMA's a * b + c rounded to nearest, operands and result as float64 bits (np.uint64), with its NaN: ``_double``'s
    rule (b's, then c's, then a's, quieted; an invalid one INVALID64). One lane; DMMA chains it (``matrix._dmma``)."""
    x, y, z = np.uint64(a).view(np.float64), np.uint64(b).view(np.float64), np.uint64(c).view(np.float64)
    if math.isnan(y):
        return np.uint64(b) | QUIET64
    if math.isnan(z):
        return np.uint64(c) | QUIET64
    if math.isnan(x):
        return np.uint64(a) | QUIET64
    r = ieee.fma64(x, y, z)
    return INVALID64 if math.isnan(r) else np.float64(r).view(np.uint64)


@alu("DADD", "DMUL", "DFMA", "DMNMX")
def _double(ins: Instruction, env: Env):
    """float64 a + b, a * b, a * b + c rounded once in the instruction's mode. A NaN operand makes the result that
    NaN, quieted, as the register holds it (before -x and |x|); of several, b's, then c's, then a's (measured on an sm_90
    GPU). An invalid operation gives 0xFFF8000000000000."""
    d = write(operand(ins, 0), "f64")
    n = 3 if ins.name == "DFMA" else 2
    srcs = [read(operand(ins, k), "f64", env.constants) for k in range(1, n + 1)]
    raws = [read(attrs_plain(operand(ins, k)), "u64", env.constants) if operand(ins, k).kind != "imm" else None for k in range(1, n + 1)]
    name = ins.name
    mode = rounding(ins)
    p = read(operand(ins, 3), "pred") if name == "DMNMX" else None

    def f(m: Machine, ix: np.ndarray) -> None:
        v = [np.broadcast_to(np.asarray(s(m, ix), dtype=np.float64), (len(ix),)) for s in srcs]
        if name == "DMNMX":
            r = min_max(v[0], v[1], np.broadcast_to(p(m, ix), (len(ix),)))
        elif name == "DADD":
            r = v[0] + v[1] if mode == "RN" else ieee.fma(v[0], np.float64(1), v[1], mode, np.float64)
        elif name == "DMUL":
            r = v[0] * v[1] if mode == "RN" else ieee.fma(v[0], v[1], None, mode, np.float64)
        else:
            r = ieee.fma(v[0], v[1], v[2], mode, np.float64)
        bits = np.asarray(r, dtype=np.float64).view(np.uint64)
        nan_out = np.isnan(r) if name == "DMNMX" else np.ones(len(ix), dtype=bool)  # DMNMX: only where both are NaN
        order = [0, 2, 1] if name == "DFMA" else [0, 1]  # rising priority: a, c, b
        sources = [(np.asarray(raws[k](m, ix), dtype=np.uint64) if raws[k] is not None else v[k].view(np.uint64), v[k]) for k in order]
        d(m, ix, np.broadcast_to(nan64(bits, sources, nan_out).view(np.float64), (len(ix),)))
    return f
