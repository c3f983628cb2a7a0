"""The data path: the 32 bank ports, each serving one distinct word per cycle to every lane that wants it.

A wavefront is one pass of the bank ports (the counting model makes each wavefront ask a bank for at
most one distinct word), so the path serves ``wavefronts_per_cycle`` wavefronts a cycle, whatever banks
they use, by the rule of ``passing.py`` (oldest first within ``window_phases`` phases, the ``overtake``
exception, one wavefront per ``feed_interval`` cycles per warp), here compiled: ``_pass`` is
``Passing.pass_cycle`` over a table of the pending instructions, one row each, oldest first.

No simpy event per cycle: the path is advanced only when the engine looks (``sm.py``). An instruction
issued at ``now`` reaches the banks ``to_banks`` cycles later at the earliest, so every cycle before
``now + to_banks`` is settled by the instructions issued already, and ``_step`` passes them and lists
the instructions finished. It also finds the next cycle one finishes at as things stand, passing on a
copy of the rows a pass may reach (``_next_finish``), for the engine to look again then. The table
lives in one array (``layout``: numbers, then tables; ``_views``). ``reference.py`` runs the readable
rule one simpy event per busy cycle, and tests hold the two identical.
"""

from __future__ import annotations

import numba
import numpy as np

# columns of the table of pending instructions (one row each, oldest first)
I, WARP, PHASES, LEFT, READY, PASSED, ARRIVE, LAST, START, SP = range(10)
# ``state``'s numbers: the table's rows in use, the last cycle passed, the next a pending instruction finishes
# at (``_next_finish``), how many pending have no wavefronts, where the table begins in its room (``_finish``), the rule's numbers, how many warps and rows the tables have; its tables follow (from
# HEAD): the warps', the pending instructions', ``done`` and ``order``
ROWS, THROUGH, NEXT, IDLE, FIRST, PER_CYCLE, WINDOW, FEED, WITHIN, MOST, NEW_FIRST, LAST_SP, SPS, N_WARPS, CAPACITY, HEAD = range(16)
# columns of ``columns`` (one row per instruction; ``sm.py`` adds its own after these): what its table row takes
COL_WARP, COL_PHASES, COL_WAVEFRONTS, COL_START, COL_SP = range(5)
NEVER = 1 << 62  # a cycle after every other


def layout(timing, sub_partitions: int, warps: int) -> np.ndarray:
    """The data path's ``state`` for ``warps`` warps on ``sub_partitions`` sub-partitions, nothing pending."""
    t = timing
    within, most = (t.overtake.within, t.overtake.wavefronts) if t.overtake is not None else (-1, 0)
    rows = t.queue_depth * sub_partitions  # pending instructions hold a queue entry each
    numbers = [0, -1, NEVER, 0, 0, t.wavefronts_per_cycle, t.window_phases, t.feed_interval, within, most, t.path_order == "new-first", -1,
               sub_partitions, warps, rows]
    # per warp: first cycle its next instruction may pass, its pending; per row: room for twice the table's 10, done's 3
    # (instruction, last cycle, wavefronts of those finished, in order) and ``order`` (scratch: the rows a cycle serves, in order)
    return np.concatenate([numbers, np.zeros(2 * warps + 24 * rows)]).astype(np.int64)


@numba.njit(cache=True, nogil=True, inline="always")
def _views(state):  # pragma: no cover - compiled
    """The warps', pending instructions', ``done``'s and ``order``'s tables in ``state`` (the pending ones' from
    row ``FIRST`` of its room on)."""
    w, rows = state[N_WARPS], state[CAPACITY]
    a = HEAD + 2 * w
    first = a + 10 * state[FIRST]
    b = a + 20 * rows
    c = b + 3 * rows
    return state[HEAD:a].reshape(w, 2), state[first:first + 10 * rows].reshape(rows, 10), state[b:c].reshape(rows, 3), state[c:c + rows]


@numba.njit(cache=True, nogil=True)
def _step(state, columns, cycles, through, i, arrive):  # pragma: no cover - compiled
    """Pass the cycles up to ``through`` (those finished: ``done``), then add instruction ``i`` (-1: none)
    as the youngest, reaching the banks at ``arrive``; the finished count. ``NEXT``: the next cycle one may
    finish at, as things stand.

    That cycle is found again (``_next_finish``) unless none finished and the one added cannot change it: it
    has wavefronts and reaches the banks after that cycle, or lies beyond the window (which, until an
    older one finishes, stays as it is)."""
    warps, table, done, order = _views(state)
    meta = state
    t = meta[THROUGH] + 1
    finished = 0
    while True:
        t = max(t, _next_ready(table, meta))
        if t > through or t == NEVER:
            break
        finished = _pass(table, meta, warps, done, finished, order, cycles, t)
        table = _views(state)[1]
        t += 1
    meta[THROUGH] = through
    if i >= 0:
        rows = meta[ROWS]
        w = columns[i, COL_WARP]
        table[rows, I], table[rows, WARP], table[rows, PHASES], table[rows, LEFT] = i, w, columns[i, COL_PHASES], columns[i, COL_WAVEFRONTS]
        table[rows, PASSED], table[rows, ARRIVE], table[rows, LAST], table[rows, START] = 0, arrive, -1, columns[i, COL_START]
        table[rows, SP] = columns[i, COL_SP]
        table[rows, READY] = max(arrive, warps[w, 0]) if warps[w, 1] == 0 else -1  # ready once its warp's first
        warps[w, 1] += 1
        meta[ROWS] = rows + 1
        meta[IDLE] += table[rows, LEFT] == 0
        if finished == 0 and meta[NEXT] < NEVER and table[rows, LEFT] and (arrive > meta[NEXT] or rows >= _reach(table, meta)):
            return finished
    meta[NEXT] = _next_finish(state, through + 1)
    return finished


@numba.njit(cache=True, nogil=True, inline="always")
def _reach(table, meta):  # pragma: no cover - compiled
    """How many rows, from the oldest, a pass may serve or finish before one finishes: those of the window
    (``_serving``), or all while one without wavefronts is pending (it finishes wherever it is)."""
    rows = meta[ROWS]
    if meta[IDLE]:
        return rows
    budget = meta[WINDOW]
    for k in range(rows):
        if k and table[k, PHASES] > budget:
            return k
        budget -= table[k, PHASES]
    return rows


@numba.njit(cache=True, nogil=True, inline="always")
def _next_ready(table, meta):  # pragma: no cover - compiled
    """The first cycle a pending instruction a pass may serve is ready at (NEVER: none is)."""
    first = NEVER
    for k in range(_reach(table, meta)):
        if 0 <= table[k, READY] < first:
            first = table[k, READY]
    return first


@numba.njit(cache=True, nogil=True)
def _pass(table, meta, warps, done, finished, order, cycles, t):  # pragma: no cover - compiled
    """``Passing.pass_cycle(t)``: the instructions finished are added to ``done`` from ``finished`` on; the new count."""
    while meta[IDLE]:  # those without wavefronts finish once first and ready (maybe making their warp's next so)
        idle = 0
        for k in range(meta[ROWS]):
            if table[k, LEFT] == 0 and 0 <= table[k, READY] <= t:
                order[idle] = table[k, I]
                idle += 1
        if idle == 0:
            break
        for m in range(idle):
            k = _row_of(table, meta[ROWS], order[m])
            done[finished, 0], done[finished, 1], done[finished, 2] = order[m], table[k, READY], 0
            finished += 1
            table = _finish(table, meta, warps, k)
    served = min(_serving(table, meta, order, t), meta[PER_CYCLE])
    for m in range(served):
        k = order[m]
        if table[k, START] >= 0:
            cycles[table[k, START] + table[k, PASSED]] = t
        table[k, PASSED] += 1
        table[k, LEFT] -= 1
        table[k, LAST] = t
        table[k, READY] = t + meta[FEED]
    for m in range(served):  # finish those served their last wavefront (rows move: by instruction)
        if table[order[m], LEFT] == 0:
            order[m] = -1 - table[order[m], I]
    for m in range(served):
        if order[m] < 0:
            i = -1 - order[m]
            k = _row_of(table, meta[ROWS], i)
            done[finished, 0], done[finished, 1], done[finished, 2] = i, t, table[k, PASSED]
            finished += 1
            table = _finish(table, meta, warps, k)
    return finished


@numba.njit(cache=True, nogil=True, inline="always")
def _row_of(table, rows, i):  # pragma: no cover - compiled
    for k in range(rows):
        if table[k, I] == i:
            return k
    return -1


@numba.njit(cache=True, nogil=True)
def _finish(table, meta, warps, k):  # pragma: no cover - compiled
    """Drop row ``k`` (finished); its warp's next pending instruction becomes the first (``Passing._finish``).
    The rows before it move one back and the table begins a row later in its room (finished rows are mostly
    among the oldest), moved to the room's start once it reaches the middle; the table as it is now."""
    w = table[k, WARP]
    if table[k, PASSED]:
        warps[w, 0] = table[k, LAST] + meta[FEED]
    else:
        meta[IDLE] -= 1
    warps[w, 1] -= 1
    rows = meta[ROWS] - 1
    flat = table.reshape(-1)
    for x in range(10 * k - 1, -1, -1):
        flat[x + 10] = flat[x]
    meta[ROWS] = rows
    meta[FIRST] += 1
    if meta[FIRST] == meta[CAPACITY]:
        room = meta[HEAD + 2 * meta[N_WARPS]:].reshape(-1)
        start = 10 * meta[FIRST]
        room[:10 * rows] = room[start:start + 10 * rows].copy()
        meta[FIRST] = 0
    table = _views(meta)[1]
    if warps[w, 1]:
        for r in range(k, rows):
            if table[r, WARP] == w:
                table[r, READY] = max(table[r, ARRIVE], warps[w, 0])
                break
    return table


@numba.njit(cache=True, nogil=True)
def _serving(table, meta, order, t):  # pragma: no cover - compiled
    """The rows ready at ``t`` within the window into ``order``, in the order the path serves them
    (``Passing._serve_first``); how many."""
    budget, seen, ready = meta[WINDOW], False, 0
    for k in range(meta[ROWS]):
        if table[k, LEFT] == 0:
            continue
        if seen and table[k, PHASES] > budget:
            break
        seen = True
        budget -= table[k, PHASES]
        if 0 <= table[k, READY] <= t:
            order[ready] = k
            ready += 1
    if meta[NEW_FIRST]:  # first wavefronts of new ones, the sub-partitions in turn, then replays oldest first
        if ready:
            for m in range(1, ready):  # insertion sort, stable
                k = order[m]
                key = _new_first_key(table, meta, k)
                n = m
                while n > 0 and _new_first_key(table, meta, order[n - 1]) > key:
                    order[n] = order[n - 1]
                    n -= 1
                order[n] = k
            meta[LAST_SP] = table[order[0], SP]
        return ready
    if meta[WITHIN] >= 0 and ready >= 2:
        first = 0  # the oldest not started
        for m in range(ready):
            if table[order[m], PASSED] == 0:
                first = m
                break
        if first:
            young = order[first]
            for m in range(first):
                o = order[m]
                if table[young, ARRIVE] - table[o, ARRIVE] > meta[WITHIN] or table[o, PASSED] + table[o, LEFT] > meta[MOST]:
                    return ready
            for m in range(first, 0, -1):
                order[m] = order[m - 1]
            order[0] = young
    return ready


@numba.njit(cache=True, nogil=True, inline="always")
def _new_first_key(table, meta, k):  # pragma: no cover - compiled
    """A row's place under ``new-first``: a replay after every new one; new ones by their sub-partition's turn."""
    if table[k, PASSED]:
        return meta[SPS]
    return (table[k, SP] - meta[LAST_SP] - 1) % meta[SPS]


@numba.njit(cache=True, nogil=True)
def _next_finish(state, t):  # pragma: no cover - compiled
    """The first cycle from ``t`` at which a pending instruction finishes if no other is added (NEVER: none
    is pending): ``_pass`` runs on a copy of ``state``'s rows it may reach (``_reach``) until one finishes."""
    if state[ROWS] == 0:
        return NEVER
    rows = _reach(_views(state)[1], state)
    numbers = HEAD + 2 * state[N_WARPS]
    copy = np.empty(numbers + 24 * rows, dtype=np.int64)
    copy[:numbers] = state[:numbers]
    copy[CAPACITY] = copy[ROWS] = rows
    copy[FIRST] = 0
    warps, table, done, order = _views(copy)
    table[:] = _views(state)[1][:rows]
    table[:, START] = -1  # (no wavefront cycles logged)
    while True:
        t = max(t, _next_ready(table, copy))
        if _pass(table, copy, warps, done, 0, order, done[0], t):
            return t
        t += 1
