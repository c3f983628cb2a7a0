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
by some cycle (``told``: ``now + to_banks - 1`` for the compiled path, which passes ahead), so every
completion until ``run.after_pass`` cycles later is known, and every queue entry freed until the cycle
after; it issues other instructions up to then without an event each, and a shared-memory one only at
its own cycle, in order with the other sub-partitions'.
"""

from __future__ import annotations

from .cue import WARP, Cue, then
from .entries import Entries
from .port import RULES, looks
from .warp import Warp


class SubPartition:
    """One sub-partition's part of the load/store path."""

    def __init__(self, run, index: int) -> None:
        self.run = run
        self.index = index
        self.timing = t = run.timing
        self.rule = RULES[t.issue_priority]
        self.warps: list[Warp] = []  # by number
        self.live = 0  # warps with slots left
        self.last = -1  # the place (in ``warps``) of the warp served last
        self.pipe_free = [0] * len(t.pipes)  # first cycle each pipe may issue again
        self.pipe_gap = list(t.pipes.values())
        self.shared_free = 0  # first cycle a shared-memory instruction may issue (MIO throttle)
        self.accept_free = 0  # first cycle the LSU may accept the next queued instruction
        self.queue = Entries(run, t.queue_depth)  # the LSU queue's entries
        self.waiters: dict[int, Warp] = {}  # instruction -> the warp waiting for it to complete
        self.waiting_entry = 0  # warps waiting for an entry whose release is not yet known
        self.order = WARP + index  # the place of its wake-ups within a cycle
        self.alarm: Cue | None = None  # what the process sleeps on, and the cycle it is cued for
        self.alarm_at: int | None = None

    def join(self, number: int, slots, start: int = 0) -> None:
        """Take warp ``number`` in, with its ``slots``, the first of them from cycle ``start``."""
        w = Warp(number, slots)
        self.warps.append(w)
        self.warps.sort(key=lambda v: v.number)
        if not w.done:
            self.live += 1
            self._after(w, start)

    def schedule(self):
        """The scheduler's simpy process: issue slots until every warp's are issued."""
        run, interval = self.run, self.timing.issue_interval
        env = run.env
        c = 0
        while self.live:
            now = env.now
            run.path.sync(now)
            told = run.path.told(now)  # every completion until told + after_pass is known, every release until told + 1
            horizon = told + (1 if self.waiting_entry else run.after_pass)
            c = max(c, now)
            wake = None
            while self.live:
                w, wake = self._pick(c)
                if w is None:
                    if wake is None or wake > horizon:
                        break
                    c = wake
                    continue
                s = w.pos
                i = w.slots.inst[s]
                if i >= 0:
                    if c > now:  # issues at its own cycle, in order with the other sub-partitions'
                        wake = c
                        break
                    if not self._entries(w, c):
                        continue
                    w.queue = w.flight = False
                    self.issue(i, c)
                elif (p := w.slots.pipe[s]) >= 0:
                    self.pipe_free[p] = c + self.pipe_gap[p]
                self.last = self.warps.index(w) if self.rule == RULES["round-robin"] else -1
                w.pos = s + 1
                if w.done:
                    self.live -= 1
                else:
                    self._after(w, c + w.slots.stall[s])
                c += interval
                if c > horizon:
                    wake = c
                    break
            if self.live:
                yield self._sleep(wake)

    def _pick(self, c: int) -> tuple[Warp | None, int | None]:
        """The warp the port serves at ``c``; else None and the first later cycle one may be served at
        (None: only when a blocked one is woken)."""
        warps, pipe_free, shared_free = self.warps, self.pipe_free, self.shared_free
        first = None
        for k in looks(self.rule, len(warps), self.last):
            w = warps[k]
            if w.blocked or w.done:
                continue
            s = w.pos
            t = w.ready
            if (p := w.slots.pipe[s]) >= 0 and pipe_free[p] > t:
                t = pipe_free[p]
            if w.slots.inst[s] >= 0 and shared_free > t:
                t = shared_free
            if t <= c:
                return w, None
            if first is None or t < first:
                first = t
        return None, first

    def _after(self, w: Warp, base: int) -> None:
        if (target := w.after(base, self.run)) is not None:
            self.waiters[target] = w
            self.run.waiting += 1
            self.run.path.watch()

    def _entries(self, w: Warp, c: int) -> bool:
        """Take an LSU queue entry and a place in flight for ``w``'s shared-memory instruction at ``c``: True
        if it holds both now; else it waits (ready later, or blocked until a release is handed to it)."""
        for kind, entries in (("queue", self.queue), ("flight", self.run.in_flight)):
            if entries is None or getattr(w, kind):
                continue
            got = entries.claim(lambda cycle, kind=kind: self._handed(w, kind, cycle))
            if got is None:
                w.blocked = True
                self.waiting_entry += 1
                return False
            setattr(w, kind, True)
            if got > c:
                w.ready = got
                return False
        return True

    def _handed(self, w: Warp, kind: str, cycle: int) -> None:
        """A released entry goes to ``w`` at ``cycle``."""
        setattr(w, kind, True)
        w.blocked = False
        self.waiting_entry -= 1
        w.ready = max(w.ready, cycle)
        self._nudge(cycle)

    def issue(self, i: int, now: int) -> None:
        """Issue instruction ``i`` (holding its entries) at ``now``."""
        run, t = self.run, self.timing
        self.shared_free = now + t.shared_issue_interval
        run.issue[i] = now
        if run.log is not None:
            run.record(f"warp {run.program.warp[i]} issues #{i}", now)
        accept = max(now, self.accept_free)
        self.accept_free = accept + t.accept_interval
        run.path.issue(self, i, now, accept + t.to_banks)

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
        if (waiter := self.waiters.pop(i, None)) is not None:
            run.waiting -= 1
            waiter.served(run)
            self._nudge(waiter.ready)
        self.queue.release(last + 1)
        if run.in_flight is not None:
            run.in_flight.release(last + 1 + t.in_flight.after)

    def _sleep(self, wake: int | None) -> Cue:
        """The cue the process sleeps on: cued for ``wake`` (None: until a warp is woken)."""
        self.alarm = alarm = Cue(self.run.env)
        self.alarm_at = None
        if wake is not None:
            self._nudge(wake)
        return alarm

    def _nudge(self, cycle: int) -> None:
        """Wake the process at ``cycle`` if it sleeps until later."""
        alarm = self.alarm
        if alarm is None or (self.alarm_at is not None and self.alarm_at <= cycle):
            return
        self.alarm_at = cycle
        env = self.run.env

        def ring() -> None:
            if self.alarm is alarm:
                self.alarm = None
                alarm.fire(env.now, self.order)

        then(env, max(cycle, env.now), self.order, ring)
