"""The rule of ``warp.Warps`` compiled: a sub-partition's warps and slots as tables, the port's picks in numba.

``CompiledWarps`` has ``Warps``' methods; ``run_ahead`` issues a run of other instructions in one compiled
call (the engine's hot loop: a timing loop has several other instructions per shared-memory one), and
tests hold the two identical.
"""

from __future__ import annotations

import numba
import numpy as np

from .port import RULES

# columns of the warps' table (one row per warp, by number) and of the slots' (every warp's, in turn)
POS, END, BASE, READY, BLOCKED = range(5)
INST, PIPE, STALL, WAIT, DELAY = range(5)
# ``meta``: the rule, the place served last, the MIO throttle's next cycle, the intervals, warps with slots
# left, and how many warps blocked in the last call (their (place, instruction) in ``out``)
RULE, LAST, SHARED_FREE, INTERVAL, SHARED_INTERVAL, LIVE, BLOCKS = range(7)
ROUND_ROBIN = RULES["round-robin"]
GREEDY = RULES["greedy"]
YOUNGEST = RULES["youngest"]
NONE = -1


class CompiledWarps:
    """``warp.Warps`` over tables."""

    def __init__(self, run, warps: list[tuple[object, int]], on_block) -> None:
        t = run.timing
        self.run = run
        self.on_block = on_block
        lengths = [len(slots.inst) for slots, _ in warps]
        ends = np.cumsum(lengths, dtype=np.int64)
        self.warps = np.zeros((len(warps), 5), dtype=np.int64)
        self.warps[:, POS] = ends - lengths
        self.warps[:, END] = ends
        self.warps[:, BASE] = self.warps[:, READY] = [start for _, start in warps]
        columns = [np.column_stack([slots.inst, slots.pipe, slots.stall, slots.wait, slots.delay]) for slots, _ in warps]
        self.slots = np.concatenate(columns).astype(np.int64) if columns else np.zeros((0, 5), dtype=np.int64)
        self.pipes = np.array([[0] * len(t.pipes), list(t.pipes.values())], dtype=np.int64).reshape(2, -1)  # next free cycle, interval
        self.meta = np.array([RULES[t.issue_priority], -1, 0, t.issue_interval, t.shared_issue_interval, int(np.sum(ends > ends - lengths)), 0],
                             dtype=np.int64)
        self.out = np.zeros((len(warps), 2), dtype=np.int64)
        self.live = int(self.meta[LIVE])  # warps with slots left
        for place in range(len(warps)):
            if lengths[place]:
                _after(self.warps, self.slots, self.meta, run.complete, run.settled, self.out, place, self.warps[place, BASE])
        self._tell_blocks()

    def run_ahead(self, c: int, now: int, horizon: int, issued: int = -1) -> tuple[int | None, int, int | None]:
        run = self.run
        place, c, wake, blocks, self.live = _run_ahead(self.warps, self.slots, self.pipes, self.meta, run.complete, run.settled, self.out,
                                                       c, now, horizon, issued)
        if blocks:
            self._tell_blocks()
        if place < 0:
            return None, -1, c, (None if wake == NONE else wake)
        return place, int(self.slots[self.warps[place, POS], INST]), c, None

    def hold(self, place: int, cycle: int) -> None:
        self.warps[place, READY] = cycle

    def block(self, place: int, blocked: bool, cycle: int = 0) -> None:
        self.warps[place, BLOCKED] = blocked
        if not blocked:
            self.warps[place, READY] = max(int(self.warps[place, READY]), cycle)

    def completed(self, place: int) -> int:
        run = self.run
        self.warps[place, BLOCKED] = 0
        _after(self.warps, self.slots, self.meta, run.complete, run.settled, self.out, place, self.warps[place, BASE])
        return int(self.warps[place, READY])

    def _tell_blocks(self) -> None:
        for place, target in self.out[: self.meta[BLOCKS]].tolist():
            self.on_block(place, target)
        self.meta[BLOCKS] = 0


@numba.njit(cache=True, nogil=True)
def _run_ahead(warps, slots, pipes, meta, complete, settled, out, c, now, horizon, issued):  # pragma: no cover - compiled
    """``Warps.run_ahead`` (-1 for None, NONE for no cycle), and how many warps blocked (in ``out``) and how
    many have slots left."""
    place, c, wake = _ahead(warps, slots, pipes, meta, complete, settled, out, c, now, horizon, issued)
    return place, c, wake, meta[BLOCKS], meta[LIVE]


@numba.njit(cache=True, nogil=True, inline="always")
def _ahead(warps, slots, pipes, meta, complete, settled, out, c, now, horizon, issued):  # pragma: no cover - compiled
    """``_run_ahead``'s (place, c, wake)."""
    if issued >= 0:  # the warp at ``issued`` issued its shared-memory instruction at ``c``
        meta[SHARED_FREE] = c + meta[SHARED_INTERVAL]
        _issued(warps, slots, meta, complete, settled, out, issued, c)
        c += meta[INTERVAL]
        if c > horizon:
            return -1, c, c
    while meta[LIVE]:
        place, first = _pick(warps, slots, pipes, meta, c)
        if place < 0:
            if first == NONE or first > horizon:
                return -1, c, first
            c = first
            continue
        s = warps[place, POS]
        if slots[s, INST] >= 0:
            if c == now:
                return place, c, NONE
            return -1, c, c
        p = slots[s, PIPE]
        if p >= 0:
            pipes[0, p] = c + pipes[1, p]
        _issued(warps, slots, meta, complete, settled, out, place, c)
        c += meta[INTERVAL]
        if c > horizon:
            return -1, c, c
    return -1, c, NONE


@numba.njit(cache=True, nogil=True)
def _pick(warps, slots, pipes, meta, c):  # pragma: no cover - compiled
    """``Warps._pick``: (place, NONE) of the warp served at ``c``, else (-1, the first later cycle; NONE)."""
    n = warps.shape[0]
    first = NONE
    for k in range(n):
        if meta[RULE] == ROUND_ROBIN:
            place = (meta[LAST] + 1 + k) % n
        elif meta[RULE] == GREEDY:  # the one served last, then the others from the oldest
            last = max(meta[LAST], 0)
            place = last if k == 0 else (k - 1 if k - 1 < last else k)
        elif meta[RULE] == YOUNGEST:
            place = n - 1 - k
        else:
            place = k
        if warps[place, BLOCKED] or warps[place, POS] == warps[place, END]:
            continue
        s = warps[place, POS]
        t = warps[place, READY]
        p = slots[s, PIPE]
        if p >= 0 and pipes[0, p] > t:
            t = pipes[0, p]
        if slots[s, INST] >= 0 and meta[SHARED_FREE] > t:
            t = meta[SHARED_FREE]
        if t <= c:
            return place, NONE
        if first == NONE or t < first:
            first = t
    return -1, first


@numba.njit(cache=True, nogil=True)
def _issued(warps, slots, meta, complete, settled, out, place, c):  # pragma: no cover - compiled
    """``Warps._issued``."""
    if meta[RULE] == ROUND_ROBIN or meta[RULE] == GREEDY:
        meta[LAST] = place
    stall = slots[warps[place, POS], STALL]
    warps[place, POS] += 1
    if warps[place, POS] == warps[place, END]:
        meta[LIVE] -= 1
    else:
        _after(warps, slots, meta, complete, settled, out, place, c + stall)


@numba.njit(cache=True, nogil=True)
def _after(warps, slots, meta, complete, settled, out, place, base):  # pragma: no cover - compiled
    """``Warps._after``: a warp blocked is added to ``out`` for the sub-partition to register."""
    s = warps[place, POS]
    warps[place, BASE] = base
    target = slots[s, WAIT]
    if target >= 0 and complete[target] < 0:
        warps[place, BLOCKED] = 1
        out[meta[BLOCKS], 0], out[meta[BLOCKS], 1] = place, target
        meta[BLOCKS] += 1
        return
    ready = base
    if target >= 0 and settled[target] > ready:
        ready = settled[target]
    warps[place, READY] = ready + slots[s, DELAY]
