"""A sub-partition (SMSP): its warp scheduler and issue port, its pipes and its LSU queue.

Each cycle (one per ``issue_interval``) the port issues one slot of the first warp, in the order of
``issue_priority`` (``port.py``), whose next slot may issue (``warp.py``): its pipe (``timing.pipes``) is
free, and for a shared-memory instruction the MIO throttle allows it (``shared_issue_interval``) and it
holds an entry of the LSU queue (``queue_depth``) and, where the arch limits them, one of the SM's places
in flight (``in_flight``, for all sub-partitions; ``entries.py``). A warp finding no entry free waits for
one and the port serves the others. The LSU accepts the queued instructions in order, one per
``accept_interval`` cycles (the earliest at issue); an instruction reaches the data path
(``datapath.py``) ``to_banks`` cycles after it is accepted, completes ``latency - to_banks`` cycles after
its last wavefront, frees its queue entry the cycle after that wavefront and its place in flight
``in_flight.after`` cycles later (the same for every instruction, so that places free in the order the
data path finishes them).

The scheduler is one simpy process per sub-partition. It decides cycle by cycle but runs ahead of the
clock where nothing else can change its decisions: the data path has told of every instruction finished
by some cycle (``told``: ``now - 1`` here, where each cycle is passed after the schedulers' wake-ups;
``now + to_banks - 1`` in ``sm.py``, which passes ahead), so every completion until ``run.after_pass``
cycles later is known, and every queue entry freed until the cycle after; it issues other instructions
up to then without an event each, and a shared-memory one only at its own cycle, in order with the
other sub-partitions'.

This is the reference, as written (``reference.py``); ``sm._wake`` is one pass of ``schedule``'s loop in numba.
"""

from __future__ import annotations

from .cue import WARP, Alarm
from .entries import Entries
from .warp import Warps


class SubPartition:
    """One sub-partition's part of the load/store path."""

    def __init__(self, run, index: int) -> None:
        self.run = run
        self.index = index
        self.timing = t = run.timing
        self.warps: Warps | None = None  # the rule over this sub-partition's warps (``start``)
        self.accept_free = 0  # first cycle the LSU may accept the next queued instruction
        self.queue = Entries(run, t.queue_depth)  # the LSU queue's entries
        self.held: dict[str, set[int]] = {"queue": set(), "flight": set()}  # places of warps holding an entry for their next instruction
        self.waiters: dict[int, int] = {}  # instruction -> the place of the warp waiting for it to complete
        self.waiting_entry = 0  # warps waiting for an entry whose release is not yet known
        self.alarm = Alarm(run.env, WARP + index)  # what its scheduler's process (``reference.Run.run``) sleeps on

    def start(self, warps: list[tuple[object, int]]):
        """Take the warps in (each one's slots and first cycle, in the order of their numbers: their places);
        the scheduler's simpy process, or None if no warp has a slot."""
        self.warps = Warps(self.run, warps, self._block)
        return self.schedule() if self.warps.live else None

    def schedule(self):
        """The scheduler's simpy process: issue slots until every warp's are issued."""
        run, warps = self.run, self.warps
        env = run.env
        c = 0
        while warps.live:
            now = env.now
            told = now - 1  # the path passes each cycle after the schedulers' wake-ups: every completion until told + after_pass is known, every release until told + 1
            horizon = told + (1 if self.waiting_entry else run.after_pass)
            c = max(c, now)
            issued = -1
            while True:
                place, i, c, wake = warps.run_ahead(c, now, horizon, issued)
                issued = -1
                if place is None:  # wake: the cycle to look again (None: when a warp is woken)
                    break
                if not self._entries(place, c):
                    continue
                self.issue(i, c)
                issued = place
            if warps.live:
                yield self.alarm.sleep(wake)
                self.alarm.woke()

    def _block(self, place: int, target: int) -> None:
        """The warp at ``place`` waits for instruction ``target`` to complete."""
        self.waiters[target] = place
        self.run.waiting += 1

    def _entries(self, place: int, c: int) -> bool:
        """Take an LSU queue entry and a place in flight for the warp's shared-memory instruction at ``c``: True
        if it holds both now (and issues: they are no longer held for later); else it waits (ready later, or
        blocked until a release is handed to it)."""
        for kind, entries in (("queue", self.queue), ("flight", self.run.in_flight)):
            if entries is None or place in self.held[kind]:
                continue
            got = entries.claim(lambda cycle, kind=kind: self._handed(place, kind, cycle))
            if got is None:
                self.warps.block(place, True)
                self.waiting_entry += 1
                return False
            self.held[kind].add(place)
            if got > c:
                self.warps.hold(place, got)
                return False
        self.held["queue"].discard(place)
        self.held["flight"].discard(place)
        return True

    def _handed(self, place: int, kind: str, cycle: int) -> None:
        """A released entry goes to the warp at ``place`` at ``cycle``."""
        self.held[kind].add(place)
        self.waiting_entry -= 1
        self.warps.block(place, False, cycle)
        self.alarm.nudge(cycle)

    def issue(self, i: int, now: int) -> None:
        """Issue instruction ``i`` (holding its entries) at ``now``."""
        run, t = self.run, self.timing
        run.issue[i] = now
        accept = max(now, self.accept_free)
        self.accept_free = accept + t.accept_interval
        run.path.issue(self, i, now, accept + t.to_banks)

    def served(self, i: int, last: int, passed: int, cycles: list[int] | None) -> None:
        """The data path has passed the ``passed`` wavefronts of ``i``, the last at ``last`` (without
        wavefronts: the cycle it was ready at); ``cycles``: theirs (kept for the log)."""
        run, t = self.run, self.timing
        done = last + run.columns.latency[i] - t.to_banks
        run.complete[i] = done
        run.passed[i] = passed
        if run.cycles is not None:
            run.cycles[run.starts[i]:run.starts[i] + passed] = cycles
        w = run.columns.warp[i]
        run.warp_done[w] = run.settled[i] = max(run.warp_done.get(w, 0), done)
        if (place := self.waiters.pop(i, None)) is not None:
            run.waiting -= 1
            self.alarm.nudge(self.warps.completed(place))
        self.queue.release(last + 1)
        if run.in_flight is not None:
            run.in_flight.release(last + 1 + t.in_flight.after)
