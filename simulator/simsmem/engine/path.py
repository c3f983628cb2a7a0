"""The data path: the 32 bank ports, each serving one distinct word per cycle to every lane that wants it.

A wavefront is one pass of the bank ports (the counting model makes each wavefront ask a bank for at most
one distinct word), so the path passes ``wavefronts_per_cycle`` wavefronts a cycle, whatever banks they use.
The issued instructions not yet finished are pending, oldest (first issued) first. Each cycle the path
looks at the oldest of them whose phases add up to at most ``window_phases`` (the oldest always), takes
those that are the first pending instruction of their warp and whose next wavefront is ready (at the
banks, and ``feed_interval`` cycles after the warp's previous wavefront), and passes up to
``wavefronts_per_cycle`` of them in the order of ``path_order``:

- ``oldest``: the oldest first, except that the oldest one not yet started **overtakes** the started ones
  when each of these reached the banks at most ``overtake.within`` cycles before it and has at most
  ``overtake.wavefronts`` wavefronts (``overtake: null``: never);
- ``new-first``: new instructions' first wavefronts first, the sub-partitions in turn (from the one after
  the sub-partition served first last time), then the others' (replays) oldest first.

An instruction is finished when its last wavefront has passed, one without wavefronts when it is its
warp's first and ready (taking no cycle: its warp's next may pass in that one).

No event per cycle: the path is passed only when the engine looks (``sm.py``), up to the last cycle that
the instructions issued so far settle. ``next_finish`` finds the next cycle an instruction finishes at as
things stand, by passing a copy of the rows a pass may reach, for the engine to look again then.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .jit import compiled

NEVER = 1 << 62  # a cycle after every other
UNKNOWN = -1  # the path's ``next`` before it is looked for

#: The path's state: its ``NUMBERS``, its pending rows (``ROW``, oldest first from ``first``, in a room twice
#: their capacity), each warp's ``FEED``, and scratch: ``done`` (instruction, last cycle, wavefronts passed:
#: those finished by a call, in order) and ``order`` (the rows a cycle serves).
Path = namedtuple("Path", "numbers rows feeds done order")

NUMBERS = np.dtype([(name, np.int64) for name in (
    "rows", "first", "capacity",  # pending rows, where they begin in the room, how many it holds at most
    "through",  # the last cycle passed
    "next",  # the next cycle a pending instruction finishes at as things stand (``next_finish``; UNKNOWN: not found yet)
    "idle",  # pending instructions without wavefronts
    "last_sp",  # the sub-partition served first last cycle (``new-first``)
    "per_cycle", "window", "feed", "within", "most", "new_first", "sps",  # the rule (``timing``; within -1: no overtaking)
)])
ROW = np.dtype([(name, np.int64) for name in (
    "i", "warp", "sp", "phases",  # the instruction, its warp's row, its sub-partition, its weight in the window
    "left", "passed",  # its wavefronts still to pass, and passed
    "arrive",  # the cycle it reaches the banks
    "ready",  # the cycle its next wavefront may pass, once it is its warp's first pending (-1: not yet)
    "last",  # the cycle its last wavefront so far passed
    "start",  # where its wavefronts' cycles go in the log (-1: not logged)
)])
FEED = np.dtype([("free", np.int64), ("pending", np.int64)])  # a warp's: first cycle its next instruction may pass; its pending ones


def empty(timing, sub_partitions: int, capacity: int) -> np.ndarray:
    """The ``NUMBERS`` (one record) of an empty path of ``timing`` (``capacity``: instructions it may hold pending)."""
    t = timing
    p = np.zeros(1, dtype=NUMBERS)
    p["capacity"], p["through"], p["next"], p["last_sp"] = capacity, -1, NEVER, -1
    p["per_cycle"], p["window"], p["feed"] = t.wavefronts_per_cycle, t.window_phases, t.feed_interval
    p["within"], p["most"] = (t.overtake.within, t.overtake.wavefronts) if t.overtake is not None else (-1, 0)
    p["new_first"], p["sps"] = t.path_order == "new-first", sub_partitions
    return p


@compiled
def step(path, inst, cycles, through, i, arrive):  # pragma: no cover - compiled
    """Pass the cycles up to ``through`` (the instructions finished: ``path.done``), then add instruction ``i``
    (-1: none; ``inst``: its record's table) as the youngest, reaching the banks at ``arrive``; the count of
    those finished. ``next`` is UNKNOWN afterwards (``next_finish`` finds it when asked) unless none finished and
    none was added, or the one added cannot change it: it has wavefronts and reaches the banks after that cycle,
    or lies beyond the window (which, until an older one finishes, stays as it is)."""
    p, room, feeds, done, order = path.numbers[0], path.rows, path.feeds, path.done, path.order
    t = p["through"] + 1
    finished = served = 0
    while True:
        if not served:  # (after a cycle that passed a wavefront, the next most likely passes one too: no look ahead)
            t = max(t, _next_ready(p, room))
        if t > through or t == NEVER:
            break
        finished, served = _pass(p, room, feeds, done, order, cycles, t, finished)
        t += 1
    p["through"] = through
    if i >= 0:
        k = p["rows"]
        row, ins = room[p["first"] + k], inst[i]
        w = ins["row"]
        feed = feeds[w]
        row["i"], row["warp"], row["sp"], row["phases"] = i, w, ins["sp"], ins["phases"]
        row["left"], row["passed"], row["arrive"], row["last"], row["start"] = ins["wavefronts"], 0, arrive, -1, ins["start"]
        row["ready"] = max(arrive, feed["free"]) if feed["pending"] == 0 else -1  # ready once its warp's first
        feed["pending"] += 1
        p["rows"] = k + 1
        if row["left"] == 0:
            p["idle"] += 1
        elif finished == 0 and 0 <= p["next"] < NEVER and (arrive > p["next"] or k >= _reach(p, room)):
            return finished
    elif finished == 0:  # (passing on as foreseen)
        return finished
    p["next"] = UNKNOWN if p["rows"] else NEVER
    return finished


@compiled(inline=True)
def _reach(p, room):  # pragma: no cover - compiled
    """How many rows, from the oldest, a pass may serve or finish before one finishes: those of the window
    (``_serving``), or all while one without wavefronts is pending (it finishes wherever it is)."""
    rows, first = p["rows"], p["first"]
    if p["idle"]:
        return rows
    budget = p["window"]
    for k in range(rows):
        phases = room[first + k]["phases"]
        if k and phases > budget:
            return k
        budget -= phases
    return rows


@compiled(inline=True)
def _next_ready(p, room):  # pragma: no cover - compiled
    """The first cycle a pending instruction a pass may serve is ready at (NEVER: none is)."""
    first, soonest = p["first"], NEVER
    for k in range(_reach(p, room)):
        ready = room[first + k]["ready"]
        if 0 <= ready < soonest:
            soonest = ready
    return soonest


@compiled(inline=True)
def _pass(p, room, feeds, done, order, cycles, t, finished):  # pragma: no cover - compiled
    """Pass cycle ``t``: the instructions finished are added to ``done`` from ``finished`` on; the new count, and
    how many wavefronts passed."""
    while p["idle"]:  # those without wavefronts finish once first and ready (maybe making their warp's next so)
        idle = 0
        for k in range(p["rows"]):
            row = room[p["first"] + k]
            if row["left"] == 0 and 0 <= row["ready"] <= t:
                order[idle] = row["i"]
                idle += 1
        if idle == 0:
            break
        for m in range(idle):
            k = _row_of(p, room, order[m])
            done[finished, 0], done[finished, 1], done[finished, 2] = order[m], room[p["first"] + k]["ready"], 0
            finished += 1
            _finish(p, room, feeds, k)
    served = min(_serving(p, room, order, t), p["per_cycle"])
    first = p["first"]
    for m in range(served):
        row = room[first + order[m]]
        if row["start"] >= 0:
            cycles[row["start"] + row["passed"]] = t
        row["passed"] += 1
        row["left"] -= 1
        row["last"] = t
        row["ready"] = t + p["feed"]
    for m in range(served):  # finish those served their last wavefront (rows move: by instruction)
        row = room[first + order[m]]
        if row["left"] == 0:
            order[m] = -1 - row["i"]
    for m in range(served):
        if order[m] < 0:
            i = -1 - order[m]
            k = _row_of(p, room, i)
            done[finished, 0], done[finished, 1], done[finished, 2] = i, t, room[p["first"] + k]["passed"]
            finished += 1
            _finish(p, room, feeds, k)
    return finished, served


@compiled(inline=True)
def _row_of(p, room, i):  # pragma: no cover - compiled
    """The row of pending instruction ``i``."""
    first = p["first"]
    for k in range(p["rows"]):
        if room[first + k]["i"] == i:
            return k
    return -1


@compiled(inline=True)
def _finish(p, room, feeds, k):  # pragma: no cover - compiled
    """Drop row ``k`` (finished); its warp's next pending instruction becomes its first. The rows before it move
    one back and the table begins a row later in its room (finished rows are mostly among the oldest), moved
    to the room's start once it reaches the middle."""
    first = p["first"]
    row = room[first + k]
    w = row["warp"]
    feed = feeds[w]
    if row["passed"]:
        feed["free"] = row["last"] + p["feed"]
    else:
        p["idle"] -= 1
    feed["pending"] -= 1
    for x in range(first + k - 1, first - 1, -1):
        room[x + 1] = room[x]
    rows = p["rows"] - 1
    first += 1
    if first == p["capacity"]:
        for x in range(rows):
            room[x] = room[first + x]
        first = 0
    p["rows"], p["first"] = rows, first
    if feed["pending"]:
        for r in range(first + k, first + rows):
            if room[r]["warp"] == w:
                room[r]["ready"] = max(room[r]["arrive"], feed["free"])
                break


@compiled(inline=True)
def _serving(p, room, order, t):  # pragma: no cover - compiled
    """The rows ready at ``t`` within the window into ``order``, the ``per_cycle`` first in the order the path
    serves them; how many."""
    first = p["first"]
    budget, seen, ready = p["window"], False, 0
    for k in range(p["rows"]):
        row = room[first + k]
        if row["left"] == 0:
            continue
        if seen and row["phases"] > budget:
            break
        seen = True
        budget -= row["phases"]
        if 0 <= row["ready"] <= t:
            order[ready] = k
            ready += 1
    if p["new_first"]:  # first wavefronts of new ones, the sub-partitions in turn, then replays oldest first
        for m in range(min(ready, p["per_cycle"])):  # the first ``per_cycle`` in that order (the rest are not served)
            best, key = m, _new_first_key(p, room[first + order[m]])
            for n in range(m + 1, ready):  # the first of the lowest key (ties: the oldest)
                other = _new_first_key(p, room[first + order[n]])
                if other < key:
                    best, key = n, other
            k = order[best]
            for n in range(best, m, -1):
                order[n] = order[n - 1]
            order[m] = k
        if ready:
            p["last_sp"] = room[first + order[0]]["sp"]
        return ready
    if p["within"] >= 0 and ready >= 2:
        oldest_new = 0  # the oldest not started
        for m in range(ready):
            if room[first + order[m]]["passed"] == 0:
                oldest_new = m
                break
        if oldest_new:
            young = room[first + order[oldest_new]]
            for m in range(oldest_new):
                old = room[first + order[m]]
                if young["arrive"] - old["arrive"] > p["within"] or old["passed"] + old["left"] > p["most"]:
                    return ready
            k = order[oldest_new]
            for m in range(oldest_new, 0, -1):
                order[m] = order[m - 1]
            order[0] = k
    return ready


@compiled(inline=True)
def _new_first_key(p, row):  # pragma: no cover - compiled
    """A row's place under ``new-first``: a replay after every new one; new ones by their sub-partition's turn."""
    if row["passed"]:
        return p["sps"]
    turn = row["sp"] - p["last_sp"] - 1  # (row["sp"] - p["last_sp"] - 1) % p["sps"], without dividing
    return turn + p["sps"] if turn < 0 else turn


@compiled
def next_finish(path, spec):  # pragma: no cover - compiled
    """The path's ``next``: the first cycle after those passed at which a pending instruction finishes if no other
    is added (NEVER: none is pending), found if UNKNOWN: the rows a pass may reach (``_reach``) are passed, copied
    into ``spec``, until one finishes."""
    p, room = path.numbers[0], path.rows
    if p["next"] != UNKNOWN:
        return p["next"]
    t = p["through"] + 1
    rows = _reach(p, room)
    q, copy, feeds = spec.numbers[0], spec.rows, spec.feeds
    spec.numbers[0] = p
    q["rows"], q["capacity"], q["first"] = rows, rows, 0
    for k in range(rows):
        copy[k] = room[p["first"] + k]
        copy[k]["start"] = -1  # (no wavefront cycles logged)
        feeds[copy[k]["warp"]] = path.feeds[copy[k]["warp"]]  # (the warps a pass of these rows looks at)
    done, order = spec.done, spec.order
    served = 0
    while True:
        if not served:
            t = max(t, _next_ready(q, copy))
        finished, served = _pass(q, copy, feeds, done, order, order, t, 0)
        if finished:
            p["next"] = t
            return t
        t += 1
