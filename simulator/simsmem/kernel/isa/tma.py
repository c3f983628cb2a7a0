"""Hopper's asynchronous copies and the mbarriers they complete: TMA (UTMALDG, UTMASTG, multicast too), bulk copies
(UBLKCP), SYNCS (mbarrier init, arrive, expect-tx, complete-tx, phase checks, invalidate), ARRIVES (cp.async's arrive),
UTMACMDFLUSH, UTMACCTL and UTMAPF (tensor-map cache and prefetch), ELECT.

A copy completes when it is issued: its bytes move at once and it completes its mbarrier's transaction count. An
mbarrier's state (arrivals expected and still to come, transaction bytes still to come, phase) is the machine's,
keyed by CTA and shared address: the H100 shows a barrier's word as zeros to ordinary loads (calibration/realk,
hop_mbar_*), so nothing of it is kept in shared memory. ``SYNCS.PHASECHK.TRANS64.TRYWAIT`` waits for the phase to
complete (the hardware suspends the warp for a while; a copy that completes at once is always in time); without
``.TRYWAIT`` it only tests. Shared addresses of these instructions are shared::cluster addresses (the CTA's rank in
its cluster in bits 24 and up, the window offset below): an arrive (``.RED``) may reach another CTA's mbarrier, and a
multicast copy (``.MULTICAST``, the CTA mask in the high half of its last operand) lands at the same offset in every
CTA of the mask and completes each one's mbarrier at the same offset.
"""

from __future__ import annotations

import functools
import itertools

import attrs
import numpy as np

from ..machine import LANES, ExecError, Machine, any_lane
from ..memory import MemoryFault, items, windows
from ..sass import URZ, Instruction
from ..tensormap import TensorMap, TensorMapError
from . import Env, operand, refuse, step
from .operands import BuildError, lanes, pair, read, write

EXPECTED = 0x10_0000  # SYNCS.EXCH's init value: (EXPECTED - count) << 1 in the low word, << 11 in the high word


@attrs.define
class Mbarrier:
    """An mbarrier's state."""

    expected: int  # arrivals each phase waits for
    pending: int  # arrivals still to come in this phase
    tx: int = 0  # transaction bytes still to come (below zero when copies complete before their expect-tx)
    phase: int = 0  # the current phase's parity

    def arrive(self, count: int, tx: int, drop: bool = False) -> None:
        """``tx`` more bytes to come (fewer if negative: a complete-tx), then ``count`` arrivals (``drop``: this phase's and
        every later phase's expected arrivals fewer by ``count`` first, ``arrive_drop``); the phase completes once both
        are done."""
        self.tx += tx
        if drop:
            self.expected -= count
        self.pending -= count
        self.settle()

    def complete_tx(self, nbytes: int) -> None:
        self.tx -= nbytes
        self.settle()

    def settle(self) -> None:
        if self.pending <= 0 and self.tx == 0:
            self.phase ^= 1
            self.pending = self.expected

    def token(self) -> int:
        """What ``mbarrier.arrive`` returns: the phase it arrived in (bit 63), for a later test."""
        return self.phase << 63


def mbarriers(m: Machine) -> dict[tuple[int, int], Mbarrier]:
    """The machine's mbarriers: (CTA slot, shared offset) -> state."""
    if not hasattr(m, "mbarriers"):
        m.mbarriers = {}
    return m.mbarriers


def _keys(m: Machine, ix: np.ndarray, addr: np.ndarray) -> list[tuple[int, int]]:
    """Threads ``ix``'s shared::cluster addresses as (CTA slot, window offset): the keys of ``mbarriers``."""
    slots, offsets = m.shared_slots(ix, addr)
    return list(zip(np.asarray(slots).tolist(), (np.asarray(offsets, dtype=np.int64) & 0xFF_FFFF).tolist()))


def _where(m: Machine, t: int, addr: int) -> tuple[int, int]:
    """Thread ``t``'s shared::cluster address as (CTA slot, window offset)."""
    return _keys(m, np.array([t]), np.array([addr]))[0]


def _barrier(m: Machine, key: tuple[int, int], ins: Instruction) -> Mbarrier:
    bar = mbarriers(m).get(key)
    if bar is None:
        raise ExecError(f"{ins.text}: no mbarrier was initialised at shared address {key[1]:#x}"
                        + (f" of the cluster's CTA rank {int(m.rank[key[0]])}" if m.slot_of.shape[1] > 1 else ""), ins.pc)
    return bar


def _targets(m: Machine, t: int, mask: int | None) -> list[int]:
    """The CTA slots a copy of thread ``t`` writes: its own, or those of the multicast ``mask`` (cluster ranks)."""
    if mask is None:
        return [int(m.cta_slot[t])]
    ranks = [r for r in range(16) if mask >> r & 1]
    if not ranks or max(ranks) >= m.slot_of.shape[1]:
        raise MemoryFault(t, f"multicast mask {mask:#06x} names CTA ranks past the cluster's {m.slot_of.shape[1]}")
    return [int(m.slot_of[m.cluster_slot[m.cta_slot[t]], r]) for r in ranks]


def _leaders(m: Machine, act: np.ndarray) -> np.ndarray:
    """One thread of each warp with a thread in ``act`` (the lowest): where a uniform instruction reads its URs."""
    warps = any_lane(act).nonzero()[0]
    return warps * LANES + act.reshape(-1, LANES)[warps].argmax(axis=1)


def _guarded_off(m: Machine, ex: np.ndarray, act: np.ndarray) -> np.ndarray:
    """One thread of each warp that executes the instruction with its guard false in every lane: ncu's warp-level
    counters count such an execution, the SASS-level ones do not (H200, runs/2026-11-29-hopper-ws, tmap_by_pointer)."""
    off = (any_lane(ex) & ~any_lane(act)).nonzero()[0]
    return off * LANES + ex.reshape(-1, LANES)[off].argmax(axis=1)


def _uniform(ins: Instruction, k: int) -> int:
    op = operand(ins, k)
    if op.kind != "mem" or len(op.terms) != 1 or op.terms[0].kind != "UR":
        raise BuildError(f"operand {k} of {ins.opcode} is not [URn]")
    return op.terms[0].index


def _shared_bytes(m: Machine, t: int, addr: np.ndarray, what: str, size: int = 1) -> np.ndarray:
    """Check that ``size`` bytes from each shared window offset ``addr`` of thread ``t``'s CTA lie in the window;
    returns the offsets as int64."""
    addr, window = np.asarray(addr, dtype=np.int64), m.shared.shape[1]
    if len(addr) and (addr.min() < 0 or addr.max() + size > window):
        first = int(addr[(addr < 0) | (addr + size > window)][0])
        bad = first if first < 0 else max(first, window)  # its first byte outside
        raise MemoryFault(t, f"{what} reaches shared offset {bad:#x}, outside the CTA's {window} bytes")
    return addr


def _tensor_map(m: Machine, regs: list[int], file_index: int, ins: Instruction) -> TensorMap:
    """The tensor map at the generic address in uniform registers ``file_index``, ``file_index + 1`` of ``regs`` (a
    parameter's, or one in global memory), as the driver lays them out (``tensormap``)."""
    address = regs[file_index] | regs[file_index + 1] << 32 if file_index != URZ else 0
    try:
        return _decode(m.memory.span(address, 128))
    except TensorMapError as exc:
        raise ExecError(f"{ins.text}: the tensor map at {address:#x}: {exc}", ins.pc) from None


_decode = functools.lru_cache(maxsize=64)(TensorMap.decode)  # a kernel's few maps, each read at every copy


@functools.lru_cache(maxsize=1024)
def _box(tmap: TensorMap, coords: tuple[int, ...], smem: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, int, int, int]:
    """The box at ``coords`` landing at ``smem`` (``TensorMap.box_layout``) as a copy moves it: the global addresses of its
    pieces inside the tensor, which pieces those are (None: all), every piece's shared address, the piece bytes, the
    least shared address and the greatest piece's end; kept, read-only, as a grid's CTAs copy the same boxes."""
    offset, inside, shared, piece = tmap.box_layout(coords, smem)
    whole = bool(inside.all())
    gaddr = np.uint64(tmap.address) + (offset if whole else offset[inside]).astype(np.uint64)
    gaddr.flags.writeable = inside.flags.writeable = False
    low, end = (int(shared.min()), int(shared.max()) + piece) if len(shared) else (0, 0)
    return gaddr, None if whole else inside, shared, piece, low, end


def _report(m: Machine, ins: Instruction, copies: list[tuple[int, dict]]) -> None:
    """Tell ``on_copy`` of a step's copies at once, each (its leader thread, what it did), in order."""
    if copies and getattr(m, "on_copy", None) is not None:
        m.on_copy(ins, np.array([t for t, _ in copies]) // LANES, [info for _, info in copies])


def _mask_of(ins: Instruction, k: int) -> int | None:
    """A ``.MULTICAST`` copy's uniform register holding its CTA mask in the high half (None: not multicast)."""
    if "MULTICAST" not in ins.mods:
        return None
    op = operand(ins, k)
    if op.kind != "UR":
        raise BuildError(f"{ins.opcode}: operand {k} (the CTA mask) is not a uniform register")
    return op.index


def _land(m: Machine, loads: list[tuple]) -> None:
    """TMA loads of one piece size, each (leader thread, global addresses of the pieces inside the tensor, which are
    inside (None: all), shared addresses, CTA slots to write, piece bytes), in order: one gather from global memory
    and one scatter into shared memory for them all; pieces outside the tensor land as zeros."""
    piece = loads[0][5]
    counts = [len(shared) for _, _, _, shared, _, _ in loads]
    try:
        data = m.memory.load(np.concatenate([g for _, g, _, _, _, _ in loads]), piece)
    except MemoryFault as fault:  # its lane is a piece: the thread is its copy's leader
        owner = np.repeat([t for t, *_ in loads], [len(g) for _, g, _, _, _, _ in loads])
        raise MemoryFault(int(owner[fault.lane]), fault.what) from None
    if any(inside is not None for _, _, inside, _, _, _ in loads):
        full = np.zeros((sum(counts), piece), dtype=np.uint8)
        full[np.concatenate([np.ones(n, dtype=bool) if inside is None else inside for n, (_, _, inside, _, _, _) in zip(counts, loads)])] = data
        data = full
    if any(len(targets) > 1 for _, _, _, _, targets, _ in loads):  # multicast: a copy's pieces again for each CTA
        starts = np.cumsum([0] + counts[:-1])
        data = np.concatenate([data[s : s + n] for s, n, (_, _, _, _, targets, _) in zip(starts, counts, loads) for _ in targets])
    window = m.shared.shape[1]
    at = np.concatenate([shared + cta * window for _, _, _, shared, targets, _ in loads for cta in targets])  # in all CTAs' windows
    if int(np.bitwise_or.reduce(at)) % piece:  # pieces off their alignment: byte windows
        windows(m.shared.reshape(-1), piece)[at] = data
    else:  # in order: a later copy's bytes win
        items(m.shared.reshape(-1), piece)[at // piece] = items(data, piece)[:, 0]


@step("UTMALDG", control=True, hopper="TMA (cp.async.bulk.tensor)")
@step("UTMASTG", hopper="TMA (cp.async.bulk.tensor)")
def _utma(ins: Instruction, env: Env):
    rank = int(ins.mods[0][0]) if ins.mods and ins.mods[0][:1].isdigit() else 0
    if not 1 <= rank <= 5 or "IM2COL" in ins.mods:
        raise BuildError(f"{ins.opcode}: only tiled 1D-5D copies are modelled (im2col is not)")
    first, tmap_reg = _uniform(ins, 0), _uniform(ins, 1)
    load = ins.name == "UTMALDG"
    mask_reg = _mask_of(ins, 2)

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        landing: list[tuple] = []  # the loads, moved together once their checks are done
        copies: list[tuple[int, dict]] = []
        leaders = _leaders(m, act)
        for t, regs in zip(leaders.tolist(), m.UR[:, leaders].T.tolist()):  # (each leader's uniform registers)
            tmap = _tensor_map(m, regs, tmap_reg, ins)
            if tmap.rank != rank:
                raise ExecError(f"{ins.text}: a {rank}D copy of a {tmap.rank}D tensor map", ins.pc)
            smem = regs[first] & 0xFF_FFFF
            coords = tuple((regs[first + (2 if load else 1) + d] ^ 0x8000_0000) - 0x8000_0000 for d in range(rank))  # signed
            if coords[0] * tmap.elem % 16:
                raise ExecError(f"{ins.text}: the box starts {coords[0]} elements ({coords[0] * tmap.elem} bytes) into its rows: TMA needs a "
                                "multiple of 16 bytes (the H200 stops with an illegal instruction)", ins.pc)
            gaddr, inside, shared, piece, low, end = _box(tmap, coords, smem)
            if low < 0 or end > m.shared.shape[1]:
                _shared_bytes(m, t, shared, ins.text, piece)  # (which says where)
            if load:
                bar = int(regs[first + 1]) & 0xFF_FFFF
                targets = _targets(m, t, None if mask_reg is None else int(regs[mask_reg]) >> 16)
                landing.append((t, gaddr, inside, shared, targets, piece))
                bars, nbytes = mbarriers(m), tmap.box_bytes
                for cta in targets:
                    if (cta, bar) not in bars:
                        raise ExecError(f"{ins.text}: no mbarrier was initialised at shared address {bar:#x}", ins.pc)
                    bars[(cta, bar)].complete_tx(nbytes)
            elif len(gaddr):
                m.memory.store(gaddr, windows(m.shared[int(m.cta_slot[t])], piece)[shared if inside is None else shared[inside]])
            copies.append((t, {"kind": "tma", "dir": "load" if load else "store", "smem": smem, "box": tmap.box, "elem": tmap.elem,
                               "swizzle": tmap.swizzle, "bytes": tmap.box_bytes if load else len(gaddr) * piece}))
        for _, loads in itertools.groupby(landing, key=lambda c: c[5]):  # runs of loads of one piece size, in order
            _land(m, list(loads))
        copies += [(t, {"kind": "tma", "dir": "load" if load else "store", "off": True}) for t in _guarded_off(m, ex, act)]
        _report(m, ins, copies)
        m.release()
        m.pc += ex
    return run


@step("UBLKCP", control=True, hopper="cp.async.bulk")
def _ublkcp(ins: Instruction, env: Env):
    """``cp.async.bulk``: ``.S.G`` global to shared memory (``.MULTICAST``: to every CTA of the mask), ``.G.S`` shared to
    global memory, ``.S.S`` shared memory of this CTA to (maybe) another CTA's of the cluster, completing the mbarrier
    beside the destination."""
    if ins.mods[:2] not in (("S", "G"), ("G", "S"), ("S", "S")):
        raise BuildError(f"{ins.opcode}: only UBLKCP.S.G, .G.S and .S.S are modelled")
    into, out = ins.mods[0] == "S", ins.mods[1] == "S"
    dst, src = _uniform(ins, 0), _uniform(ins, 1)
    size = operand(ins, 2)
    if size.kind != "UR":
        raise BuildError(f"{ins.opcode}: the size is not a uniform register")
    multicast = "MULTICAST" in ins.mods

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        copies: list[tuple[int, dict]] = []
        for t in _leaders(m, act):
            regs = m.UR[:, t]
            n = 16 * (int(regs[size.index]) & 0xFFFF)  # 16-byte units in the low half
            if out:
                data = m.shared[int(m.cta_slot[t]), _shared_bytes(m, t, (int(regs[src]) & 0xFF_FFFF) + np.arange(n), ins.text)]
            else:
                data = m.memory.load(np.uint64(int(pair(m, "UR", src, np.array([t]))[0])) + np.arange(n, dtype=np.uint64), 1).reshape(-1)
            if into:
                smem = int(regs[dst])
                if multicast:
                    ctas = _targets(m, t, int(regs[size.index]) >> 16)
                else:
                    ctas = [_where(m, t, smem)[0]]
                bar = int(regs[dst + 1]) & 0xFF_FFFF
                for cta in ctas:
                    m.shared[cta, _shared_bytes(m, t, (smem & 0xFF_FFFF) + np.arange(n), ins.text)] = data
                    bars = mbarriers(m)
                    if (cta, bar) not in bars:
                        raise ExecError(f"{ins.text}: no mbarrier was initialised at shared address {bar:#x}", ins.pc)
                    bars[(cta, bar)].complete_tx(n)
            elif n:
                m.memory.store(np.uint64(int(pair(m, "UR", dst, np.array([t]))[0])) + np.arange(n, dtype=np.uint64), data.reshape(-1, 1))
            copies.append((t, {"kind": "bulk", "dir": "load" if into else "store", "smem": int(regs[dst if into else src]) & 0xFF_FFFF,
                               "bytes": n}))
        copies += [(t, {"kind": "bulk", "dir": "load" if into else "store", "off": True}) for t in _guarded_off(m, ex, act)]
        _report(m, ins, copies)
        m.release()
        m.pc += ex
    return run


@step("UTMACMDFLUSH", "UTMACCTL", "UTMAPF", hopper="TMA (cp.async.bulk.tensor)")
@step("UBLKPF", hopper="cp.async.bulk")
def _hint(ins: Instruction, env: Env):
    """Nothing to do: the copies UTMACMDFLUSH pushes out are done already; UTMACCTL.PF / .IV prefetch and invalidate the
    tensor-map cache (simsmem reads every map from memory when a copy uses it); UTMAPF / UBLKPF prefetch into the L2."""
    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        m.pc += ex
    return run


#: ``SYNCS.ARRIVE.TRANS64``'s forms: (arrivals, sign of the transaction bytes of its last operand); None: that operand.
#: A0T1 (before cp.async's ``ARRIVES.LDGSTSBAR.64.TRANSCNT``) takes an arrival back, one more to wait for.
ARRIVALS = {"": (1, 1), "A1T0": (1, 0), "A0TR": (0, 1), "A0TX": (0, -1), "ART0": (None, 0), "A0T1": (-1, 0)}


@step("SYNCS", control=True, hopper="mbarrier")
def _syncs(ins: Instruction, env: Env):
    """The mbarrier operations: ``.EXCH.64`` (init), ``.ARRIVE.TRANS64[.RED][.OPTOUT]`` with ``ARRIVALS``' forms (arrive,
    arrive with expect-tx, expect-tx, complete-tx, arrive with a count; ``.RED``: no state back, the barrier may be
    another CTA's; ``.OPTOUT``: ``arrive_drop``), ``.PHASECHK.TRANS64[.TRYWAIT]`` (test or wait for a phase), ``.CCTL.IV``
    (invalidate)."""
    mods = ins.mods
    kind = mods[0] if mods else ""
    if kind == "CCTL":
        addr = _address(operand(ins, 0))

        def inval(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
            ix = np.flatnonzero(act)
            for t, at in zip(ix, addr(m, ix)):
                mbarriers(m).pop(_where(m, int(t), int(at)), None)
            m.pc += ex
        return inval
    where = operand(ins, 1)
    if where.kind != "mem":
        raise BuildError(f"{ins.opcode}: operand 1 is not an address")
    addr = _address(where)
    if kind == "EXCH" and "64" in mods:
        value = read(operand(ins, 2), "u64")
        old = write(operand(ins, 0), "u64")

        def exch(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
            ix = np.flatnonzero(act)
            if len(ix):
                a, v = addr(m, ix), lanes(np.asarray(value(m, ix), dtype=np.uint64), len(ix))
                for t, at, word in zip(ix, a, v):
                    count = EXPECTED - ((int(word) >> 1) & (EXPECTED - 1))
                    mbarriers(m)[_where(m, int(t), int(at))] = Mbarrier(count, count)
                old(m, ix, np.zeros(len(ix), dtype=np.uint64))
            m.pc += ex
        return exch
    if kind == "ARRIVE":
        form = next((x for x in mods if x in ARRIVALS), "")
        if any(x not in ("ARRIVE", "TRANS64", "RED", "OPTOUT", form) for x in mods):
            raise BuildError(f"{ins.opcode}: this SYNCS.ARRIVE form is not modelled")
        arrivals, sign = ARRIVALS[form]
        drop = "OPTOUT" in mods
        amount = read(operand(ins, 2), "u32") if arrivals is None or sign else None
        token = write(operand(ins, 0), "u64")

        def arrive(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
            ix = np.flatnonzero(act)
            if len(ix):
                a = addr(m, ix)
                b = lanes(np.asarray(amount(m, ix)).astype(np.int64), len(ix)) if amount is not None else np.zeros(len(ix), np.int64)
                before = np.zeros(len(ix), dtype=np.uint64)
                for k, key in enumerate(_keys(m, ix, a)):
                    bar = _barrier(m, key, ins)
                    before[k] = bar.token()
                    bar.arrive(int(b[k]) if arrivals is None else arrivals, sign * int(b[k]), drop)
                token(m, ix, before)
            m.release()
            m.pc += ex
        return arrive
    if kind == "PHASECHK":
        dest, parity = operand(ins, 0), read(operand(ins, 2), "u32")
        out = write(dest, "pred")
        suspend = "TRYWAIT" in mods

        def named(m: Machine, ix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            """The mbarriers threads ``ix`` name, one a run of threads that name one (CTA slot << 24 | offset), where
            the runs start, and the phase parity each thread names."""
            p = lanes(np.asarray(parity(m, ix)).astype(np.uint32) >> np.uint32(31), len(ix))
            slots, offsets = m.shared_slots(ix, addr(m, ix))
            key = np.asarray(slots, dtype=np.int64) << 24 | (np.asarray(offsets, dtype=np.int64) & 0xFF_FFFF)
            starts = np.flatnonzero(np.diff(key, prepend=key[:1] - 1))
            return key[starts], starts, p

        def done_for(m: Machine, keys: np.ndarray, starts: np.ndarray, p: np.ndarray, live: np.ndarray | None = None) -> np.ndarray:
            """Whether the phase each thread ``named`` names is complete (each run's mbarrier looked up once); ``live``:
            only for those threads (the others False, their runs' mbarriers not looked up)."""
            asked = np.logical_or.reduceat(live, starts).tolist() if live is not None else [True] * len(keys)
            phase = np.array([_barrier(m, (b >> 24, b & 0xFF_FFFF), ins).phase if a else 0 for b, a in zip(keys.tolist(), asked)],
                             dtype=np.uint32)
            done = np.repeat(phase, np.diff(starts, append=len(p))) != p
            return done if live is None else done & live

        def check(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
            ix = np.flatnonzero(act)
            if len(ix):
                named_ix = named(m, ix)
                ok = done_for(m, *named_ix)
                out(m, ix, ok)
            go = ex.copy()
            if suspend and len(ix) and not ok.all():
                wait = np.zeros(m.n, dtype=bool)
                wait[ix[~ok]] = True
                go &= ~wait

                def ready(m: Machine, waiting: np.ndarray) -> np.ndarray:
                    """The waiting threads whose phase is complete (the threads' mbarriers and phases as they named them
                    here: a waiting thread's registers stay as they are)."""
                    live = waiting[ix]
                    r = np.zeros(m.n, dtype=bool)
                    r[ix] = done_for(m, *named_ix, live)
                    return r

                def finish(m: Machine, freed: np.ndarray) -> None:
                    f = np.flatnonzero(freed)
                    out(m, f, np.ones(len(f), dtype=bool))
                    m.pc[freed] += 1
                m.pc[go] += 1
                m.wait_until(wait, ready, finish)
                return
            m.pc[go] += 1
        return check
    raise BuildError(f"{ins.opcode}: this SYNCS form is not modelled")


@step("ARRIVES", control=True, hopper="mbarrier")
def _arrives(ins: Instruction, env: Env):
    """``cp.async.mbarrier.arrive``: ``ARRIVES.LDGSTSBAR.64.ARVCNT`` (``.noinc``) and ``.TRANSCNT`` (without; ptxas puts a
    ``SYNCS.ARRIVE.TRANS64.RED.A0T1`` before it, one more arrival to wait for) arrive once per thread when the thread's
    earlier cp.async copies are done, which in simsmem they are."""
    if "LDGSTSBAR" not in ins.mods or not {"ARVCNT", "TRANSCNT"} & set(ins.mods):
        raise BuildError(f"{ins.opcode}: this ARRIVES form is not modelled")
    addr = _address(operand(ins, 0))

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        ix = np.flatnonzero(act)
        for key in _keys(m, ix, addr(m, ix)):
            _barrier(m, key, ins).arrive(1, 0)
        m.release()
        m.pc += ex
    return run


def _address(op) -> callable:
    """A [UR + R + imm] shared::cluster address as a function of the threads."""
    if op.kind != "mem":
        raise BuildError(f"{op.text} is not an address")
    terms = [read(t, "u32") for t in op.terms]
    offset = op.offset

    def f(m: Machine, ix: np.ndarray) -> np.ndarray:
        a = np.full(len(ix), offset, dtype=np.int64)
        for term in terms:
            a = a + lanes(np.asarray(term(m, ix)).astype(np.int64), len(ix))
        return a & 0xFFFF_FFFF
    return f


@step("ELECT")
def _elect(ins: Instruction, env: Env):
    pred, ureg = operand(ins, 0), operand(ins, 1)
    mask = read(operand(ins, 2), "pred")
    out = write(pred, "pred")
    lane_out = write(ureg, "u32")

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        ix = np.flatnonzero(act)
        if len(ix):
            cand = np.zeros(m.n, dtype=bool)
            cand[ix] = lanes(np.asarray(mask(m, ix)), len(ix))
            rows = cand.reshape(-1, LANES)
            leader = rows.argmax(axis=1)
            has = rows.any(axis=1)
            chosen = np.zeros((m.n // LANES, LANES), dtype=bool)
            chosen[np.flatnonzero(has), leader[has]] = True
            out(m, ix, chosen.reshape(-1)[ix])
            lane_out(m, ix, leader[ix // LANES].astype(np.uint32))
        m.pc += ex
    return run


refuse("UBLKRED", family="tma", hopper="cp.reduce.async.bulk", why="a bulk reduction into global memory is not modelled")
refuse("UTMAREDG", family="tma", hopper="TMA reduction (cp.reduce.async.bulk.tensor)", why="a TMA reduction is not modelled")
