"""Integer, logic, predicate and move instructions (and their uniform-datapath twins, U*).

32-bit values are uint32 columns; arithmetic wraps as the hardware's does. Carries travel in
predicates: ``IADD3 R2, P0, PT, R4, R6, RZ`` sets P0 to the carry out of bit 31, ``IADD3.X`` adds
it back in. A negated operand ``-x`` is ``~x + 1``, so its +1 takes part in the carry, as a
subtraction's borrow needs.
"""

from __future__ import annotations

import attrs
import numpy as np

from ..machine import LANES, ExecError, Machine
from ..sass import Instruction
from . import Env, alu, operand
from .operands import BuildError, int_value, lanes, read, write

U32 = np.uint32
M32 = np.uint64(0xFFFF_FFFF)


def _w(x) -> np.ndarray:
    return np.asarray(x).astype(np.uint64)


def _outputs(ins: Instruction) -> tuple[list, list]:
    """The destination register and, where a predicate follows it, the carry out; then the sources."""
    ops = list(ins.operands)
    k = 2 if len(ops) > 1 and ops[1].kind in ("P", "UP") else 1
    return ops[:k], ops[k:]


@alu("MOV", "UMOV", "MOV32I", "IMOV")
def _mov(ins: Instruction, env: Env):
    d, s = write(operand(ins, 0)), read(operand(ins, 1), "u32", env.constants)

    def f(m: Machine, ix: np.ndarray) -> None:
        d(m, ix, s(m, ix))
    return f


@alu("IMAD", "UIMAD", "IMUL", "UIMUL")
def _imad(ins: Instruction, env: Env):
    """a * b + c, signed unless .U32: the low word; .WIDE the 64-bit product plus a 64-bit c (a register pair), its carry
    out in a predicate; .HI the high word of a * b plus a 64-bit c (the pair c:c+1), as Newton steps use it."""
    mods = ins.mods
    dests, srcs = _outputs(ins)
    signed = "U32" not in mods
    if "WIDE" in mods:
        d = write(dests[0], "u64")
        a, b = read(srcs[0], "u32", env.constants), read(srcs[1], "u32", env.constants)
        c = read(srcs[2], "u64", env.constants) if len(srcs) > 2 else (lambda m, ix: np.uint64(0))
        carry_in = read(srcs[3], "pred") if "X" in mods and len(srcs) > 3 else None
        carry_out = write(dests[1], "pred") if len(dests) > 1 else None

        def wide(m: Machine, ix: np.ndarray) -> None:  # d = a * b + c (+ carry in), 64 bits; the carry out of bit 63
            x, y = a(m, ix), b(m, ix)
            if signed:
                p = (np.asarray(x).view(np.int32).astype(np.int64) * np.asarray(y).view(np.int32).astype(np.int64)).view(np.uint64)
            else:
                p = _w(x) * _w(y)
            cv = _w(c(m, ix))
            r = p + cv
            out = r < cv
            if carry_in is not None:
                ci = carry_in(m, ix).astype(np.uint64)
                r = r + ci
                out = out | (r < ci)
            d(m, ix, r)
            if carry_out is not None:
                carry_out(m, ix, lanes(out, len(ix)))
        return wide
    d = write(dests[0])
    a, b = read(srcs[0], "u32", env.constants), read(srcs[1], "u32", env.constants)
    c = read(srcs[2], "u32", env.constants) if len(srcs) > 2 else (lambda m, ix: U32(0))
    carry_in = read(srcs[3], "pred") if "X" in mods and len(srcs) > 3 else None
    carry_out = write(dests[1], "pred") if len(dests) > 1 else None
    if "HI" in mods:  # the addend is a register pair: d = high word of (a*b + c:c+1)
        if srcs[2].kind in ("R", "UR"):
            c = read(srcs[2], "u64", env.constants)

        def high(m: Machine, ix: np.ndarray) -> None:
            x, y = a(m, ix), b(m, ix)
            if signed:
                p = (np.asarray(x).view(np.int32).astype(np.int64) * np.asarray(y).view(np.int32).astype(np.int64)).view(np.uint64)
            else:
                p = _w(x) * _w(y)
            r = p + _w(c(m, ix))
            if carry_in is not None:
                r = r + (carry_in(m, ix).astype(np.uint64) << np.uint64(32))
            d(m, ix, ((r >> np.uint64(32)) & M32).astype(U32))
            if carry_out is not None:  # out of the 64-bit sum
                carry_out(m, ix, r < p)
        return high

    if carry_in is None and carry_out is None:  # the low word: in uint32, whose product and sum wrap as the 64-bit ones masked do

        def quick(m: Machine, ix: np.ndarray) -> None:
            r = np.empty(len(ix), dtype=U32)
            np.multiply(a(m, ix), b(m, ix), out=r)
            r += c(m, ix)
            d(m, ix, r)
        return quick

    def low(m: Machine, ix: np.ndarray) -> None:
        r = (_w(a(m, ix)) * _w(b(m, ix)) & M32) + _w(c(m, ix))
        if carry_in is not None:
            r = r + carry_in(m, ix).astype(np.uint64)
        d(m, ix, (r & M32).astype(U32))
        if carry_out is not None:
            carry_out(m, ix, (r >> np.uint64(32)) != 0)
    return low


def _addend(op, env: Env):
    """An IADD3/LEA addend as (reader of its 32-bit pattern before negation, 1 if negated): -x is ~x + 1."""
    if op.neg:
        plain = read(attrs.evolve(op, neg=False), "u32", env.constants)
        return (lambda m, ix: ~plain(m, ix)), 1
    return read(op, "u32", env.constants), 0


def _halves(x) -> np.ndarray:
    """(n,) uint32 words -> (n, 2) int64 [low, high] halfwords, unsigned."""
    x = np.asarray(x, dtype=U32).astype(np.int64)
    return np.stack([x & 0xFFFF, x >> 16], axis=-1)


def _join(h: np.ndarray) -> np.ndarray:
    """(n, 2) halfwords (any integers; each taken modulo 2**16) -> (n,) uint32 words."""
    h = h & 0xFFFF
    return (h[..., 0] | h[..., 1] << 16).astype(U32)


def _vadd16x2(ins: Instruction, env: Env):
    """VIADD.16x2 d, a, b: two independent 16-bit sums (no carry between them); -b negates each halfword."""
    d = write(operand(ins, 0))
    ops = [o for o in ins.operands[1:] if o.kind not in ("P", "UP")]
    terms = [(read(attrs.evolve(o, neg=False), "u32", env.constants), o.neg) for o in ops]

    def f(m: Machine, ix: np.ndarray) -> None:
        total = np.zeros((len(ix), 2), dtype=np.int64)
        for t, neg in terms:
            h = _halves(lanes(t(m, ix), len(ix)))
            total = total - h if neg else total + h
        d(m, ix, _join(total))
    return f


@alu("IADD3", "UIADD3", "IADD", "UIADD", "IADD32I", "VIADD", "UVIADD")
def _iadd3(ins: Instruction, env: Env):
    if "16x2" in ins.mods:
        return _vadd16x2(ins, env)
    if "64" in ins.mods:
        return _iadd3_64(ins, env)
    extended = "X" in ins.mods
    ops = list(ins.operands)
    d = write(ops[0])
    k = 1
    outs = []
    values = [o for o in ops[1:] if o.kind not in ("P", "UP")]
    while k < len(ops) and ops[k].kind in ("P", "UP") and len(ops) - k > len(values):
        outs.append(write(ops[k], "pred"))
        k += 1
        if len(outs) == 2:
            break
    rest = ops[k:]
    ins_preds = [read(p, "pred") for p in rest if p.kind in ("P", "UP")] if extended else []
    terms = [_addend(o, env) for o in rest if o.kind not in ("P", "UP")]
    ones = sum(n for _, n in terms)
    if not outs and not ins_preds:  # no carry in or out: the sum in uint32, which wraps as the 64-bit one masked does

        def quick(m: Machine, ix: np.ndarray) -> None:
            total = np.full(len(ix), ones, dtype=U32)
            for t, _ in terms:
                total += t(m, ix)
            d(m, ix, total)
        return quick

    def f(m: Machine, ix: np.ndarray) -> None:
        total = np.full(len(ix), ones, dtype=np.uint64)
        for t, _ in terms:
            total = total + (_w(t(m, ix)) & M32)
        for p in ins_preds:
            total = total + p(m, ix).astype(np.uint64)
        d(m, ix, (total & M32).astype(U32))
        carry = total >> np.uint64(32)
        for i, w in enumerate(outs):
            w(m, ix, carry > np.uint64(i))
    return f


def _iadd3_64(ins: Instruction, env: Env):
    """UIADD3.64 d, a, b, c: the sum of three register pairs (or immediates), modulo 2**64."""
    ops = list(ins.operands)
    if any(o.kind in ("P", "UP") for o in ops):
        raise BuildError(f"{ins.opcode} with carry predicates is not modelled")
    d = write(ops[0], "u64")
    terms = [read(o, "u64", env.constants) for o in ops[1:]]

    def f(m: Machine, ix: np.ndarray) -> None:
        total = np.zeros(len(ix), dtype=np.uint64)
        for t in terms:
            total = total + t(m, ix)
        d(m, ix, total)
    return f


@alu("LEA", "ULEA")
def _lea(ins: Instruction, env: Env):
    mods = ins.mods
    ops = list(ins.operands)
    d = write(ops[0])
    k = 1
    carry_out = None
    if ops[1].kind in ("P", "UP"):
        carry_out = write(ops[1], "pred")
        k = 2
    rest = ops[k:]
    carry_in = read(rest.pop(), "pred") if "X" in mods and rest and rest[-1].kind in ("P", "UP") else None
    shift_op = rest.pop()
    shift = read(shift_op, "u32", env.constants)
    hi = "HI" in mods
    (a, a_neg) = _addend(rest[0], env)
    b = read(rest[1], "u32", env.constants)
    if hi and "SX32" not in mods:
        c = read(rest[2], "u32", env.constants)
    elif hi:
        c = lambda m, ix: np.where(a(m, ix) & U32(0x8000_0000), U32(0xFFFF_FFFF), U32(0))
    else:
        c = None

    fixed = int(shift_op.text, 0) & 0x3F if shift_op.kind == "imm" else None
    if not hi and carry_in is None and fixed is not None and fixed < 32 and rest[0].kind in ("R", "UR"):
        # LEA d, a, b, imm (shift below 32): in uint32, whose shift and sum wrap as the 64-bit ones masked to 32 bits do;
        # the carry out of the sum is the sum below an addend
        n = U32(fixed)

        def quick(m: Machine, ix: np.ndarray) -> None:
            av = a(m, ix)  # (already inverted where negated: -x is ~x + 1)
            if a_neg:
                av = av + U32(1)
            part = av << n
            total = part + b(m, ix)
            d(m, ix, total)
            if carry_out is not None:
                carry_out(m, ix, total < part)
        return quick

    def f(m: Machine, ix: np.ndarray) -> None:
        s = _w(shift(m, ix)) & np.uint64(0x3F)
        av = (_w(a(m, ix)) + np.uint64(a_neg)) & M32
        if hi:
            wide = (_w(c(m, ix)) << np.uint64(32)) | av
            part = ((wide << s) >> np.uint64(32)) & M32
        else:
            part = (av << s) & M32
        total = part + _w(b(m, ix))
        if carry_in is not None:
            total = total + carry_in(m, ix).astype(np.uint64)
        d(m, ix, (total & M32).astype(U32))
        if carry_out is not None:
            carry_out(m, ix, (total >> np.uint64(32)) != 0)
    return f


@alu("SHF", "USHF")
def _shf(ins: Instruction, env: Env):
    """Funnel shift of the pair hi:lo (SHF d, lo, n, hi) left (.L) or right (.R, arithmetic with .S32/.S64), the low
    or (.HI) high word of the 64-bit result. .W wraps n to 0..31 (0..63 with .U64/.S64); otherwise n, the whole
    unsigned 32-bit value, is clamped to 32 (64 with .U64/.S64)."""
    mods = set(ins.mods)
    d = write(operand(ins, 0))
    lo, s, hi = (read(operand(ins, k), "u32", env.constants) for k in (1, 2, 3))
    left = "L" in mods
    high = "HI" in mods
    signed = bool({"S32", "S64"} & mods)
    wide = bool({"U64", "S64"} & mods)
    wrap = "W" in mods
    amount = operand(ins, 2)
    if amount.kind == "imm":  # a fixed shift: wrapped or clamped once, here
        n = int_value(amount.text)
        n = np.uint64(n & (63 if wide else 31) if wrap else min(n, 64 if wide else 32))
        if n < 64:

            def fixed(m: Machine, ix: np.ndarray) -> None:
                v = (_w(hi(m, ix)) << np.uint64(32)) | _w(lo(m, ix))
                r = v << n if left else (v.view(np.int64) >> n.astype(np.int64)).view(np.uint64) if signed else v >> n
                d(m, ix, lanes(((r >> np.uint64(32)) if high else (r & M32)).astype(U32), len(ix)))
            return fixed

    def f(m: Machine, ix: np.ndarray) -> None:
        n = _w(s(m, ix))
        n = n & np.uint64(31 if not wide else 63) if wrap else np.minimum(n, np.uint64(64 if wide else 32))
        h, l_ = _w(hi(m, ix)), _w(lo(m, ix))
        v = (h << np.uint64(32)) | l_
        big = n >= np.uint64(64)
        n_ = np.where(big, np.uint64(0), n)
        if left:
            r = np.where(big, np.uint64(0), v << n_)
        elif signed:
            sv = v.view(np.int64)
            r = np.where(big, (sv >> np.int64(63)), sv >> n_.astype(np.int64)).view(np.uint64)
        else:
            r = np.where(big, np.uint64(0), v >> n_)
        d(m, ix, ((r >> np.uint64(32)) if high else (r & M32)).astype(U32))
    return f


def lut3(table: int):
    """The bitwise function of three words that a LOP3 truth table ``table`` names (a: 0xF0, b: 0xCC, c: 0xAA)."""
    common = {
        0xC0: lambda a, b, c: a & b, 0xFC: lambda a, b, c: a | b, 0x3C: lambda a, b, c: a ^ b, 0xA0: lambda a, b, c: a & c,
        0xFA: lambda a, b, c: a | c, 0x5A: lambda a, b, c: a ^ c, 0x88: lambda a, b, c: b & c, 0xEE: lambda a, b, c: b | c,
        0x66: lambda a, b, c: b ^ c, 0x96: lambda a, b, c: a ^ b ^ c, 0xFE: lambda a, b, c: a | b | c, 0x80: lambda a, b, c: a & b & c,
        0x0F: lambda a, b, c: ~a, 0x33: lambda a, b, c: ~b, 0x55: lambda a, b, c: ~c, 0xF0: lambda a, b, c: a, 0xCC: lambda a, b, c: b,
        0xAA: lambda a, b, c: c, 0x30: lambda a, b, c: a & ~b, 0x0C: lambda a, b, c: ~a & b, 0x50: lambda a, b, c: a & ~c,
        0xF8: lambda a, b, c: a | (b & c), 0xEA: lambda a, b, c: (a & b) | c, 0xE2: lambda a, b, c: (a & b) | (c & ~b),
        0xB8: lambda a, b, c: (a & ~b) | (b & c), 0xCA: lambda a, b, c: (a & b) | (~a & c), 0xD8: lambda a, b, c: (a & ~c) | (b & c),
        0x00: lambda a, b, c: a & ~a, 0xFF: lambda a, b, c: a | ~a,
    }
    if table in common:
        return common[table]

    def general(a, b, c):
        r = a & ~a
        for k in range(8):
            if table >> k & 1:
                term = (a if k & 4 else ~a) & (b if k & 2 else ~b) & (c if k & 1 else ~c)
                r = r | term
        return r
    return general


@alu("LOP3", "ULOP3")
def _lop3(ins: Instruction, env: Env):
    ops = list(ins.operands)
    pred_out = None
    if ops[0].kind in ("P", "UP"):
        pred_out = write(ops[0], "pred")
        ops = ops[1:]
    d = write(ops[0])
    a, b, c = (read(ops[k], "u32", env.constants) for k in (1, 2, 3))
    fn = lut3(int(ops[4].text, 0))
    pin = read(ops[5], "pred") if len(ops) > 5 else None

    def f(m: Machine, ix: np.ndarray) -> None:
        r = lanes(np.asarray(fn(a(m, ix), b(m, ix), c(m, ix)), dtype=U32), len(ix))  # (operands: uint32 columns or scalars)
        d(m, ix, r)
        if pred_out is not None:
            p = r != 0
            if pin is not None:
                p = p | pin(m, ix)
            pred_out(m, ix, p)
    return f


@alu("PLOP3", "UPLOP3")
def _plop3(ins: Instruction, env: Env):
    ops = list(ins.operands)
    d0, d1 = write(ops[0], "pred"), write(ops[1], "pred")
    a, b, c = (read(ops[k], "pred") for k in (2, 3, 4))
    f0, f1 = lut3(int(ops[5].text, 0)), lut3(int(ops[6].text, 0)) if len(ops) > 6 else None

    def f(m: Machine, ix: np.ndarray) -> None:
        x, y, z = (lanes(v(m, ix), len(ix)) for v in (a, b, c))
        d0(m, ix, f0(x, y, z))
        if f1 is not None:
            d1(m, ix, f1(x, y, z))
    return f


COMPARE = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal, "GT": np.greater, "GE": np.greater_equal}
BOOLEAN = {"AND": np.logical_and, "OR": np.logical_or, "XOR": np.logical_xor}


@alu("ISETP", "UISETP")
def _isetp(ins: Instruction, env: Env):
    mods = ins.mods
    cmp = next(x for x in mods if x in COMPARE)
    bop = BOOLEAN[next(x for x in mods if x in BOOLEAN)]
    unsigned = "U32" in mods
    ext = "EX" in mods
    d0, d1 = write(operand(ins, 0), "pred"), write(operand(ins, 1), "pred")
    a, b = read(operand(ins, 2), "u32", env.constants), read(operand(ins, 3), "u32", env.constants)
    c = read(operand(ins, 4), "pred")
    low = read(operand(ins, 5), "pred") if ext else None

    def f(m: Machine, ix: np.ndarray) -> None:
        x, y = np.asarray(a(m, ix), dtype=U32), np.asarray(b(m, ix), dtype=U32)
        if not unsigned:
            x, y = x.view(np.int32), y.view(np.int32)
        r = COMPARE[cmp](x, y)
        if low is not None:  # the high words; the low words' result decides where they are equal
            lo = low(m, ix)
            eq = x == y
            r = (eq & lo) if cmp == "EQ" else (~eq | lo) if cmp == "NE" else (r & ~eq) | (eq & lo)
        cp = c(m, ix)
        d0(m, ix, lanes(bop(r, cp), len(ix)))
        d1(m, ix, lanes(bop(~r, cp), len(ix)))
    return f


@alu("SEL", "USEL", "FSEL")
def _sel(ins: Instruction, env: Env):
    ty = "f32" if ins.name == "FSEL" else "u32"  # FSEL's immediates are floats; its -x and |x| act on the sign
    d = write(operand(ins, 0), ty)
    a, b, p = read(operand(ins, 1), ty, env.constants), read(operand(ins, 2), ty, env.constants), read(operand(ins, 3), "pred")

    def f(m: Machine, ix: np.ndarray) -> None:
        d(m, ix, lanes(np.where(p(m, ix), a(m, ix), b(m, ix)), len(ix)))
    return f


@alu("VABSDIFF", "UVABSDIFF")
def _vabsdiff(ins: Instruction, env: Env):
    d = write(operand(ins, 0))
    a, b, c = (read(operand(ins, k), "u32", env.constants) for k in (1, 2, 3))
    signed = "U32" not in ins.mods  # VABSDIFF: signed; VABSDIFF.U32: unsigned

    def f(m: Machine, ix: np.ndarray) -> None:
        x, y = np.asarray(a(m, ix), dtype=U32), np.asarray(b(m, ix), dtype=U32)
        x, y = (x.view(np.int32).astype(np.int64), y.view(np.int32).astype(np.int64)) if signed else (x.astype(np.int64), y.astype(np.int64))
        d(m, ix, lanes((np.abs(x - y) + np.asarray(c(m, ix)).astype(np.int64)).astype(np.uint64).astype(U32), len(ix)))
    return f


@alu("I2I", "I2IP")
def _i2i(ins: Instruction, env: Env):
    """Integer to integer of another width: I2I.S8.S32.SAT clamps a signed 32-bit value to the signed 8-bit range.
    I2IP d, a, b, c (``cvt.pack.sat``) converts two: (c << 2w) | (a' << w) | b' in w-bit fields (w = 8, 16)."""
    from .floating import INTS

    kinds = [INTS[x] for x in ins.mods if x in INTS]
    (to_bits, to_signed), (from_bits, from_signed) = (kinds + [(32, True)] * 2)[:2]
    saturate = "SAT" in ins.mods
    d, a = write(operand(ins, 0)), read(operand(ins, 1), "u32", env.constants)
    packed = [read(operand(ins, k), "u32", env.constants) for k in (2, 3)] if ins.name == "I2IP" else []

    def convert(raw: np.ndarray) -> np.ndarray:
        v = raw.view(np.int32).astype(np.int64) if from_signed else raw.astype(np.int64)
        if from_bits < 32:
            v = v & ((1 << from_bits) - 1)
            if from_signed:
                v = np.where(v >> (from_bits - 1) & 1, v - (1 << from_bits), v)
        lo, hi = (-(1 << (to_bits - 1)), (1 << (to_bits - 1)) - 1) if to_signed else (0, (1 << to_bits) - 1)
        v = np.clip(v, lo, hi) if saturate else v
        if to_bits < 32:
            v = v & ((1 << to_bits) - 1)
            if to_signed and not packed:
                v = np.where(v >> (to_bits - 1) & 1, v - (1 << to_bits), v)
        return v

    def f(m: Machine, ix: np.ndarray) -> None:
        a_, *bc = (lanes(np.asarray(x(m, ix), dtype=U32), len(ix)) for x in [a, *packed])
        v = convert(a_)
        if packed:
            b_, c_ = bc
            v = (c_.astype(np.int64) << 2 * to_bits | v << to_bits | convert(b_)) & 0xFFFFFFFF
        d(m, ix, v.astype(np.int64).astype(U32))
    return f


@alu("IMNMX", "UIMNMX", "VIMNMX", "UVIMNMX", "VIMNMX3")
def _imnmx(ins: Instruction, env: Env):
    """min (p true) or max (p false) of a and b (VIMNMX3: of a, b and c): signed unless .U32; .U16x2 / .S16x2 per halfword."""
    d = write(operand(ins, 0))
    values = [read(op, "u32", env.constants) for op in ins.operands[1:-1]]
    p = read(operand(ins, -1), "pred")
    unsigned = "U32" in ins.mods
    packed = next((x for x in ins.mods if x in ("U16x2", "S16x2", "16x2")), None)
    if packed:
        if len(values) != 2:
            raise BuildError(f"{ins.opcode} is not modelled")
        a, b = values

        def halves(m: Machine, ix: np.ndarray) -> None:
            x, y = (_halves(lanes(v(m, ix), len(ix))) for v in (a, b))
            if packed != "U16x2":
                x, y = (np.where(v >= 0x8000, v - 0x10000, v) for v in (x, y))
            pm = lanes(p(m, ix), len(ix))[:, None]
            d(m, ix, _join(np.where(pm, np.minimum(x, y), np.maximum(x, y))))
        return halves

    def f(m: Machine, ix: np.ndarray) -> None:
        xs = [lanes(np.asarray(v(m, ix), dtype=U32), len(ix)) for v in values]
        if not unsigned:
            xs = [x.view(np.int32) for x in xs]
        r = np.where(p(m, ix), np.minimum.reduce(xs), np.maximum.reduce(xs))
        d(m, ix, np.asarray(r).astype(np.int64).astype(U32) if not unsigned else r.astype(U32))
    return f


@alu("VIADDMNMX", "UVIADDMNMX")
def _viaddmnmx(ins: Instruction, env: Env):
    """min or max (PT: min) of a + b and c."""
    d = write(operand(ins, 0))
    a, c, p = read(operand(ins, 1), "u32", env.constants), read(operand(ins, 3), "u32", env.constants), read(operand(ins, 4), "pred")
    b, b_neg = _addend(operand(ins, 2), env)
    unsigned = "U32" in ins.mods

    def f(m: Machine, ix: np.ndarray) -> None:
        t = ((_w(a(m, ix)) + _w(b(m, ix)) + np.uint64(b_neg)) & M32).astype(U32)
        y = np.asarray(c(m, ix), dtype=U32)
        x, y = (t, y) if unsigned else (t.view(np.int32), y.view(np.int32))
        r = np.where(p(m, ix), np.minimum(x, y), np.maximum(x, y))
        d(m, ix, lanes(np.asarray(r).astype(np.int64).astype(U32), len(ix)))
    return f


@alu("IDP")
def _idp(ins: Instruction, env: Env):
    """Dot products of packed integers plus c: IDP.4A (4 bytes by 4 bytes), IDP.2A (2 halfwords of a by 2 bytes of b, .LO or .HI)."""
    mods = ins.mods
    kinds = [x for x in mods if x[:1] in "US" and x[1:].isdigit()]
    sa, sb = (kinds + ["U8", "U8"])[:2]
    d = write(operand(ins, 0))
    a, b, c = (read(operand(ins, k), "u32", env.constants) for k in (1, 2, 3))

    def parts(x, kind, n, shift=0):
        bits = int(kind[1:])
        v = [(x.astype(np.int64) >> (shift + bits * k)) & ((1 << bits) - 1) for k in range(n)]
        return [np.where(p >> (bits - 1) & 1, p - (1 << bits), p) if kind[0] == "S" else p for p in v]

    def f(m: Machine, ix: np.ndarray) -> None:
        x, y = (lanes(np.asarray(v(m, ix), dtype=U32), len(ix)) for v in (a, b))
        if "4A" in mods:
            total = sum(p * q for p, q in zip(parts(x, sa, 4), parts(y, sb, 4)))
        else:
            total = sum(p * q for p, q in zip(parts(x, sa, 2), parts(y, sb, 2, 16 if "HI" in mods else 0)))
        d(m, ix, ((total + np.asarray(c(m, ix), dtype=U32).view(np.int32).astype(np.int64)) & 0xFFFF_FFFF).astype(U32))
    return f


@alu("VABSDIFF4")
def _vabsdiff4(ins: Instruction, env: Env):
    """Per-byte absolute differences (__vabsdiffu4), each plus the byte of c."""
    d = write(operand(ins, 0))
    a, b, c = (read(operand(ins, k), "u32", env.constants) for k in (1, 2, 3))
    signed = "S8" in ins.mods

    def f(m: Machine, ix: np.ndarray) -> None:
        x, y, z = (lanes(np.asarray(v(m, ix), dtype="<u4"), len(ix)).copy().view(np.int8 if signed else np.uint8).reshape(-1, 4).astype(np.int64)
                   for v in (a, b, c))
        r = (np.abs(x - y) + z) & 0xFF
        d(m, ix, r.astype(np.uint8).view("<u4").reshape(-1).astype(U32))
    return f


@alu("IABS", "UIABS")
def _iabs(ins: Instruction, env: Env):
    d, a = write(operand(ins, 0)), read(operand(ins, 1), "u32", env.constants)

    def f(m: Machine, ix: np.ndarray) -> None:
        d(m, ix, np.abs(np.asarray(a(m, ix), dtype=U32).view(np.int32)).view(U32))
    return f


@alu("POPC", "UPOPC")
def _popc(ins: Instruction, env: Env):
    d, a = write(operand(ins, 0)), read(operand(ins, 1), "u32", env.constants)

    def f(m: Machine, ix: np.ndarray) -> None:
        d(m, ix, np.bitwise_count(lanes(np.asarray(a(m, ix), dtype=U32), len(ix))).astype(U32))
    return f


@alu("FLO", "UFLO")
def _flo(ins: Instruction, env: Env):
    """bfind: the position of the most significant 1 (FLO.U32), or of the most significant bit unlike the sign
    (FLO, signed by default); 0xFFFFFFFF if there is none; .SH gives 31 - position (the shift amount)."""
    d, a = write(operand(ins, 0)), read(operand(ins, -1), "u32", env.constants)
    signed = "U32" not in ins.mods
    shift = "SH" in ins.mods

    def f(m: Machine, ix: np.ndarray) -> None:
        x = lanes(np.asarray(a(m, ix), dtype=U32), len(ix)).copy()
        if signed:
            x = np.where(x & U32(0x8000_0000), ~x, x).astype(U32)
        pos = np.full(len(ix), -1, dtype=np.int64)
        nz = x != 0
        pos[nz] = np.floor(np.log2(x[nz].astype(np.float64))).astype(np.int64)
        # log2 of a float64 is exact enough below 2**53 but may round up just under a power of two
        fix = nz & ((np.uint64(1) << pos.clip(0).astype(np.uint64)) > x.astype(np.uint64))
        pos[fix] -= 1
        r = np.where(nz, 31 - pos if shift else pos, -1)
        d(m, ix, r.astype(np.int64).astype(np.uint32))
    return f


@alu("BREV", "UBREV")
def _brev(ins: Instruction, env: Env):
    d, a = write(operand(ins, 0)), read(operand(ins, 1), "u32", env.constants)

    def f(m: Machine, ix: np.ndarray) -> None:
        x = lanes(np.asarray(a(m, ix), dtype=U32), len(ix))
        bits = np.unpackbits(x.astype("<u4").view(np.uint8).reshape(-1, 4), axis=1, bitorder="little")[:, ::-1]
        d(m, ix, np.packbits(bits, axis=1, bitorder="little").view("<u4").reshape(-1).astype(U32))
    return f


@alu("BMSK", "UBMSK")
def _bmsk(ins: Instruction, env: Env):
    d = write(operand(ins, 0))
    pos, width = read(operand(ins, 1), "u32", env.constants), read(operand(ins, 2), "u32", env.constants)
    wrap = "W" in ins.mods

    def f(m: Machine, ix: np.ndarray) -> None:
        p, w = _w(pos(m, ix)), _w(width(m, ix))
        if wrap:
            p, w = p & np.uint64(31), w & np.uint64(31)
        else:
            p, w = np.minimum(p & np.uint64(0xFF), np.uint64(32)), np.minimum(w & np.uint64(0xFF), np.uint64(32))
        mask = ((np.uint64(1) << w) - np.uint64(1)) << p
        d(m, ix, (lanes(mask, len(ix)) & M32).astype(U32))
    return f


@alu("SGXT", "USGXT")
def _sgxt(ins: Instruction, env: Env):
    d = write(operand(ins, 0))
    a, bits = read(operand(ins, 1), "u32", env.constants), read(operand(ins, 2), "u32", env.constants)
    unsigned = "U32" in ins.mods
    wrap = "W" in ins.mods

    def f(m: Machine, ix: np.ndarray) -> None:
        n = _w(bits(m, ix))
        n = n & np.uint64(31) if wrap else np.minimum(n & np.uint64(0xFF), np.uint64(32))
        x = _w(a(m, ix)) & ((np.uint64(1) << n) - np.uint64(1))
        if not unsigned:
            sign = np.where(n > 0, (x >> np.maximum(n, np.uint64(1)) - np.uint64(1)) & np.uint64(1), np.uint64(0))
            x = np.where(sign == 1, x | (~((np.uint64(1) << n) - np.uint64(1)) & M32), x)
        d(m, ix, lanes(x & M32, len(ix)).astype(U32))
    return f


@alu("PRMT", "UPRMT")
def _prmt(ins: Instruction, env: Env):
    """PRMT d, a, sel, b: each result byte picked from the eight bytes of b:a by a nibble of sel (bit 3 of the nibble:
    the byte's sign replicated), or by the .F4E/.B4E/.RC8/.ECL/.ECR/.RC16 pattern that sel's low two bits select."""
    d = write(operand(ins, 0))
    a, sel, b = (read(operand(ins, k), "u32", env.constants) for k in (1, 2, 3))
    mode = next((x for x in ins.mods if x in ("F4E", "B4E", "RC8", "ECL", "ECR", "RC16")), None)
    chosen = operand(ins, 2)

    def bytes_of(m: Machine, ix: np.ndarray) -> np.ndarray:
        """The eight bytes of b:a of each thread: (threads, 8)."""
        n = len(ix)
        return np.concatenate([lanes(np.asarray(a(m, ix), dtype="<u4"), n).reshape(n, 1),
                               lanes(np.asarray(b(m, ix), dtype="<u4"), n).reshape(n, 1)], axis=1).view(np.uint8).reshape(n, 8)

    if mode is None and chosen.kind == "imm" and not int_value(chosen.text) & 0x8888:  # the same bytes for every thread, no signs
        picked = [int_value(chosen.text) >> 4 * k & 7 for k in range(4)]

        def fixed(m: Machine, ix: np.ndarray) -> None:
            d(m, ix, np.ascontiguousarray(bytes_of(m, ix)[:, picked]).view("<u4").reshape(len(ix)).astype(U32))
        return fixed

    def f(m: Machine, ix: np.ndarray) -> None:
        n = len(ix)
        src = bytes_of(m, ix)
        s = lanes(np.asarray(sel(m, ix), dtype=U32), n)
        if mode is None:
            nib = np.stack([(s >> U32(4 * k)) & U32(0xF) for k in range(4)], axis=1)
            idx = (nib & U32(7)).astype(np.int64)
            byte = np.take_along_axis(src, idx, axis=1)
            sign = (nib & U32(8)) != 0
            byte = np.where(sign, np.where(byte & 0x80, 0xFF, 0x00), byte).astype(np.uint8)
        else:
            k = (s & U32(3)).astype(np.int64)
            table = {
                "F4E": lambda k: np.stack([k, k + 1, k + 2, k + 3], 1) % 8,
                "B4E": lambda k: np.stack([k, k - 1, k - 2, k - 3], 1) % 8,
                "RC8": lambda k: np.stack([k, k, k, k], 1),
                "ECL": lambda k: np.stack([k, np.maximum(k, 1), np.maximum(k, 2), np.full_like(k, 3)], 1),
                "ECR": lambda k: np.stack([np.zeros_like(k), np.minimum(k, 1), np.minimum(k, 2), k], 1),
                "RC16": lambda k: np.stack([2 * (k & 1), 2 * (k & 1) + 1, 2 * (k & 1), 2 * (k & 1) + 1], 1),
            }
            byte = np.take_along_axis(src, table[mode](k), axis=1)
        d(m, ix, np.ascontiguousarray(byte.astype(np.uint8)).view("<u4").reshape(n).astype(U32))
    return f


@alu("P2R", "UP2UR")
def _p2r(ins: Instruction, env: Env):
    d = write(operand(ins, 0))
    file = "P" if ins.name == "P2R" else "UP"
    base = read(operand(ins, 2), "u32", env.constants)
    mask = int(operand(ins, 3).text, 0)
    shift = {"B0": 0, "B1": 8, "B2": 16, "B3": 24}.get(next((x for x in ins.mods if x.startswith("B")), "B0"), 0)

    def f(m: Machine, ix: np.ndarray) -> None:  # P2R Rd, PR, Rbase, mask
        preds = getattr(m, file)
        bits = np.zeros(len(ix), dtype=U32)
        for k in range(7):
            bits |= preds[k, ix].astype(U32) << U32(k)
        keep = U32((~(mask << shift)) & 0xFFFF_FFFF)
        d(m, ix, (np.asarray(base(m, ix), dtype=U32) & keep) | ((bits & U32(mask)) << U32(shift)))
    return f


@alu("R2P", "UR2UP")
def _r2p(ins: Instruction, env: Env):
    file = "P" if ins.name == "R2P" else "UP"
    a = read(operand(ins, 1), "u32", env.constants)
    mask = int(operand(ins, 2).text, 0)
    shift = {"B0": 0, "B1": 8, "B2": 16, "B3": 24}.get(next((x for x in ins.mods if x.startswith("B")), "B0"), 0)

    def f(m: Machine, ix: np.ndarray) -> None:
        x = np.asarray(a(m, ix), dtype=U32) >> U32(shift)
        preds = getattr(m, file)
        for k in range(7):
            if mask >> k & 1:
                preds[k, ix] = (x >> U32(k)) & U32(1) != 0
    return f


SPECIAL = ("SR_TID.X", "SR_TID.Y", "SR_TID.Z", "SR_CTAID.X", "SR_CTAID.Y", "SR_CTAID.Z", "SR_LANEID")


def special(name: str):
    """A reader of special register ``name`` (S2R, S2UR, CS2R)."""
    axes = {"X": 0, "Y": 1, "Z": 2}
    if name.startswith("SR_TID.") and name[-1] in axes:
        k = axes[name[-1]]
        return lambda m, ix: m.tid[k, ix]
    if name.startswith("SR_CTAID.") and name[-1] in axes:
        k = axes[name[-1]]
        return lambda m, ix: m.ctaid[k, ix]
    if name == "SR_LANEID":
        return lambda m, ix: m.lane[ix]
    if name in ("SR_CgaCtaId", "SR_CLUSTERCTARANK"):  # the CTA's rank in its cluster
        return lambda m, ix: m.rank[m.cta_slot[ix]].astype(U32)
    if name[:-1] in ("SR_CLUSTERCTAID.", "SR_CLUSTERID.", "SR_CLUSTERNCTAID.") and name[-1] in axes:
        k, kind = axes[name[-1]], name[3:-2]
        if kind == "CLUSTERNCTAID":
            return lambda m, ix: np.full(len(ix), m.geometry.cluster[k], dtype=U32)
        if kind == "CLUSTERCTAID":
            return lambda m, ix: m.ctaid[k, ix] % U32(m.geometry.cluster[k])
        return lambda m, ix: m.ctaid[k, ix] // U32(m.geometry.cluster[k])
    if name == "SR_CLUSTERNCTARANK":
        return lambda m, ix: np.full(len(ix), m.geometry.cluster_size, dtype=U32)
    if name in ("SR_SMID", "SR_VIRTUALSMID", "SR_NSMID", "SRZ"):
        return lambda m, ix: np.zeros(len(ix), dtype=U32)
    if name == "SR_SWINHI":
        return lambda m, ix: np.full(len(ix), m.window["shared_hi"], dtype=U32)
    if name == "SR_SWINLO":
        return lambda m, ix: np.zeros(len(ix), dtype=U32)
    if name == "SR_LWINHI":
        return lambda m, ix: np.full(len(ix), m.window["local_hi"], dtype=U32)
    if name in ("SR_EQMASK", "SR_LTMASK", "SR_LEMASK", "SR_GTMASK", "SR_GEMASK"):
        def lanemask(m, ix, kind=name[3:5]):
            lane = m.lane[ix].astype(np.uint64)
            one = np.uint64(1) << lane
            r = {"EQ": one, "LT": one - np.uint64(1), "LE": (one << np.uint64(1)) - np.uint64(1)}.get(kind)
            if r is None:
                r = ~(one - np.uint64(1)) if kind == "GE" else ~((one << np.uint64(1)) - np.uint64(1))
            return (r & M32).astype(U32)
        return lanemask
    if name in ("SR_CLOCKLO", "SR_CLOCKHI", "SR_GLOBALTIMERLO", "SR_GLOBALTIMERHI"):
        hi = name.endswith("HI")
        return lambda m, ix: np.full(len(ix), 0 if hi else m.steps, dtype=U32)
    if name == "SR_WARPID":
        return lambda m, ix: (m.warp_id[ix] % 64).astype(U32)
    raise BuildError(f"special register {name} is not modelled")


@alu("S2R", "S2UR", "CS2R")
def _s2r(ins: Instruction, env: Env):
    name = operand(ins, 1).text
    wide = ins.name == "CS2R" and "32" not in ins.mods
    get = special(name)
    d = write(operand(ins, 0), "u64" if wide else "u32")

    def f(m: Machine, ix: np.ndarray) -> None:
        v = get(m, ix)
        d(m, ix, np.asarray(v).astype(np.uint64) if wide else v)
    return f


@alu("R2UR", "RUR")
def _r2ur(ins: Instruction, env: Env):
    """A register into a uniform register: every thread of a warp gets the value of its warp's first acting thread. With
    a predicate first (``R2UR P0, UR10, R5``, ptxas's loops that serve a warp's distinct values one at a time), each
    thread's predicate says whether its own value differs (``.OR``: or did already)."""
    ops = list(ins.operands)
    differs = ops.pop(0) if ops[0].kind in ("P", "UP") else None
    d, a = write(ops[0]), read(ops[1], "u32", env.constants)
    flag = write(differs, "pred") if differs is not None else None
    before = read(differs, "pred") if differs is not None and "OR" in ins.mods else None

    def f(m: Machine, ix: np.ndarray) -> None:
        v = lanes(np.asarray(a(m, ix), dtype=U32), len(ix))
        first = ix[::LANES]
        if len(ix) % LANES == 0 and not (first % LANES).any() and (ix[LANES - 1 :: LANES] - first == LANES - 1).all():  # whole warps
            u = np.repeat(v[::LANES], LANES)  # (ix ascends: each run of 32 from a warp's lane 0 is the warp)
        else:
            slots = ix // LANES  # ascending, as the machine gives ix: each warp's threads together
            starts = np.empty(len(ix), dtype=bool)
            starts[:1] = True
            np.not_equal(slots[1:], slots[:-1], out=starts[1:])
            u = v[np.maximum.accumulate(np.where(starts, np.arange(len(ix)), 0))]  # the value of the first of its warp's
        d(m, ix, u)
        if flag is not None:
            flag(m, ix, (v != u) | (before(m, ix) if before is not None else False))
    return f


@alu("LDC", "ULDC")
def _ldc(ins: Instruction, env: Env):
    size = {"64": "u64", "U8": "u8", "S8": "s8", "U16": "u16", "S16": "s16"}.get(next((x for x in ins.mods if x in ("64", "U8", "S8", "U16", "S16")), ""), "u32")
    src = operand(ins, 1)
    if size in ("u8", "s8", "u16", "s16"):
        nbytes = 1 if size.endswith("8") else 2
        terms = [read(t, "u32") for t in src.terms]

        def narrow(m: Machine, ix: np.ndarray) -> None:
            data = m.constants.get(src.bank)
            addr = np.full(len(ix), src.offset, dtype=np.int64)
            for t in terms:
                addr = addr + np.asarray(t(m, ix)).astype(np.int64)
            if data is None or (addr < 0).any() or (addr + nbytes > len(data)).any():
                raise ExecError(f"constant bank {src.bank:#x} read out of bounds")
            raw = np.ascontiguousarray(data[addr[:, None] + np.arange(nbytes)]).view(np.uint8 if nbytes == 1 else "<u2").reshape(len(ix))
            if size[0] == "s":
                raw = raw.view(np.int8 if nbytes == 1 else np.int16)
            d(m, ix, raw.astype(np.int64).astype(U32))
        d = write(operand(ins, 0))
        return narrow
    d = write(operand(ins, 0), size)
    s = read(src, size, env.constants)

    def f(m: Machine, ix: np.ndarray) -> None:
        d(m, ix, s(m, ix))
    return f


@alu("WARPGROUP", hopper="wgmma")
@alu("NOP", "DEPBAR", "MEMBAR", "FENCE", "ERRBAR", "CCTL", "CCTLL", "NANOSLEEP", "YIELD", "LDGDEPBAR", "PMTRIG", "CGAERRBAR", "ACQBULK", "PREEXIT", "ACQSHMINIT", "UCGABAR")
def _nothing(ins: Instruction, env: Env):
    """Ordering and hints: nothing to compute in a machine that completes every access at once."""
    return lambda m, ix: None


@alu("USETMAXREG")
def _setmaxreg(ins: Instruction, env: Env):
    """USETMAXREG.DEALLOC / .TRY_ALLOC (``setmaxnreg``): a new register budget, which a machine with every register at
    hand needs not; TRY_ALLOC's predicate (the registers were granted) is set."""
    granted = [write(op, "pred") for op in ins.operands if op.kind in ("P", "UP")]

    def f(m: Machine, ix: np.ndarray) -> None:
        for p in granted:
            p(m, ix, np.ones(len(ix), dtype=bool))
    return f
