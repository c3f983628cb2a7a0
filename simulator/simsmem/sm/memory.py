"""Global memory as one SM sees it: its L1, and the L2 and DRAM behind it, by 32-byte sector.

As simple as the measurements allow (calibration/realk/runs/2026-11-29-memlat): a sector's first touch comes from
DRAM (ncu flushes the caches before each replay), later ones from L2, or from the L1 while it holds them. Every
sector the L1 misses takes its turn, in issue order, on the SM's share of the chip's L2 bandwidth, and one from DRAM
then on the SM's share of the chip's DRAM bandwidth (the SMs that run CTAs share both evenly). An L2 hit is there
``l2_hit`` cycles after its turn; a DRAM sector ``dram`` cycles after its DRAM turn plus ``flight_cycles`` for each
sector the SM has in flight at its turn (a loaded SM waits longer). Then the sectors come back over the link from
L2 to the SM, ``sm_bytes_per_cycle``, in the order they are there. Stores go through to L2 over the link's other
way, as fast, and leave the L1 without the sector. No eviction from L2; the L1 evicts its oldest sectors when full.

DRAM has slow spells: ``tail_window`` cycles of every ``tail_period``, a trip that leaves in one takes ``dram_tail``
more (the H200 memlat probes' tail). Which SM meets one at its first trips changes from run to run
(runs/2026-11-29-chip, round 2), and the launch's cycles are its last SM's: where the launch's SMs make it more likely
than not that one of them does (``spells_likely``), that SM is timed apart (``spells``), its first spell opening at
its first DRAM trip; the SMs' sums are the average SM's, which meets none.

Not modelled: the H200's DRAM latency has two modes ~190 cycles apart by a line's 8 KiB block
(runs/2026-11-29-memlat/README.md, "DRAM's latency by address": where the corpus's buffers start in that pattern is
not known); and the SMs' shares are even in time (a burst of one SM drains no faster when the others are idle).
"""

from __future__ import annotations

import heapq
import math
from collections import OrderedDict

from ..config import Memory

SECTOR = 32


def spells_likely(memory: Memory, share: int) -> bool:
    """Whether one of ``share`` SMs more likely than not meets a slow spell at its first DRAM trips."""
    return memory.dram_tail > 0 and 1 - (1 - memory.tail_window / memory.tail_period) ** max(1, share) > 0.5


class MemorySystem:
    """One SM's L1 and the L2 and DRAM it reaches; ``share``: how many SMs share the L2's and DRAM's bandwidth;
    ``spells``: the SM meets DRAM's slow spells, the first at its first DRAM trip."""

    def __init__(self, memory: Memory, l1_bytes: int, share: int, spells: bool = False) -> None:
        self._m = memory
        self._l1: OrderedDict[int, float] = OrderedDict()  # sector -> cycle its data is there
        self._l1_sectors = max(1, l1_bytes // SECTOR)
        self._l2: dict[int, float] = {}
        self._write = SECTOR / memory.sm_bytes_per_cycle  # cycles a stored sector holds the link to L2
        self._l2_turn = SECTOR * max(1, share) / memory.l2_bytes_per_cycle  # cycles a sector holds this SM's L2 share
        self._dram = SECTOR * max(1, share) / memory.dram_bytes_per_cycle  # cycles a sector holds this SM's DRAM share
        self._write_free = 0.0
        self._l2_free = 0.0
        self._dram_free = 0.0
        self._flight: list[float] = []  # when each sector the L1 missed is back in the SM (a heap)
        self._spells = spells
        self._phase: float | None = None  # the first DRAM trip's turn: the first spell opens there
        self._link: dict[int, float] = {}  # cycle -> bytes the link from L2 carries to the SM in it
        self.sectors = {"l1_hit": 0, "l2_hit": 0, "dram": 0}

    def load(self, sectors, t: int, cache: bool = True) -> float:
        """The cycle the last of ``sectors``, asked for at cycle ``t``, is back in the SM; ``cache``: keep them in L1.
        Calls come in order of ``t``."""
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
        turn = max(float(t), self._l2_free)  # the SM's share of the L2's bandwidth, in issue order
        self._l2_free = turn + self._l2_turn
        flight = self._flight
        while flight and flight[0] <= turn:
            heapq.heappop(flight)
        there = self._l2.get(s)
        if there is None:
            self.sectors["dram"] += 1
            start = max(turn, self._dram_free)
            self._dram_free = start + self._dram
            there = start + m.dram + m.flight_cycles * len(flight)
            if self._spells:
                self._phase = start if self._phase is None else self._phase
                there += m.dram_tail if (start - self._phase) % m.tail_period < m.tail_window else 0
            self._l2[s] = there
        else:
            self.sectors["l2_hit"] += 1
            there = max(there, turn + m.l2_hit)
        back = self._carry(there, t)
        heapq.heappush(flight, back)
        return back

    def _carry(self, there: float, t: int) -> float:
        """The cycle a sector that L2 has at ``there`` is in the SM: the link takes ``sm_bytes_per_cycle`` a cycle, its
        sectors in the order they are there (one that waits on DRAM holds up none that L2 has)."""
        link, rate = self._link, self._m.sm_bytes_per_cycle
        if len(link) > 4096:  # forget the cycles before the first load in flight can use
            for c in [c for c in link if c < t]:
                del link[c]
        c = math.ceil(there)
        while link.get(c, 0.0) >= rate:
            c += 1
        left = float(SECTOR)
        while left > 0:
            take = min(left, rate - link.get(c, 0.0))
            link[c] = link.get(c, 0.0) + take
            left -= take
            c += 1
        return float(c - 1)

    def store(self, sectors, t: int) -> float:
        """Write ``sectors`` through to L2 at cycle ``t``: the cycle L2 has the last of them."""
        done = float(t + self._m.store_ack)
        for s in sectors:
            self._l1.pop(s, None)
            start = max(float(t), self._write_free)
            self._write_free = start + self._write
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
