"""A sub-partition (SMSP): its issue port and its LSU queue.

Warps of the sub-partition share its issue port (``port.py``): one instruction per ``issue_interval``
cycles, the shared-memory ones and the others a trace's ``early`` and ``issue`` count. Each cycle the port
goes to the warp ``issue_priority`` picks among those that want it: the youngest (highest-numbered) or
the oldest, so that a warp of higher priority cuts into another's run of others, or the one after the warp
served last (``round-robin``), so that they take turns. A shared-memory
instruction issues only ``shared_issue_interval`` cycles after the sub-partition's previous one (the
MIO throttle); a warp held by it takes no slots meanwhile, and the port serves the other warps.
An issued instruction holds an entry of the LSU queue (``queue_depth``, ``entries.py``: when none is
free, issue stalls) and, where the arch limits them, one of the SM's loads in flight (``in_flight``, for
all sub-partitions). The LSU accepts the queued instructions in order, one per ``accept_interval``
cycles (the earliest at issue); an instruction reaches the data path (``datapath.py``) ``to_banks``
cycles after it is accepted, completes ``latency - to_banks`` cycles after its last wavefront, frees its
queue entry the cycle after that wavefront and its place in flight ``in_flight.after`` cycles later
(the same for every instruction, so that places free in the order the data path finishes them).
"""

from __future__ import annotations

import bisect

from .cue import WARP, WARPS, Cue
from .entries import Entries
from .port import port


class SubPartition:
    """One sub-partition's part of the load/store path."""

    def __init__(self, run, index: int) -> None:
        self.run = run
        self.index = index
        self.timing = run.timing
        self.port = port(run.timing)  # its issue port and the rule that picks the warp
        self.shared_free = 0  # first cycle a shared-memory instruction may issue (MIO throttle)
        self.accept_free = 0  # first cycle the LSU may accept the next queued instruction
        self.alu_starts: list[int] = []  # sorted: cycles integer-ALU instructions are booked to issue at
        self.stretches: dict[int, int] = {}  # warp -> start of its stretch of other instructions not yet booked
        self.queue = Entries(run, run.timing.queue_depth)  # the LSU queue's entries
        self.completion_waiters: dict[int, tuple[int, Cue]] = {}  # instruction -> (warp, cue) waiting for it

    def book_alu(self, t: int, count: int) -> int:
        """Book ``count`` integer-ALU instructions of a warp on the sub-partition's ALU pipe, the first at cycle
        ``t`` or later, each ``alu_interval`` cycles from every other booked one; the cycle after the last.
        ``t`` may be past (a stretch of other instructions is booked once it is over, from its start)."""
        gap, starts = self.timing.alu_interval, self.alu_starts
        if len(starts) > 4096:  # forget bookings no stretch still open can reach
            past = bisect.bisect_left(starts, min([self.run.env.now, t, *self.stretches.values()]) - gap)
            del starts[:past]
        for _ in range(count):
            k = bisect.bisect_right(starts, t - gap)
            while k < len(starts) and starts[k] < t + gap:  # too close to a booked one: after it
                t = starts[k] + gap
                k += 1
            starts.insert(k, t)
            t += gap
        return t - gap + 1

    def join(self, warp: int) -> int:
        """Take ``warp`` in as it starts (at its port); its ``order``."""
        self.port.join(warp)
        return self.order(warp)

    def order(self, warp: int) -> int:
        """The place of ``warp``'s wake-ups within a cycle: warps of higher issue priority act first (round-robin: the oldest)."""
        return WARP + WARPS + self.port.sign * warp

    def blocked_until(self, warp: int, now: int) -> int | None:
        """None if ``warp`` may issue a shared-memory instruction at ``now``; else the cycle to look again."""
        port = self.port
        if port.idle(now) and self.shared_free <= now:
            return None
        port.hand_out(now)
        t = max(now, self.shared_free, port.start(warp))
        return None if t == now else t

    def issue(self, i: int, now: int) -> None:
        """Issue instruction ``i`` (holding an entry) at ``now``, which ``blocked_until`` allowed."""
        self.port.take(self.run.columns.warp[i], now)
        self.shared_free = now + self.timing.shared_issue_interval
        self.run.issue[i] = now
        if self.run.log is not None:
            self.run.record(f"warp {self.run.program.warp[i]} issues #{i}", now)
        accept = max(now, self.accept_free)
        self.accept_free = accept + self.timing.accept_interval
        self.run.path.issue(self, i, now, accept + self.timing.to_banks)

    def want_slots(self, warp: int, count: int, now: int) -> int | None:
        """``warp`` wants ``count`` issue slots for other instructions from cycle ``now`` on; ``slots_done``.
        ``now`` may be ahead of the clock if the port is booked until then (``port.free``): no slot before it
        is left to hand out, so asking ahead gets the same slots as asking then."""
        self.port.hand_out(now)
        self.port.want(warp, count)
        if self.run.log is not None:
            self.run.record(f"warp {warp} wants {count} slots", now)
        return self.port.end(warp)

    def slots_done(self, warp: int, now: int) -> int | None:
        """None once ``warp`` has had all the slots it wanted by ``now``; else the cycle it will have had
        them as things stand (later if other warps come to want slots first)."""
        self.port.hand_out(now)
        return self.port.end(warp) if warp in self.port.wanting else None

    def wait_for(self, i: int, warp: int) -> Cue | None:
        """None if instruction ``i`` is served (it and the warp's earlier ones complete at ``run.settled[i]``);
        else a cue that wakes ``warp`` once they completed."""
        run = self.run
        run.path.sync(run.env.now)
        if run.complete[i] >= 0:
            return None
        cue = Cue(run.env)
        self.completion_waiters[i] = (warp, cue)
        run.waiting += 1
        run.path.watch()
        return cue

    def served(self, i: int, last: int, passed: int, cycles: list[int] | None) -> None:
        """The data path has passed the ``passed`` wavefronts of ``i``, the last at ``last`` (without
        wavefronts: the cycle it was ready at); ``cycles``: theirs, for the log."""
        run, t = self.run, self.timing
        done = last + run.columns.latency[i] - t.to_banks
        run.complete[i] = done
        run.passed[i] = passed
        if run.log is not None:
            run.log.extend((f"#{i} wavefront {k + 1}/{passed}", c) for k, c in enumerate(cycles))
            run.record(f"#{i} completes", done)
        w = run.columns.warp[i]
        run.warp_done[w] = run.settled[i] = max(run.warp_done.get(w, 0), done)
        if i in self.completion_waiters:
            warp, cue = self.completion_waiters.pop(i)
            run.waiting -= 1
            cue.fire(run.settled[i], self.order(warp))
        self.queue.release(last + 1)
        if run.in_flight is not None:
            run.in_flight.release(last + 1 + t.in_flight.after)
