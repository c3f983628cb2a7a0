"""Entries: a fixed number of places that issued instructions hold (a sub-partition's LSU queue, the SM's
loads in flight).

A warp takes an entry before it issues; when none is free it waits. An instruction frees its entry a
fixed number of cycles after its last wavefront (the queue's the cycle after, the SM's once its data
returned): to the warp that has waited longest, handed over then, else back to the pool. Entries free in the
order the data path finishes their instructions, so a warp gets the same entry whether the data path
told of it before the warp looked or after (``sm.py`` passes cycles ahead, up to ``to_banks``). Freed
entries are counted when a warp finds none left, not by events of their own.

This is the reference's (``reference.py``); ``sm._claim`` and ``sm._release`` are the same in numba.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable


class Entries:
    """``size`` entries shared by the warps of one run's sub-partition (or of all of them)."""

    def __init__(self, run, size: int) -> None:
        self.run = run
        self.free = size  # entries free as of the last look
        self.releases: list[int] = []  # heap: cycles taken entries are freed (of instructions served)
        self.waiters: deque[Callable[[int], None]] = deque()  # how to hand an entry to each taker that found none free, in order

    def claim(self, handed: Callable[[int], None]) -> int | None:
        """Take an entry: the cycle it is the taker's (now, if one is free; else the first release known), or
        None if none is known yet: ``handed(cycle)`` then hands it over at the release (takers get entries in
        the order they asked)."""
        run = self.run
        now = run.env.now
        if self.free:  # (no taker waits while one is free)
            self.free -= 1
            return now
        releases = self.releases
        while releases and releases[0] <= now:
            heapq.heappop(releases)
            self.free += 1
        if self.free:
            self.free -= 1
            return now
        if releases:  # the first entry to be freed is this taker's (any taker waiting before it has one)
            return heapq.heappop(releases)
        self.waiters.append(handed)
        run.waiting += 1
        return None

    def release(self, cycle: int) -> None:
        """An instruction frees its entry at ``cycle``: to the first warp waiting for one, else to the pool."""
        if self.waiters:
            self.run.waiting -= 1
            self.waiters.popleft()(cycle)
        else:
            heapq.heappush(self.releases, cycle)
