"""One SM running the CTAs a launch gives it, cycle by cycle: the warps' instructions as the SASS control codes,
the pipes, the scoreboards, barriers, the shared-memory data path and global memory allow.

Each sub-partition's scheduler issues at most one instruction a cycle, from a warp that is ready: its previous
instruction's stall count has passed, the scoreboards its instruction waits on are released, its pipe is free
and, for a memory instruction, its queue has room. It keeps issuing from the warp it issued last while that warp
is ready (greedy), and otherwise takes the youngest ready warp (Huerta et al., MICRO 2025: "greedy then
youngest"). An instruction that sets a write scoreboard releases it when its result is ready: a shared-memory
instruction after its wavefronts pass the data path (one a cycle for the SM, the loads of global memory coming
back through it too), a global load when its sectors are back (``memory.MemorySystem``), others after their
kind's latency. Fixed-latency results need nothing: ptxas's stall counts already wait for them.

Every cycle a resident warp does not issue is put down to one stall reason, under ncu's names: ``wait`` (the stall
count), ``short_scoreboard``/``long_scoreboard`` (a scoreboard of an MIO or of an L1TEX instruction),
``barrier``, ``branch_resolving`` (after a branch), ``no_instruction`` (the instruction cache: a line's first fetch,
the fetch at a taken branch's target), ``imc_miss`` (the constant cache, at an operand's first use of a line),
``mio_throttle``/``lg_throttle``/``math_pipe_throttle`` (a queue or pipe was full), ``membar``, ``misc`` (a global
load while its warp has ``SM.warp_loads`` in flight), ``drain`` (after EXIT), and ``not_selected`` (ready, but another
warp issued); the issuing cycle is ``selected``.

Spin loops: the trace holds each loop's check passing once (the tracer waits for what it checks), where the GPU may run
the loop again. A warp whose check fails here issues one more trip of the loop as the code has it (``_loop``), its
instructions taking issue slots and stall cycles like any other, and counted apart (``SMRun.spins``): setmaxnreg's
``USETMAXREG.TRY_ALLOC`` fails while its CTA's register pool (what the CTA's ``USETMAXREG.DEALLOC`` gave back) lacks
the registers it asks for, and a try_wait fails when its phase completes more than ``SM.trywait_timeout`` cycles after
its issue (None: never).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import bisect
import math

import attrs
import numpy as np
import simpy

from ..config import SM, ArchConfig
from ..kernel.isa.memory import width
from .memory import MemorySystem
from .ops import OpTiming, kind_of

if TYPE_CHECKING:
    from ..kernel.streams import WarpStreams

#: ncu's warp stall reasons the model gives (``smsp__warps_issue_stalled_<reason>``), in the order they are checked.
REASONS = ("selected", "wait", "branch_resolving", "no_instruction", "imc_miss", "short_scoreboard", "long_scoreboard", "barrier",
           "membar", "misc", "mio_throttle", "lg_throttle", "math_pipe_throttle", "not_selected", "drain")
_R = {r: k for k, r in enumerate(REASONS)}
_LONG = frozenset({"load", "store", "atomic", "copy", "commit"})
#: Pipes an issued instruction of which waits in a queue for the pipe rather than holding its warp: a wgmma for the tensor
#: pipe; in the MIO queue (ncu: mio_throttle, not math_pipe_throttle, once it is full) MUFU and the other XU instructions,
#: S2R (``s2r``) and LDC (``ldc``), each holding its queue entry until its unit takes it (``_MIO_HELD``)
_MIO_HELD = frozenset({"mufu", "s2r", "ldc"})
_QUEUED = _MIO_HELD | {"gmma"}
#: Kinds whose issue does more than take their pipe and, where they set a scoreboard, release it after their latency (``SMModel._act``)
_ACTS = frozenset({"shared", "shuffle", "load", "store", "atomic", "copy", "commit", "gmma", "cluster_arrive", "expect", "tma", "tma_store",
                   "mbarrier_wait", "regalloc", "regfree"})
NEVER = float("inf")
#: The scoreboards each 6-bit wait mask of a control code names.
_WAITS = tuple(tuple(b for b in range(6) if mask >> b & 1) for mask in range(64))
#: Instructions that may leave straight code; the most instructions a spin loop's trip may take to its check (and as many
#: after it), and the most trips a warp's spin loops may add, on average, before the timed SM stops adding them.
JUMPS = frozenset({"BRA", "BRX", "JMP", "JMX", "CALL", "RET", "EXIT", "BREAK", "KILL"})
LOOP = 8
MAX_TRIPS = 1000


@attrs.frozen
class SMRun:
    """What one SM did: cycles from its first CTA's start to its last warp's retirement (``active``), each
    sub-partition's cycles with a warp resident, the stall cycles of its warps by reason (summed over warps), the same
    per SASS instruction (``by_pc[pc][reason]``), its CTAs and warps, the instructions it issued, and the global sectors
    by where they came from."""

    active: int
    sp_active: tuple[int, ...]
    stalls: dict[str, int]
    by_pc: dict[int, dict[str, int]]
    ctas: int
    warps: int
    issued: int
    sectors: dict[str, int]
    occupancy: int  # CTAs resident at once
    notes: tuple[str, ...] = ()  # what the model had to assume
    store_clashes: float = 0.0  # the store wavefronts that vary run to run: .cg copies writing beside shared stores (``SM.cg_store_clash`` a
    # line) and shared stores whose warp a branch splits right after (``SM.split_store`` each)
    spins: dict[str, int] = attrs.field(factory=dict)  # warp-instructions of spin loops' further trips, which the trace's execution
    # (each check passing once) has not: by loop ("setmaxnreg": USETMAXREG.TRY_ALLOC refused; "try_wait": a try_wait timed out)
    samples: dict[int, dict[str, float]] = attrs.field(factory=dict)  # ``SMModel(sampling=True)``: per SASS instruction, the warp
    # states ncu's sampler would take (``SAMPLE_INTERVAL``)
    end: int = 0  # cycles from its first CTA's start to its last warp's retirement, the gaps with no CTA resident included


#: ncu's warp-state sampling (the Source page's "Warp Stall Sampling"): every this many cycles (``--warp-sampling-interval
#: 0``, its shortest) the SM's sampler takes one of its active warps, each alike, with the instruction it is at and its state.
SAMPLE_INTERVAL = 32


def occupancy(sm: SM, arch: ArchConfig, warps_per_cta: int, registers: int, shared: int) -> int:
    """CTAs an SM holds at once: by warps, CTAs, registers (``register_unit`` per thread) and shared memory."""
    limits = [sm.max_ctas, sm.max_warps // max(1, warps_per_cta)]
    if registers:
        per_warp = -(-registers // sm.register_unit) * sm.register_unit * 32
        limits.append(sm.registers // (per_warp * warps_per_cta))
    if shared:
        limits.append(arch.shared_memory_per_sm // shared)
    return max(1, min(limits))


class _Static:
    """Per code index: what the SM needs of the instruction, decoded once."""

    def __init__(self, streams: WarpStreams, arch: ArchConfig) -> None:
        sm = arch.sm
        self.kind: list[str] = []
        self.pipe: list[str] = []
        self.interval: list[int] = []
        self.stall: list[int] = []
        self.write: list[int | None] = []
        self.read: list[int | None] = []
        self.wait: list[tuple[int, ...]] = []
        self.depbar: list[tuple[tuple[int, int], ...] | None] = []
        self.latency: list[int] = []
        self.cache: list[bool] = []
        self.store: list[bool] = []
        self.width: list[int] = []  # bytes a thread a global memory instruction accesses
        self.bypass: list[bool] = []  # LDGSTS.E.BYPASS (cp.async .cg)
        self.fence: list[str] = []  # a MEMBAR's scope: "gpu" (GPU or system: beyond the CTA, or a cluster barrier's release), "cta"; else ""
        self.bar_warps: list[int] = []
        self.defers: list[bool] = []  # a BAR.SYNC.DEFER_BLOCKING: its warp goes on issuing ``deferred`` instructions until the barrier lets it go
        self.deferred: list[bool] = []  # an ALU instruction but UMOV (vector or uniform: not a branch, a memory access or a wait)
        self.constants: list[tuple[tuple[int, int], ...]] = []  # the 64-byte constant-bank lines of its operands
        self.gsb: list[bool] = []  # a wgmma that closes a group (``gsb0``)
        self.spin: list[str | None] = []  # the check of a spin loop: "try_wait" (SYNCS.PHASECHK...TRYWAIT), "setmaxnreg" (USETMAXREG.TRY_ALLOC)
        self.regs: list[int] = []  # USETMAXREG's register count
        self.target: list[int | None] = []  # a BRA's target (code index)
        self.a_regs: list[bool] = []  # a wgmma whose A is in registers
        for ins, c in zip(streams.code, streams.control):
            name, mods = ins.name, set(ins.mods)
            t: OpTiming = kind_of(ins)
            self.kind.append(t.kind)
            self.pipe.append(t.pipe)
            self.interval.append(max(1, round(t.size if t.kind == "gmma" else sm.pipes.get(t.pipe, 1) * t.size)))
            self.gsb.append(t.kind == "gmma" and any(op.text == "gsb0" for op in ins.operands))
            self.a_regs.append(t.kind == "gmma" and any(op.kind == "R" for op in ins.operands[1:2]))
            self.stall.append(max(1, c.stall))
            self.write.append(c.write)
            self.read.append(c.read)
            self.wait.append(_WAITS[c.wait])
            self.depbar.append(_depbars(ins) if t.kind == "depbar" else None)
            self.latency.append(_latency(ins, t, arch))
            self.cache.append(not mods & {"STRONG", "VOLATILE", "MMIO", "CG", "BYPASS"})
            self.store.append(name in ("STS", "STSM"))
            self.width.append(width(ins)[0])
            self.bypass.append(name == "LDGSTS" and "BYPASS" in mods)
            self.fence.append("" if name != "MEMBAR" else "gpu" if {"GPU", "SYS"} & mods else "cta")
            self.bar_warps.append(_bar_warps(ins))
            self.defers.append(t.kind == "barrier" and "DEFER_BLOCKING" in mods)
            self.deferred.append(t.kind == "alu" and name != "UMOV")
            self.constants.append(tuple({(op.bank, op.offset // 64) for op in ins.operands if op.kind == "c" and not op.terms}))
            self.spin.append("try_wait" if t.kind == "mbarrier_wait" and "TRYWAIT" in mods else "setmaxnreg" if t.kind == "regalloc" else None)
            self.regs.append(next((int(op.text, 0) for op in ins.operands if op.kind == "imm"), 0) if name == "USETMAXREG" else 0)
            self.target.append(next((int(op.text, 0) // 16 for op in ins.operands if op.kind in ("label", "imm")), None)
                               if name == "BRA" else None)
        self.frees = np.array([kind == "regfree" for kind in self.kind], bool)  # USETMAXREG.DEALLOC


def _depbar(ins) -> tuple[int, int]:
    """``DEPBAR.LE SBk, n``: (k, n); other forms wait for every scoreboard they name to be released."""
    sb = next((op.index for op in ins.operands if op.kind == "SB"), 0)
    n = next((int(op.text, 0) for op in ins.operands if op.kind == "imm"), 0)
    return sb, n


def _depbars(ins) -> tuple[tuple[int, int], ...]:
    """What a ``DEPBAR`` waits for: (scoreboard, entries it may leave pending) pairs; ``DEPBAR {5,4,3}`` waits for each set member."""
    named = next((op for op in ins.operands if op.kind == "SBSET"), None)
    return tuple((op.index, 0) for op in named.terms) if named is not None else (_depbar(ins),)


def _bar_warps(ins) -> int:
    """The warps a ``BAR`` waits for: its thread count's (0: the whole CTA)."""
    if ins.name != "BAR" or len(ins.operands) < 2 or ins.operands[1].kind != "imm":
        return 0
    return -(-int(ins.operands[1].text, 0) // 32)


def _latency(ins, t: OpTiming, arch: ArchConfig) -> int:
    sm = arch.sm
    if t.kind == "shared":
        spec = arch.ops.get(ins.name)
        if spec is None or not spec.latency:
            return sm.latency["shuffle"]
        width = next((int(m) for m in ins.mods if m.isdigit()), None)
        width = width or (8 if any(m in ("U8", "S8") for m in ins.mods) else 16 if any(m in ("U16", "S16") for m in ins.mods) else 32)
        return spec.latency.get(width, next(iter(spec.latency.values())))
    if t.kind in sm.latency:
        return sm.latency[t.kind]
    return sm.latency["other"]


class _Warp:
    __slots__ = ("cta", "slot", "sp", "pcs", "rows", "secs", "threads", "pos", "ready", "reason", "stall_end", "branch_end", "fetch_end", "imc_end", "last", "sb", "sb_long",
                 "copies", "stores", "feed", "bar", "start", "retire", "stalls", "throttle", "throttle_reason", "gmma_open", "gmma_groups",
                 "expects", "waits", "regs", "again", "spin", "loads", "acked", "hold", "hold_reason", "cga", "bar_at", "shared_stored")

    def __init__(self, cta: int, slot: int, sp: int, pcs, rows, secs, start: int) -> None:
        self.cta, self.slot, self.sp = cta, slot, sp
        self.throttle, self.throttle_reason = 0.0, "not_selected"  # when its pipe or queue had room, and what was full
        self.pcs, self.rows, self.secs = pcs, rows, secs
        self.pos = 0
        self.start = start
        self.last = start - 1  # the cycle it issued last
        self.stall_end = start  # the first cycle its next instruction may issue, by stall count
        self.branch_end = start
        self.fetch_end = start  # ... by the instruction cache
        self.imc_end = start  # ... by the constant cache
        self.ready = float(start)  # ... by stall count, scoreboards and barrier
        self.reason = "not_selected"  # why it waits for ``ready`` past the stall count
        self.sb: list[list[float]] = [[] for _ in range(6)]
        self.sb_long = [False] * 6
        self.copies: list[float] = []  # LDGSTS (or TMA stores) not yet committed to a group: their completions
        self.gmma_open = 0.0  # the wgmmas since the last group closed: when the last completes
        self.gmma_groups: list[float] = []  # each closed wgmma group's completion
        self.expects = 0  # mbarrier arrives expecting copies (SYNCS.ARRIVE.TRANS64) the warp made
        self.waits = 0  # mbarrier waits (SYNCS.PHASECHK) the warp made
        self.again = False  # its next SYNCS.PHASECHK repeats the wait that timed out (the same phase)
        self.spin: tuple | None = None  # a try_wait issued before its copies: (its loop's branch, the trip to add, its [deadline, release])
        self.regs = 0  # its registers a thread (setmaxnreg changes them)
        self.loads: list[float] = []  # when each global load it issued is back (those in flight: later than now)
        self.stores = 0.0
        self.threads: list[int] | None = None  # how many of its threads executed each instruction (None: all)
        self.acked = 0.0  # when L2 has acknowledged its global stores and atomics
        self.shared_stored = -NEVER  # when its last shared store passed the data path
        self.feed = 0.0  # the first cycle its next shared-memory wavefront may reach the data path (``feed_interval`` after its last)
        self.bar = False  # at a barrier that has not let it go yet
        self.bar_at = 0  # when it arrived at that barrier
        self.hold, self.hold_reason = 0.0, ""  # what a DEPBAR or MEMBAR it issued holds its next instruction for
        self.cga = 0  # the cluster barrier arrivals (UCGABAR_ARV) it made
        self.retire = NEVER
        self.stalls = [0] * len(REASONS)


class SMModel:
    """One SM of ``arch`` running ``streams``' CTAs (those of one SM), with the trace rows' ``wavefronts``; ``share``: SMs
    sharing DRAM; ``sizes``: the trace rows' ``size`` (a TMA copy's bytes); ``registers``: a thread's registers at launch
    (0: not known, and setmaxnreg's TRY_ALLOC never waits); ``sampling``: also the warp states ncu's sampler would take;
    ``spells``: the SM meets DRAM's slow spells (``memory.MemorySystem``)."""

    def __init__(self, streams: WarpStreams, arch: ArchConfig, wavefronts: np.ndarray, resident: int, share: int,
                 sizes: np.ndarray | None = None, registers: int = 0, sampling: bool = False, spells: bool = False) -> None:
        if arch.sm is None:
            raise ValueError(f"{arch.name} has no SM timing numbers")
        self.arch, self.sm, self.timing = arch, arch.sm, arch.timing
        self.streams = streams
        self.static = _Static(streams, arch)
        self.wavefronts = wavefronts
        self.resident = resident
        self.memory = MemorySystem(self.sm.memory, self.sm.memory.l1_bytes, share, spells)
        # a constant-bank line's first fill: the SMs that start the launch together ask L2 for the same lines, and the
        # launch's last SM (its sm__cycles_active.max) waits for the others' (``constant_contention`` cycles each)
        self.constant_miss = self.sm.constant_miss + self.sm.constant_contention * (share - 1)
        # a line a store (or atomic) writes in part: the tag stage's cycles, or the SM's share of such lines L2 takes
        self.partial_line = max(float(self.sm.memory.store_line_cycles), share / self.sm.memory.l2_partial_lines_per_cycle)
        self.warps: list[_Warp] = []
        self.by_sp: list[list[_Warp]] = [[] for _ in range(arch.sub_partitions)]  # each sub-partition's warps not retired, oldest first
        self.pipe_free = [dict.fromkeys(self.sm.pipes, 0) for _ in range(arch.sub_partitions)]
        self.mio: list[list[float]] = [[] for _ in range(arch.sub_partitions)]
        self.lg: list[list[float]] = [[] for _ in range(arch.sub_partitions)]
        self.greedy: list[_Warp | None] = [None] * arch.sub_partitions
        self.path: set[int] = set()  # the cycles the data path is taken (a wavefront each), reserved as instructions ask
        self.tma_free = 0.0  # the copy engine
        self.l1_free = 0.0  # the L1's tag stage
        self.tma_groups: dict[int, dict[int, float]] = {}  # CTA -> arrive count -> when the copies after it complete
        self.cta_expects: dict[int, int] = {}  # CTA -> the most expecting arrives one of its warps made
        self.mbarrier_waiters: dict[tuple[int, int], list] = {}  # (CTA, arrive count) -> (warp, scoreboard) waiting
        self.sizes = sizes
        self.icache: dict[int, float] = {}  # line of code -> cycle it is in the instruction cache
        self.asked: set[int] = set()  # the lines of code asked for (``_fetch``)
        self.constant_lines: dict[tuple[int, int], float] = {}  # (bank, 64-byte line) -> cycle it is in the constant cache
        self.by_pc = [[0] * len(REASONS) for _ in streams.code]
        self.issued = 0
        self.cta_warps: dict[int, list[_Warp]] = {}
        self.arrived: dict[tuple[int, int], list[_Warp]] = {}  # (cta, barrier warps) -> warps waiting
        self.cga_arrived: dict[tuple[int, int], dict[_Warp, int]] = {}  # (CTA, n) -> its warps' n-th cluster barrier arrival: when
        self.cga_waiting: dict[tuple[int, int], list[_Warp]] = {}  # (CTA, n) -> warps at the UCGABAR_WAIT of their n-th arrival
        self.notes: set[str] = set()
        self.cg_writes: list[tuple[int, int, int]] = []  # each .cg copy's data write: its first and end cycle, its wavefronts
        self.stores_in_path: list[tuple[float, float]] = []  # each shared store from issue until its wavefronts have passed
        self.free_slots = list(range(self.sm.max_warps))
        self.registers = registers
        self.pool: dict[int, int] = {}  # CTA -> registers its warps' setmaxnreg.dec gave back and no .inc took yet
        self.deallocs: dict[int, int] = {}  # CTA -> USETMAXREG.DEALLOC its warps have still to issue
        self.spins: dict[str, int] = {}  # warp-instructions of spin loops' further trips, by loop
        self.pending = list(range(len(streams.ctas)))  # CTA positions not started
        self.states: list[tuple[int, int, int, int]] | None = [] if sampling else None  # (from, to, code index, reason) of each warp

    # ---- CTAs

    def _start_cta(self, k: int, t: int) -> None:
        wpc = self.streams.warps_per_cta
        ws = []
        for j in range(wpc):
            w = k * wpc + j
            if not len(self.streams.pcs[w]):
                continue
            slot = self.free_slots.pop(0)
            warp = _Warp(k, slot, slot % len(self.by_sp), self.streams.pcs[w].tolist(), self.streams.rows[w].tolist(),
                         self.streams.sectors[w].tolist(), t)
            warp.regs = self.registers
            warp.threads = self.streams.active[w].tolist() if self.streams.active else None
            self.deallocs[k] = self.deallocs.get(k, 0) + int(self.static.frees[self.streams.pcs[w]].sum())
            ws.append(warp)
            self.warps.append(warp)
            self.by_sp[warp.sp].append(warp)
            self._prepare(warp, t)
        self.cta_warps[k] = ws

    def _retire(self, w: _Warp, t: float) -> None:
        w.retire = t
        self.by_sp[w.sp].remove(w)
        cta = self.cta_warps[w.cta]
        if all(x.retire < NEVER for x in cta):
            done = max(x.retire for x in cta)
            self.free_slots = sorted(self.free_slots + [x.slot for x in cta])
            if self.pending:
                self._start_cta(self.pending.pop(0), int(done) + self.sm.cta_launch)
        else:
            self._check_barriers(w.cta, t)

    # ---- readiness

    def _deps(self, w: _Warp, k: int, now: int) -> tuple[float, str]:
        """When the scoreboards instruction ``k`` waits on are released, and the stall reason meanwhile."""
        s = self.static
        ready, reason = 0.0, "not_selected"
        for b in s.wait[k]:
            pending = w.sb[b]
            if pending:
                pending[:] = [x for x in pending if x > now]  # released ones are done with
                t = max(pending, default=0.0)
                if t > ready:
                    ready, reason = t, "long_scoreboard" if w.sb_long[b] else "short_scoreboard"
        if w.hold > ready:
            ready, reason = w.hold, w.hold_reason
        if s.kind[k] == "load" and len(w.loads) >= self.sm.warp_loads:  # a warp has at most warp_loads global loads in flight
            w.loads[:] = [x for x in w.loads if x > now]
            if len(w.loads) >= self.sm.warp_loads:
                t = sorted(w.loads)[len(w.loads) - self.sm.warp_loads]
                if t > ready:
                    ready, reason = t, "misc"
        if s.kind[k] == "cluster_wait":
            t = self._cluster_barrier(w, now)
            if t > ready:
                ready, reason = t, "barrier"
        if s.kind[k] == "gmma_wait":
            b, n = _depbar(self.streams.code[k])
            w.gmma_groups[:] = [x for x in w.gmma_groups if x > now]
            times = sorted(w.gmma_groups)
            if len(times) > n and times[len(times) - n - 1] > ready:
                ready, reason = times[len(times) - n - 1], "barrier"
        return ready, reason

    def _hold(self, w: _Warp, k: int, now: int) -> tuple[float, str]:
        """What a DEPBAR or MEMBAR (instruction ``k``) issued at ``now`` holds the warp's next instruction for, and the stall
        reason: ncu samples the warp at the instruction after it. DEPBAR: until no more than the scoreboard entries it
        leaves are pending; a GPU-scope fence: until L2 has acknowledged the warp's stores, then ``membar_gpu``; a
        CTA-scope one: until its global stores are done and ``membar_cta`` cycles have passed since its last shared store
        passed the data path; FENCE, ERRBAR, CCTL: until its stores are done."""
        s = self.static
        if s.fence[k] == "gpu":
            return max(w.acked, float(now)) + self.sm.membar_gpu, "membar"
        if s.fence[k] == "cta":  # ncu shows it as long_scoreboard at the next instruction
            return max(w.stores, w.shared_stored + self.sm.membar_cta), "long_scoreboard"
        if s.kind[k] == "membar":
            return w.stores, "membar"
        ready = 0.0
        for b, n in s.depbar[k] or ():
            w.sb[b][:] = [x for x in w.sb[b] if x > now]
            times = sorted(w.sb[b])
            if len(times) > n:
                ready = max(ready, times[len(times) - n - 1])
        return ready, "long_scoreboard"

    def _cluster_barrier(self, w: _Warp, now: float) -> float:
        """When warp ``w``'s cluster barrier wait (UCGABAR_WAIT) lets it go: ``cluster_barrier`` cycles after the last arrival of
        its CTA's warps still running (NEVER until they have all arrived; the cluster's other CTAs are taken to arrive
        with them)."""
        key = (w.cta, w.cga)
        arrived = self.cga_arrived.get(key, {})
        if all(x in arrived for x in self.cta_warps[w.cta] if x.retire == NEVER):
            return float(max(arrived.values(), default=now) + self.sm.cluster_barrier)
        if w not in self.cga_waiting.setdefault(key, []):
            self.cga_waiting[key].append(w)
        return NEVER

    def _throttle(self, sp: int, w: _Warp, k: int, now: int) -> tuple[float, str]:
        """When instruction ``k``'s pipe and queue have room on sub-partition ``sp``."""
        s = self.static
        kind = s.kind[k]
        t, reason = (0.0 if s.pipe[k] in _QUEUED else float(self.pipe_free[sp].get(s.pipe[k], 0))), "math_pipe_throttle"
        if kind in ("shared", "shuffle") or s.pipe[k] in _MIO_HELD:
            queue, depth, name = self.mio[sp], self.sm.mio_depth, "mio_throttle"
        elif kind in _LONG:
            queue, depth, name = self.lg[sp], self.sm.lg_depth, "lg_throttle"
        else:
            return t, reason
        if len(queue) >= depth:
            queue[:] = [x for x in queue if x > now]  # the entries still held
            if len(queue) >= depth:
                t, reason = max(t, sorted(queue)[len(queue) - depth]), name
        return t, reason

    # ---- issue

    def _issue(self, sp: int, w: _Warp, now: int) -> None:
        s = self.static
        k = w.pcs[w.pos]
        a = w.last + 1
        if a < now:  # the cycles since its last issue, reason by reason
            marks = ((w.stall_end, "wait"), (w.branch_end, "branch_resolving"), (w.fetch_end, "no_instruction"), (w.imc_end, "imc_miss"),
                     (w.ready, w.reason), (w.throttle, w.throttle_reason))
            for end, reason in marks:
                if a < end and a < now:  # (so that ceil(end) > a too)
                    e = min(int(math.ceil(end)), now)
                    self._stall(w, k, _R[reason], a, e)
                    a = e
            if now > a:
                self._stall(w, k, _R["not_selected"], a, now)
        self._stall(w, k, 0, now, now + 1)
        self.issued += 1
        w.last = now
        kind = s.kind[k]
        start = max(now, self.pipe_free[sp].get(s.pipe[k], 0)) if s.pipe[k] in _QUEUED else now
        self.pipe_free[sp][s.pipe[k]] = start + s.interval[k]
        w.hold, w.hold_reason = self._hold(w, k, now) if kind in ("depbar", "membar") else (0.0, "")
        if w.spin is not None and w.pos == w.spin[0]:  # the branch of a try_wait issued before its copies: taken if it timed out
            _, trip, (deadline, release) = w.spin
            w.spin = None
            if release is None or release > deadline:
                self._trip(w, w.pos, trip, "try_wait")
        read = now + self.sm.read_release  # the cycle it has read its registers
        long = kind in _LONG  # its scoreboards are an L1TEX instruction's (long_scoreboard), not an MIO one's
        if kind in _ACTS or s.pipe[k] in _MIO_HELD:
            result, read, long = self._act(sp, w, k, now, start, read, long)
        else:  # the cycle its result is ready, where it waits on a scoreboard
            result = now + s.latency[k] if s.write[k] is not None else None
        for b in (s.write[k], s.read[k]):
            if b is not None and len(w.sb[b]) > 32:
                w.sb[b][:] = [x for x in w.sb[b] if x > now]
        if result is not None and s.write[k] is not None:
            w.sb[s.write[k]].append(float(result))
            w.sb_long[s.write[k]] = long
        if s.read[k] is not None:
            w.sb[s.read[k]].append(float(read))
            w.sb_long[s.read[k]] = long
        # what the warp does next
        w.pos += 1
        w.stall_end = now + s.stall[k]
        if w.pos >= len(w.pcs):  # its last instruction (an EXIT that only some lanes take lets the others go on)
            drain = max(self.sm.exit_drain, int(math.ceil(w.stores)) - now - 1)
            self._stall(w, min(k + 1, len(self.by_pc) - 1), _R["drain"], now + 1, now + 1 + drain)  # ncu: at the instruction after
            self._retire(w, float(now + 1 + drain))
            return
        w.branch_end = w.stall_end + (self.sm.branch_resolve if kind in ("branch", "exit") else 0)
        taken = w.pcs[w.pos] != k + 1
        w.fetch_end = w.branch_end + (self.sm.branch_refetch if taken else 0)
        if kind == "barrier":  # past a BAR.SYNC.DEFER_BLOCKING its warp issues ALU instructions until the first other one, where it
            # waits (and ncu samples it): H200 Source pages, six barriers of four kernels (calibration/realk/runs/2026-11-29-ws-source)
            w.bar, w.bar_at = True, now
            self.arrived.setdefault((w.cta, s.bar_warps[k]), []).append(w)
            if s.defers[k]:
                self._prepare(w, now)
            else:
                w.ready, w.reason = NEVER, "barrier"
            self._check_barriers(w.cta, now)
            return
        self._prepare(w, now)

    def _act(self, sp: int, w: _Warp, k: int, now: int, start: int, read: float, long: bool) -> tuple[float | None, float, bool]:
        """What instruction ``k`` of a kind in ``_ACTS``, issued by warp ``w`` at ``now`` (its pipe taken from ``start``), does
        beyond its issue: the cycle its result is ready (None: no scoreboard waits on it), the cycle it has read its registers
        (``read`` unless later), and whether its scoreboards are long ones (``long`` unless it says)."""
        s, kind = self.static, self.static.kind[k]
        result = None
        row = w.rows[w.pos]
        if kind == "shared" or (kind == "load" and row >= 0 and w.secs[w.pos] < 0) or (kind == "store" and row >= 0 and w.secs[w.pos] < 0):
            wf = max(1, int(self.wavefronts[row])) if row >= 0 else 1
            result, done = self._path(w, now, wf, s.latency[k] if kind == "shared" else self.arch.ops["LDS"].latency[32])
            self.mio[sp].append(done)
            long = False
            if s.store[k] or kind == "store":  # a store reads its data registers as its wavefronts pass
                read = max(read + self.timing.feed_interval * (wf - 1), done)
                self.stores_in_path.append((now, done))
                w.shared_stored = max(w.shared_stored, float(done))
        elif kind == "shuffle":
            result, done = self._path(w, now, 1, s.latency[k])
            self.mio[sp].append(done)
        elif kind == "load":
            secs = self._sectors(w)
            at = self._tag(sp, now, secs, 1)
            back = self.memory.load(secs, at, s.cache[k]) if len(secs) else at + self.sm.memory.l1_hit
            result, _ = self._return(back, secs)
            w.loads.append(float(result))
        elif kind == "store":
            secs = self._sectors(w)
            at = self._tag(sp, now, secs, self._store_line(w, k, secs))
            w.acked = max(w.acked, self.memory.store(secs, at))
            w.stores = max(w.stores, float(at + self.sm.exit_drain))
        elif kind == "atomic":
            secs = self._sectors(w)
            at = self._tag(sp, now, secs, self._store_line(w, k, secs))
            result = self.memory.atomic(secs, at) if len(secs) else at + self.sm.memory.l2_hit
            if len(secs):  # one on global memory (a shared-memory one through a generic address has no sector)
                w.acked = max(w.acked, float(result))
            w.stores = max(w.stores, float(at + self.sm.exit_drain))
        elif kind == "copy":
            secs = self._sectors(w)
            at = self._tag(sp, now, secs, 1)
            back = self.memory.load(secs, at, s.cache[k]) if len(secs) else at + self.sm.memory.l1_hit
            wf = max(1, int(self.wavefronts[row])) if row >= 0 else 1
            first, last = self._reserve(back, wf)
            w.copies.append(last + 1)
            if s.bypass[k] and (row < 0 or self.wavefronts[row] > 0):  # a copy with its guard false in every lane writes nothing
                self.cg_writes.append((first, last + 1, wf))
        elif kind == "commit":
            w.sb[0].append(max(w.copies, default=float(now)))
            w.sb_long[0] = True
            w.copies = []
        elif kind == "gmma":  # the warp's part of a wgmma: its sub-partition's tensor pipe for N/2 cycles, once the wgmmas before it are done
            done = start + s.interval[k] + self.sm.latency["gmma_a_regs" if s.a_regs[k] else "gmma"]
            w.gmma_open = max(w.gmma_open, float(done))
            if s.gsb[k]:
                w.gmma_groups.append(w.gmma_open)
                w.gmma_open = 0.0
        elif kind == "cluster_arrive":
            w.cga += 1
            key = (w.cta, w.cga)
            self.cga_arrived.setdefault(key, {})[w] = now
            self._release_cluster(key, now)
        elif kind == "expect":
            w.expects += 1
            self.cta_expects[w.cta] = max(self.cta_expects.get(w.cta, 0), w.expects)
        elif kind in ("tma", "tma_store"):
            size = int(self.sizes[row]) if row >= 0 else 0
            mem = self.sm.memory
            start = max(float(now), self.tma_free)
            self.tma_free = start + size / (mem.tma_bytes_per_cycle if kind == "tma" else mem.tma_store_bytes_per_cycle)
            done = self.tma_free + (mem.tma_load if kind == "tma" else mem.tma_store)
            if kind == "tma":
                groups = self.tma_groups.setdefault(w.cta, {})
                key = self.cta_expects.get(w.cta, 0)
                groups[key] = max(groups.get(key, 0.0), done)
                for x, b, state in self.mbarrier_waiters.get((w.cta, key), ()):  # waits that came before their copies
                    _settle(x.sb[b], max(groups[key], float(now)), state)
                    if not x.bar and x.pos < len(x.pcs):
                        self._prepare(x, now)
            else:
                w.copies.append(done)
        elif kind == "mbarrier_wait":  # a warp's n-th wait is for the copies its CTA issues after its n-th expecting arrive
            w.waits += 0 if w.again else 1
            w.again = False
            groups = self.tma_groups.get(w.cta, {})
            long = True
            timeout = self.sm.trywait_timeout if s.spin[k] == "try_wait" else None
            loop = self._loop(w, w.pos) if timeout is not None else None
            if timeout is not None and loop is None:
                self.notes.add("a try_wait is not in a loop the timed SM knows: it waits for its phase, without a time-out")
            if w.waits in groups or s.write[k] is None:
                result = max(float(now + s.latency[k]), groups.get(w.waits, 0.0))
                if loop is not None and result > now + timeout:  # it times out: the loop's branch is taken, the try_wait again
                    result = float(now + timeout)
                    self._trip(w, *loop, "try_wait")
            else:  # its copies are not issued yet: released when they are (or, if none ever is, when nothing else can go)
                # A try_wait issued before its copies may wait for a phase the timed SM never sees complete (thread arrives,
                # a remote CTA's arrive): it gets no time-out, lest it spin until the trip cap (the spin probes' waits on a
                # delayed plain arrive, calibration/realk/runs/2026-11-29-spin; dsm_mbar_remote)
                if loop is not None:
                    loop = None
                    self.notes.add("a try_wait issued before its copies waits for its phase, without a time-out")
                deadline = NEVER if loop is None else float(now + timeout)
                state = [deadline, None]  # the release, once its copies are issued (``_settle``)
                self.mbarrier_waiters.setdefault((w.cta, w.waits), []).append((w, s.write[k], state))
                w.sb[s.write[k]].append(deadline)
                w.sb_long[s.write[k]] = True
                if loop is not None:
                    w.spin = (*loop, state)
        elif s.pipe[k] in _MIO_HELD:  # through the MIO queue, whose entry it holds until its unit (the XU, S2R's, LDC's) takes it
            self.mio[sp].append(start)
            if s.write[k] is not None:
                result = start + s.latency[k]
        elif kind == "regalloc":  # setmaxnreg.inc: granted while the CTA's pool holds the registers, else its loop runs again
            need = (s.regs[k] - w.regs) * 32
            if not self.registers or need <= self.pool.get(w.cta, 0) or not self.deallocs.get(w.cta):
                if self.registers and need > self.pool.get(w.cta, 0):
                    self.notes.add("a setmaxnreg.inc found no setmaxnreg.dec left in its CTA to give it registers; it was granted")
                self.pool[w.cta] = self.pool.get(w.cta, 0) - need
                w.regs = s.regs[k]
            elif (loop := self._loop(w, w.pos)) is not None:
                self._trip(w, *loop, "setmaxnreg")
            else:
                self.notes.add("a setmaxnreg.inc the pool could not grant is not in a loop the timed SM knows; it was granted")
            if s.write[k] is not None:
                result = now + s.latency[k]
        elif kind == "regfree":  # setmaxnreg.dec: the registers go to the CTA's pool
            if self.registers:
                self.pool[w.cta] = self.pool.get(w.cta, 0) + (w.regs - s.regs[k]) * 32
                w.regs = s.regs[k]
            self.deallocs[w.cta] -= 1
            if s.write[k] is not None:
                result = now + s.latency[k]
        return result, read, long

    def _stall(self, w: _Warp, k: int, reason: int, a: int, e: int) -> None:
        """Warp ``w`` spent cycles ``a`` to ``e`` at instruction ``k`` in state ``reason`` (0: selected, its issue)."""
        w.stalls[reason] += e - a
        self.by_pc[k][reason] += e - a
        if self.states is not None:
            self.states.append((a, e, k, reason))

    def _loop(self, w: _Warp, at: int) -> tuple[int, list[int]] | None:
        """The spin loop whose check warp ``w`` executes at stream position ``at``: the position of the guarded BRA after it
        (within 16 instructions) that the loop takes when the check fails, and the instructions one more trip adds after that
        branch, as the code has them: from the branch's target on to the check again (straight code), then, the check
        passing, on until the stream goes on (the loop's branch not taken, unguarded branches followed). None where the
        code has no such loop (or more than ``LOOP`` instructions to a trip)."""
        s, pcs = self.static, w.pcs
        check = s.spin[pcs[at]]
        code = self.streams.code
        q = next((j for j in range(at + 1, min(at + 17, len(pcs) - 1)) if code[pcs[j]].name in JUMPS), None)
        if q is None or s.target[pcs[q]] is None or code[pcs[q]].guard is None:
            return None
        trip, pc = [], s.target[pcs[q]]
        while len(trip) < LOOP and 0 <= pc < len(s.kind):
            trip.append(pc)
            if s.spin[pc] == check:
                break
            if code[pc].name in JUMPS:
                if s.target[pc] is None or code[pc].guard is not None:
                    return None
                pc = s.target[pc]
            else:
                pc += 1
        else:
            return None
        if s.spin[trip[-1]] != check:
            return None
        pc, back = trip[-1] + 1, pcs[q + 1]
        while pc != back:
            if len(trip) >= 2 * LOOP or not 0 <= pc < len(s.kind):
                return None
            trip.append(pc)
            pc = s.target[pc] if s.target[pc] is not None and code[pc].guard is None else pc + 1
        return q, trip

    def _trip(self, w: _Warp, q: int, trip: list[int], loop: str) -> None:
        """One more trip of a spin loop: ``trip`` issued after stream position ``q`` (the loop's branch, taken)."""
        if self.spins.get(loop, 0) >= MAX_TRIPS * LOOP * max(1, len(self.warps)):
            self.notes.add(f"{loop} loops ran more than {MAX_TRIPS} trips a warp; the rest were cut")
            return
        w.pcs[q + 1:q + 1] = trip
        w.rows[q + 1:q + 1] = [-1] * len(trip)
        w.secs[q + 1:q + 1] = [-1] * len(trip)
        if w.threads is not None:
            w.threads[q + 1:q + 1] = [32] * len(trip)
        self.spins[loop] = self.spins.get(loop, 0) + len(trip)
        if loop == "try_wait":
            w.again = True

    def _prepare(self, w: _Warp, now: float) -> None:
        """The warp's next instruction: when it is fetched, its constants are cached and its scoreboards let it go."""
        k = w.pcs[w.pos]
        w.fetch_end = max(w.fetch_end, self._fetch(k // 8, now))
        for line in self.static.constants[k]:
            filled = self.constant_lines.setdefault(line, max(now, w.fetch_end) + self.constant_miss)
            w.imc_end = max(w.imc_end, filled)
        ready, reason = self._deps(w, k, now)
        w.ready, w.reason = max(ready, float(w.fetch_end), float(w.imc_end)), reason

    def _fetch(self, line: int, now: float) -> float:
        """When the 128-byte line of code ``line`` is in the instruction cache: a line not fetched yet comes
        ``icache_miss`` cycles after it is asked for, or ``icache_next`` after the line before it; the fetcher runs
        ``icache_ahead`` lines ahead of the line asked for, one every ``icache_next`` cycles."""
        cache, sm = self.icache, self.sm
        if line in self.asked:  # the lines ahead of it are in the cache already
            return cache[line]
        self.asked.add(line)
        if line not in cache:
            before = cache.get(line - 1)
            cache[line] = max(now, before) + sm.icache_next if before is not None else now + sm.icache_miss
        for ahead in range(line + 1, line + 1 + sm.icache_ahead):
            if ahead not in cache:
                cache[ahead] = cache[ahead - 1] + sm.icache_next
        return cache[line]

    def _release_cluster(self, key: tuple[int, int], now: float) -> None:
        """The warps at the cluster barrier wait ``key``, looked at again now that a warp of their CTA arrived or retired."""
        for x in self.cga_waiting.pop(key, []):
            if x.pos < len(x.pcs):
                self._prepare(x, now)

    def _check_barriers(self, cta: int, now: float) -> None:
        for key in [key for key in self.cga_waiting if key[0] == cta]:
            self._release_cluster(key, now)
        alive = sum(1 for x in self.cta_warps[cta] if x.retire == NEVER)
        for (c, need), waiting in list(self.arrived.items()):
            if c != cta or len(waiting) < (need or alive):
                continue
            del self.arrived[(c, need)]
            release = max(x.bar_at for x in waiting) + self.sm.barrier
            for x in waiting:
                x.bar = False
                self._prepare(x, now)
                if release >= x.ready:
                    x.ready, x.reason = float(release), "barrier"

    def _path(self, w: _Warp, now: int, wf: int, latency: int) -> tuple[float, float]:
        """A shared-memory instruction of ``wf`` wavefronts that warp ``w`` issued at ``now``: when its result is ready, and
        when its wavefronts have passed the data path. A warp's instructions feed their wavefronts in order, one per
        ``feed_interval`` cycles for the warp."""
        t = self.timing
        _, last = self._reserve(max(now + t.to_banks, w.feed), wf, t.feed_interval)
        w.feed = float(last + t.feed_interval)
        return last + latency - t.to_banks, last + 1

    def _reserve(self, at: float, n: int, gap: int = 1) -> tuple[int, int]:
        """``n`` wavefronts through the data path from cycle ``at`` on, one a cycle for the SM and at most one per
        ``gap`` cycles for this instruction: the first and last cycles they take."""
        path = self.path
        c = int(math.ceil(at))
        first = last = -1
        for _ in range(n):
            while c in path:
                c += 1
            path.add(c)
            first = c if first < 0 else first
            last = c
            c += gap
        return first, last

    def _tag(self, sp: int, now: int, secs, per_line: int) -> float:
        """A global-memory instruction through the L1's tag stage, ``per_line`` cycles for each 128-byte line it touches
        (one SM-wide stage, in issue order): the cycle it leaves, when its LSU queue entry frees."""
        lines = len({x // 4 for x in secs}) or 1
        start = max(float(now + 2), self.l1_free)
        self.l1_free = start + lines * per_line
        self.lg[sp].append(self.l1_free)
        return self.l1_free

    def _store_line(self, w: _Warp, k: int, secs) -> float:
        """The tag stage's cycles a line of a store or atomic: ``partial_line`` where its threads' bytes fill fewer than its
        sectors (each 32-byte sector written in part, on average), the tag stage's own ``store_line_cycles`` otherwise."""
        threads = w.threads[w.pos] if w.threads is not None else 32
        return self.partial_line if threads * self.static.width[k] < 32 * len(secs) else float(self.sm.memory.store_line_cycles)

    def _return(self, back: float, secs) -> tuple[float, float]:
        """Global data back at ``back`` passes the data path, one wavefront per 128-byte line."""
        _, last = self._reserve(back, len({s // 4 for s in secs}) or 1)
        return last + 1, last + 1

    def _sectors(self, w: _Warp):
        i = w.secs[w.pos]
        return self.streams.sector_sets[i].tolist() if i >= 0 else ()

    # ---- the loop

    def run(self) -> SMRun:
        """Simulate until every CTA has retired."""
        env = simpy.Environment()
        env.process(self._process(env))
        env.run()
        return self._result()

    def _process(self, env: simpy.Environment):
        for _ in range(min(self.resident, len(self.pending))):
            self._start_cta(self.pending.pop(0), 0)
        now = 0
        deferred = self.static.deferred
        while any(self.by_sp):
            soonest = NEVER
            for sp, warps in enumerate(self.by_sp):
                best = None
                g = self.greedy[sp]
                for w in reversed(warps):  # youngest first
                    if w.bar and not deferred[w.pcs[w.pos]]:
                        continue
                    dep = w.ready if w.ready > w.stall_end else w.stall_end  # max() and min() calls cost here, each warp each cycle
                    if dep > now:
                        soonest = dep if dep < soonest else soonest
                        continue
                    t, reason = self._throttle(sp, w, w.pcs[w.pos], now)
                    if t > now:
                        w.throttle, w.throttle_reason = t, reason
                        soonest = min(soonest, t)
                        continue
                    if best is None or w is g:
                        best = w
                if best is not None:
                    self.greedy[sp] = best
                    self._issue(sp, best, now)
                    best.throttle, best.throttle_reason = 0.0, "not_selected"
                    soonest = min(soonest, now + 1)
            if soonest == NEVER:  # every warp left waits at a barrier or an mbarrier the others will not reach in this model: let them go
                waiting = [(x, b, state) for ws in self.mbarrier_waiters.values() for x, b, state in ws if NEVER in x.sb[b]]
                for x, b, state in waiting:
                    _settle(x.sb[b], float(now + self.sm.latency["mbarrier_wait"]), state)
                    if not x.bar and x.pos < len(x.pcs):
                        self._prepare(x, now)
                if waiting:
                    self.notes.add(f"{len(waiting)} mbarrier waits found no copy of their CTA to wait for; they were let go")
                    continue
                if self.cga_waiting:  # warps of the CTA left without arriving: let the waits go
                    for cta, n in list(self.cga_waiting):
                        arrived = self.cga_arrived.setdefault((cta, n), {})
                        for x in self.cta_warps[cta]:
                            arrived.setdefault(x, now)
                        self._release_cluster((cta, n), now)
                    self.notes.add("warps waited at a cluster barrier that the timed SM saw other warps of their CTA not reach; they were let go")
                    continue
                stuck = [w for ws in self.by_sp for w in ws if w.bar]
                if not stuck:
                    break
                for w in stuck:
                    w.bar = False
                    self._prepare(w, now)
                    w.ready, w.reason = float(now + self.sm.barrier), "barrier"
                self.arrived.clear()
                self.notes.add(f"{len(stuck)} warps waited at a barrier that the timed SM saw no other warp reach; they were let go")
                continue
            step = max(1, int(math.ceil(soonest)) - now)
            yield env.timeout(step)
            now += step

    def _result(self) -> SMRun:
        nsp = len(self.by_sp)
        spans: list[list[tuple[int, int]]] = [[] for _ in range(nsp)]
        for w in self.warps:
            spans[w.sp].append((w.start, int(math.ceil(w.retire))))
        sp_active = tuple(_union(s) for s in spans)
        active = _union([x for s in spans for x in s])
        stalls = [sum(w.stalls[j] for w in self.warps) for j in range(len(REASONS))]
        by_pc = {16 * k: {r: v for r, v in zip(REASONS, row) if v} for k, row in enumerate(self.by_pc) if any(row)}
        return SMRun(active, sp_active, {r: int(v) for r, v in zip(REASONS, stalls)}, by_pc, len(self.streams.ctas), len(self.warps),
                     self.issued, dict(self.memory.sectors), self.resident, tuple(sorted(self.notes)),
                     self._store_clashes() + self.sm.split_store * split_stores(self.streams, self.static.store,
                                                                                     [k == "shared" for k in self.static.kind]),
                     dict(self.spins), self._samples(), max((x[1] for sp in spans for x in sp), default=0))

    def _samples(self) -> dict[int, dict[str, float]]:
        """The warp states ncu's sampler would take (``SAMPLE_INTERVAL``), per SASS instruction offset: each cycle a warp
        spends in a state counts one over the warps active on the SM then, so that a sample is one cycle of the SM."""
        if not self.states:
            return {}
        end = max(e for _, e, _, _ in self.states) + 1
        active = np.zeros(end + 1, np.int64)
        for w in self.warps:
            active[w.start] += 1
            active[min(end, int(math.ceil(w.retire)))] -= 1
        share = np.concatenate(([0.0], np.cumsum(1.0 / np.maximum(np.cumsum(active)[:end], 1))))
        a, e, k, r = np.array(self.states, np.int64).T
        weight = (share[e] - share[a]) / SAMPLE_INTERVAL
        table = np.zeros((len(self.by_pc), len(REASONS)))
        np.add.at(table, (k, r), weight)
        return {16 * i: {reason: float(v) for reason, v in zip(REASONS, row) if v} for i, row in enumerate(table) if row.any()}

    def _store_clashes(self) -> float:
        """Store wavefronts added by .cg copies writing shared memory while a shared store is in flight on the SM: each
        such copy's lines times ``cg_store_clash`` (the H200 variance probes: calibration/realk/runs/2026-11-29-variance)."""
        if not self.cg_writes or not self.stores_in_path:
            return 0.0
        starts = sorted(a for a, _ in self.stores_in_path)
        ends = sorted(b for _, b in self.stores_in_path)
        lines = 0
        for first, end, wf in self.cg_writes:  # a store in flight over [first, end): begun before end, not done by first
            if bisect.bisect_left(starts, end) - bisect.bisect_right(ends, first) > 0:
                lines += wf
        return lines * self.sm.cg_store_clash


def split_stores(streams: WarpStreams, store: list[bool], shared: list[bool]) -> int:
    """Shared stores of a split warp that shared loads follow before the warp is whole again: stores issued by part of
    the warp's threads, or followed by a branch (the warp's next instruction or the one after) that splits it, with a
    shared load of the warp after the store and before its next instruction on all the threads it has left. None where
    the SM runs one warp. The H200 variance probes (calibration/realk/runs/2026-11-29-variance2, -variance3) show such
    stores adding a store wavefront, counted as a store bank conflict too, on 1-2% of them, varying run to run; the same
    stores and loads if-converted, or with their registers overwritten right after, add none, and so do stores of a split
    warp that no load follows before it reconverges (the corpus's stencils and scans) and those of one thread split off
    (the elected thread that edits a tensor map in shared memory: triton_tma_*, none in 5 runs; runs/2026-11-29-triton-tma)."""
    if not streams.active or len(streams.pcs) < 2:
        return 0
    is_store = np.asarray(store, bool)
    is_load = np.asarray(shared, bool) & ~is_store
    is_branch = np.array([ins.name == "BRA" for ins in streams.code], bool)
    n = 0
    for pcs, active in zip(streams.pcs, streams.active):
        whole = np.maximum.accumulate(active[::-1])[::-1]  # the threads it has left: all later instructions run on at most these
        at = np.flatnonzero(is_store[pcs])
        split = active[at] < whole[at]
        begun = at.copy()  # where the split the store belongs to has begun: the store, or the instruction after the branch
        for gap in (2, 1):  # a branch `gap` instructions after the store that splits the warp
            b = np.minimum(at + gap, len(pcs) - 2)
            after = ~split & (at + gap + 1 < len(pcs)) & is_branch[pcs[b]] & (active[b + 1] < active[b])
            begun[after] = b[after] + 1
            split |= after
        at, begun = at[split], begun[split]
        at, begun = at[active[begun] > 1], begun[active[begun] > 1]
        rejoined = np.flatnonzero(active == whole)
        until = np.append(rejoined, len(pcs))[np.searchsorted(rejoined, begun, "right")]
        loads = np.flatnonzero(is_load[pcs])
        n += int((np.searchsorted(loads, at, "right") < np.searchsorted(loads, until)).sum())
    return n


def _settle(pending: list[float], at: float, state: list) -> None:
    """An mbarrier wait's place on its scoreboard, held until its copies are known (``state``: [its deadline, its release]; the
    deadline NEVER, or a try_wait's time-out): released at ``at``, or at its time-out if that comes first."""
    deadline = state[0]
    if state[1] is None:
        state[1] = at
        if deadline in pending and at < deadline:
            pending[pending.index(deadline)] = at


def _union(spans: list[tuple[int, int]]) -> int:
    """Cycles covered by any of the half-open ``spans``."""
    total, end = 0, -1
    for a, b in sorted(spans):
        if b <= end:
            continue
        total += b - max(a, end)
        end = b
    return total

