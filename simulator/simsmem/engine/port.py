"""A sub-partition's issue port: which warp's next slot issues each cycle.

A warp's slot (``program.SLOT``) may issue once the previous one's stall has passed (``base``) and the
instruction it waits for, with the warp's earlier ones, has completed (``settled``), plus its own delay:
``ready``. Until that completion is known the warp is ``blocked``; so it is while it waits for an entry
(``sm.py``) whose release is not yet known. Every ``issue_interval`` cycles the port issues the slot of the
first warp, in the order of ``issue_priority``, whose slot is ready and whose pipe is free (``timing.pipes``;
a shared-memory instruction: whose MIO throttle, ``shared_issue_interval``, has passed):

- ``youngest``: the highest-numbered first, every cycle;
- ``oldest``: the lowest-numbered first, every cycle;
- ``round-robin``: the warps after the one served last (by number, wrapping), so that the ready ones take
  turns;
- ``greedy``: the warp served last first (it keeps the port while it is ready), then the oldest.

``run_ahead`` issues other instructions from a cycle up to a horizon and stops at a shared-memory one, which
the sub-partition issues at its own cycle (``sm.py``). A run of one-cycle others (``early``, ``issue``) that
its warp issues alone, no other warp of the port ready before, goes in one step.
"""

from __future__ import annotations

from .jit import compiled

#: ``issue_priority`` -> its code.
RULES = {"round-robin": 0, "youngest": 1, "oldest": 2, "greedy": 3}
ROUND_ROBIN, YOUNGEST, GREEDY = RULES["round-robin"], RULES["youngest"], RULES["greedy"]
NONE = -1  # no cycle, no place


@compiled(inline=True)
def uses_pipe(slot, k):  # pragma: no cover - compiled
    """The pipe the ``k``-th instruction of ``slot`` issues on (-1: none): a run's ``alu`` of ``count`` use it,
    spread evenly."""
    n, a = slot["count"], slot["alu"]
    if a == n:  # all of them (one instruction on a pipe)
        return slot["pipe"]
    if a == 0:
        return -1
    return slot["pipe"] if (k * a) // n != ((k + 1) * a) // n else -1


@compiled
def run_ahead(sm, sp, warps, pipes, slots, inst, c, now, horizon, issued):  # pragma: no cover - compiled
    """Issue a sub-partition's (``sp``'s) other instructions from cycle ``c`` until its port picks a shared-memory
    one: (the place of its warp among ``warps``, the sub-partition's, ``c``, NONE); else (-1, the first cycle not
    yet decided, the cycle to look again: the first past ``horizon`` a warp may issue at, NONE: only when a
    blocked one is woken). ``issued``: the place of a warp that issued its shared-memory instruction at ``c``
    first. ``pipes``: the sub-partition's."""
    interval, rule = sm["issue_interval"], sm["rule"]
    if issued >= 0:
        sp["shared_free"] = c + sm["shared_interval"]
        _issued(sm, sp, warps[issued], issued, c, slots, inst)
        c += interval
        if c > horizon:
            return -1, c, c
    while sp["live"]:
        place, first = _pick(warps, pipes, sp, rule, c)
        if place < 0:
            if first == NONE or first > horizon:
                return -1, c, first
            c = first
            continue
        w = warps[place]
        if w["shared"]:
            return place, c, NONE
        if w["pipe"] >= 0:
            pipe = pipes[w["pipe"]]
            pipe["free"] = c + pipe["gap"]
        elif slots[w["pos"]]["count"] - w["k"] > 1:  # a run: those before its next on a pipe go at once while no other warp may
            more = min(_plain(slots[w["pos"]], w["k"]), (min(horizon, _others_first(warps, pipes, sp, place) - 1) - c) // interval)
            if more > 0:
                w["k"] += more
                c += more * interval
        _issued(sm, sp, w, place, c, slots, inst)
        c += interval
        if c > horizon:
            return -1, c, c
    return -1, c, NONE


@compiled(inline=True)
def _plain(slot, k):  # pragma: no cover - compiled
    """How many of ``slot``'s instructions after its ``k``-th, which uses no pipe, use none either, up to the next
    that does."""
    n, a = slot["count"], slot["alu"]
    if slot["pipe"] < 0 or a == 0:
        return n - k - 1
    next_on_pipe = ((k * a // n + 1) * n + a - 1) // a - 1  # the first j > k where (j + 1) * a // n steps up
    return min(next_on_pipe, n) - k - 1


@compiled
def _others_first(warps, pipes, sp, place):  # pragma: no cover - compiled
    """The first cycle a warp of the port other than the one at ``place`` may issue at (1 << 62: none may before
    it is woken)."""
    first = 1 << 62
    for other in range(len(warps)):
        if other != place:
            w = warps[other]
            t = _when(w, sp, pipes[w["pipe"]])
            if 0 <= t < first:
                first = t
    return first


@compiled(inline=True)
def _when(w, sp, pipe):  # pragma: no cover - compiled
    """The first cycle warp ``w`` may issue its next instruction at, on ``pipe`` (its sub-partition's of its next
    instruction; the last, always free, for none) (-1: it is blocked or done)."""
    if w["blocked"] or w["pos"] == w["end"]:
        return -1
    t = max(w["ready"], pipe["free"])
    if w["shared"]:
        t = max(t, sp["shared_free"])
    return t


@compiled(inline=True)
def _pick(warps, pipes, sp, rule, c):  # pragma: no cover - compiled
    """(place, NONE) of the warp the port serves at ``c``; else (-1, the first later cycle one may be served at;
    NONE: only when a blocked one is woken)."""
    n = len(warps)
    last = sp["last"]
    first = NONE
    for k in range(n):
        if rule == ROUND_ROBIN:
            place = (last + 1 + k) % n
        elif rule == GREEDY:  # the one served last, then the others from the oldest
            served = max(last, 0)
            place = served if k == 0 else (k - 1 if k - 1 < served else k)
        elif rule == YOUNGEST:
            place = n - 1 - k
        else:
            place = k
        w = warps[place]
        t = _when(w, sp, pipes[w["pipe"]])
        if t < 0:
            continue
        if t <= c:
            return place, NONE
        if first == NONE or t < first:
            first = t
    return -1, first


@compiled(inline=True)
def _issued(sm, sp, w, place, c, slots, inst):  # pragma: no cover - compiled
    """Warp ``w``, at ``place``, issued its slot's next instruction at ``c``: on to its next."""
    if sm["rule"] == ROUND_ROBIN or sm["rule"] == GREEDY:
        sp["last"] = place
    slot = slots[w["pos"]]
    w["k"] += 1
    if w["k"] == slot["count"]:
        w["k"] = 0
        w["pos"] += 1
    if w["pos"] == w["end"]:
        sp["live"] -= 1
    else:
        after(sm, w, c + slot["stall"], slots, inst)


@compiled(inline=True)
def after(sm, w, base, slots, inst):  # pragma: no cover - compiled
    """Warp ``w``'s next instruction may issue from ``base`` by the previous one's stall: its ``ready`` (and its
    pipe), or it is blocked while the instruction it waits for has not completed as far as is known (counted in
    the SM's ``waiting``)."""
    slot = slots[w["pos"]]
    w["base"] = base
    w["pipe"], w["shared"] = uses_pipe(slot, w["k"]), slot["inst"] >= 0
    if w["k"]:  # within a run: no wait, no delay
        w["ready"] = base
        return
    target = slot["wait"]
    if target >= 0 and inst[target]["complete"] < 0:
        w["blocked"] = 1
        w["waits"] = target
        sm["waiting"] += 1
        return
    ready = base
    if target >= 0 and inst[target]["settled"] > ready:
        ready = inst[target]["settled"]
    w["ready"] = ready + slot["delay"]
