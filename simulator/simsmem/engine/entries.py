"""Entries: a fixed number of places that issued instructions hold (a sub-partition's LSU queue, the SM's
loads in flight).

A warp takes an entry before it issues; when none is free it waits. An instruction frees its entry a
fixed number of cycles after its last wavefront (the queue's the cycle after, the SM's once its data
returned): to the warp that has waited longest, woken then, else back to the pool. Entries free in the
order the data path finishes their instructions, so a warp gets the same entry whether the compiled
data path (which passes cycles ahead, up to ``to_banks``) told of it before the warp looked or after.
Freed entries are counted when a warp finds none left, not by events of their own; the data path is
synced first, so that every instruction finished by now has freed its entry.
"""

from __future__ import annotations

import heapq
from collections import deque

from .cue import Cue


class Entries:
    """``size`` entries shared by the warps of one run's sub-partition (or of all of them)."""

    def __init__(self, run, size: int) -> None:
        self.run = run
        self.free = size  # entries free as of the last look
        self.releases: list[int] = []  # heap: cycles taken entries are freed (of instructions served)
        self.waiters: deque[tuple[int, Cue]] = deque()  # (order, cue) of the warps that found none free, in order

    def take(self, order: int) -> Cue | None:
        """Take an entry for a warp waking in place ``order`` of its cycle; None if one was free, else a cue
        that wakes the warp when a freed entry is handed to it (warps get entries in the order they asked)."""
        if self.free:  # (no warp waits while one is free)
            self.free -= 1
            return None
        run = self.run
        now = run.env.now
        run.path.sync(now)
        releases = self.releases
        while releases and releases[0] <= now:
            heapq.heappop(releases)
            self.free += 1
        if self.free:
            self.free -= 1
            return None
        cue = Cue(run.env)
        if releases:  # the first entry to be freed is this warp's (any warp waiting before it has one)
            cue._cycle = heapq.heappop(releases)
            cue.fire(cue._cycle, order)
        else:  # the next instruction the data path finishes frees it
            self.waiters.append((order, cue))
            run.waiting += 1
            run.path.watch()
        return cue

    def claim(self, handed) -> int | None:
        """Take an entry: the cycle it is the taker's (now, if one is free; else the first release known);
        None if none is known yet, and ``handed(cycle)`` is called when the next release hands it over."""
        now = self.run.env.now
        if (cue := self.take(0)) is None:
            return now
        if self.waiters and self.waiters[-1][1] is cue:
            self.waiters[-1] = (0, handed)
            return None
        return cue._cycle

    def release(self, cycle: int) -> None:
        """An instruction frees its entry at ``cycle``: to the first warp waiting for one, else to the pool."""
        if self.waiters:
            order, cue = self.waiters.popleft()
            self.run.waiting -= 1
            if isinstance(cue, Cue):
                cue.fire(cycle, order)
            else:
                cue(cycle)
        else:
            heapq.heappush(self.releases, cycle)
