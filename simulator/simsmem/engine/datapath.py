"""The data path: the 32 bank ports, each serving one distinct word per cycle to every lane that wants it.

A wavefront is one pass of the bank ports (the counting model makes each wavefront ask a bank for at
most one distinct word), so the path serves ``wavefronts_per_cycle`` wavefronts a cycle, whatever banks
they use. An instruction at the front of its warp's queue books the cycles of all its wavefronts at
once: the earliest cycles the path has free, one per ``feed_interval`` cycles. Fronts book in the order
they reached the front (``cue.FRONT``), so an earlier front keeps its cycles: the same schedule as
passing wavefronts one by one, oldest front first (``reference.py``).
"""

from __future__ import annotations

PRUNE_EVERY = 4096  # bookings between two sweeps of cycles already past


class DataPath:
    """Cycles booked on the data path, and the booking of an instruction's wavefronts."""

    def __init__(self, per_cycle: int) -> None:
        self.per_cycle = per_cycle
        self.booked: dict[int, int] = {}  # cycle -> wavefronts booked in it
        self.full: dict[int, int] = {}  # full cycle -> a later cycle to look at for room (a disjoint-set forest)
        self.bookings = 0

    def serve(self, sp, i: int, first: int) -> None:
        """Book instruction ``i`` of sub-partition ``sp``, at the front of its queue since cycle ``first``."""
        booked, interval = self.booked, sp.timing.feed_interval
        cycles = []
        t = first
        for _ in range(sp.run.program.wavefronts[i]):
            t = self._room_from(t)
            booked[t] = booked.get(t, 0) + 1
            if booked[t] == self.per_cycle:
                self.full[t] = t + 1
            cycles.append(t)
            t += interval
        self.bookings += 1
        if self.bookings % PRUNE_EVERY == 0:
            self._forget_before(first)
        sp.served(i, first, cycles)

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
        """Drop bookings of cycles before ``cycle``: no front can reach the banks that early any more."""
        for table in (self.booked, self.full):
            for past in [c for c in table if c < cycle]:
                del table[past]
