"""A sub-partition's warps and the rule that issues their slots, as written (the reference).

Slot ``s`` of a warp (``program.Slots``: its other instructions one by one, then each shared-memory one)
may issue once the previous slot's stall has passed (``base``) and the instruction it waits for, with the
warp's earlier ones, completed (``run.settled``), plus its own delay: ``ready``. Until that completion is
known the warp is ``blocked``; so it is while it waits for an entry (``entries.py``) whose release is not
yet known. Each cycle the port issues the slot of the first warp, in the order of ``port.looks``, whose
slot is ready and whose pipe is free (a shared-memory one: whose MIO throttle has passed).

``Warps.run_ahead`` issues the other instructions from a cycle up to a horizon and stops at a
shared-memory one, which the sub-partition issues (``subpartition.py``); ``compiled.py`` runs the same
rule over tables, and tests hold the two identical.
"""

from __future__ import annotations

from types import SimpleNamespace

from .port import RULES, looks


class Warp:
    """One warp: its slots, the next one's place and when it may issue."""

    __slots__ = ("slots", "pos", "base", "ready", "blocked")

    def __init__(self, slots, start: int) -> None:
        self.slots = SimpleNamespace(**{name: getattr(slots, name).tolist() for name in ("inst", "pipe", "stall", "wait", "delay")})
        self.pos = 0  # its next slot
        self.base = start  # the cycle its next slot may issue by the previous one's stall
        self.ready = start  # the cycle its next slot may issue by its wait and delay too
        self.blocked = False  # waiting for a completion or an entry not yet known

    @property
    def done(self) -> bool:
        return self.pos == len(self.slots.inst)


class Warps:
    """The warps of one sub-partition (by number: their places) and its port, pipes and MIO throttle."""

    def __init__(self, run, warps: list[tuple[object, int]], on_block) -> None:
        """``warps``: each warp's (slots, first cycle), in the order of their numbers; ``on_block(place,
        instruction)``: a warp waits for an instruction whose completion is not yet known."""
        t = run.timing
        self.run = run
        self.rule = RULES[t.issue_priority]
        self.interval, self.shared_interval = t.issue_interval, t.shared_issue_interval
        self.warps = [Warp(slots, start) for slots, start in warps]
        self.live = sum(not w.done for w in self.warps)  # warps with slots left
        self.last = -1  # the place of the warp served last
        self.pipe_free = [0] * len(t.pipes)  # first cycle each pipe may issue again
        self.pipe_gap = list(t.pipes.values())
        self.shared_free = 0  # first cycle a shared-memory instruction may issue (MIO throttle)
        self.on_block = on_block
        for place, w in enumerate(self.warps):
            if not w.done:
                self._after(place, w.base)

    def run_ahead(self, c: int, now: int, horizon: int, issued: int = -1) -> tuple[int | None, int, int, int | None]:
        """Issue other instructions from cycle ``c`` (not before ``now``) until the port picks a shared-memory
        one: (its warp's place, the instruction, ``c``, None) if at ``now``; else (None, -1, the first cycle
        not yet decided, the cycle to look again: the shared one's, or the first past ``horizon`` a warp may
        issue at; None: only when a blocked one is woken). ``issued``: the place of a warp that issued its
        shared-memory instruction at ``c`` first."""
        if issued >= 0:
            self.shared_free = c + self.shared_interval
            self._issued(issued, c)
            c += self.interval
            if c > horizon:
                return None, -1, c, c
        while self.live:
            place, first = self._pick(c)
            if place is None:
                if first is None or first > horizon:
                    return None, -1, c, first
                c = first
                continue
            w = self.warps[place]
            if (i := w.slots.inst[w.pos]) >= 0:
                return (place, i, c, None) if c == now else (None, -1, c, c)
            if (p := w.slots.pipe[w.pos]) >= 0:
                self.pipe_free[p] = c + self.pipe_gap[p]
            self._issued(place, c)
            c += self.interval
            if c > horizon:
                return None, -1, c, c
        return None, -1, c, None

    def hold(self, place: int, cycle: int) -> None:
        """The warp's next slot may issue from ``cycle`` only (an entry released then is its)."""
        self.warps[place].ready = cycle

    def block(self, place: int, blocked: bool, cycle: int = 0) -> None:
        """The warp waits for an entry whose release is not yet known (``blocked``), or is handed one at ``cycle``."""
        w = self.warps[place]
        w.blocked = blocked
        if not blocked:
            w.ready = max(w.ready, cycle)

    def completed(self, place: int) -> int:
        """The instruction the warp waited for completed (``run.settled`` known); the cycle its slot is ready."""
        w = self.warps[place]
        w.blocked = False
        self._after(place, w.base)
        return w.ready

    def _pick(self, c: int) -> tuple[int | None, int | None]:
        """The place of the warp the port serves at ``c``; else None and the first later cycle one may be
        served at (None: only when a blocked one is woken)."""
        warps, pipe_free, shared_free = self.warps, self.pipe_free, self.shared_free
        first = None
        for place in looks(self.rule, len(warps), self.last):
            w = warps[place]
            if w.blocked or w.done:
                continue
            t = w.ready
            if (p := w.slots.pipe[w.pos]) >= 0 and pipe_free[p] > t:
                t = pipe_free[p]
            if w.slots.inst[w.pos] >= 0 and shared_free > t:
                t = shared_free
            if t <= c:
                return place, None
            if first is None or t < first:
                first = t
        return None, first

    def _issued(self, place: int, c: int) -> None:
        """The warp at ``place`` issued its slot at ``c``: on to its next."""
        w = self.warps[place]
        if self.rule in (RULES["round-robin"], RULES["greedy"]):
            self.last = place
        stall = w.slots.stall[w.pos]
        w.pos += 1
        if w.done:
            self.live -= 1
        else:
            self._after(place, c + stall)

    def _after(self, place: int, base: int) -> None:
        """The warp's next slot may issue from ``base`` by the previous one's stall: its ``ready``, or blocked
        while the instruction it waits for has not completed as far as is known."""
        w, run = self.warps[place], self.run
        s = w.pos
        w.base = base
        target = w.slots.wait[s]
        if target >= 0 and run.complete[target] < 0:
            w.blocked = True
            self.on_block(place, target)
            return
        w.ready = (max(base, int(run.settled[target])) if target >= 0 else base) + w.slots.delay[s]
