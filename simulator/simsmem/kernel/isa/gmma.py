"""Hopper's warpgroup matrix multiply-accumulate (``wgmma.mma_async``): HGMMA (f16, bf16, tf32), QGMMA (e4m3, e5m2),
IGMMA (s8, u8); dense or sparse (HGMMA.SP), A from shared memory or from registers.

``HGMMA.64xNxK.ACC[.TYPE] D, [A,] gdesc[URn][.tnspA][.tnspB][.negA][.negB], C[, scale-d][, meta, selector][, gsb0]``:
``gdesc[URn]`` names URn..URn+3, A's matrix descriptor in URn:URn+1 (low:high) and B's in URn+2:URn+3 (with A from
registers ``A..A+3`` the first pair is unused). C is RZ (zero) or D itself; a false scale-d predicate (``!UPT``)
drops C, an absent one is UPT. The 4 warps of a warpgroup execute it as one: each warp waits at it (``wait_until``)
until all four are there (none waits where all four arrive in one step), then D is computed for all 128 threads and
they go on. The machine completes the MMA there and then, so WARPGROUP.ARRIVE/DEPBAR and the proxy fences have nothing
to do.

Shared-memory operands: ``hopper.addresses`` (CUTLASS's canonical layouts read from the matrix descriptors; measured
on the H200, calibration/realk/hopper.json, the hop_wg_* probes).

Arithmetic: each product is exact in float64 and the sums are formed there, rounded once to the accumulator
(float32, float16 pairs, or int32 wrapping, saturating with .SAT): the GPU's own results where no sum loses bits
in float64, as in every probe.
"""

from __future__ import annotations

import functools
import re

import attrs
import numpy as np

from ...tiles.hopper import addresses
from ..machine import LANES, WAIT_UNTIL, ExecError, Machine
from ..memory import items
from ..sass import RZ, URZ, Instruction
from . import Env, ieee, operand, refuse, step
from .floating import fp8_to_f32
from .operands import BuildError, read

#: element type -> bytes; the SASS modifier names them (HGMMA without one is f16)
SIZES = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1, "s8": 1, "u8": 1}
THREADS = 4 * LANES
with np.errstate(invalid="ignore"):  # the NaN codes
    _FP8 = {"e4m3": fp8_to_f32(np.arange(256), True).astype(np.float64), "e5m2": fp8_to_f32(np.arange(256), False).astype(np.float64)}


def values(codes: np.ndarray, kind: str) -> np.ndarray:
    """Element bit patterns (uint32) of ``kind`` as float64, exactly (tf32: the float32's top 19 bits)."""
    if kind == "f16":
        return codes.astype(np.uint16, copy=False).view(np.float16).astype(np.float64)
    if kind in ("bf16", "tf32"):
        bits = codes << np.uint32(16) if kind == "bf16" else codes & np.uint32(0xFFFFE000)
        return bits.astype(np.uint32).view(np.float32).astype(np.float64)
    if kind in _FP8:
        return _FP8[kind][codes & 0xFF]
    return (codes.astype(np.uint8).view(np.int8) if kind == "s8" else codes.astype(np.uint8)).astype(np.float64)


def _fragment(n: int) -> np.ndarray:
    """Where accumulator element i of thread t of the warpgroup is in the 64 x N result, row * N + column: (N/2, 128)."""
    i, t = np.arange(n // 2)[:, None], np.arange(THREADS)[None, :]
    w, lane = t // LANES, t % LANES
    return (16 * w + lane // 4 + 8 * (i >> 1 & 1)) * n + 8 * (i >> 2) + 2 * (lane % 4) + (i & 1)


@functools.lru_cache(maxsize=4096)
def _operand(desc: int, rows: int, k: int, size: int, mn_major: bool) -> tuple[np.ndarray, int, int]:
    """Where one matrix descriptor's operand (rows, k) is, in ``size``-byte elements from the window's start (every
    address ``addresses`` gives is a multiple of the element size), with the least and greatest byte address; kept, as
    a kernel's descriptors repeat from one K step and CTA to the next."""
    a = addresses(np.array([desc], dtype=np.uint64), rows, k, size, mn_major)[0]
    index = a // size
    index.flags.writeable = False
    return index, int(a.min()), int(a.max())


@functools.lru_cache(maxsize=1024)
def _operands(slots: tuple[int, ...], descs: tuple[int, ...], rows: int, k: int, size: int, mn_major: bool, width: int,
              order: bool) -> tuple[np.ndarray, int, int, bool, int, int]:
    """``_operand`` of each (CTA slot, descriptor) as indices into the CTAs' windows as one run of ``width`` elements a
    CTA, rows in ``_columns`` order where ``order`` says, once for each run of ``share`` groups that read the same one (a
    CTA's warpgroups share B): of runs of ``run`` consecutive elements (each taken as one item, 16 bytes where the layout
    has them), (groups / share, rows, k / run), or ``across``, (groups / share, k, rows / run) (MN-major runs); with the
    least and greatest byte address of them all; kept, as the warpgroups of a step repeat theirs from one K step to the
    next."""
    named = list(zip(slots, descs))
    share = len(named) // len(set(named))
    if named != [n for n in named[::share] for _ in range(share)]:
        share = 1
    held = [_operand(desc, rows, k, size, mn_major) for desc in descs[::share]]
    index = np.stack([at[_columns(rows)] if order else at for at, _, _ in held]) + (np.array(slots[::share]) * width)[:, None, None]
    across = mn_major and not order
    if across:
        index = index.transpose(0, 2, 1)
    run = 16 // size
    while run > 1 and (width % run or index.shape[-1] % run or (index[..., ::run] % run).any()
                       or (index.reshape(-1, run) != index.reshape(-1, run)[:, :1] + np.arange(run)).any()):
        run //= 2
    index = index[..., ::run] // run
    index.flags.writeable = False
    return index, share, run, across, min(low for _, low, _ in held), max(high for _, _, high in held)


def _columns(n: int) -> np.ndarray:
    """The order of a 64 x N result's columns that ``_threads`` places from: column 8 j + 2 q + b at 4 (j + N/8 b) + q,
    so that the four threads q of a row hold consecutive elements in each register (``_fragment``)."""
    return np.arange(n).reshape(n // 8, 4, 2).transpose(2, 0, 1).reshape(-1)


def _a_fragment(k: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, k) of element j of register r of thread t for A from registers: (128, 4, 4 / size) arrays (mma.sync's A)."""
    per = 4 // size
    t, r, j = np.arange(THREADS)[:, None, None], np.arange(4)[None, :, None], np.arange(per)[None, None, :]
    w, lane = t // LANES, t % LANES
    return tuple(np.broadcast_arrays(16 * w + lane // 4 + 8 * (r & 1), per * (lane % 4) + k // 2 * (r >> 1) + j))


@attrs.frozen
class Shape:
    """What an HGMMA/QGMMA/IGMMA instruction computes."""

    n: int
    k: int
    acc: str  # f32, f16, s32
    a: str  # element types
    b: str
    sparse: bool
    saturate: bool

    @classmethod
    def of(cls, ins: Instruction) -> Shape:
        mods = ins.mods
        dims = next((x for x in mods if re.fullmatch(r"\d+x\d+x\d+", x)), None)
        if dims is None:
            raise BuildError(f"{ins.opcode}: no MxNxK shape")
        m, n, k = map(int, dims.split("x"))
        after = mods[mods.index(dims) + 1 :]
        if ins.name == "IGMMA":
            a, b = (x.lower() for x in after if x in ("S8", "U8"))
            acc = "s32"
        elif ins.name == "QGMMA":
            a, b = (x.lower() for x in after if x in ("E4M3", "E5M2"))
            acc = after[0].lower()
        else:
            a = b = "bf16" if "BF16" in after else "tf32" if "TF32" in after else "f16"
            acc = after[0].lower()
        sparse = "SP" in mods
        if m != 64 or acc not in ("f32", "f16", "s32") or n % 8 or not 8 <= n <= 256:
            raise BuildError(f"{ins.opcode}: not a wgmma shape")
        if sparse and a not in ("f16", "bf16"):
            raise BuildError(f"{ins.opcode}: sparse wgmma of {a} is not modelled (measured: f16)")
        return cls(n, k, acc, a, b, sparse, "SAT" in mods)

    @property
    def registers(self) -> int:
        """Accumulator registers per thread."""
        return self.n // 4 if self.acc == "f16" else self.n // 2


@step("HGMMA", "QGMMA", "IGMMA", control=True, hopper="wgmma")
def _gmma(ins: Instruction, env: Env):
    env.hopper(ins)
    shape = Shape.of(ins)
    ops = list(ins.operands)
    at = next((j for j, o in enumerate(ops) if o.kind == "gdesc"), None)
    if at not in (1, 2) or ops[0].kind != "R":
        raise BuildError(f"{ins.opcode}: expected D, [A,] gdesc[URn], C")
    desc = ops[at]
    d0, nd = ops[0].index, shape.registers
    a_regs = ops[1] if at == 2 else None
    c = operand(ins, at + 1)
    if c.kind != "R" or c.index not in (RZ, d0):
        raise BuildError(f"{ins.opcode}: C must be RZ or D")
    rest = ops[at + 2 :]
    scale_d = read(rest.pop(0), "pred") if rest and rest[0].kind in ("P", "UP") else None
    if shape.sparse:
        meta_op, selector = rest.pop(0), int(rest.pop(0).text, 0)
    neg_a = "negA" in desc.suffix or (a_regs is not None and a_regs.neg)
    neg_b = "negB" in desc.suffix
    trans_a, trans_b = "tnspA" in desc.suffix, "tnspB" in desc.suffix
    ka = shape.k // 2 if shape.sparse else shape.k
    pairs = 1 if shape.acc == "f16" else 2  # registers of a thread per 8 columns of a row
    size = SIZES[shape.a]
    a_rows, a_cols = _a_fragment(ka, size)

    def operand_values(m: Machine, slots: np.ndarray, descs: np.ndarray, count: int, k: int, kind: str, mn_major: bool,
                       transposed: bool = False, order: bool = False) -> tuple[np.ndarray, int]:
        """A shared-memory operand of each warpgroup (CTA ``slots``), ``count`` x ``k`` float64 values (``transposed``:
        k x ``count``; ``order``: the ``count`` rows in ``_columns`` order), gathered at once from the CTAs' windows as
        one run of elements, in 16-byte items where the layout allows: (groups / share, ...), each run of ``share``
        warpgroups that read the same operand given it once; and ``share``."""
        esize, window = SIZES[kind], m.shared.shape[1]
        width = window // esize
        try:
            index, share, run, across, low, high = _operands(tuple(slots.tolist()), tuple(descs.tolist()), count, k, esize, mn_major,
                                                             width, order)
        except ValueError as exc:
            raise ExecError(f"{ins.text}: {exc}", ins.pc) from None
        if low < 0 or high + esize > window:
            raise ExecError(f"{ins.text}: an operand reaches past the CTA's shared window ({window:#x} bytes: {m.window['describe']})", ins.pc)
        windows = np.ascontiguousarray(m.shared[:, : width * esize]).reshape(-1)  # a copy only for a window of odd size
        codes = items(windows, run * esize).take(index).view(f"<u{esize}")
        if across != transposed:
            codes = codes.transpose(0, 2, 1)
        return values(np.ascontiguousarray(codes), kind), share

    def sparse_a(m: Machine, first: np.ndarray, packed: np.ndarray) -> np.ndarray:
        """A's compressed K/2 columns spread to K by the metadata: row r's group q of 4 K takes columns 2q, 2q+1 at the
        indices in the nibble of the metadata word of lane 4 (r % 8) + 2 selector + q // 4 of its warp (bits 16 (r % 16 // 8)
        + 4 (q % 4) on), as mma.sp's m16n8k32 metadata (the probes' metadata is the same in every nibble)."""
        groups = np.arange(shape.k // 4)
        r, q = np.arange(64)[:, None], groups[None, :]
        lane = first[:, None, None] + (r // 16) * LANES + 4 * (r % 8) + 2 * selector + q // 4
        word = m.R[meta_op.index, lane] if meta_op.index != RZ else np.zeros(lane.shape, dtype=np.uint32)
        nibble = word >> (16 * (r % 16 // 8) + 4 * (q % 4)).astype(np.uint32) & np.uint32(0xF)
        dense = np.zeros((len(first), 64, shape.k))
        g = np.arange(len(first))[:, None, None]
        for half in (0, 1):
            index = 4 * q + (nibble >> np.uint32(2 * half) & np.uint32(3)).astype(np.int64)
            np.add.at(dense, (g, np.broadcast_to(r, index.shape), index), packed[:, :, 2 * groups + half])
        return dense

    def product(m: Machine, first: np.ndarray, da: np.ndarray, db: np.ndarray) -> np.ndarray:
        """A B^T of the warpgroups whose thread 0 are ``first``: (groups, 64, N) float64, the columns in ``_columns`` order
        but for an f16 accumulator."""
        slots = m.cta_slot[first]
        if a_regs is None:
            A, share = operand_values(m, slots, da, 64, ka, shape.a, trans_a)
            A = np.repeat(A, share, axis=0) if share > 1 else A
        else:
            words = m.R[a_regs.index : a_regs.index + 4].reshape(4, -1, THREADS)[:, first // THREADS].transpose(1, 2, 0)
            codes = words[..., None] >> (8 * size * np.arange(4 // size, dtype=np.uint32)) & np.uint32((1 << 8 * size) - 1)
            A = np.zeros((len(first), 64, ka))
            A[:, a_rows, a_cols] = values(codes, shape.a)
        if shape.sparse:
            A = sparse_a(m, first, A)
        B, share = operand_values(m, slots, db, shape.n, shape.k, shape.b, trans_b, True, shape.acc != "f16")  # B^T, (k, N)
        D = np.matmul((-A if neg_a else A).reshape(len(B), share, 64, -1), (-B if neg_b else B)[:, None])  # one product a group
        return D.reshape(len(first), 64, shape.n)

    def execute(m: Machine, groups: np.ndarray) -> None:
        """D of the warpgroups whose first warp slots are ``groups``."""
        first = groups * LANES  # each group's thread 0
        ur = (m.UR[desc.index : desc.index + 4, first] if desc.index != URZ else np.zeros((4, len(first)), dtype=np.uint32)).astype(np.uint64)
        da, db = ur[0] | ur[1] << np.uint64(32), ur[2] | ur[3] << np.uint64(32)
        if d0 != RZ:  # (ptxas leaves a wgmma whose results are never used as HGMMA RZ, gdesc[URZ], RZ: nothing to compute)
            D = product(m, first, da, db)
            regs = m.R[d0 : d0 + nd].view("V16").reshape(nd // 2 // pairs, 2, pairs, -1, 4, 8)  # ``_threads``'s layout: a view
            wgs = groups // 4
            if c.index != RZ:  # C added where the scale-d predicate holds
                scale = True if scale_d is None else scale_d(m, first)[:, None, None]
                np.add(D, _accumulator(_rows(regs[:, :, :, wgs]), shape.acc), out=D, where=True if np.all(scale) else scale)
            regs[:, :, :, wgs] = _threads(_result(D, shape), pairs)
        if m.on_gmma is not None:
            m.on_gmma(ins, groups, {"a": None if a_regs is not None else da, "b": db, "n": shape.n, "type": shape.a,
                                    "trans_a": trans_a, "trans_b": trans_b, "sparse": shape.sparse})

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        if m.warps_per_cta % 4:
            raise ExecError(f"{ins.text}: wgmma needs whole warpgroups, and the CTA has {m.warps_per_cta} warps", ins.pc)
        if (ex & ~act).any():
            raise ExecError(f"{ins.text}: every thread of the warpgroup must execute wgmma (a guard is false)", ins.pc)
        rows = ex.reshape(-1, THREADS)
        groups = np.flatnonzero(rows.any(axis=1))
        if rows[groups].all():  # every thread of each warpgroup here, none waiting at it: the MMA now, as ``done`` runs it
            execute(m, groups * 4)
            m.pc += ex
            return
        pc = int(m.pc[np.flatnonzero(ex)[0]])

        def ready(m: Machine, waiting: np.ndarray) -> np.ndarray:
            """The waiting threads whose warpgroup's threads still alive all wait here."""
            here = (m.waiting & (m.bar_id == WAIT_UNTIL) & (m.pc == pc)).reshape(-1, THREADS)
            full = here.any(axis=1) & ~(m.alive.reshape(-1, THREADS) & ~here).any(axis=1)
            return waiting & np.repeat(full, THREADS)

        def done(m: Machine, freed: np.ndarray) -> None:
            """The MMA of the warpgroups of ``freed``, once: all their threads go on (those of other waits too)."""
            groups = np.flatnonzero(freed.reshape(-1, THREADS).any(axis=1))
            members = np.zeros(m.n // THREADS, dtype=bool)
            members[groups] = True
            members = np.repeat(members, THREADS)
            if not m.alive[members].all():
                raise ExecError(f"{ins.text}: every thread of the warpgroup must execute wgmma (some exited)", ins.pc)
            execute(m, groups * 4)
            m.waiting[members] = False
            m.bar_id[members] = -1
            m.pc[members] += 1
        m.wait_until(ex.copy(), ready, done)
    return run


def _rows(regs: np.ndarray) -> np.ndarray:
    """Accumulator registers as ``_threads`` gives them, in D's layout: uint32 (groups, 64, 2 x registers)."""
    per, _, pairs, g, _, _ = regs.shape
    return np.ascontiguousarray(regs.transpose(3, 4, 1, 5, 2, 0)).view(np.uint32).reshape(g, 64, 4 * per * pairs)


def _threads(rows: np.ndarray, pairs: int) -> np.ndarray:
    """Results in D's layout, uint32 (groups, 64, 2 x registers), as the warpgroups' threads hold them: 16-byte items
    (N/8, 2, ``pairs``, groups, 4, 8), a view. Row 16 w + 8 h + r of D is thread 32 w + 4 r + q's register 2 pairs j +
    pairs h + b at column 4 (j + N/8 b) + q (``_columns``); ``pairs`` 1, an f16 accumulator: each register two columns'
    halves, columns in order (``_fragment``'s rule, by a transpose)."""
    g, _, width = rows.shape
    return rows.view("V16").reshape(g, 4, 2, 8, pairs, width // 4 // pairs).transpose(5, 2, 4, 0, 1, 3)


def _accumulator(rows: np.ndarray, acc: str) -> np.ndarray:
    """The accumulator registers in D's layout (groups, 64, columns) as elements that float64 holds exactly (f16: two
    each, (groups, 64, 2 x columns))."""
    if acc == "f32":
        return rows.view(np.float32)
    if acc == "s32":
        return rows.view(np.int32)
    return values(np.stack([rows & np.uint32(0xFFFF), rows >> np.uint32(16)], axis=-1).reshape(*rows.shape[:-1], -1), "f16")


def _result(D: np.ndarray, shape: Shape) -> np.ndarray:
    """float64 results in D's layout rounded once to the accumulator's registers, uint32 (groups, 64, registers x 2)."""
    if shape.acc == "f32":
        return ieee.canonical_nan(D.astype(np.float32)).view(np.uint32)
    if shape.acc == "s32":
        return (np.clip(D, -(2**31), 2**31 - 1) if shape.saturate else D).astype(np.int64).astype(np.uint32)
    bits = ieee.small(D, "F16")
    return bits[..., 0::2] | bits[..., 1::2] << np.uint32(16)


refuse("BGMMA", family="gmma", hopper="wgmma", why="a 1-bit wgmma (.b1, and.popc) is not modelled")
