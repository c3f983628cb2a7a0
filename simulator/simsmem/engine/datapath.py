"""The data path: the 32 bank ports, each serving one distinct word per cycle to every lane that wants it.

A wavefront is one pass of the bank ports (the counting model makes each wavefront ask a bank for at
most one distinct word), so the path serves ``wavefronts_per_cycle`` wavefronts a cycle, whatever banks
they use, by the rule of ``passing.py`` (oldest first within ``window_phases`` phases, the ``overtake``
exception, one wavefront per ``feed_interval`` cycles per warp), here compiled: ``_pass`` is
``Passing.pass_cycle`` over a table of the pending instructions, one row each, oldest first.

No simpy event per cycle: the path is advanced only when the engine looks. An instruction issued at
``now`` reaches the banks ``to_banks`` cycles later at the earliest, so every cycle before
``now + to_banks`` is settled by the instructions issued already, and ``sync(now)`` passes them and
tells the sub-partitions of the instructions they finished. The engine syncs when an instruction
issues and before a warp that finds no entry free counts the freed ones (``entries.py``) or looks at
an instruction it waits for; while a warp waits (``watch``), a telling cue wakes the path in time for
the next instruction to finish, found by passing on a copy of the table (``_next_finish``). ``reference.py`` runs the readable rule one simpy
event per busy cycle, and tests hold the two identical.
"""

from __future__ import annotations

import numba
import numpy as np

from .cue import TELL, then

# columns of the table of pending instructions (one row each, oldest first)
I, WARP, PHASES, LEFT, READY, PASSED, ARRIVE, LAST, START, SP = range(10)
# ``meta``: the table's rows in use, the last cycle passed, then the rule's numbers
ROWS, THROUGH, PER_CYCLE, WINDOW, FEED, WITHIN, MOST, NEW_FIRST, LAST_SP, SPS = range(10)
NEVER = 1 << 62  # a cycle after every other


class DataPath:
    """The pending instructions' table and the telling of finished ones to their sub-partitions."""

    def __init__(self, run) -> None:
        t = run.timing
        self.run = run
        self.to_banks = t.to_banks
        within, most = (t.overtake.within, t.overtake.wavefronts) if t.overtake is not None else (-1, 0)
        self.meta = np.array([0, -1, t.wavefronts_per_cycle, t.window_phases, t.feed_interval, within, most,
                              t.path_order == "new-first", -1, len(run.sub_partitions)], dtype=np.int64)
        warps, dense = np.unique(run.program.warp, return_inverse=True)
        self.warp = dense.tolist()  # per instruction: its warp's row in ``warps``
        self.warps = np.zeros((len(warps), 2), dtype=np.int64)  # per warp: first cycle its next instruction may pass, its pending
        self.table = np.zeros((64, 10), dtype=np.int64)
        self.done = np.zeros((64, 3), dtype=np.int64)  # (instruction, last cycle, wavefronts) of those finished, in order
        self.order = np.zeros(64, dtype=np.int64)  # scratch: the rows a cycle serves, in order
        if run.log is None:
            self.starts, self.cycles = None, np.zeros(1, dtype=np.int64)
        else:  # the cycle of every wavefront, for the log
            self.starts = np.r_[0, np.cumsum(run.program.wavefronts)[:-1]].tolist()
            self.cycles = np.zeros(max(int(run.program.wavefronts.sum()), 1), dtype=np.int64)
        self.next_finish = NEVER  # the first cycle a pending instruction may finish at, as things stand
        self.tell_at: int | None = None  # the cycle a telling is cued for

    def issue(self, sp, i: int, now: int, arrive: int) -> None:
        """Instruction ``i`` of ``sp`` issued at ``now`` (now the youngest), reaching the banks at ``arrive``."""
        rows = int(self.meta[ROWS])
        if rows == len(self.table):
            self.table = np.concatenate([self.table, np.zeros_like(self.table)])
            self.done = np.concatenate([self.done, np.zeros_like(self.done)])
            self.order = np.zeros(len(self.table), dtype=np.int64)
        c = self.run.columns
        self._step(now, i, self.warp[i], c.phases[i], c.wavefronts[i], arrive, self.starts[i] if self.starts is not None else -1, sp.index)

    def sync(self, now: int) -> None:
        """Pass the cycles before ``now + to_banks`` (no instruction issued from now on reaches the banks
        before then) and tell the sub-partitions of the instructions finished in them."""
        if self.next_finish < now + self.to_banks:  # else the cycles' passes can wait for the next step
            self._step(now)

    def told(self, now: int) -> int:
        """The last cycle whose finished instructions have been told, once synced at ``now``."""
        return now + self.to_banks - 1

    def watch(self) -> None:
        """A warp waits for the path (an instruction to complete, a freed entry): cue a telling for the
        cycle after the next instruction to finish (the first its completion or freed entry can be seen
        at: latencies exceed ``to_banks``), unless one is cued before."""
        if self.next_finish < NEVER and (self.tell_at is None or self.next_finish < self.tell_at - 1):
            cycle = self.tell_at = self.next_finish + 1
            then(self.run.env, cycle, TELL, lambda: self._telling(cycle))

    def finish(self) -> None:
        """Pass every cycle left and tell the rest (the warps have issued everything)."""
        self._step(NEVER)

    def _step(self, now: int, *row: int) -> None:
        """Pass the cycles before ``now + to_banks``, tell what finished, then add the instruction ``row``
        (instruction, warp's row, phases, wavefronts, arrival, first wavefront's place in ``cycles``), if any."""
        through = min(now + self.to_banks - 1, NEVER)
        finished, self.next_finish = _step(self.table, self.meta, self.warps, self.done, self.order, self.cycles, through,
                                           *(row or (-1, 0, 0, 0, 0, -1, 0)))
        run = self.run
        if finished:
            sps, where = run.sub_partitions, run.columns.sub_partition
            for i, last, passed in self.done[:finished].tolist():
                cycles = self.cycles[self.starts[i]:self.starts[i] + passed].tolist() if self.starts is not None else None
                sps[where[i]].served(i, last, passed, cycles)
        if run.waiting:
            self.watch()

    def _telling(self, cycle: int) -> None:
        if cycle != self.tell_at:  # superseded by an earlier one
            return
        self.tell_at = None
        self.sync(cycle)
        if self.run.waiting:
            self.watch()


@numba.njit(cache=True, nogil=True)
def _step(table, meta, warps, done, order, cycles, through, i, w, phases, left, arrive, start, sp):  # pragma: no cover - compiled
    """Pass the cycles up to ``through`` (those finished: ``done``), then add instruction ``i`` (-1: none)
    as the youngest; the finished count and the next cycle one may finish at."""
    t = meta[THROUGH] + 1
    finished = 0
    while True:
        t = max(t, _next_ready(table, meta[ROWS]))
        if t > through or t == NEVER:
            break
        finished = _pass(table, meta, warps, done, finished, order, cycles, t)
        t += 1
    meta[THROUGH] = through
    if i >= 0:
        rows = meta[ROWS]
        table[rows, I], table[rows, WARP], table[rows, PHASES], table[rows, LEFT] = i, w, phases, left
        table[rows, PASSED], table[rows, ARRIVE], table[rows, LAST], table[rows, START] = 0, arrive, -1, start
        table[rows, SP] = sp
        table[rows, READY] = max(arrive, warps[w, 0]) if warps[w, 1] == 0 else -1  # ready once its warp's first
        warps[w, 1] += 1
        meta[ROWS] = rows + 1
    return finished, _next_finish(table, meta, warps, order, through + 1)


@numba.njit(cache=True, nogil=True, inline="always")
def _next_ready(table, rows):  # pragma: no cover - compiled
    """The first cycle a pending instruction is ready at (NEVER: none is)."""
    first = NEVER
    for k in range(rows):
        if 0 <= table[k, READY] < first:
            first = table[k, READY]
    return first


@numba.njit(cache=True, nogil=True)
def _pass(table, meta, warps, done, finished, order, cycles, t):  # pragma: no cover - compiled
    """``Passing.pass_cycle(t)``: the instructions finished are added to ``done`` from ``finished`` on; the new count."""
    while True:  # those without wavefronts finish once first and ready (maybe making their warp's next so)
        idle = 0
        for k in range(meta[ROWS]):
            if table[k, LEFT] == 0 and 0 <= table[k, READY] <= t:
                order[idle] = table[k, I]
                idle += 1
        if idle == 0:
            break
        for m in range(idle):
            k = _row_of(table, meta[ROWS], order[m])
            done[finished, 0], done[finished, 1], done[finished, 2] = order[m], table[k, READY], 0
            finished += 1
            _finish(table, meta, warps, k)
    served = min(_serving(table, meta, order, t), meta[PER_CYCLE])
    for m in range(served):
        k = order[m]
        if table[k, START] >= 0:
            cycles[table[k, START] + table[k, PASSED]] = t
        table[k, PASSED] += 1
        table[k, LEFT] -= 1
        table[k, LAST] = t
        table[k, READY] = t + meta[FEED]
    for m in range(served):  # finish those served their last wavefront (rows move: by instruction)
        if table[order[m], LEFT] == 0:
            order[m] = -1 - table[order[m], I]
    for m in range(served):
        if order[m] < 0:
            i = -1 - order[m]
            k = _row_of(table, meta[ROWS], i)
            done[finished, 0], done[finished, 1], done[finished, 2] = i, t, table[k, PASSED]
            finished += 1
            _finish(table, meta, warps, k)
    return finished


@numba.njit(cache=True, nogil=True, inline="always")
def _row_of(table, rows, i):  # pragma: no cover - compiled
    for k in range(rows):
        if table[k, I] == i:
            return k
    return -1


@numba.njit(cache=True, nogil=True)
def _finish(table, meta, warps, k):  # pragma: no cover - compiled
    """Drop row ``k`` (finished); its warp's next pending instruction becomes the first (``Passing._finish``)."""
    w = table[k, WARP]
    if table[k, PASSED]:
        warps[w, 0] = table[k, LAST] + meta[FEED]
    warps[w, 1] -= 1
    rows = meta[ROWS] - 1
    for r in range(k, rows):
        table[r] = table[r + 1]
    meta[ROWS] = rows
    if warps[w, 1]:
        for r in range(k, rows):
            if table[r, WARP] == w:
                table[r, READY] = max(table[r, ARRIVE], warps[w, 0])
                break


@numba.njit(cache=True, nogil=True)
def _serving(table, meta, order, t):  # pragma: no cover - compiled
    """The rows ready at ``t`` within the window into ``order``, in the order the path serves them
    (``Passing._serve_first``); how many."""
    budget, seen, ready = meta[WINDOW], False, 0
    for k in range(meta[ROWS]):
        if table[k, LEFT] == 0:
            continue
        if seen and table[k, PHASES] > budget:
            break
        seen = True
        budget -= table[k, PHASES]
        if 0 <= table[k, READY] <= t:
            order[ready] = k
            ready += 1
    if meta[NEW_FIRST]:  # first wavefronts of new ones, the sub-partitions in turn, then replays oldest first
        if ready:
            for m in range(1, ready):  # insertion sort, stable
                k = order[m]
                key = _new_first_key(table, meta, k)
                n = m
                while n > 0 and _new_first_key(table, meta, order[n - 1]) > key:
                    order[n] = order[n - 1]
                    n -= 1
                order[n] = k
            meta[LAST_SP] = table[order[0], SP]
        return ready
    if meta[WITHIN] >= 0 and ready >= 2:
        first = 0  # the oldest not started
        for m in range(ready):
            if table[order[m], PASSED] == 0:
                first = m
                break
        if first:
            young = order[first]
            for m in range(first):
                o = order[m]
                if table[young, ARRIVE] - table[o, ARRIVE] > meta[WITHIN] or table[o, PASSED] + table[o, LEFT] > meta[MOST]:
                    return ready
            for m in range(first, 0, -1):
                order[m] = order[m - 1]
            order[0] = young
    return ready


@numba.njit(cache=True, nogil=True, inline="always")
def _new_first_key(table, meta, k):  # pragma: no cover - compiled
    """A row's place under ``new-first``: a replay after every new one; new ones by their sub-partition's turn."""
    if table[k, PASSED]:
        return meta[SPS]
    return (table[k, SP] - meta[LAST_SP] - 1) % meta[SPS]


@numba.njit(cache=True, nogil=True)
def _next_finish(table, meta, warps, order, t):  # pragma: no cover - compiled
    """The first cycle from ``t`` at which a pending instruction finishes if no other is added (NEVER: none
    is pending): ``_pass`` runs on copies of the table, its numbers and the warps until one finishes."""
    rows = meta[ROWS]
    if rows == 0:
        return NEVER
    copy, numbers, feeds = table[:rows].copy(), meta.copy(), warps.copy()
    copy[:, START] = -1  # (no wavefront cycles logged)
    scratch = np.empty((rows, 3), dtype=np.int64)
    while True:
        t = max(t, _next_ready(copy, rows))
        if _pass(copy, numbers, feeds, scratch, 0, order, scratch[0], t):
            return t
        t += 1
