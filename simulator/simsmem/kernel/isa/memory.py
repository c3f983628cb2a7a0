"""Memory instructions: shared (LDS, STS, ATOMS, LDSM, STSM, LDGSTS), global, generic and local.

Shared addresses are offsets in the CTA's shared window, as the SASS computes them (user data from
0x400 on sm_90). Every shared-memory instruction a warp executes is reported to the machine's
``on_shared`` with the lanes that act and their addresses (and, for LDGSTS, the global sources),
which is what a trace records; a generic LD/ST whose lanes land in the shared window is reported
too, as ``generic``. Accesses out of bounds or misaligned stop the machine, naming the lane.
"""

from __future__ import annotations

import numpy as np

from ...traces.sass import sass_form
from ..l1 import PARTIAL_COPY
from ..machine import LANES, ExecError, Machine
from ..memory import LOCAL_HI, SHARED_HI, MemoryFault, as_bytes, as_words
from ..misc import MISC
from ..sass import Instruction, Operand
from . import Env, alu, ieee, operand, refuse, step
from .floating import _half_value, _pack, min_max
from .operands import BuildError, pair, read, registers, write

WIDTHS = {"U8": 1, "S8": 1, "U16": 2, "S16": 2, "8": 1, "16": 2, "32": 4, "64": 8, "128": 16}


def width(ins: Instruction, default: int = 4) -> tuple[int, bool]:
    """Bytes per lane and signedness of a load/store's ``.U8``/``.S16``/``.64``/``.128``."""
    for m in ins.mods:
        if m in WIDTHS:
            return WIDTHS[m], m.startswith("S")
    return default, False


def address32(op: Operand, env: Env):
    """A shared or local address: the sum of 32-bit registers (``.X4``-scaled where marked) and the offset."""
    if op.kind != "mem":
        raise BuildError(f"{op.text} is not an address")
    terms = []
    for t in op.terms:
        scale = next((int(s[1:]) for s in t.suffix if s in ("X4", "X8", "X16")), 1)
        terms.append((read(t, "u32"), scale))
    offset = op.offset

    def f(m: Machine, ix: np.ndarray) -> np.ndarray:
        a = np.full(len(ix), offset, dtype=np.int64)
        for r, scale in terms:
            v = r(m, ix)
            a += v if scale == 1 else v.astype(np.int64) * scale
        return a & 0xFFFF_FFFF
    return f


def address64(op: Operand, env: Env, extended: bool = False):
    """A global or generic address: ``R.64`` pairs (or a uniform pair) plus 32-bit terms and the offset; in an ``.E``
    instruction (``extended``) a lone register printed without ``.64`` is a pair too (``LD.E R10, [R2]``)."""
    if op.kind != "mem":
        raise BuildError(f"{op.text} is not an address")
    terms = []
    paired = any("64" in t.suffix or (t.kind == "UR" and "U32" not in t.suffix) for t in op.terms)
    for t in op.terms:
        wide = "64" in t.suffix or (t.kind == "UR" and "U32" not in t.suffix and not any("64" in u.suffix for u in op.terms if u is not t)) \
            or (extended and t.kind == "R" and not t.suffix and not paired)
        if wide:
            file, i = ("UR" if t.kind == "UR" else "R"), t.index
            terms.append(lambda m, ix, file=file, i=i: pair(m, file, i, ix))
        else:
            r = read(t, "u32")
            terms.append(lambda m, ix, r=r: np.asarray(r(m, ix)).astype(np.uint64))
    offset = np.uint64(op.offset & 0xFFFF_FFFF_FFFF_FFFF)

    def f(m: Machine, ix: np.ndarray) -> np.ndarray:
        a = np.full(len(ix), offset, dtype=np.uint64)
        for t in terms:
            a = a + t(m, ix)
        return a
    return f


def shared_index(m: Machine, ix: np.ndarray, addr: np.ndarray, size: int) -> np.ndarray:
    """Flat byte indices into ``m.shared`` of the accesses (in a cluster, bits 24 and up name the CTA: ``shared_slots``);
    a fault for any out of the window or misaligned."""
    window = m.shared.shape[1]
    slots, addr = m.shared_slots(ix, addr)
    if len(addr) and (addr.min() < 0 or addr.max() + size > window):
        k = int(np.flatnonzero((addr < 0) | (addr + size > window))[0])
        raise MemoryFault(int(ix[k]), f"shared address {int(addr[k]):#x} + {size} bytes is past the CTA's shared window "
                                     f"({window:#x} bytes: {m.window['describe']})")
    if size > 1 and np.bitwise_or.reduce(addr) % size:  # sizes are powers of two
        k = int(np.flatnonzero(addr % size)[0])
        raise MemoryFault(int(ix[k]), f"shared address {int(addr[k]):#x} is not aligned to the {size}-byte access")
    return slots * window + addr


def shared_load(m: Machine, ix: np.ndarray, addr: np.ndarray, size: int) -> np.ndarray:
    flat = shared_index(m, ix, addr, size)
    return m.shared.reshape(-1)[flat[:, None] + np.arange(size)]


_ORDERS: dict[tuple[int, int], np.ndarray] = {}


def store_order(ix: np.ndarray, size: int) -> np.ndarray:
    """The order in which a store's lanes write, so that where lanes of a warp store to one address the H100's
    winner stays: the last phase's (phases go in order: a half-warp for 8 bytes, a quarter-warp for 16), and within
    a phase the lowest lane's (calibration/realk rule_generic_st_bcast, _stride32, st64_stride16, st128_stride8)."""
    lane = ix % LANES
    phase = lane // (LANES // max(1, size // 4))
    return np.lexsort((-lane, phase, ix // LANES))


def _store_order(m: Machine, ix: np.ndarray, size: int) -> np.ndarray:
    """``store_order``, kept per thread count and size where ``ix`` is every thread of the machine (0..n-1)."""
    if len(ix) != m.n:
        return store_order(ix, size)
    order = _ORDERS.get((m.n, size))
    if order is None:
        order = _ORDERS[(m.n, size)] = store_order(ix, size)
    return order


def shared_store(m: Machine, ix: np.ndarray, addr: np.ndarray, data: np.ndarray) -> None:
    """Write (n, size) bytes, lanes in ``store_order``."""
    size = data.shape[1]
    flat = shared_index(m, ix, addr, size)
    order = _store_order(m, ix, size)
    if m.shared.shape[1] % size == 0:  # aligned rows of ``size`` bytes (shared_index checked the addresses' alignment)
        m.shared.reshape(-1, size)[flat[order] // size] = data[order]
    else:
        m.shared.reshape(-1)[flat[order, None] + np.arange(size)] = data[order]


def local_index(m: Machine, ix: np.ndarray, addr: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    top = m.local.shape[1]
    bad = (addr < 0) | (addr + size > top)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise MemoryFault(int(ix[k]), f"local address {int(addr[k]):#x} + {size} bytes is outside the thread's {top} bytes of local memory")
    return ix, addr


def _dest_regs(op: Operand, size: int) -> tuple[str, list[int]]:
    return registers(op, max(1, size // 4))


def _write_words(m: Machine, ix: np.ndarray, file: str, regs: list[int], words: np.ndarray) -> None:
    arr = getattr(m, file)
    zero = 255 if file == "R" else 63
    for k, r in enumerate(regs):
        if r != zero:
            arr[r][ix] = words[:, k]


def _read_words(m: Machine, ix: np.ndarray, file: str, regs: list[int]) -> np.ndarray:
    arr = getattr(m, file)
    return np.stack([arr[r][ix] for r in regs], axis=1)


def _form(ins: Instruction | str, **extra) -> dict:
    opcode = (ins if isinstance(ins, str) else ins.opcode).replace(".U.", ".").replace(".ZFILL", "")
    form = sass_form(opcode)
    form.update(extra)
    return form


def _report(m: Machine, ins: Instruction, form: dict, ex: np.ndarray, act: np.ndarray, addr: np.ndarray | None, src: np.ndarray | None = None,
            zfill: np.ndarray | None = None, zeroed: np.ndarray | None = None, elsewhere: np.ndarray | None = None) -> None:
    """Tell the machine's listener of a shared-memory instruction: per thread, the address where it acts (its window
    offset: in a cluster, without the CTA's rank above it); ``elsewhere``, per warp, a generic one's bytes outside shared memory."""
    if m.on_shared is not None:
        if m.slot_of.shape[1] > 1 and addr is not None:
            addr = np.where(addr >= 0, addr & 0xFF_FFFF, addr)
        m.on_shared(ins, form, ex, act, addr, src, zfill, zeroed, elsewhere)


def _full(m: Machine, ix: np.ndarray, values: np.ndarray, dtype=np.int64, fill=-1) -> np.ndarray:
    out = np.full(m.n, fill, dtype=dtype)
    out[ix] = values
    return out


@step("LDS", shared=True)
def _lds(ins: Instruction, env: Env):
    size, signed = width(ins)
    file, regs = _dest_regs(operand(ins, 0), size)
    addr = address32(operand(ins, 1), env)
    form = _form(ins)

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        ix = np.flatnonzero(act)
        a = addr(m, ix)
        if len(ix):
            _write_words(m, ix, file, regs, as_words(shared_load(m, ix, a, size), signed))
        _report(m, ins, form, ex, act, _full(m, ix, a))
        m.pc += ex
    return run


@step("STS", shared=True)
def _sts(ins: Instruction, env: Env):
    size, _ = width(ins)
    addr = address32(operand(ins, 0), env)
    file, regs = registers(operand(ins, 1), max(1, size // 4))
    form = _form(ins)

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        ix = np.flatnonzero(act)
        a = addr(m, ix)
        if len(ix):
            shared_store(m, ix, a, as_bytes(_read_words(m, ix, file, regs), size))
        _report(m, ins, form, ex, act, _full(m, ix, a))
        m.pc += ex
    return run


_FLOAT = {np.dtype(np.uint32): np.float32, np.dtype(np.uint64): np.float64}


def _atomic_op(kind: str, signed: bool, floating: str):
    """new = f(old, value[, compare]) for one atomic operation, on uint32 (or uint64) columns; ``floating``: "" for
    integers, "F32" or "F64" for a float the column holds, "F16" or "BF16" for the pair of halves each 32-bit word holds."""
    if floating in ("F16", "BF16"):
        return _halves_op(kind, floating)
    if floating:
        return {"ADD": lambda o, v: (o.view(_FLOAT[o.dtype]) + v.view(_FLOAT[o.dtype])).view(o.dtype)}[kind]
    view = (lambda x: x.view(np.int32)) if signed else (lambda x: x)
    table = {
        "ADD": lambda o, v: o + v, "AND": lambda o, v: o & v, "OR": lambda o, v: o | v, "XOR": lambda o, v: o ^ v, "EXCH": lambda o, v: v,
        "MIN": lambda o, v: np.minimum(view(o), view(v)).view(o.dtype), "MAX": lambda o, v: np.maximum(view(o), view(v)).view(o.dtype),
        "INC": lambda o, v: np.where(o >= v, np.zeros_like(o), o + np.ones_like(o)),
        "DEC": lambda o, v: np.where((o == 0) | (o > v), v, o - np.ones_like(o)),
    }
    if kind not in table:
        raise BuildError(f"atomic operation {kind} is not modelled")
    return table[kind]


def _halves_op(kind: str, fmt: str):
    """An atomic ADD, MIN or MAX on 32-bit words of two 16-bit floats (``fmt`` F16 or BF16), half by half as the PTX ISA
    has it for ``atom.add.noftz``/``.min``/``.max`` of ``.f16x2``/``.bf16x2``: a sum rounded once to nearest (subnormals
    kept), a NaN result the half units' canonical 0x7FFF as HADD2 gives it; min and max as HMNMX2 (-0 below +0, a NaN
    operand gives the other)."""
    bf16 = fmt == "BF16"

    def f(o: np.ndarray, v: np.ndarray) -> np.ndarray:
        x = np.stack([_half_value(o, bf16), _half_value(o >> np.uint32(16), bf16)], axis=1)
        y = np.stack([_half_value(v, bf16), _half_value(v >> np.uint32(16), bf16)], axis=1)
        if kind == "ADD":
            bits = ieee.fma(x, np.float32(1), y, "RN", fmt)
            return (bits[:, 1] << np.uint32(16)) | bits[:, 0]
        return _pack(min_max(x, y, kind == "MIN"), bf16)
    return f


def atomic(memory_read, memory_write, n_lanes: int, kind: str, values: np.ndarray, compare: np.ndarray | None, key: np.ndarray,
           signed: bool, floating: str) -> np.ndarray:
    """Apply an atomic operation lane by lane in lane order; returns each lane's old value.

    Lanes on distinct addresses are done at once; lanes sharing one go in turns (``key`` names the word)."""
    old = np.empty_like(values)
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    first = np.ones(len(key), dtype=bool)
    first[1:] = sorted_key[1:] != sorted_key[:-1]
    rank = np.arange(len(key)) - np.maximum.accumulate(np.where(first, np.arange(len(key)), 0))
    turn = np.empty(len(key), dtype=np.int64)
    turn[order] = rank
    fn = None if kind == "CAS" else _atomic_op(kind, signed, floating)
    for t in range(int(turn.max()) + 1 if len(turn) else 0):
        lanes = np.flatnonzero(turn == t)
        o = memory_read(lanes)
        old[lanes] = o
        if kind == "CAS":
            new = np.where(o == compare[lanes], values[lanes], o)
        else:
            new = fn(o, values[lanes])
        memory_write(lanes, new)
    return old


@step("ATOMS", shared=True)
def _atoms(ins: Instruction, env: Env):
    mods = ins.mods
    popc = mods[:2] == ("POPC", "INC")
    kind = "ADD" if popc else mods[0] if mods else "ADD"
    spin = kind == "CAST"  # ATOMS.CAST.SPIN: compare-and-store, Rd = 1 where it stored (the compiler's atomicCAS loops)
    wide = "64" in mods
    signed = "S32" in mods or (kind in ("MIN", "MAX") and "U32" not in mods)
    floating = "F32" if "F32" in mods else ""
    size = 8 if wide else 4
    d = operand(ins, 0)
    addr = address32(operand(ins, 1), env)
    srcs = list(ins.operands[2:])
    form = _form(ins)
    dfile, dregs = registers(d, size // 4)
    vfile, vregs = registers(srcs[0], size // 4) if srcs else ("R", [])
    cfile, cregs = registers(srcs[1], size // 4) if kind in ("CAS", "CAST") and len(srcs) > 1 else ("R", [])
    dtype = np.uint64 if wide else np.uint32

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        ix = np.flatnonzero(act)
        a = addr(m, ix)
        if len(ix):
            flat = shared_index(m, ix, a, size)
            mem = m.shared.reshape(-1)

            def mread(lanes):
                return np.ascontiguousarray(mem[flat[lanes, None] + np.arange(size)]).view(dtype).reshape(-1)

            def mwrite(lanes, new):
                mem[flat[lanes, None] + np.arange(size)] = np.ascontiguousarray(new.astype(dtype)).view(np.uint8).reshape(-1, size)

            if popc:
                values = np.ones(len(ix), dtype=dtype)
            else:
                values = np.ascontiguousarray(_read_words(m, ix, vfile, vregs)).view(dtype).reshape(-1)
            compare = np.ascontiguousarray(_read_words(m, ix, cfile, cregs)).view(dtype).reshape(-1) if cregs else None
            if kind in ("CAS", "CAST"):  # ATOMS.CAS Rd, [a], Rcompare, Rnew
                compare, values = values, compare
            if spin:  # one pass: each bank serves the word of its lowest lane; the lanes of other words fail
                ok = np.zeros(len(ix), dtype=bool)
                served = _first_pass(ix, a, size)
                if served.any():
                    lanes = np.flatnonzero(served)
                    old = atomic(lambda k: mread(lanes[k]), lambda k, new: mwrite(lanes[k], new), len(lanes), "CAS", values[lanes],
                                 compare[lanes], flat[lanes], signed, floating)
                    ok[lanes] = old == compare[lanes]
                old = ok.astype(dtype)
            else:
                old = atomic(mread, mwrite, len(ix), kind, values, compare, flat, signed, floating)
            _write_words(m, ix, dfile, dregs, np.ascontiguousarray(old).view(np.uint32).reshape(len(ix), -1))
        _report(m, ins, form, ex, act, _full(m, ix, a))
        m.pc += ex
    return run


def _first_pass(ix: np.ndarray, addr: np.ndarray, size: int) -> np.ndarray:
    """Which of the lanes ``ix`` (addresses ``addr``, ``size`` bytes each) one pass of the data path serves: per warp and
    phase (a half-warp for 8 bytes), each bank run of ``size`` bytes delivers the unit its lowest lane asks for."""
    per_phase = LANES // max(1, size // 4)
    units = addr // size
    key = ((ix // LANES) * (LANES // per_phase) + (ix % LANES) // per_phase) * per_phase + units % per_phase
    order = np.lexsort((ix, key))
    first = np.ones(len(ix), dtype=bool)
    first[1:] = key[order][1:] != key[order][:-1]
    lead = np.empty(len(ix), dtype=np.int64)
    lead[order] = np.maximum.accumulate(np.where(first, np.arange(len(ix)), 0))
    return units == units[order][lead]


def _matrix_warps(m: Machine, ins: Instruction, act: np.ndarray, addr, num: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For an 8x8 matrix op: the acting warps (every lane must act), each thread's row address (-1 elsewhere), and the
    flat shared byte index of each warp's 8*num rows (warps, 8*num), where lanes 0..8*num-1 give them."""
    ix = np.flatnonzero(act)
    a = addr(m, ix)
    full = _full(m, ix, a)
    by_warp = act.reshape(-1, LANES)
    warps = np.flatnonzero(by_warp.any(axis=1))
    partial = ~by_warp[warps].all(axis=1)
    if partial.any():
        w = int(warps[np.flatnonzero(partial)[0]])
        raise ExecError(f"{ins.text}: every lane of a warp must execute it (lanes {np.flatnonzero(~by_warp[w]).tolist()} of a warp do not)", ins.pc)
    lanes = (warps[:, None] * LANES + np.arange(8 * num)).reshape(-1)
    rows = full[lanes]
    flat = shared_index(m, lanes, rows, 16).reshape(len(warps), 8 * num)
    return warps, full, flat


#: A lane's place in a matrix op's 8x8 b16 matrices: row and the column of its low half, plain and transposed.
_T = np.arange(LANES)
_ROW, _COL = _T // 4, 2 * (_T % 4)
#: The quick paths' indices: in halfwords of the row starts (/2), (rows, column) of each lane's two halves transposed; in
#: words (/4), each lane's word of its row.
_COL2, _ROW2 = np.stack([_COL, _COL + 1], axis=-1), (_T // 4)[:, None]
_WORD = _T % 4


def _matrix_rows(m: Machine, a: np.ndarray, num: int) -> np.ndarray | None:
    """For an 8x8 matrix op that every thread executes and acts on (``a``: each thread's row address): the flat shared
    byte index of each warp's 8*num rows (warps, 8*num), given by lanes 0..8*num-1; None where a row is out of the
    window or misaligned, or the window is not of whole 16-byte rows (``_matrix_warps`` then says what is wrong)."""
    window = m.shared.shape[1]
    if window % 16:
        return None
    rows = a.reshape(-1, LANES)[:, : 8 * num]
    if rows.min() < 0 or rows.max() + 16 > window or np.bitwise_or.reduce(rows, axis=None) % 16:
        return None
    return m.cta_slot[::LANES, None] * window + rows


@step("LDSM", shared=True)
def _ldsm(ins: Instruction, env: Env):
    form = _form(ins)
    num, trans = form["num"], form["trans"]
    file, regs = registers(operand(ins, 0), num)
    addr = address32(operand(ins, 1), env)

    zero = 255 if file == "R" else 63
    consecutive = regs == list(range(regs[0], regs[0] + num)) and zero not in regs

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        if consecutive and len(m.ex_ix) == m.n and (act is ex or act.all()):
            a = addr(m, m.ex_ix)
            flat = _matrix_rows(m, a, num)
            if flat is not None:  # every thread acts, rows in bounds and aligned, a window of whole 16-byte rows
                w = len(flat)
                base = flat.reshape(w, num, 8) >> (1 if trans else 2)  # in halfwords or words
                if trans:  # lane t: rows 2(t%4) and 2(t%4)+1 of column t/4, the low half first
                    words = m.shared.reshape(-1).view(np.uint16)[base.take(_COL2, axis=2) + _ROW2].view(np.uint32)[..., 0]
                else:  # lane t: the word t%4 of row t/4
                    words = m.shared.reshape(-1).view(np.uint32)[base.take(_ROW, axis=2) + _WORD]
                getattr(m, file)[regs[0] : regs[0] + num] = words.transpose(1, 0, 2).reshape(num, -1)
                _report(m, ins, form, ex, act, a)
                m.pc += ex
                return
        warps, full, flat = _matrix_warps(m, ins, act, addr, num)
        if len(warps):
            halves = m.shared.reshape(-1)[flat[:, :, None] + np.arange(16)].view(np.uint16).reshape(len(warps), num, 8, 8)
            if trans:  # lane t gets column t/4, rows 2(t%4) and 2(t%4)+1
                lo, hi = halves[:, :, _COL, _ROW], halves[:, :, _COL + 1, _ROW]
            else:  # lane t gets row t/4, columns 2(t%4) and 2(t%4)+1
                lo, hi = halves[:, :, _ROW, _COL], halves[:, :, _ROW, _COL + 1]
            words = lo.astype(np.uint32) | (hi.astype(np.uint32) << np.uint32(16))  # (warps, num, 32)
            lanes = (warps[:, None] * LANES + _T).reshape(-1)
            out = getattr(m, file)
            for i, r in enumerate(regs):
                if r != (255 if file == "R" else 63):
                    out[r][lanes] = words[:, i].reshape(-1)
        _report(m, ins, form, ex, act, full)
        m.pc += ex
    return run


@step("STSM", shared=True)
def _stsm(ins: Instruction, env: Env):
    form = _form(ins)
    num, trans = form["num"], form["trans"]
    addr = address32(operand(ins, 0), env)
    file, regs = registers(operand(ins, 1), num)

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        warps, full, flat = _matrix_warps(m, ins, act, addr, num)
        if len(warps):
            lanes = (warps[:, None] * LANES + _T).reshape(-1)
            words = np.stack([getattr(m, file)[r, lanes].reshape(len(warps), LANES) for r in regs], axis=1)  # (warps, num, 32)
            halves = np.zeros((len(warps), num, 8, 8), dtype=np.uint16)
            rows, cols = (_COL, _ROW) if trans else (_ROW, _COL)
            halves[:, :, rows, cols] = (words & np.uint32(0xFFFF)).astype(np.uint16)
            if trans:
                halves[:, :, _COL + 1, _ROW] = (words >> np.uint32(16)).astype(np.uint16)
            else:
                halves[:, :, _ROW, _COL + 1] = (words >> np.uint32(16)).astype(np.uint16)
            m.shared.reshape(-1)[flat[:, :, None] + np.arange(16)] = halves.view(np.uint8).reshape(len(warps), num * 8, 16)
        _report(m, ins, form, ex, act, full)
        m.pc += ex
    return run


@step("LDGSTS", shared=True)
def _ldgsts(ins: Instruction, env: Env):
    """cp.async: copy ``size`` bytes a lane from global to shared memory, or fewer with zeros after them.

    ptxas writes cp.async's src-size two ways: a predicate (src-size 16 or 0: false zero-fills the copy) or,
    with ``.ZFILL``, the number of bytes to zero-fill in the low bits of the (otherwise aligned) source address
    and a predicate that is false where src-size is 0."""
    size, _ = width(ins)
    dst = address32(operand(ins, 0), env)
    src = address64(operand(ins, 1), env)
    copy = read(operand(ins, 2), "pred") if len(ins.operands) > 2 and ins.operands[2].kind in ("P", "UP") else None
    zfill = "ZFILL" in ins.mods
    pred = ins.operands[2] if copy is not None else None
    named = "P0" if pred is None or (pred.kind == "P" and pred.index == 0 and not pred.inv) else "negated" if pred.inv else "other"
    # ncu's SASS-level counters tell the predicates apart (records.PREDICATES); its bytes, an immediate offset (imm)
    form = _form(ins, srcsize=zfill, pred=named, imm=operand(ins, 0).offset != 0)

    bypass = bool(form.get("bypass"))  # .cg: the copy does not go through L1
    # the lanes whose source ncu's SASS-level wavefront count does not read (calibration/realk rule, lg and ho probes):
    # every lane of a .cg copy in the predicate form under P0; none under another predicate (!P0, P2: ho4_cg16_neg_*,
    # ho5_cg16_two_*), in the .ZFILL form, or of a .ca copy (whose zero-filled lanes, ``zeroed``, have no source)
    unsourced_all = bypass and copy is not None and named == "P0" and not zfill

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        ix = m.ex_ix if act is ex else np.flatnonzero(act)
        a, s = dst(m, ix), src(m, ix)
        zeroed = np.zeros(m.n, dtype=bool)  # the lanes of src-size 0
        if len(ix):
            n = None  # every lane copies all ``size`` bytes
            if zfill:
                low = (s & np.uint64(size - 1)).astype(np.int64)
                s = s - low.astype(np.uint64)
                n = size - low
            if copy is not None:
                copies = np.asarray(copy(m, ix))
                if n is not None or not copies.all():
                    n = np.where(copies, size if n is None else n, 0)
            if n is None or (n == size).all():
                data = m.memory.load(s, size)
            else:
                data = np.zeros((len(ix), size), dtype=np.uint8)
                whole = n == size
                if whole.any():
                    data[whole] = m.memory.load(s[whole], size)
                for k in np.flatnonzero((n > 0) & ~whole):  # a partial copy reads only its bytes
                    data[k, : n[k]] = m.memory.load(s[k] + np.arange(n[k], dtype=np.uint64), 1).reshape(-1)
                zeroed[ix] = n == 0
            shared_store(m, ix, a, data)
            if n is not None and ((n > 0) & (n < size)).any():
                m.l1.unknown = PARTIAL_COPY
            if not bypass:  # a .ca copy's lanes that read global memory fill L1
                m.l1.copy(ix if n is None else ix[n > 0], s if n is None else s[n > 0])
            if m.on_global is not None:  # every acting lane's source, zero-filling ones too: the timed SM takes their requests
                m.on_global(ix, s, size)  # as memory accesses (H200: the LDGSTS rule probes' stalls fit that, not sourceless ones)
        unsourced = act if unsourced_all else np.zeros(m.n, dtype=bool)
        _report(m, ins, form, ex, act, _full(m, ix, a), _full(m, ix, s.astype(np.int64)), unsourced, zeroed)
        m.pc += ex
    return run


def _split_generic(addr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which generic addresses fall in the shared window, and which in local memory."""
    hi = (addr >> np.uint64(32)).astype(np.int64)
    return hi == SHARED_HI, hi == LOCAL_HI


@step("LD", shared=True)
@step("LDG", "LDL")
def _ld(ins: Instruction, env: Env):
    size, signed = width(ins)
    file, regs = _dest_regs(operand(ins, 0), size)
    local = ins.name == "LDL"
    mem = operand(ins, 1)
    addr = address32(mem, env) if local else address64(mem, env, "E" in ins.mods)
    generic = ins.name == "LD"
    form = dict(_form_generic("LDS", size), generic=True) if generic else None

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        ix = np.flatnonzero(act)
        a = addr(m, ix)
        shared_lanes = np.zeros(len(ix), dtype=bool)
        if len(ix):
            out = np.empty((len(ix), size), dtype=np.uint8)
            if local:
                out[:] = m.local[ix[:, None], a[:, None] + np.arange(size)] if len(ix) else out
                local_index(m, ix, a, size)
            else:
                shared_lanes, local_lanes = _split_generic(a) if generic else (shared_lanes, shared_lanes)
                rest = ~(shared_lanes | local_lanes)
                if rest.any():
                    out[rest] = m.memory.load(a[rest], size)
                    m.l1.load(ix[rest], a[rest], size)
                    if m.on_global is not None:
                        m.on_global(ix[rest], a[rest], size)
                if shared_lanes.any():
                    out[shared_lanes] = shared_load(m, ix[shared_lanes], (a[shared_lanes] & np.uint64(0xFFFF_FFFF)).astype(np.int64), size)
                if local_lanes.any():
                    la = (a[local_lanes] & np.uint64(0xFFFF_FFFF)).astype(np.int64)
                    local_index(m, ix[local_lanes], la, size)
                    out[local_lanes] = m.local[ix[local_lanes][:, None], la[:, None] + np.arange(size)]
            _write_words(m, ix, file, regs, as_words(out, signed))
        if generic:
            m.tally(INST_GENERIC[ins.name], ex)
            _report_generic(m, ins, form, ex, ix, a, shared_lanes, size)
        m.pc += ex
    return run


#: ncu's counters of the generic and global memory instructions, as the steps ``tally`` them (H200, ncu 2025.3.1:
#: calibration/realk counters.json, hopper.json, and manifest.json's H100 runs). Warp-level (``smsp__inst_executed_*``):
#: every warp that executes the instruction, its guard true or not; generic loads and stores, every atomic but a shared
#: or reduction one (``ATOM``, and ``ATOMG`` too: tmap_built) as ALU or CAS, and global reductions. SASS-level
#: (``smsp__sass_*``): the warps with a lane acting on that memory: a generic access on the CTA's own shared memory counts
#: as a shared one (rule_generic_*, gen_*: never a float atomic, which fails there; nor one whose lanes are all on other
#: CTAs of the cluster: dsm_*_remote), one on global memory as a global one (gen_add_half: both).
INST_GENERIC = {"LD": "smsp__inst_executed_op_generic_ld.sum", "ST": "smsp__inst_executed_op_generic_st.sum",
                "ATOM": "smsp__inst_executed_op_generic_atom.sum", "REDG": "smsp__inst_executed_op_global_red.sum"}
ATOM_KIND = {"CAS": "smsp__inst_executed_op_generic_atom_dot_cas.sum", "ALU": "smsp__inst_executed_op_generic_atom_dot_alu.sum"}
SASS_SHARED = {"LDS": "smsp__sass_inst_executed_op_shared_ld.sum", "STS": "smsp__sass_inst_executed_op_shared_st.sum",
               "ATOMS": "smsp__sass_inst_executed_op_shared_atom.sum"}
SASS_GLOBAL = {"ATOM": "smsp__sass_inst_executed_op_global_atom.sum", "RED": "smsp__sass_inst_executed_op_global_red.sum"}
#: Every counter the steps tally (a kernel's trace header gives each, 0 where none was tallied).
COUNTED = tuple(sorted({*INST_GENERIC.values(), *ATOM_KIND.values(), *SASS_SHARED.values(), *SASS_GLOBAL.values(), MISC}))


def _warps_with(threads: np.ndarray) -> np.ndarray:
    return np.repeat(threads.reshape(-1, LANES).any(axis=1), LANES)


def _report_generic(m: Machine, ins: Instruction, form: dict, ex: np.ndarray, ix: np.ndarray, a: np.ndarray, shared_lanes: np.ndarray,
                    size: int) -> None:
    """Tell the listener of a generic access's lanes on the CTA's own shared memory, with, per warp, the distinct bytes of
    its lanes on global or local memory: ncu counts those under the shared bytes too (H200, runs/2026-11-29-counters:
    gen_*_half). A lane on another CTA's shared memory of the cluster (distributed shared memory: the rank in bits 24 and
    up) counts its bytes so too but adds no wavefront or conflict to either SM's counters; only an atomic whose lanes are
    all on other CTAs' takes one wavefront, reported as its first lane's (H200, runs/2026-11-29-hopper-ws, dsm_*_remote)."""
    window = (a & np.uint64(0xFFFF_FFFF)).astype(np.int64)
    own = shared_lanes & ((window >> 24) == m.rank[m.cta_slot[ix]])
    if form.get("atom") != "unserved_float":
        m.tally(SASS_SHARED[form["op"]], ix[own])
    if form.get("atom", "").startswith("unserved"):  # the failed try makes an op_misc wavefront (gen_addf_*, gen2_min64_*)
        m.tally(MISC, ix[own])
    if form["op"] == "ATOMS" and (shared_lanes & ~own).any():
        warp = ix // LANES
        lone = np.isin(warp, warp[shared_lanes]) & ~np.isin(warp, warp[own])
        first = np.unique(warp[lone & shared_lanes], return_index=True)[1]
        own[np.flatnonzero(lone & shared_lanes)[first]] = True
    on_shared = np.zeros(m.n, dtype=bool)
    on_shared[ix[own]] = True
    in_window = np.zeros(m.n, dtype=bool)
    in_window[ix[shared_lanes]] = True
    if in_window.any():
        away = np.flatnonzero(~own)
        per_warp = np.zeros(m.n // LANES, dtype=np.int64)
        if len(away):
            pairs = np.unique(np.stack([ix[away] // LANES, a[away].astype(np.int64)]), axis=1)
            np.add.at(per_warp, pairs[0], size)
        _report(m, ins, form, ex & _warps_with(in_window), on_shared, _full(m, ix[own], window[own] & 0xFF_FFFF), elsewhere=per_warp)


def _form_generic(op: str, size: int) -> dict:
    return {"op": op, "width": size * 8}


@step("ST", shared=True)
@step("STG", "STL")
def _st(ins: Instruction, env: Env):
    size, _ = width(ins)
    local = ins.name == "STL"
    mem = operand(ins, 0)
    addr = address32(mem, env) if local else address64(mem, env, "E" in ins.mods)
    file, regs = registers(operand(ins, 1), max(1, size // 4))
    generic = ins.name == "ST"
    form = dict(_form_generic("STS", size), generic=True) if generic else None

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        ix = np.flatnonzero(act)
        a = addr(m, ix)
        shared_lanes = np.zeros(len(ix), dtype=bool)
        if len(ix):
            data = as_bytes(_read_words(m, ix, file, regs), size)
            if local:
                local_index(m, ix, a, size)
                m.local[ix[:, None], a[:, None] + np.arange(size)] = data
            else:
                shared_lanes, local_lanes = _split_generic(a) if generic else (shared_lanes, shared_lanes)
                rest = ~(shared_lanes | local_lanes)
                if rest.any():
                    order = store_order(ix[rest], size)
                    m.memory.store(a[rest][order], data[rest][order])
                    m.l1.store(ix[rest], a[rest], size)
                    if m.on_global is not None:
                        m.on_global(ix[rest], a[rest], size)
                if shared_lanes.any():
                    shared_store(m, ix[shared_lanes], (a[shared_lanes] & np.uint64(0xFFFF_FFFF)).astype(np.int64), data[shared_lanes])
                if local_lanes.any():
                    la = (a[local_lanes] & np.uint64(0xFFFF_FFFF)).astype(np.int64)
                    local_index(m, ix[local_lanes], la, size)
                    m.local[ix[local_lanes][:, None], la[:, None] + np.arange(size)] = data[local_lanes]
        if generic:
            m.tally(INST_GENERIC[ins.name], ex)
            _report_generic(m, ins, form, ex, ix, a, shared_lanes, size)
        m.pc += ex
    return run


#: The integer operations shared memory serves a generic atomic on a shared address with (calibration/realk gen_*, gen2_*:
#: the 32-bit ones; 64-bit ADD, EXCH, CAS). Another (a float ADD, 64-bit MIN) fails there: see ``_atomg``.
SHARED_ATOMS = {4: frozenset({"ADD", "MIN", "MAX", "INC", "DEC", "EXCH", "CAS", "AND", "OR", "XOR"}), 8: frozenset({"ADD", "EXCH", "CAS"})}
#: The packed and vector float types of ATOM(G)/RED(G) (ptxas 13.0 for sm_90: ``atom``/``red`` ``.f16x2``, ``.bf16x2``
#: and their ``.v2``/``.v4`` forms, ``.v2``/``.v4`` ``.f32``), as SASS spells them.
PACKED = frozenset({"F16x2", "BF16x2", "F16x4", "BF16x4", "F16x8", "BF16x8", "F32x2", "F32x4"})


@step("ATOM", "RED", shared=True)
@step("ATOMG", "REDG")
def _atomg(ins: Instruction, env: Env):
    """A global or generic atomic (or reduction). A generic one's lanes on shared addresses go to shared memory, reported
    as an ATOMS of that operation (``generic``); where shared memory lacks the operation (``SHARED_ATOMS``) those lanes
    and lanes on local addresses do nothing and the predicate output ptxas gives such forms (``ATOM.E.ADD.F32 P1, ...``)
    is false for them: ptxas's fallback after it (QSPC, then an ATOMS.CAST.SPIN loop or LD/ST) does their work.

    Packed and vector floats (``ADD.F16x2``, ``MIN.BF16x4``, ``ADD.F32x2``, ``ADD.BF16x8``: PTX's ``.f16x2``/``.bf16x2``
    and the ``.v2``/``.v4`` forms of ``.global``) act on each 32-bit word of the lane's bytes apart (``_halves_op``);
    shared memory serves none of them (as a float ADD: their generic forms come with ptxas's fallback)."""
    mods = [x for x in ins.mods if x not in ("E", "STRONG", "GPU", "SYS", "CTA", "SM", "EF", "EL", "LU", "EU", "NA", "FTZ", "RN", "PRIVATE", "MMIO")]
    kind = next((x for x in mods if x in ("ADD", "MIN", "MAX", "INC", "DEC", "EXCH", "CAS", "AND", "OR", "XOR")), None)
    if "CAST" in mods:
        kind = "CAST"
    if kind is None:
        raise BuildError(f"{ins.opcode}: atomic operation not modelled")
    packed = next((x.split("x") for x in mods if x in PACKED), None)  # (format, elements)
    floating = packed[0] if packed else next((x for x in mods if x in ("F32", "F64")), "")
    words = int(packed[1]) * (32 if packed[0] == "F32" else 16) // 32 if packed else 1  # 32-bit words a lane acts on apart
    if floating and kind not in (("ADD",) if floating in ("F32", "F64") else ("ADD", "MIN", "MAX")):
        raise BuildError(f"{ins.opcode}: atomic operation not modelled")
    wide = not packed and ("64" in mods or "U64" in mods or "S64" in mods or "F64" in mods)
    signed = "S32" in mods or "S64" in mods
    size = 8 if wide else 4  # bytes of each word
    dtype = np.uint64 if wide else np.uint32
    reduction = ins.name in ("RED", "REDG")
    ops = list(ins.operands)
    done = None  # the predicate output: the lanes the instruction served
    if reduction:
        d, mem, srcs = None, ops[0], ops[1:]
    else:
        k = 1 if ops[0].kind in ("R", "UR") else 0
        if ops[0].kind in ("P", "UP"):  # ATOM(G).E.CAS's and the fallback forms' predicate output
            done = None if ops[0].index == 7 else write(ops[0], "pred")
            k = 2
        d, mem, srcs = ops[k - 1] if k else None, ops[k], ops[k + 1 :]
    addr = address64(mem, env, "E" in ins.mods)
    vfile, vregs = registers(srcs[0], size * words // 4)
    cfile, cregs = registers(srcs[1], size // 4) if kind in ("CAS", "CAST") and len(srcs) > 1 else ("R", [])
    dfile, dregs = registers(d, size * words // 4) if d is not None and not (d.kind == "R" and d.index == 255) else ("R", [])
    generic = ins.name in ("ATOM", "RED")
    if generic and words > 1:
        raise BuildError(f"{ins.opcode}: a generic vector atomic is not modelled (PTX has them for .global only)")
    served = not floating and kind in SHARED_ATOMS[size]
    # one shared memory does not serve fails there, taking a wavefront with no data: ptxas gives such a form a predicate
    # output and a fallback after it (gen_addf_*, gen2_addf64_*, gen2_min64_*)
    unserved = generic and not served and done is not None
    form = None
    if generic and (served or unserved):
        atom = ("unserved_float" if floating else "unserved") if unserved else kind.lower()
        form = {"op": "ATOMS", "width": 8 * size, "atom": atom, "generic": True}

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        ix = np.flatnonzero(act)
        a = addr(m, ix)
        shared_lanes, local_lanes = _split_generic(a) if generic else (np.zeros(len(ix), dtype=bool),) * 2
        odd = (local_lanes & (done is None)) | (shared_lanes & (not served and not unserved))
        if odd.any():
            k = int(ix[np.flatnonzero(odd)[0]])
            where = "shared" if shared_lanes[np.flatnonzero(odd)[0]] else "local"
            raise ExecError(f"{ins.text}: thread {k}: a generic {ins.opcode} on {where} memory is not modelled", ins.pc)
        glob = ~(shared_lanes | local_lanes)
        on_shared = shared_lanes & served
        if not reduction:
            m.tally(INST_GENERIC["ATOM"], ex)
            m.tally(ATOM_KIND["CAS" if kind == "CAS" else "ALU"], ex)
        elif not generic:
            m.tally(INST_GENERIC["REDG"], ex)
        m.tally(SASS_GLOBAL["RED" if reduction else "ATOM"], ix[glob])
        values = np.ascontiguousarray(_read_words(m, ix, vfile, vregs)).view(dtype).reshape(-1) if len(ix) else np.zeros(0, dtype)
        compare = np.ascontiguousarray(_read_words(m, ix, cfile, cregs)).view(dtype).reshape(-1) if cregs and len(ix) else None
        if kind in ("CAS", "CAST"):
            compare, values = values, compare
        old = np.zeros(len(ix) * words, dtype=dtype)  # word j of lane i at i * words + j
        if glob.any():
            g = np.flatnonzero(glob)
            m.memory.locate(a[g], size * words)  # in a buffer, and aligned to the lane's bytes
            m.l1.atomic(ix[g], size * words)
            if m.on_global is not None:
                m.on_global(ix[g], a[g], size * words)
            g_words = (g[:, None] * words + np.arange(words)).reshape(-1)
            at = (a[g][:, None] + np.arange(words, dtype=np.uint64) * np.uint64(size)).reshape(-1)
            index, offset = m.memory.locate(at, size)

            def gread(lanes):
                return np.ascontiguousarray(m.memory.load(at[lanes], size)).view(dtype).reshape(-1)

            def gwrite(lanes, new):
                m.memory.store(at[lanes], np.ascontiguousarray(new.astype(dtype)).view(np.uint8).reshape(-1, size))

            old[g_words] = _apply(gread, gwrite, kind, values[g_words], None if compare is None else compare[g], (index.astype(np.int64) << 40) + offset,
                                  signed, floating, dtype)
        if on_shared.any():
            s = np.flatnonzero(on_shared)
            flat = shared_index(m, ix[s], (a[s] & np.uint64(0xFFFF_FFFF)).astype(np.int64), size)
            mem_ = m.shared.reshape(-1)

            def sread(lanes):
                return np.ascontiguousarray(mem_[flat[lanes, None] + np.arange(size)]).view(dtype).reshape(-1)

            def swrite(lanes, new):
                mem_[flat[lanes, None] + np.arange(size)] = np.ascontiguousarray(new.astype(dtype)).view(np.uint8).reshape(-1, size)

            old[s] = _apply(sread, swrite, kind, values[s], None if compare is None else compare[s], flat, signed, floating, dtype)
        if dregs and len(ix):
            _write_words(m, ix, dfile, dregs, np.ascontiguousarray(old).view(np.uint32).reshape(len(ix), -1))
        if done is not None and len(ix):
            done(m, ix, glob | on_shared)
        if form is not None:
            _report_generic(m, ins, form, ex, ix, a, shared_lanes, size)
        m.pc += ex
    return run


def _apply(mread, mwrite, kind: str, values: np.ndarray, compare: np.ndarray | None, key: np.ndarray, signed: bool, floating: str,
           dtype) -> np.ndarray:
    """``atomic`` over some lanes; ``CAST`` (a compare-and-store of ptxas's loops): each lane's old value becomes 1 where it stored."""
    if kind != "CAST":
        return atomic(mread, mwrite, len(values), kind, values, compare, key, signed, floating)
    old = atomic(mread, mwrite, len(values), "CAS", values, compare, key, signed, floating)
    return (old == compare).astype(dtype)


@alu("QSPC")
def _qspc(ins: Instruction, env: Env):
    """QSPC.E.S / QSPC.E.D P, RZ, [Ra]: whether a generic address is in the CTA's shared window (S) or another CTA's of its
    cluster (D: never, without clusters)."""
    space = ins.mods[-1] if ins.mods else ""
    if space not in ("S", "D"):
        raise BuildError(f"{ins.opcode}: address space {space!r} not modelled")
    out = write(operand(ins, 0), "pred")
    addr = address64(operand(ins, 2), env, True)

    def f(m: Machine, ix: np.ndarray) -> None:
        out(m, ix, _split_generic(addr(m, ix))[0] if space == "S" else np.zeros(len(ix), dtype=bool))
    return f


refuse("TEX", "TLD", "TLD4", "TMML", "TXD", "TXQ", family="memory", why="textures are not modelled")
refuse("SULD", "SUST", "SUATOM", "SURED", "SUQUERY", family="memory", why="surfaces are not modelled")
