"""The data path: the 32 bank ports, each serving one distinct word per cycle to every lane that wants it.

A wavefront is one pass of the bank ports (the counting model makes each wavefront ask a bank for at
most one distinct word), so the path serves ``wavefronts_per_cycle`` wavefronts a cycle, whatever banks
they use. It serves the oldest instruction first (the earliest issued), and only among the oldest
unfinished ones: an instruction may be served once the older instructions not yet finished (their
last wavefront still ahead) have at most ``window_phases`` phases together with its own, or none is
left; a warp's instructions queued behind its own earlier ones take their places meanwhile. Each
warp's wavefronts leave one per ``feed_interval`` cycles, in order.

Since a younger instruction never takes a cycle an older one could use, an instruction's cycles are
fixed by the older ones alone: ``issue`` books all of them when it issues (instructions issue oldest
first), the earliest free cycles the rules allow: the same schedule as passing wavefronts one cycle at
a time (``reference.py``).
"""

from __future__ import annotations

import bisect

PRUNE_EVERY = 4096  # bookings between two sweeps of cycles already past


class DataPath:
    """Cycles booked on the data path, and the booking of an instruction's wavefronts."""

    def __init__(self, timing) -> None:
        self.per_cycle = timing.wavefronts_per_cycle
        self.window = timing.window_phases
        self.booked: dict[int, int] = {}  # cycle -> wavefronts booked in it
        self.full: dict[int, int] = {}  # full cycle -> a later cycle to look at for room (a disjoint-set forest)
        self.unfinished: list[tuple[int, int]] = []  # (last wavefront's cycle, phases) of booked instructions, sorted
        self.unfinished_phases = 0  # their phases together
        self.uniform: int | None = 0  # the phases of every unfinished one, when they are the same (None: they differ)
        self.bookings = 0

    def issue(self, sp, i: int, now: int, arrive: int) -> None:
        """Book instruction ``i`` of sub-partition ``sp``, issued at ``now`` (after every older one) and
        reaching the banks at ``arrive``."""
        t, c = sp.timing, sp.run.columns
        horizon = now + t.to_banks  # no instruction issued from now on reaches the banks before it
        first = max(arrive, sp.feed_free.get(c.warp[i], 0))
        count = c.wavefronts[i]
        cycles = []
        if count:
            phases = c.phases[i]
            start = self._window_entry(first, phases, horizon)
            booked, full, per_cycle, step = self.booked, self.full, self.per_cycle, t.feed_interval
            for _ in range(count):
                if start in full:
                    start = self._room_from(start)
                n = booked.get(start, 0) + 1
                booked[start] = n
                if n == per_cycle:
                    full[start] = start + 1
                cycles.append(start)
                start += step
            bisect.insort(self.unfinished, (cycles[-1], phases))
            self.unfinished_phases += phases
            self.uniform = phases if len(self.unfinished) == 1 or self.uniform == phases else None
            self.bookings += 1
            if self.bookings % PRUNE_EVERY == 0:
                self._forget_before(horizon)
        sp.served(i, first, cycles)

    def _window_entry(self, first: int, phases: int, horizon: int) -> int:
        """The first cycle from ``first`` at which the older unfinished instructions have at most
        ``window - phases`` phases together, or none is left (``horizon``: no later instruction reaches
        the banks before it, so instructions finished before it can be forgotten)."""
        unfinished = self.unfinished
        if unfinished and unfinished[0][0] < horizon:
            gone = bisect.bisect_left(unfinished, (horizon, 0))
            self.unfinished_phases -= sum(p for _, p in unfinished[:gone])
            del unfinished[:gone]
            if not unfinished:
                self.uniform = 0
        budget = self.window - phases
        if self.unfinished_phases <= budget:
            return first
        if self.uniform:  # every unfinished one has these phases: the window is the latest budget // uniform of them
            k = len(unfinished) - 1 - max(budget, 0) // self.uniform
            return max(first, unfinished[k][0] + 1) if k >= 0 else first
        for k in range(len(unfinished) - 1, -1, -1):  # the last to finish first
            last, weight = unfinished[k]
            if last < first:
                break
            if weight > budget:
                return max(first, last + 1)
            budget -= weight
        return first

    def _room_from(self, t: int) -> int:
        """The first cycle from ``t`` with room, shortening the paths it walked."""
        full = self.full
        room = t
        while room in full:
            room = full[room]
        while t != room:
            full[t], t = room, full[t]
        return room

    def _forget_before(self, cycle: int) -> None:
        """Drop bookings of cycles before ``cycle``: no instruction can reach the banks that early any more."""
        for table in (self.booked, self.full):
            for past in [c for c in table if c < cycle]:
                del table[past]
