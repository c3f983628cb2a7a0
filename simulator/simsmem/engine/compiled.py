"""The rule of ``warp.Warps`` compiled: a sub-partition's warps and slots as tables, the port's picks in numba.

``_ahead`` is ``Warps.run_ahead``: it issues a run of other instructions in one call (the engine's hot
loop: a timing loop has several other instructions per shared-memory one) and stops at a shared-memory
one. ``sm.py`` keeps the tables (every sub-partition's warps, one row each, in ``warps``; their slots in
``slots``; each sub-partition's numbers in a row of its own, ``meta``) and tests hold it identical to
``Warps``.
"""

from __future__ import annotations

import numba

from .port import RULES

# columns of the warps' table: the next slot, the end of its slots, its base and ready cycles, blocked, the
# instruction it waits for (-1: none), whether it holds a queue entry and a place in flight for its next
# instruction, its sub-partition, and the latest completion of its instructions told so far
POS, END, BASE, READY, BLOCKED, WAITS, HELD_QUEUE, HELD_FLIGHT, SP, DONE_AT = range(10)
# columns of the slots' table (every warp's, in turn)
INST, PIPE, STALL, WAIT, DELAY = range(5)
# a sub-partition's numbers (``meta``): the rule, the place served last, the MIO throttle's next cycle, the
# intervals, warps with slots left, how many warps began waiting for an instruction in the last call
RULE, LAST, SHARED_FREE, INTERVAL, SHARED_INTERVAL, LIVE, BLOCKS = range(7)
ROUND_ROBIN = RULES["round-robin"]
GREEDY = RULES["greedy"]
YOUNGEST = RULES["youngest"]
NONE = -1


@numba.njit(cache=True, nogil=True)
def _ahead(warps, slots, pipes, meta, complete, settled, c, now, horizon, issued):  # pragma: no cover - compiled
    """``Warps.run_ahead`` over one sub-partition's ``warps`` (its rows; a place is a row): (place, c, wake),
    -1 for None and NONE for no cycle; the place of a shared-memory instruction's warp is given whatever its
    cycle (``Warps.run_ahead`` gives it only at ``now``, else wakes at ``c``)."""
    if issued >= 0:  # the warp at ``issued`` issued its shared-memory instruction at ``c``
        meta[SHARED_FREE] = c + meta[SHARED_INTERVAL]
        _issued(warps, slots, meta, complete, settled, issued, c)
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
        if slots[s, INST] >= 0:  # (a shared-memory one after ``now``: the caller wakes at ``c``, or claims ahead)
            return place, c, NONE
        p = slots[s, PIPE]
        if p >= 0:
            pipes[0, p] = c + pipes[1, p]
        _issued(warps, slots, meta, complete, settled, place, c)
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
def _issued(warps, slots, meta, complete, settled, place, c):  # pragma: no cover - compiled
    """``Warps._issued``."""
    if meta[RULE] == ROUND_ROBIN or meta[RULE] == GREEDY:
        meta[LAST] = place
    stall = slots[warps[place, POS], STALL]
    warps[place, POS] += 1
    if warps[place, POS] == warps[place, END]:
        meta[LIVE] -= 1
    else:
        _after(warps, slots, meta, complete, settled, place, c + stall)


@numba.njit(cache=True, nogil=True)
def _after(warps, slots, meta, complete, settled, place, base):  # pragma: no cover - compiled
    """``Warps._after``: a warp that waits for an instruction not yet completed is blocked, the instruction
    in its ``WAITS`` (counted in ``BLOCKS``)."""
    s = warps[place, POS]
    warps[place, BASE] = base
    target = slots[s, WAIT]
    if target >= 0 and complete[target] < 0:
        warps[place, BLOCKED] = 1
        warps[place, WAITS] = target
        meta[BLOCKS] += 1
        return
    ready = base
    if target >= 0 and settled[target] > ready:
        ready = settled[target]
    warps[place, READY] = ready + slots[s, DELAY]
