"""A sub-partition's warp scheduler: one issue slot per ``issue_interval`` cycles, to the ready warp the rule picks.

Each warp's slots (``program.Slots``: its other instructions one by one, then each shared-memory one) issue
in order. A slot is ready once the previous slot's stall has passed, the instruction it waits for (and the
warp's earlier ones) completed, plus its delay; it may issue when its pipe (``timing.pipes``) is free, and a
shared-memory one when the MIO throttle allows (``shared_issue_interval``) and it holds an entry of the LSU
queue and one of the SM's places in flight. Each cycle the port goes to the ready warp ``issue_priority``
picks: the youngest, the oldest, or the first after the warp served last (``round-robin``).

The scheduler is one simpy process per sub-partition. It decides cycle by cycle, but runs ahead of the
clock over slots whose decision nothing else can change: from ``now`` the completions until ``now +
lookahead`` are known (an instruction not yet finished at ``now + to_banks`` completes later), so it
may issue other instructions up to then without an event each; a shared-memory instruction it issues only
at its own cycle, in order with the other sub-partitions'.
"""

from __future__ import annotations

from .cue import WARP, Cue, then
from .datapath import DataPath
from .program import program
from .simulate import Run
from .subpartition import SubPartition


class Warp:
    """A warp's place in its slots and what holds the next one."""

    __slots__ = ("number", "slots", "pos", "base", "ready", "blocked", "queue", "flight")

    def __init__(self, number: int, slots) -> None:
        self.number = number
        self.slots = slots
        self.pos = 0  # its next slot
        self.base = 0  # the cycle its next slot may issue by the previous one's stall
        self.ready = 0  # the cycle its next slot may issue (its wait and delay too)
        self.blocked = False  # waiting for an instruction to complete or for an entry
        self.queue = False  # its next (shared-memory) slot holds an LSU queue entry
        self.flight = False  # ... and a place in flight


class Scheduler(SubPartition):
    """A sub-partition whose port hands out one slot at a time (``issue_priority``)."""

    def __init__(self, run, index: int) -> None:
        super().__init__(run, index)
        self.warps: list[Warp] = []  # by number
        self.live = 0
        self.pipe_free = [0] * len(self.timing.pipes)
        self.pipe_gap = list(self.timing.pipes.values())
        self.last = -1  # the warp served last (round-robin)
        self.cue_order = WARP + index
        self.alarm: Cue | None = None  # what the process sleeps on
        self.alarm_at: int | None = None
        self.entry_blocked = 0  # warps waiting for an entry whose release is not yet known
        self.waiters: dict[int, Warp] = {}  # instruction -> the warp waiting for it to complete

    def add(self, number: int, slots) -> None:
        """Take warp ``number`` with its ``slots`` in."""
        w = Warp(number, slots)
        self.warps.append(w)
        self.warps.sort(key=lambda v: v.number)
        self.live += 1
        self._prepare(w, 0)

    def turn(self) -> list[Warp]:
        """The warps in the order the port looks at them this cycle."""
        rule = self.timing.issue_priority
        if rule == "youngest":
            return self.warps[::-1]
        if rule == "oldest":
            return self.warps
        k = next((k for k, w in enumerate(self.warps) if w.number > self.last), 0)
        return self.warps[k:] + self.warps[:k]

    def schedule(self):
        """The scheduler's simpy process."""
        run = self.run
        env = run.env
        interval = self.timing.issue_interval
        c = 0
        while self.live:
            now = env.now
            run.path.sync(now)
            horizon = now + (self.timing.to_banks if self.entry_blocked else run.lookahead)
            c = max(c, now)
            wake = None
            while self.live:
                w = self._pick(c)
                if w is None:
                    wake = self._next(c)
                    if wake is None or wake > horizon:
                        break
                    c = wake
                    continue
                s = w.pos
                i = w.slots.inst[s]
                if i >= 0:
                    if c > now:  # a shared-memory one issues at its cycle, in order with the others'
                        wake = c
                        break
                    if not self._entries(w, c):
                        continue
                    self.issue(i, c)
                    w.queue = w.flight = False
                else:
                    p = w.slots.pipe[s]
                    if p >= 0:
                        self.pipe_free[p] = c + self.pipe_gap[p]
                self.last = w.number
                self._advance(w, c)
                c += interval
                if c > horizon:
                    wake = c
                    break
            if not self.live:
                return
            yield self._sleep(wake)

    def _pick(self, c: int) -> Warp | None:
        pipe_free, shared_free = self.pipe_free, self.shared_free
        for w in self.turn():
            if w.blocked or w.ready > c or w.pos == len(w.slots.inst):
                continue
            s = w.pos
            p = w.slots.pipe[s]
            if p >= 0 and pipe_free[p] > c:
                continue
            if w.slots.inst[s] >= 0 and shared_free > c:
                continue
            return w
        return None

    def _next(self, c: int) -> int | None:
        """The first cycle after ``c`` a warp not blocked may be picked at (None: none)."""
        best = None
        for w in self.warps:
            if w.blocked or w.pos == len(w.slots.inst):
                continue
            s = w.pos
            t = w.ready
            p = w.slots.pipe[s]
            if p >= 0:
                t = max(t, self.pipe_free[p])
            if w.slots.inst[s] >= 0:
                t = max(t, self.shared_free)
            t = max(t, c + 1)
            if best is None or t < best:
                best = t
        return best

    def _advance(self, w: Warp, c: int) -> None:
        """``w`` issued its slot at ``c``: on to its next."""
        stall = w.slots.stall[w.pos]
        w.pos += 1
        if w.pos == len(w.slots.inst):
            self.live -= 1
        else:
            self._prepare(w, c + stall)

    def _prepare(self, w: Warp, base: int) -> None:
        """Work out when ``w``'s slot ``w.pos`` may issue, the previous one's stall over at ``base``."""
        s = w.pos
        w.base = base
        target = w.slots.wait[s]
        run = self.run
        if target < 0:
            w.ready = base + w.slots.delay[s]
        elif run.complete[target] >= 0:
            w.ready = max(base, int(run.settled[target])) + w.slots.delay[s]
        else:
            w.blocked = True
            self.waiters[target] = w
            run.waiting += 1
            run.path.watch()

    def _entries(self, w: Warp, c: int) -> bool:
        """Take an LSU queue entry and a place in flight for ``w``'s shared-memory slot at ``c``: True if it holds
        both now; else it waits (ready later, or blocked until a release is handed to it)."""
        for kind, entries in (("queue", self.queue), ("flight", self.run.in_flight)):
            if entries is None or getattr(w, kind):
                continue
            got = entries.claim(lambda cycle, kind=kind: self._handed(w, kind, cycle))
            if got is None:
                w.blocked = True
                self.entry_blocked += 1
                return False
            setattr(w, kind, True)
            if got > c:
                w.ready = got
                return False
        return True

    def _handed(self, w: Warp, kind: str, cycle: int) -> None:
        setattr(w, kind, True)
        w.blocked = False
        self.entry_blocked -= 1
        w.ready = max(w.ready, cycle)
        self._nudge(cycle)

    def served(self, i: int, last: int, passed: int, cycles: list[int] | None) -> None:
        super().served(i, last, passed, cycles)
        if (w := self.waiters.pop(i, None)) is not None:
            run = self.run
            run.waiting -= 1
            w.blocked = False
            w.ready = max(w.base, int(run.settled[i])) + w.slots.delay[w.pos]
            self._nudge(w.ready)

    def _sleep(self, wake: int | None) -> Cue:
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

        def ring():
            if self.alarm is alarm:
                self.alarm = None
                alarm.fire(env.now, self.cue_order)

        then(env, max(cycle, env.now), self.cue_order, ring)


class SlotRun(Run):
    """A run whose sub-partitions schedule their warps slot by slot."""

    def __init__(self, prog, timing, sub_partitions: int, path, log) -> None:
        super().__init__(prog, timing, sub_partitions, path, log, part=Scheduler)
        self.lookahead = int(prog.latency.min(initial=timing.to_banks + 1)) - 1  # completions before now + this are known

    def start(self) -> None:
        prog = self.program
        for instructions, slots in zip(prog.by_warp, prog.slots):
            self.sub_partitions[int(prog.sub_partition[instructions[0]])].add(int(prog.warp[instructions[0]]), slots)
        for sp in self.sub_partitions:
            if sp.live:
                self.env.process(sp.schedule())


def simulate_slots(batch, counts, arch, *, sub_partition=None, log=None, advance=None):
    """``simulate`` with the sub-partitions scheduling slot by slot."""
    prog = program(batch, counts, arch, sub_partition)
    return SlotRun(prog, arch.timing, arch.sub_partitions, DataPath, log).run(advance)
