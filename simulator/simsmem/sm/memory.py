"""Global memory as one SM sees it: its L1, and the L2 and DRAM behind it, by 32-byte sector.

As simple as the measurements allow: a sector's first touch comes from DRAM (ncu flushes the caches before
each replay), later ones from L2, or from the L1 while it holds them; every sector from L2 queues on the link
from L2 to the SM, every one from DRAM on the SM's share of the chip's DRAM bandwidth. Stores go through to L2
and leave the L1 without the sector. No eviction from L2; the L1 evicts its oldest sectors when full.
"""

from __future__ import annotations

from collections import OrderedDict

from ..config import Memory

SECTOR = 32


class MemorySystem:
    """One SM's L1 and the L2 and DRAM it reaches; ``share``: how many SMs share DRAM's bandwidth."""

    def __init__(self, memory: Memory, l1_bytes: int, share: int) -> None:
        self._m = memory
        self._l1: OrderedDict[int, float] = OrderedDict()  # sector -> cycle its data is there
        self._l1_sectors = max(1, l1_bytes // SECTOR)
        self._l2: dict[int, float] = {}
        self._link = SECTOR / memory.sm_bytes_per_cycle  # cycles a sector holds the L2-to-SM link
        self._dram = SECTOR * max(1, share) / memory.dram_bytes_per_cycle  # cycles a sector holds this SM's DRAM share
        self._link_free = 0.0
        self._dram_free = 0.0
        self.sectors = {"l1_hit": 0, "l2_hit": 0, "dram": 0}

    def load(self, sectors, t: int, cache: bool = True) -> float:
        """The cycle the last of ``sectors``, asked for at cycle ``t``, is back in the SM; ``cache``: keep them in L1."""
        m = self._m
        done = float(t + m.l1_hit)
        for s in sectors:
            have = self._l1.get(s)
            if have is not None:
                self.sectors["l1_hit"] += 1
                self._l1.move_to_end(s)
                done = max(done, have)
                continue
            ready = self._from_l2(s, t)
            if cache:
                self._l1[s] = ready
                if len(self._l1) > self._l1_sectors:
                    self._l1.popitem(last=False)
            done = max(done, ready)
        return done

    def _from_l2(self, s: int, t: int) -> float:
        m = self._m
        there = self._l2.get(s)
        if there is None:
            self.sectors["dram"] += 1
            start = max(float(t), self._dram_free)
            self._dram_free = start + self._dram
            there = start + m.dram
            self._l2[s] = there
        else:
            self.sectors["l2_hit"] += 1
            there = max(there, float(t + m.l2_hit))
        arrive = max(there, self._link_free + self._link)
        self._link_free = arrive
        return arrive

    def store(self, sectors, t: int) -> float:
        """Write ``sectors`` through to L2 at cycle ``t``: the cycle L2 has the last of them."""
        done = float(t + self._m.store_ack)
        for s in sectors:
            self._l1.pop(s, None)
            start = max(float(t), self._link_free)
            self._link_free = start + self._link
            done = max(done, start + self._m.store_ack)
            self._l2.setdefault(s, done)
        return done

    def atomic(self, sectors, t: int) -> float:
        """An atomic at L2: the cycle its old values are back."""
        done = float(t + self._m.l2_hit)
        for s in sectors:
            self._l1.pop(s, None)
            there = self._l2.get(s)
            if there is None:
                self.sectors["dram"] += 1
                there = t + self._m.dram
                self._l2[s] = there
            done = max(done, there, float(t + self._m.l2_hit))
        return done
