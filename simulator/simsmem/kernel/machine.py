"""The SM's threads executing SASS: registers, predicates, program counters, barriers, shared memory.

A ``Machine`` holds every thread of some CTAs of one launch as columns: ``R[r, t]`` is register
``r`` of thread ``t`` (threads CTA by CTA, each CTA's warps padded to 32 lanes), uniform registers and
predicates likewise. ``run`` executes the threads until all have exited, one instruction at a
time: the one at the lowest program counter among the threads that are not waiting at a barrier,
for every such thread at that counter. Threads of a warp that took different paths of a branch thus
run one path after the other and meet again where the paths join (the immediate post-dominator of
the branch, for the code ptxas lays out), as GPGPU-Sim's SIMT stack has them; ``BSSY``/``BSYNC``,
``BAR`` and ``EXIT`` are obeyed as the hardware does, and a warpgroup MMA (HGMMA, QGMMA, IGMMA) runs once all
four warps of its warpgroup are at it. Threads of all warps at one counter run
together, which is what makes the execution fast: a warp-instruction is one column of a numpy
operation.

A warp *executes* an instruction when any of its threads runs it, whether or not the guard
predicate (``@P0``) lets any lane act: that is what ncu's ``smsp__inst_executed`` counts. Each
shared-memory instruction a warp executes is handed to ``on_shared`` with the lanes that act.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs
import numpy as np

from .l1 import L1Words, unruled
from .memory import GlobalMemory, MemoryFault
from .misc import MiscWavefronts
from .sass import PT, RZ, UPT, URZ, Instruction

LANES = 32


class ExecError(Exception):
    """Execution stopped: ``what`` happened at instruction ``pc`` (byte offset) in ``lane`` of ``warp`` (or None)."""

    def __init__(self, what: str, pc: int | None = None, warp: int | None = None, lane: int | None = None) -> None:
        super().__init__(what)
        self.what, self.pc, self.warp, self.lane = what, pc, warp, lane


class Runaway(ExecError):
    """Execution passed its step limit at instruction ``pc``: a loop that never ends, or a limit set too low."""


@attrs.frozen
class Geometry:
    """A launch's shape: grid, block and thread-block cluster (x, y, z), and what follows from them."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    cluster: tuple[int, int, int] = (1, 1, 1)

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def warps(self) -> int:
        """Warps per CTA."""
        return -(-self.threads // LANES)

    @property
    def ctas(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    def cta_index(self, cta: tuple[int, int, int]) -> int:
        """The linear index of a CTA (x fastest), as ``warp`` numbers in traces count them."""
        return cta[0] + self.grid[0] * (cta[1] + self.grid[1] * cta[2])

    def cta_at(self, index: int) -> tuple[int, int, int]:
        gx, gy = self.grid[0], self.grid[1]
        return index % gx, index // gx % gy, index // (gx * gy)

    @property
    def cluster_size(self) -> int:
        return self.cluster[0] * self.cluster[1] * self.cluster[2]

    def cluster_of(self, index: int) -> int:
        """The linear index of the cluster CTA ``index`` belongs to (clusters tile the grid, x fastest)."""
        (x, y, z), (cx, cy, cz) = self.cta_at(index), self.cluster
        return x // cx + self.grid[0] // cx * (y // cy + self.grid[1] // cy * (z // cz))

    def rank(self, index: int) -> int:
        """CTA ``index``'s rank in its cluster (``%cluster_ctarank``: x fastest)."""
        (x, y, z), (cx, cy, cz) = self.cta_at(index), self.cluster
        return x % cx + cx * (y % cy + cy * (z % cz))

    def members(self, index: int) -> list[int]:
        """The CTAs of CTA ``index``'s cluster, by rank."""
        (x, y, z), (cx, cy, cz) = self.cta_at(index), self.cluster
        x, y, z = x - x % cx, y - y % cy, z - z % cz
        return [self.cta_index((x + i, y + j, z + k)) for k in range(cz) for j in range(cy) for i in range(cx)]


def any_lane(threads: np.ndarray) -> np.ndarray:
    """Per warp, whether any of its lanes is set in ``threads`` (bool, whole warps): ``threads.reshape(-1, LANES).any(axis=1)``
    in half the time, by packing the lanes' bits."""
    return np.packbits(threads).view(np.uint32) != 0


#: An instruction's effect: ``run(machine, ex)`` with ``ex`` the threads executing it (bool per thread).
Step = Callable[["Machine", np.ndarray], None]
#: ``wait_until``'s condition (which of the waiting threads may go) and what finishes their instruction.
Ready = Callable[["Machine", np.ndarray], np.ndarray]
Done = Callable[["Machine", np.ndarray], None]
#: ``bar_id`` of a thread in a ``wait_until`` wait.
WAIT_UNTIL = -2


class Machine:
    """The threads of ``ctas`` (linear CTA indices) of one launch, ready to run ``program``."""

    def __init__(self, program: list[Step | None], code: list[Instruction], geometry: Geometry, ctas: list[int], shared_bytes: int,
                 constants: dict[int, np.ndarray], memory: GlobalMemory, local_bytes: int, window: dict[str, int]) -> None:
        self.program, self.code, self.geometry = program, code, geometry
        self.ctas = np.array(ctas, dtype=np.int64)
        self.warps_per_cta = geometry.warps
        n = len(ctas) * geometry.warps * LANES
        self.n = n
        self.memory = memory
        self.constants = constants  # constant banks: bank -> uint8 array
        self.window = window
        self.R = np.zeros((RZ + 1, n), dtype=np.uint32)
        self.UR = np.zeros((URZ + 1, n), dtype=np.uint32)
        self.P = np.zeros((PT + 1, n), dtype=bool)
        self.UP = np.zeros((UPT + 1, n), dtype=bool)
        self.P[PT] = self.UP[UPT] = True
        self.pc = np.zeros(n, dtype=np.int64)  # instruction index
        self.waiting = np.zeros(n, dtype=bool)  # at a barrier or BSYNC, not runnable
        self.convergence = np.zeros((16, n), dtype=bool)  # BSSY barriers: members
        self.group = np.zeros(n, dtype=np.int64)  # threads of a warp with one group number run together
        self.next_group = 1
        self.diverged = False
        self.running = np.full(n // LANES, -1, dtype=np.int64)  # per warp: the group that runs while the warp is diverged
        self.bar_id = np.full(n, -1, dtype=np.int64)  # the BAR each waiting thread waits at (-1: none, or a BSYNC; WAIT_UNTIL)
        self.conditions: list[tuple[np.ndarray, Ready, Done]] = []  # the waits of ``wait_until``
        self.bar_need = np.full(n, -1, dtype=np.int64)  # the thread count that BAR waits for (-1: the whole CTA)
        self.bar_reduce: dict[int, Callable[[np.ndarray], None] | None] = {}
        self.bar_vote = np.zeros(n, dtype=bool)  # BAR.RED: each thread's predicate
        self.bar_result = np.zeros(n, dtype=np.int64)  # BAR.RED: the reduction, read by B2R
        t = np.arange(n)
        self.lane = (t % LANES).astype(np.uint32)
        self.cta_slot = t // (geometry.warps * LANES)  # index into ctas
        linear = t % (geometry.warps * LANES)  # thread index within the CTA
        bx, by, _ = geometry.block
        self.alive = linear < geometry.threads
        self.tid = np.stack([linear % bx, linear // bx % by, linear // (bx * by)]).astype(np.uint32)
        cta = np.array([geometry.cta_at(int(c)) for c in ctas], dtype=np.uint32).reshape(-1, 3)
        self.ctaid = cta[self.cta_slot].T.copy()
        # thread-block clusters: each CTA's rank, and the slot of every rank of each cluster here (-1: not in this batch)
        self.rank = np.array([geometry.rank(int(c)) for c in ctas], dtype=np.int64)
        clusters = [geometry.cluster_of(int(c)) for c in ctas]
        self.cluster_slot = np.array([sorted(set(clusters)).index(c) for c in clusters], dtype=np.int64)
        self.slot_of = np.full((len(set(clusters)), geometry.cluster_size), -1, dtype=np.int64)
        self.slot_of[self.cluster_slot, self.rank] = np.arange(len(ctas))
        self.cluster_arrived = np.zeros(n, dtype=np.int64)  # barrier.cluster arrivals of each thread
        self.warp_id = (self.ctas[self.cta_slot] * geometry.warps + linear // LANES).astype(np.int64)  # trace warp numbers
        self.shared = np.zeros((len(ctas), shared_bytes), dtype=np.uint8)
        self.local = np.zeros((n, local_bytes), dtype=np.uint8) if local_bytes else np.zeros((n, 0), dtype=np.uint8)
        self.executed = 0  # warp-level instructions executed
        self.counted: dict[str, int] = {}  # more of ncu's instruction counters, as the instructions ``tally`` them
        self.l1 = L1Words(len(ctas), self.cta_slot)  # the global accesses' L1 data-bank words, per CTA slot
        self.l1.unknown = unruled(code, geometry.cluster_size)
        self.misc = MiscWavefronts(code, self.alive, geometry.cluster_size, self.counted)  # op_misc wavefronts, into ``counted``
        self.steps = 0
        self.on_shared: Callable[..., None] | None = None
        self.on_step: Callable[[Instruction, np.ndarray], None] | None = None
        self.on_gmma: Callable[[Instruction, np.ndarray, dict], None] | None = None  # warpgroup MMAs: each one's first warp slot, operands
        self.on_global: Callable[[np.ndarray, np.ndarray, int], None] | None = None  # each global access: threads, byte addresses, size
        self.current: Instruction | None = None
        self.ex: np.ndarray | None = None  # the threads at the step that runs (``ex_ix``: their indices)
        self.ex_ix = np.zeros(0, dtype=np.int64)

    @property
    def F(self) -> np.ndarray:
        """The registers as float32."""
        return self.R.view(np.float32)

    def shared_slots(self, ix: np.ndarray, addr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Threads ``ix``'s shared::cluster addresses (the CTA's rank in the cluster in bits 24 and up, the window offset
        below) as (CTA slot, window offset); a fault for a rank past the cluster's CTAs."""
        size = self.slot_of.shape[1]
        if size == 1:  # no cluster: the rank is 0, and an address past the window is the caller's to name
            return self.cta_slot[ix], addr
        addr = np.asarray(addr, dtype=np.int64)
        rank = addr >> 24
        if len(addr) and (rank.min() < 0 or rank.max() >= size):
            k = int(np.flatnonzero((rank < 0) | (rank >= size))[0])
            raise MemoryFault(int(ix[k]), f"shared::cluster address {int(addr[k]):#x} names CTA rank {int(rank[k])}, but the cluster has "
                                          f"{size} CTA{'s' if size > 1 else ''}")
        slots = self.slot_of[self.cluster_slot[self.cta_slot[ix]], rank]
        if len(slots) and slots.min() < 0:
            raise MemoryFault(int(ix[int(np.argmin(slots))]), "a CTA of the cluster is not in this batch")
        return slots, addr & 0xFF_FFFF

    def tally(self, counter: str, threads: np.ndarray) -> None:
        """Add to ncu's instruction counter ``counter`` the warps with a thread in ``threads`` (a mask over the machine's
        threads, or thread indices)."""
        warps = np.unique(threads // LANES).size if threads.dtype != bool else int(threads.reshape(-1, LANES).any(axis=1).sum())
        if warps:
            self.counted[counter] = self.counted.get(counter, 0) + warps

    def warps_of(self, ex: np.ndarray) -> np.ndarray:
        """Batch-local warp slots with any thread in ``ex``."""
        return np.flatnonzero(ex.reshape(-1, LANES).any(axis=1))

    def run(self, limit: int) -> None:
        """Execute until every thread has exited; at most ``limit`` steps (a step executes one instruction for the warps at
        it, so no warp executes more than ``limit`` instructions).

        After a straight-line instruction (``step.plain``), the same threads are at the next instruction and nothing
        else became runnable: unless other runnable threads are there (``after``, the lowest counter of the rest), they
        run it without a search."""
        pc, code, misc = self.pc, self.code, self.misc.kind
        last = len(self.program)
        same = False
        at = after = 0
        while True:
            if same:
                at += 1
            else:
                runnable = self.alive & ~self.waiting
                if self.diverged:
                    runnable = self._groups_running(runnable)
                ready = runnable.nonzero()[0]
                if not len(ready):
                    if self.alive.any():
                        self._deadlock()
                    return
                counters = pc[ready]
                at = int(counters.min())
                ex = self.ex = runnable & (pc == at)
                self.ex_ix = ex.nonzero()[0]
                after = last if len(self.ex_ix) == len(ready) else int(counters[counters != at].min())
                warps = any_lane(ex)
                nwarps = int(np.count_nonzero(warps))
            if at >= last or self.program[at] is None:
                raise ExecError("ran past the end of the kernel's code" if at >= last else f"{code[at].text}: not a SASS instruction simsmem executes",
                                code[min(at, last - 1)].pc)
            self.current = code[at]
            self.executed += nwarps
            if self.steps >= limit:
                raise Runaway(f"still running after {limit:,} steps (a loop that never ends? raise --max-instructions)", code[at].pc)
            if self.on_step is not None:
                self.on_step(code[at], warps)
            if misc[at]:
                self.misc.step(at, self, ex, warps)
            step = self.program[at]
            try:
                step(self, ex)
            except MemoryFault as fault:
                t = int(np.flatnonzero(ex)[0]) if fault.lane < 0 else fault.lane
                raise ExecError(fault.what, code[at].pc, int(self.warp_id[t]), int(self.lane[t])) from None
            self.steps += 1
            same = at + 1 < after and getattr(step, "plain", False)

    def _groups_running(self, runnable: np.ndarray) -> np.ndarray:
        """The ``runnable`` threads of the group each diverged warp runs now.

        A diverged warp runs one of its groups at a time, until none of that group's threads can run (they wait at a
        BSYNC or BAR, or exited); then the newest of its runnable groups. A branch that splits a group leaves the
        fall-through threads in it and makes the taken ones a new group, so the fall-through side runs first. A group
        that meets its BSYNC before a sibling group has run the BSSY does not wait for it: the H100's
        smsp__inst_executed counts (div_fdiv_slowpath, isa_float32's division subroutines) need this order."""
        groups = np.where(runnable, self.group, -1)  # (-1: not runnable)
        same = groups == np.repeat(self.running, LANES)
        keep = any_lane(same)
        if keep.all():
            return runnable & same
        self.running = np.where(keep, self.running, groups.reshape(-1, LANES).max(axis=1))
        return runnable & (self.group == np.repeat(self.running, LANES))

    def _deadlock(self) -> None:
        t = int(np.flatnonzero(self.alive & self.waiting)[0])
        ins = self.code[int(self.pc[t])]
        raise ExecError(f"threads wait forever at {ins.text} (the others exited or wait elsewhere)", ins.pc, int(self.warp_id[t]), int(self.lane[t]))

    # ---- the warp-level steps the machine offers the instructions

    def advance(self, ex: np.ndarray) -> None:
        """Move the executing threads to the next instruction."""
        self.pc += ex

    def jump(self, threads: np.ndarray, target: int) -> None:
        """Send ``threads`` to the instruction at byte offset ``target`` of the code."""
        self.pc[threads] = self.index_of(target)

    def branch(self, ex: np.ndarray, taken: np.ndarray, target: int) -> None:
        """The executing threads ``taken`` go to ``target``, the others on; a warp whose threads part becomes two groups,
        which run apart until a BSYNC joins them. A branch to the next instruction parts nothing (sr_n0_m256 of
        calibration/realk/spin.json: the H200 executes the ``@P0 EXIT`` after ``@P0 BRA.U`` to it once a warp)."""
        self.pc[ex & ~taken] += 1
        if not taken.any():
            return
        if self.index_of(target) == self.current.pc // 16 + 1:
            self.pc[taken] += 1
            return
        self.jump(taken, target)
        split = taken.reshape(-1, LANES).any(axis=1) & (ex & ~taken).reshape(-1, LANES).any(axis=1)
        if split.any():
            self.group[taken & np.repeat(split, LANES)] = self.next_group
            self.next_group += 1
            self.diverged = True

    def index_of(self, offset: int) -> int:
        index = offset // 16
        if not 0 <= index < len(self.code) or self.code[index].pc != offset:
            raise ExecError(f"branch to {offset:#x}, which is no instruction", self.current.pc if self.current else None)
        return index

    def exit(self, threads: np.ndarray) -> None:
        """Threads that exit: they leave every barrier they were to meet at."""
        self.alive &= ~threads
        self.convergence[:, threads] = False
        self.release()

    def wait_bsync(self, threads: np.ndarray) -> None:
        """``threads`` arrive at the BSYNC they execute and wait there."""
        self.waiting |= threads
        self.release()

    def wait_bar(self, threads: np.ndarray, bar: int, count: int, reduce: Callable[[np.ndarray], None] | None = None) -> None:
        """``threads`` arrive at barrier ``bar`` (released once ``count`` threads arrived; -1: every thread
        of the CTA still alive) and wait; ``reduce(released)`` writes a BAR.RED's result on release."""
        self.waiting |= threads
        self.bar_id[threads] = bar
        self.bar_need[threads] = count
        self.bar_reduce[bar] = reduce
        self.release()

    def wait_until(self, threads: np.ndarray, ready: Ready, done: Done) -> None:
        """``threads`` wait until ``ready(m, waiting)`` (a mask over the threads still waiting, asked at every release)
        lets some go; ``done(m, freed)`` then finishes their instruction and moves them on."""
        self.waiting |= threads
        self.bar_id[threads] = WAIT_UNTIL
        self.conditions.append((threads.copy(), ready, done))
        self.release()

    def release(self) -> None:
        """Free the threads whose BSYNC, BAR or ``wait_until`` wait is over (they go on after it)."""
        self._release_conditions()
        waiting = self.waiting & self.alive
        if not waiting.any():
            return
        # BSYNC Bn: a warp's threads go on once every member of Bn still alive waits at this BSYNC
        at_bsync = waiting & (self.bar_id == -1)
        for at in np.unique(self.pc[at_bsync]) if at_bsync.any() else ():
            there = at_bsync & (self.pc == at)
            b = self.code[int(at)].operands[0].index
            missing = (self.convergence[b] & self.alive & ~there).reshape(-1, LANES).any(axis=1)
            free = there & ~np.repeat(missing, LANES)
            if free.any():
                self.waiting[free] = False
                self.convergence[b, free] = False
                self.pc[free] += 1
                self.group[free] = self.next_group  # the warp's groups are one again
                self.next_group += 1
        # BAR n: a CTA's threads go on once all its threads still alive wait at a BAR n, or the count is met
        at_bar = waiting & (self.bar_id >= 0)
        for slot in np.unique(self.cta_slot[at_bar]) if at_bar.any() else ():
            cta = self.cta_slot == slot
            for bar in np.unique(self.bar_id[at_bar & cta]):
                there = at_bar & cta & (self.bar_id == bar)
                need = int(self.bar_need[there].max())
                arrived = int(there.reshape(-1, LANES).any(axis=1).sum()) * LANES
                if (need < 0 and not (cta & self.alive & ~there).any()) or (need >= 0 and arrived >= need):
                    self.waiting[there] = False
                    self.bar_id[there] = -1
                    self.pc[there] += 1
                    self.misc.barrier(there)
                    reduce = self.bar_reduce.get(int(bar))
                    if reduce is not None:
                        reduce(there)

    def _release_conditions(self) -> None:
        changed = True
        while changed and self.conditions:
            changed = False
            for threads, ready, done in list(self.conditions):
                still = threads & self.waiting & self.alive
                go = still & ready(self, still) if still.any() else still
                if go.any():
                    threads &= ~go
                    self.waiting[go] = False
                    self.bar_id[go] = -1
                    done(self, go)
                    changed = True
            self.conditions = [c for c in self.conditions if (c[0] & self.alive & self.waiting).any()]
