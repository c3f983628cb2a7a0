"""Operands as functions of the machine: built once per instruction, called for the lanes that act.

``read(op, ty)`` gives ``f(m, ix) -> values`` for the threads ``ix`` (a numpy index array): a column
of the type ``ty`` asks for, or a numpy scalar for what every thread shares (immediates, constant
bank entries with an immediate address). ``write(op, ty)`` gives ``f(m, ix, values)``. Types:
``u32`` (also ``s32``, the same bits as int32), ``f32``, ``u64`` and ``f64`` (register pairs),
``pred``. Modifiers follow the type: ``-x`` negates (two's complement or the float's sign), ``|x|``
takes the magnitude, ``~x`` inverts the bits, ``!p`` the predicate.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..machine import ExecError, Machine
from ..sass import PT, RZ, UPT, URZ, Operand

Reader = Callable[[Machine, np.ndarray], "np.ndarray | np.generic"]
Writer = Callable[[Machine, np.ndarray, "np.ndarray | np.generic"], None]

_FLOATS = {"INF": math.inf, "+INF": math.inf, "-INF": -math.inf, "QNAN": math.nan, "+QNAN": math.nan, "-QNAN": -math.nan,
           "NAN": math.nan, "+NAN": math.nan, "-NAN": -math.nan, "SNAN": math.nan}


class BuildError(ValueError):
    """An instruction whose operands do not fit what simsmem knows of its opcode."""


def int_value(text: str) -> int:
    """An integer immediate (hex or decimal, maybe negative) as its 32-bit pattern."""
    return int(text, 0) & 0xFFFF_FFFF


def float_value(text: str) -> float:
    """A float immediate as printed (``0.5``, ``-QNAN``, ``+INF``, ``1.84e+19``)."""
    t = text.strip()
    if t in _FLOATS:
        return _FLOATS[t]
    if t.lower().startswith(("0x", "-0x")):
        return float(np.uint32(int(t, 0) & 0xFFFF_FFFF).view(np.float32))
    return float(t)


def _file(op: Operand) -> str:
    return "UR" if op.kind == "UR" else "R"


def pair(m: Machine, file: str, i: int, ix: np.ndarray) -> np.ndarray:
    """Registers i (low) and i+1 (high) as uint64."""
    regs = getattr(m, file)
    zero = RZ if file == "R" else URZ
    if i == zero:
        return np.zeros(len(ix), dtype=np.uint64)
    return regs[i + 1][ix].astype(np.uint64) << np.uint64(32) | regs[i][ix].astype(np.uint64)


def lanes(value, n: int) -> np.ndarray:
    """An operand's value (a column, or one value all threads share) as a column of ``n``: the column itself, or a
    read-only view repeating the value (numpy's ``broadcast_to`` costs about 2 us even where nothing is to repeat)."""
    return value if type(value) is np.ndarray and value.shape == (n,) else np.broadcast_to(value, (n,))


def read(op: Operand, ty: str = "u32", constants: dict[int, np.ndarray] | None = None) -> Reader:
    """A function giving the operand's value for threads ``ix`` as type ``ty``."""
    if op.kind in ("R", "UR") and ty == "pred":  # PLOP3's R.SIGN: the register's sign bit as a predicate
        if "SIGN" not in op.suffix:
            raise BuildError(f"register {op.text} read as a predicate")
        i, file, inv = op.index, _file(op), op.inv or op.neg
        return lambda m, ix: ((getattr(m, file)[i][ix] >> np.uint32(31)) != 0) ^ inv
    if op.kind in ("R", "UR"):
        f = _register(op, ty)
    elif op.kind == "imm":
        f = _immediate(op, ty)
    elif op.kind == "c":
        f = _constant(op, ty, constants or {})
    elif op.kind in ("P", "UP"):
        i, inv, name = op.index, op.inv, "P" if op.kind == "P" else "UP"
        f = (lambda m, ix: ~getattr(m, name)[i][ix]) if inv else (lambda m, ix: getattr(m, name)[i][ix])
        return f
    else:
        raise BuildError(f"operand {op.text} cannot be read as a value")
    return _modified(f, op, ty) if op.kind != "imm" else f


def _register(op: Operand, ty: str) -> Reader:
    i, file = op.index, _file(op)
    if ty in ("u64", "f64"):
        f = (lambda m, ix: pair(m, file, i, ix)) if ty == "u64" else (lambda m, ix: pair(m, file, i, ix).view(np.float64))
        return f
    if ty == "f32":
        return lambda m, ix: getattr(m, file)[i][ix].view(np.float32)
    return lambda m, ix: getattr(m, file)[i][ix]  # [i][ix]: a row, then the lanes (a third of [i, ix]'s time)


def _immediate(op: Operand, ty: str) -> Reader:
    t = op.text
    if ty == "f32":
        v = np.float32(float_value(t))
    elif ty == "f64":
        v = np.float64(float_value(t))
    elif ty == "u64":
        v = np.uint64(int(t, 0) & 0xFFFF_FFFF_FFFF_FFFF)
    else:
        v = np.uint32(int_value(t))
    return lambda m, ix: v


def _constant(op: Operand, ty: str, constants: dict[int, np.ndarray]) -> Reader:
    size = 8 if ty in ("u64", "f64") else 4
    bank = op.bank
    if not op.terms:
        data = constants.get(bank)
        offset = op.offset
        if data is None or offset + size > len(data) or offset < 0:
            def missing(m: Machine, ix: np.ndarray) -> np.ndarray:
                raise ExecError(f"c[{bank:#x}][{offset:#x}] is not a constant simsmem knows")
            return missing
        raw = bytes(data[offset : offset + size])
        v = np.frombuffer(raw, dtype={"u32": np.uint32, "f32": np.float32, "u64": np.uint64, "f64": np.float64}.get(ty, np.uint32))[0]
        return lambda m, ix: v
    terms = [read(t, "u32") for t in op.terms]
    offset = op.offset
    dtype = {"u32": np.uint32, "f32": np.float32, "u64": np.uint64, "f64": np.float64}.get(ty, np.uint32)

    def gathered(m: Machine, ix: np.ndarray) -> np.ndarray:
        data = m.constants.get(bank)
        addr = np.full(len(ix), offset, dtype=np.int64)
        for t in terms:
            addr = addr + t(m, ix).astype(np.int64)
        if data is None or (addr < 0).any() or (addr + size > len(data)).any():
            raise ExecError(f"constant bank {bank:#x} read out of bounds")
        return np.ascontiguousarray(data[addr[:, None] + np.arange(size)]).view(dtype).reshape(len(ix))
    return gathered


def _modified(f: Reader, op: Operand, ty: str) -> Reader:
    """``f`` with the operand's -x, |x| and ~x applied as ``ty`` has them."""
    if ty in ("f32", "f64"):
        if op.abs and op.neg:
            return lambda m, ix: -np.abs(f(m, ix))
        if op.abs:
            return lambda m, ix: np.abs(f(m, ix))
        if op.neg:
            return lambda m, ix: -f(m, ix)
        return f
    if op.abs:
        g = f
        f = (lambda m, ix: np.abs(g(m, ix).view(np.int64)).view(np.uint64)) if ty == "u64" else (lambda m, ix: np.abs(g(m, ix).astype(np.int32).view(np.int32)).view(np.uint32))
    if op.inv:
        h = f
        f = lambda m, ix: ~h(m, ix)
    if op.neg:
        k = f
        f = lambda m, ix: np.negative(k(m, ix))
    return f


def write(op: Operand, ty: str = "u32") -> Writer:
    """A function storing values of type ``ty`` into the operand for threads ``ix`` (nothing for RZ/PT)."""
    if op.kind in ("P", "UP"):
        i, name = op.index, "P" if op.kind == "P" else "UP"
        if i == (PT if name == "P" else UPT):
            return lambda m, ix, v: None

        def pred(m: Machine, ix: np.ndarray, v) -> None:
            getattr(m, name)[i][ix] = v
        return pred
    if op.kind not in ("R", "UR"):
        raise BuildError(f"operand {op.text} cannot be written")
    i, file = op.index, _file(op)
    if i == (RZ if file == "R" else URZ):
        return lambda m, ix, v: None
    if ty in ("u64", "f64"):
        def wide(m: Machine, ix: np.ndarray, v) -> None:
            bits = np.asarray(v).view(np.uint64) if ty == "f64" else np.asarray(v, dtype=np.uint64)
            regs = getattr(m, file)
            regs[i][ix] = (bits & np.uint64(0xFFFF_FFFF)).astype(np.uint32)
            regs[i + 1][ix] = (bits >> np.uint64(32)).astype(np.uint32)
        return wide
    if ty == "f32":
        def single(m: Machine, ix: np.ndarray, v) -> None:
            getattr(m, file)[i][ix] = np.asarray(v, dtype=np.float32).view(np.uint32)
        return single

    def word(m: Machine, ix: np.ndarray, v) -> None:
        getattr(m, file)[i][ix] = v
    return word


def registers(op: Operand, count: int) -> tuple[str, list[int]]:
    """The register file and the ``count`` consecutive registers starting at ``op`` (a vector operand)."""
    if op.kind not in ("R", "UR"):
        raise BuildError(f"operand {op.text} is not a register")
    zero = RZ if op.kind == "R" else URZ
    return _file(op), [zero] * count if op.index == zero else list(range(op.index, op.index + count))
