"""The global side of ncu's L1TEX data-bank counters (``l1tex__data_bank_reads.sum`` / ``_writes.sum``), per CTA, as a
traced kernel executes: what its global accesses read and write in L1's data banks (one count a 4-byte word). The
shared-memory instructions' side is the banks' rule (``banks/reference.py``, rule 8); ``results/metrics.py`` adds the
two and rounds each SM's count to even.

H100, calibration/bank_rw.py and calibration/realk/runs/2026-11-29-bankrw (every measured row and corpus kernel):

- a global load (LDG, a generic LD's global lanes) reads the distinct words of its warp's lanes, and L1 writes the 8
  words of each 32-byte sector it fills: one its CTA's L1 does not hold yet (neither loaded, stored nor copied by an
  LDGSTS .ca before; L1 starts empty and keeps every sector);
- an LDGSTS .ca copy fills L1 the same way from the sectors its copying lanes read (.cg bypasses L1);
- a store (STG, a generic ST's global lanes) writes its lanes' words into L1 and reads them out again, and L1 then
  holds its sectors;
- an atomic on global memory (ATOMG, RED, a generic ATOM's global lanes) reads and writes one word per lane and word.
"""

from __future__ import annotations

import numpy as np

from .memory import GLOBAL_BASE

LANES = 32
WORD, SECTOR = 4, 32
#: bank words L1 writes for each sector it fills
FILL_WORDS = SECTOR // WORD
#: What makes a kernel's bank words unknown, by opcode (measured: runs/2026-11-29-bankrw/NOTES.md): every kernel with an
#: mbarrier reads more than the rule (TMA loads 4 a CTA, the mbarrier probes 8-12, try_wait loops up to 270 more and writes
#: more, varying with their time-outs); setmaxnreg's warps read 36 to 170 more, varying run to run.
UNRULED = {"SYNCS": "an mbarrier (SYNCS)", "USETMAXREG": "setmaxnreg (USETMAXREG)"}
#: The reason of a launch in thread-block clusters (a remote shared access counts on both CTAs' SMs, by no rule found).
CLUSTERS = "thread-block clusters (distributed shared memory)"
#: The reason of an LDGSTS lane that copies part of its bytes: the trace does not say which (reference.py, rule 8).
PARTIAL_COPY = "an LDGSTS that copies part of a lane's bytes (src-size between 0 and its size)"


def unruled(code, cluster_size: int) -> str:
    """Why the bank words of a kernel of ``code`` launched in clusters of ``cluster_size`` are unknown ("": they are not)."""
    why = sorted({UNRULED[ins.name] for ins in code if ins.name in UNRULED}) + ([CLUSTERS] if cluster_size > 1 else [])
    return "; ".join(why)


class L1Words:
    """Bank words read and written by the global accesses of ``ctas`` CTA slots' threads; ``cta_slot``: each thread's slot."""

    def __init__(self, ctas: int, cta_slot: np.ndarray) -> None:
        self.cta_slot = cta_slot
        self.reads = np.zeros(ctas, dtype=np.int64)
        self.writes = np.zeros(ctas, dtype=np.int64)
        self.held: set[int] = set()  # the CTAs' L1s: (slot << 42) | sector of each sector one holds
        self.unknown = ""  # why the counts are not the kernel's (``unruled``, ``PARTIAL_COPY``); "": they are

    def per_cta(self, ctas: np.ndarray) -> dict[int, list[int]]:
        """Linear CTA index (``ctas``: each slot's) -> [words read, words written]."""
        return {int(c): [int(r), int(w)] for c, r, w in zip(ctas, self.reads, self.writes)}

    def _words(self, ix: np.ndarray, addr: np.ndarray, size: int) -> np.ndarray:
        """Per CTA slot, the distinct (warp, word) pairs of threads ``ix`` accessing ``size`` bytes at ``addr``: an access
        is aligned to its size, so two lanes' words are all the same or all different, and its first word tells them."""
        word = (addr.astype(np.uint64) - np.uint64(GLOBAL_BASE)).astype(np.int64) // WORD
        pairs = np.unique(((ix // LANES) << 42) | word)
        return np.bincount(self.cta_slot[(pairs >> 42) * LANES], minlength=len(self.reads)) * max(1, size // WORD)

    def _hold(self, ix: np.ndarray, addr: np.ndarray, fill: bool) -> None:
        """L1 holds the sectors at ``addr`` from now on; ``fill``: it writes 8 words for each one its CTA did not hold."""
        sector = (addr.astype(np.uint64) - np.uint64(GLOBAL_BASE)).astype(np.int64) // SECTOR
        new = set(np.unique((self.cta_slot[ix].astype(np.int64) << 42) | sector).tolist()) - self.held
        self.held |= new
        if fill and new:
            self.writes += FILL_WORDS * np.bincount(np.fromiter(new, np.int64, len(new)) >> 42, minlength=len(self.writes))

    def load(self, ix: np.ndarray, addr: np.ndarray, size: int) -> None:
        self.reads += self._words(ix, addr, size)
        self._hold(ix, addr, True)

    def copy(self, ix: np.ndarray, addr: np.ndarray) -> None:
        """An LDGSTS .ca copy's lanes ``ix`` reading their sources ``addr`` (its shared side is the banks')."""
        self._hold(ix, addr, True)

    def store(self, ix: np.ndarray, addr: np.ndarray, size: int) -> None:
        words = self._words(ix, addr, size)
        self.reads += words
        self.writes += words
        self._hold(ix, addr, False)

    def atomic(self, ix: np.ndarray, size: int) -> None:
        n = np.bincount(self.cta_slot[ix], minlength=len(self.reads)) * max(1, size // WORD)
        self.reads += n
        self.writes += n
