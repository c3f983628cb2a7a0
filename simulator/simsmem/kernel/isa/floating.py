"""Floating-point instructions: f32 (FADD, FFMA, MUFU, ...), f16x2 (HADD2, HFMA2, ...), f64 (DADD, ...), conversions.

Values matter to simsmem only where they reach an address or a branch, but they are computed as the
PTX ISA defines them: IEEE round to nearest even unless the instruction names another rounding
(``.RZ``, ``.RM``, ``.RP``), denormals flushed under ``.FTZ``. FFMA is the float64 product and sum
rounded once to float32 (exact but for rare double roundings); MUFU's approximations are the exact
functions, rounded.
"""

from __future__ import annotations

import numpy as np

from ..machine import Machine
from ..sass import Instruction, Operand
from . import Env, alu, operand
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


def _finish(ins: Instruction, r: np.ndarray) -> np.ndarray:
    if "FTZ" in ins.mods:
        r = flush(r)
    if "SAT" in ins.mods:
        r = np.where(np.isnan(r), F32(0), np.clip(r, F32(0), F32(1)))
    return np.asarray(r, dtype=F32)


def _inputs(ins: Instruction, env: Env, count: int, ty: str = "f32"):
    return [read(operand(ins, k), ty, env.constants) for k in range(1, count + 1)]


@alu("FADD", "FMUL", "FADD32I", "FMUL32I")
def _fadd(ins: Instruction, env: Env):
    d = write(operand(ins, 0), "f32")
    a, b = _inputs(ins, env, 2)
    mode = rounding(ins)
    ftz = "FTZ" in ins.mods
    mul = ins.name.startswith("FMUL")
    scale = {"D2": 0.5, "D4": 0.25, "D8": 0.125, "M2": 2.0, "M4": 4.0, "M8": 8.0}.get(next((m for m in ins.mods if m[:1] in "DM" and m[1:].isdigit()), ""), 1.0)

    def f(m: Machine, ix: np.ndarray) -> None:
        x, y = a(m, ix), b(m, ix)
        if ftz:
            x, y = flush(x), flush(y)
        if mode == "RN" and scale == 1.0:
            r = (np.multiply if mul else np.add)(np.asarray(x, dtype=F32), np.asarray(y, dtype=F32))
        else:
            wide = np.asarray(x, dtype=np.float64) * np.asarray(y, dtype=np.float64) * scale if mul else np.asarray(x, dtype=np.float64) + np.asarray(y, dtype=np.float64)
            r = to_f32(wide, mode)
        d(m, ix, np.broadcast_to(_finish(ins, r), (len(ix),)))
    return f


@alu("FFMA", "FFMA32I")
def _ffma(ins: Instruction, env: Env):
    d = write(operand(ins, 0), "f32")
    a, b, c = _inputs(ins, env, 3)
    mode = rounding(ins)
    ftz = "FTZ" in ins.mods

    def f(m: Machine, ix: np.ndarray) -> None:
        x, y, z = (np.asarray(v(m, ix), dtype=F32) for v in (a, b, c))
        if ftz:
            x, y, z = flush(x), flush(y), flush(z)
        r = to_f32(x.astype(np.float64) * y.astype(np.float64) + z.astype(np.float64), mode)
        d(m, ix, np.broadcast_to(_finish(ins, r), (len(ix),)))
    return f


@alu("FMNMX", "FMNMX32I")
def _fmnmx(ins: Instruction, env: Env):
    d = write(operand(ins, 0), "f32")
    a, b = _inputs(ins, env, 2)
    p = read(operand(ins, 3), "pred")

    def f(m: Machine, ix: np.ndarray) -> None:
        x, y = np.asarray(a(m, ix), dtype=F32), np.asarray(b(m, ix), dtype=F32)
        if "FTZ" in ins.mods:
            x, y = flush(x), flush(y)
        d(m, ix, np.broadcast_to(np.where(p(m, ix), np.fmin(x, y), np.fmax(x, y)), (len(ix),)))
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
    d, a = write(operand(ins, 0), "f32"), read(operand(ins, 1), "f32", env.constants)

    def f(m: Machine, ix: np.ndarray) -> None:
        x = flush(np.asarray(a(m, ix), dtype=F32)).astype(np.float64)
        d(m, ix, np.broadcast_to(flush(to_f32(func(x))), (len(ix),)))
    return f


@alu("FCHK")
def _fchk(ins: Instruction, env: Env):
    """Whether a division a/b needs the slow path: b or a not finite, b zero or denormal, or a quotient near the exponent range's ends."""
    d = write(operand(ins, 0), "pred")
    a, b = read(operand(ins, 1), "f32", env.constants), read(operand(ins, 2), "f32", env.constants)

    def f(m: Machine, ix: np.ndarray) -> None:
        x, y = np.asarray(a(m, ix), dtype=F32), np.asarray(b(m, ix), dtype=F32)
        ex = (x.view(np.uint32) >> 23 & 0xFF).astype(np.int64)
        ey = (y.view(np.uint32) >> 23 & 0xFF).astype(np.int64)
        slow = ~np.isfinite(x) | ~np.isfinite(y) | (ey == 0) | ((ex == 0) & (x != 0)) | ((x != 0) & ((ex - ey > 125) | (ex - ey < -125)))
        d(m, ix, np.broadcast_to(slow, (len(ix),)))
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
    """bfloat16 bit patterns of float32 values (round to nearest even, or toward zero for RZ)."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    if mode == "RZ":
        r = bits >> np.uint64(16)
    else:
        r = (bits + np.uint64(0x7FFF) + ((bits >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)
    nan = np.isnan(np.asarray(x, dtype=np.float32))
    return np.where(nan, np.uint64(0x7FC0), r).astype(np.uint32) & np.uint32(0xFFFF)


def f32_to_f16_bits(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float32).astype(np.float16).view(np.uint16).astype(np.uint32)


@alu("F2F")
def _f2f(ins: Instruction, env: Env):
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
            r = to_f32(x.astype(np.float64), mode) if frm == "F64" else x.astype(F32)
            if "FTZ" in ins.mods:
                r = flush(r)
        elif to == "F16":
            r = f32_to_f16_bits(to_f32(x.astype(np.float64), mode) if frm == "F64" else x)
        else:
            r = f32_to_bf16_bits(x.astype(F32), mode)
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


@alu("F2I")
def _f2i(ins: Instruction, env: Env):
    ints = [m for m in ins.mods if m in INTS]
    bits, signed = INTS[ints[0]] if ints else (32, True)
    source64 = "F64" in ins.mods
    a = read(operand(ins, 1), "f64" if source64 else "f32", env.constants)
    d = write(operand(ins, 0), "u64" if bits == 64 else "u32")

    def f(m: Machine, ix: np.ndarray) -> None:
        x = np.asarray(a(m, ix)).astype(np.float64)
        if "FTZ" in ins.mods:
            x = flush(x)
        r = _round_int(x, ins.mods)
        lo, hi = (-(2.0 ** (bits - 1)), 2.0 ** (bits - 1) - 1) if signed else (0.0, 2.0**bits - 1)
        r = np.where(np.isnan(r), 0.0, np.clip(r, lo, hi))
        if bits == 64:
            v = np.where(r >= 2.0**63, (r - 2.0**64), r).astype(np.int64).view(np.uint64) if not signed else r.astype(np.int64).view(np.uint64)
        else:
            v = r.astype(np.int64).astype(np.uint32)
        d(m, ix, np.broadcast_to(v, (len(ix),)))
    return f


@alu("I2F", "I2FP")
def _i2f(ins: Instruction, env: Env):
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
            v = raw.view(np.int64).astype(np.float64) if signed else raw.astype(np.float64)
            wide = raw.view(np.int64) if signed else raw
        else:
            raw = raw.astype(np.uint32) >> np.uint32(8 * byte if bits == 8 else 16 * half if bits == 16 else 0)
            mask = np.uint32((1 << bits) - 1) if bits < 32 else np.uint32(0xFFFF_FFFF)
            u = raw & mask
            wide = np.where(signed & (u >> np.uint32(bits - 1) & np.uint32(1)).astype(bool), u.astype(np.int64) - (1 << bits), u.astype(np.int64))
            v = wide.astype(np.float64)
        if to64:
            r = v
        else:
            r = to_f32(v, mode)
            if bits == 64 and mode == "RN":  # float64 rounded once already; round from the integer itself
                r = np.asarray(wide).astype(F32)
        d(m, ix, np.broadcast_to(f32_to_f16_bits(r) if to16 else r, (len(ix),)))
    return f


@alu("FRND")
def _frnd(ins: Instruction, env: Env):
    double = "F64" in ins.mods
    a = read(operand(ins, 1), "f64" if double else "f32", env.constants)
    d = write(operand(ins, 0), "f64" if double else "f32")

    def f(m: Machine, ix: np.ndarray) -> None:
        r = _round_int(np.asarray(a(m, ix)), ins.mods)
        d(m, ix, np.broadcast_to(r, (len(ix),)))
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
    if "UNPACK_B" in ins.mods:  # two float8 of the low halfword to two float16
        e4m3 = "E4M3" in ins.mods
        d, a = write(operand(ins, 0)), read(operand(ins, 1), "u32", env.constants)

        def unpack(m: Machine, ix: np.ndarray) -> None:
            x = np.broadcast_to(np.asarray(a(m, ix), dtype=np.uint32), (len(ix),))
            lo, hi = fp8_to_f32(x & np.uint32(0xFF), e4m3), fp8_to_f32((x >> np.uint32(8)) & np.uint32(0xFF), e4m3)
            d(m, ix, (f32_to_f16_bits(hi) << np.uint32(16)) | f32_to_f16_bits(lo))
        return unpack
    bf16 = "BF16" in ins.mods
    d = write(operand(ins, 0))
    a, b = read(operand(ins, 1), "f32", env.constants), read(operand(ins, 2), "f32", env.constants)
    relu = "RELU" in ins.mods
    mode = rounding(ins)

    def conv(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=F32)
        if relu:
            x = np.maximum(x, F32(0))
        return f32_to_bf16_bits(x, mode) if bf16 else f32_to_f16_bits(x)

    def f(m: Machine, ix: np.ndarray) -> None:
        d(m, ix, np.broadcast_to((conv(a(m, ix)) << np.uint32(16)) | conv(b(m, ix)), (len(ix),)))
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


@alu("HADD2", "HMUL2", "HFMA2", "HMNMX2")
def _hfma2(ins: Instruction, env: Env):
    bf16 = "BF16" in ins.mods or "BF16_V2" in ins.mods
    out32 = "F32" in ins.mods
    n = 3 if ins.name == "HFMA2" else 2
    srcs, rest = _halves(list(ins.operands[1:]), n, env, bf16)
    d = write(operand(ins, 0), "f32" if out32 else "u32")
    name = ins.name
    pmin = read(rest[0], "pred") if name == "HMNMX2" and rest else None

    def f(m: Machine, ix: np.ndarray) -> None:
        vals = [v(m, ix) for v in srcs]
        if name == "HADD2":
            r = vals[0] + vals[1]
        elif name == "HMUL2":
            r = vals[0] * vals[1]
        elif name == "HMNMX2":
            p = pmin(m, ix).reshape(-1, 1)
            r = np.where(p, np.fmin(vals[0], vals[1]), np.fmax(vals[0], vals[1]))
        else:
            r = (vals[0].astype(np.float64) * vals[1] + vals[2]).astype(np.float32)
        if "SAT" in ins.mods:
            r = np.clip(r, 0, 1)
        d(m, ix, r[:, 0] if out32 else _pack(np.asarray(r, dtype=np.float32), bf16))
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


@alu("DADD", "DMUL", "DFMA", "DMNMX")
def _double(ins: Instruction, env: Env):
    d = write(operand(ins, 0), "f64")
    n = 3 if ins.name == "DFMA" else 2
    srcs = [read(operand(ins, k), "f64", env.constants) for k in range(1, n + 1)]
    name = ins.name
    p = read(operand(ins, 3), "pred") if name == "DMNMX" else None

    def f(m: Machine, ix: np.ndarray) -> None:
        v = [np.asarray(s(m, ix), dtype=np.float64) for s in srcs]
        if name == "DADD":
            r = v[0] + v[1]
        elif name == "DMUL":
            r = v[0] * v[1]
        elif name == "DMNMX":
            r = np.where(p(m, ix), np.fmin(v[0], v[1]), np.fmax(v[0], v[1]))
        else:
            r = (v[0].astype(np.longdouble) * v[1] + v[2]).astype(np.float64)
        d(m, ix, np.broadcast_to(r, (len(ix),)))
    return f
