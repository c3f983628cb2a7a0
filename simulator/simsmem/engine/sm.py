"""The SM: its sub-partitions' schedulers and LSUs around one data path, cycle by cycle.

Each sub-partition (SMSP) issues its warps' slots by its port (``port.py``). A shared-memory instruction
issues only holding an entry of its sub-partition's LSU queue (``queue_depth``) and, where the arch limits
them, one of the SM's places in flight (``in_flight``; ``entries.py``); a warp finding none free waits for
one and the port serves the others. The LSU accepts the queued instructions in order, one per
``accept_interval`` cycles (the earliest at issue); an instruction reaches the data path (``path.py``)
``to_banks`` cycles after it is accepted, completes ``latency - to_banks`` cycles after its last wavefront,
frees its queue entry the cycle after that wavefront and its place in flight ``in_flight.after`` cycles
later (the same for every instruction, so that places free in the order the data path finishes them).

The events of a cycle (``cycle``) come in a fixed order: a telling (the data path passes up to the cycle
and tells the sub-partitions what finished), then the schedulers that wake in that cycle, the
lowest-numbered sub-partition first (instructions issued in one cycle are older in that order). Each
scheduler decides cycle by cycle but runs ahead of the clock where nothing else can change its decisions.
An instruction issued at ``now`` reaches the banks ``to_banks`` cycles later at the earliest, so every cycle
before ``now + to_banks`` is settled by the instructions issued already: a wake passes the path through them
(``told``) and tells what finished (completions, entries handed to the warp that waited longest). Every
completion until ``after_pass`` cycles after ``told`` (the fewest from a last wavefront to its data) is then
known, and every release until the cycle after it; the scheduler issues other instructions up to then, and a
shared-memory one only at its own cycle, in order with the other sub-partitions'. A warp that reaches its
shared-memory instruction within the cycles told, where its queue's claim can only fail, claims ahead
(``_claim_ahead``). A scheduler sleeps until the next cycle it may issue at, or until a warp of its is woken
(a nudge: a completion it waited for, an entry handed to it); while warps wait, a telling is cued for the
cycle after the next instruction finishes (``_watch``).
"""

from __future__ import annotations

from .entries import first_release, free_by, release, take, wait
from .jit import compiled
from .path import NEVER, next_finish, step
from .port import after, run_ahead
from .state import NONE, views

DONE = -3  # an alarm: the sub-partition has issued every slot


@compiled
def begin(buffer, slots):  # pragma: no cover - compiled
    """Each warp's first slot: when it may issue; every sub-partition with slots wakes at cycle 0. The first cycle
    anything is due at (NEVER: nothing is)."""
    st = views(buffer, slots)
    for row in range(len(st.warps)):
        w = st.warps[row]
        if w["pos"] < w["end"]:
            after(st.sm[0], w, w["base"], st.slots, st.inst)
    for s in range(len(st.sps)):
        st.sps[s]["alarm"] = 0 if st.sps[s]["live"] else DONE
    return _due(st)


@compiled
def cycle(buffer, slots, now):  # pragma: no cover - compiled
    """Cycle ``now``'s events, in their order: the telling cued for it, then the schedulers that wake in it, the
    lowest-numbered sub-partition first (also one woken in it by another's wake); the next cycle anything is due
    at (NEVER: nothing is)."""
    st = views(buffer, slots)
    sm = st.sm[0]
    if sm["tell_at"] == now:
        sm["tell_at"] = NONE
        _sync(st, now)
        _watch(st)
    while True:
        s = 0
        while s < len(st.sps) and st.sps[s]["alarm"] != now:
            s += 1
        if s == len(st.sps):
            return _due(st)
        _wake(st, s, now)


@compiled
def finish(buffer, slots):  # pragma: no cover - compiled
    """Pass every cycle left and tell the rest."""
    _step(views(buffer, slots), NEVER, -1, 0)


@compiled
def _due(st):  # pragma: no cover - compiled
    """The next cycle anything is due at: a telling or a scheduler's wake (NEVER: none)."""
    due = st.sm[0]["tell_at"] if st.sm[0]["tell_at"] != NONE else NEVER
    for s in range(len(st.sps)):
        if 0 <= st.sps[s]["alarm"] < due:
            due = st.sps[s]["alarm"]
    return due


@compiled(inline=True)
def _wake(st, s, now):  # pragma: no cover - compiled
    """Sub-partition ``s``'s scheduler wakes at ``now``: it issues what it may and sets when it wakes next (NEVER:
    when a warp of its is woken; DONE: never)."""
    sm, sp = st.sm[0], st.sps[s]
    sm["running"] = s
    _sync(st, now)
    told = now + sm["to_banks"] - 1  # every instruction finished by then has been told
    horizon = told + (1 if sp["waiting_entry"] else sm["after_pass"])
    if not sp["flying"] and not sp["waiting_entry"]:  # no completion or release to come can change what it issues
        horizon = NEVER
    c = max(sp["c"], now)
    issued = -1
    while True:
        place, c, again = run_ahead(sm, sp, st.warps[sp["lo"]:sp["hi"]], st.pipes[s * sm["pipes"]:(s + 1) * sm["pipes"]], st.slots, st.inst,
                                    c, now, horizon, issued)
        issued = -1
        if place < 0:
            break
        row = sp["lo"] + place
        if c > now:
            if not _claim_ahead(st, s, row, c, told):
                again = c
                break
            horizon = min(horizon, told + 1)
            continue
        horizon = min(horizon, told + sm["after_pass"])  # (its own from now on, or one it waits for)
        if not _entries(st, s, row, now):
            continue
        _issue(st, s, st.slots[st.warps[row]["pos"]]["inst"], now)
        issued = place
    sp["c"] = c
    sm["running"] = NONE
    sp["alarm"] = DONE if not sp["live"] else (NEVER if again == NONE else again)
    _watch(st)


@compiled(inline=True)
def _watch(st):  # pragma: no cover - compiled
    """While warps wait (for an instruction or an entry), cue a telling for the cycle after the next instruction
    to finish, the first its completion or freed entry can be seen at, unless one is cued before."""
    sm = st.sm[0]
    if not sm["waiting"]:
        return
    finish = next_finish(st.path, st.spec)
    if finish < NEVER and (sm["tell_at"] == NONE or finish < sm["tell_at"] - 1):
        sm["tell_at"] = finish + 1


@compiled(inline=True)
def _sync(st, now):  # pragma: no cover - compiled
    """Pass the cycles before ``now + to_banks`` if an instruction may finish in them (the path's ``next``, or
    not yet known)."""
    if st.path.numbers[0]["next"] < now + st.sm[0]["to_banks"]:
        _step(st, now, -1, 0)


@compiled(inline=True)
def _step(st, now, i, arrive):  # pragma: no cover - compiled
    """Pass the cycles before ``now + to_banks``, tell what finished, then add instruction ``i`` (-1: none),
    reaching the banks at ``arrive``."""
    through = min(now + st.sm[0]["to_banks"] - 1, NEVER)
    finished = step(st.path, st.inst, st.cycles, through, i, arrive)
    done = st.path.done
    for k in range(finished):
        _served(st, done[k, 0], done[k, 1], done[k, 2])


@compiled(inline=True)
def _issue(st, s, i, now):  # pragma: no cover - compiled
    """Instruction ``i`` of sub-partition ``s`` (holding its entries) issues at ``now``; its LSU accepts it."""
    sm, sp = st.sm[0], st.sps[s]
    st.inst[i]["issue"] = now
    sp["flying"] += 1
    accept = max(now, sp["accept_free"])
    sp["accept_free"] = accept + sm["accept_interval"]
    _step(st, now, i, accept + sm["to_banks"])


@compiled(inline=True)
def _served(st, i, last, passed):  # pragma: no cover - compiled
    """The path passed the ``passed`` wavefronts of ``i``, the last at ``last``: it completes, its warp is woken if
    it waited for it, its entries are freed."""
    sm, ins = st.sm[0], st.inst[i]
    s = ins["sp"]
    w = st.warps[ins["row"]]
    done = last + ins["latency"] - sm["to_banks"]
    ins["complete"], ins["passed"] = done, passed
    st.sps[s]["flying"] -= 1
    w["done_at"] = max(w["done_at"], done)
    ins["settled"] = w["done_at"]
    if w["waits"] == i:
        sm["waiting"] -= 1
        w["waits"] = -1
        w["blocked"] = 0
        after(sm, w, w["base"], st.slots, st.inst)
        _nudge(sm, st.sps[s], s, w["ready"])
    _release(st, s, last + 1)
    if sm["flight"]:
        _release(st, len(st.sps), last + 1 + sm["flight_after"])


@compiled(inline=True)
def _nudge(sm, sp, s, cycle):  # pragma: no cover - compiled
    """Sub-partition ``s`` (``sp``) may issue at ``cycle``: its scheduler wakes then if it sleeps until later (one
    that runs sees it)."""
    if s != sm["running"] and cycle < sp["alarm"]:
        sp["alarm"] = cycle


@compiled(inline=True)
def _entries(st, s, row, now):  # pragma: no cover - compiled
    """Take a queue entry and a place in flight for the warp at ``row``'s shared-memory instruction at ``now``;
    True if it holds both now (they are no longer held for later); else it waits (ready later, or blocked
    until a release is handed to it)."""
    w = st.warps[row]
    for kind in range(2 if st.sm[0]["flight"] else 1):
        if (w["held_queue"] if kind == 0 else w["held_flight"]):
            continue
        got = _claim(st, s if kind == 0 else len(st.sps), row, now)
        if got == NONE:
            w["blocked"] = 1
            st.sps[s]["waiting_entry"] += 1
            return False
        if kind == 0:
            w["held_queue"] = 1
        else:
            w["held_flight"] = 1
        if got > now:
            w["ready"] = got
            return False
    w["held_queue"] = w["held_flight"] = 0
    return True


@compiled(inline=True)
def _claim_ahead(st, s, row, c, told):  # pragma: no cover - compiled
    """The warp at ``row`` reaches its shared-memory instruction at ``c``, after now: where its queue's claim at
    ``c`` can only fail, make it now (True: it holds the first release known, or waits for one); else False
    (its scheduler wakes at ``c``). It can only fail where no entry is free or freed by ``c`` and none is held:
    every release by ``c`` is known (``c <= told + 1``), those told later are after ``c`` (and go to it in the
    same order, waiting or holding); so only for the queue (places in flight are the SM's: the other
    sub-partitions' claims before ``c`` are not yet made)."""
    w, pool, releases = st.warps[row], st.pools[s], st.releases[s]
    if st.sm[0]["flight"] or c > told + 1 or w["held_queue"] or pool["free"] or (pool["releases"] and releases[0] <= c):
        return False
    got = _later(st, s, row)
    if got == NONE:
        w["blocked"] = 1
        st.sps[s]["waiting_entry"] += 1
    else:
        w["held_queue"] = 1
        w["ready"] = got
    return True


@compiled(inline=True)
def _claim(st, e, row, now):  # pragma: no cover - compiled
    """Take an entry of pool ``e`` for the warp at ``row``: the cycle the entry is its, or NONE (it waits, and is
    handed one at a release)."""
    pool = st.pools[e]
    if take(pool):
        return now
    _sync(st, now)
    free_by(pool, st.releases[e], now)
    if take(pool):
        return now
    return _later(st, e, row)


@compiled(inline=True)
def _later(st, e, row):  # pragma: no cover - compiled
    """A claim where no entry of pool ``e`` is free by now: the first release known is the warp at ``row``'s, or
    it waits for one (NONE)."""
    pool = st.pools[e]
    if pool["releases"]:
        return first_release(pool, st.releases[e])
    wait(pool, st.waiters[e], row)
    st.sm[0]["waiting"] += 1
    return NONE


@compiled(inline=True)
def _release(st, e, cycle):  # pragma: no cover - compiled
    """An entry of pool ``e`` is freed at ``cycle``: to the warp waiting longest (woken), or to the pool."""
    row = release(st.pools[e], st.releases[e], st.waiters[e], cycle)
    if row < 0:
        return
    st.sm[0]["waiting"] -= 1
    w = st.warps[row]
    if e == len(st.sps):
        w["held_flight"] = 1
    else:
        w["held_queue"] = 1
    s = w["sp"]
    st.sps[s]["waiting_entry"] -= 1
    w["blocked"] = 0
    w["ready"] = max(w["ready"], cycle)
    _nudge(st.sm[0], st.sps[s], s, cycle)
