"""The SM as ``simulate`` runs it: each sub-partition's scheduler a simpy process, one compiled call per wake.

The model is the reference's (``reference.py``: ``subpartition.SubPartition``, ``entries.Entries``,
``warp.Warps`` and ``passing.Passing`` as written); here its state is one array (``layout``) and a
scheduler's wake is one compiled call (``_wake``) that does what ``SubPartition.schedule`` does in one
pass of its loop: pass the data path up to the cycles the instructions issued settle (``datapath.py``),
tell the sub-partitions of the instructions finished (completions, freed entries: ``_served``), issue
other instructions up to the horizon and shared-memory ones at their cycle (``compiled._ahead``), taking
their LSU queue entries and places in flight (``_entries``). A warp woken for a sub-partition that sleeps
until later is a nudge (``cue.Alarm``); while warps wait, a telling cue passes the path at the next
finish (``SM._watch``). Tests hold the two identical, log for log.
"""

from __future__ import annotations

import numba
import numpy as np
import simpy

from .compiled import BASE, BLOCKED, BLOCKS, DONE_AT, HELD_FLIGHT, HELD_QUEUE, INST, LIVE, NONE, POS, READY, SP, WAITS, _ahead, _after
from .cue import TELL, WARP, Alarm, then
from .datapath import COL_SP, COL_START, NEVER, NEXT, _step as _pass_path, _views as _path_views, layout as path_layout
from .port import RULES
from .program import Program

# ``state``'s numbers: the timing's, warps waiting (for an instruction or an entry), the sub-partition whose
# scheduler runs (-1: none), the cycle a telling is cued for, the sizes, then where each table starts
(TO_BANKS, AFTER_PASS, ACCEPT_INTERVAL, FLIGHT, FLIGHT_AFTER, WAITING, RUNNING, TELL_AT, N_SPS, N_WARPS, N_PIPES, N_INST,
 ENTRY_WIDTH, AT_SPS, AT_PIPES, AT_WARPS, AT_ENTRIES, AT_INST, AT_COLUMNS, AT_PATH, AT_SLOTS, HEAD) = range(22)
SEVERAL = -2  # more than one sub-partition nudged (``_nudged``)
# a sub-partition's numbers: ``compiled``'s (RULE .. BLOCKS), then the first cycle not yet decided, the LSU's
# next accept, warps waiting for an entry whose release is not yet known, its warps' rows, a nudge (-1: none)
C, ACCEPT_FREE, WAITING_ENTRY, LO, HI, NUDGE = range(7, 13)
SP_WIDTH = 13
# rows of ``inst`` (per instruction): issue, completion, settled (it and its warp's earlier ones completed),
# wavefronts passed; columns of ``columns``: ``datapath``'s five, then latency and the warp's row
ISSUE, COMPLETE, SETTLED, PASSED = range(4)
LATENCY, ROW = 5, 6
# an ``entries`` row (a sub-partition's queue; the last: the SM's places in flight): free, releases known
# (cycles, earliest first), warps waiting (rows, in order), then the releases and the waiters
FREE, RELEASES, WAITERS, AT_RELEASE = range(4)


def layout(prog: Program, timing, sub_partitions: int, log: bool) -> np.ndarray:
    """The state of ``prog`` run on ``sub_partitions`` sub-partitions by ``timing``, at cycle 0 (``log``: keeping
    each wavefront's cycle)."""
    t = timing
    sps = max(sub_partitions, int(prog.sub_partition.max(initial=-1)) + 1)
    numbers = np.zeros(HEAD, dtype=np.int64)
    warps_of = [[] for _ in range(sps)]  # each sub-partition's warps: (slots, first cycle, instructions), by number
    for instructions, slots in zip(prog.by_warp, prog.slots):
        warps_of[int(prog.sub_partition[instructions[0]])].append((slots, int(prog.start[prog.warp[instructions[0]]]), instructions))
    mine = [w for ws in warps_of for w in ws]
    lengths = np.array([len(slots.inst) for slots, _, _ in mine], dtype=np.int64)
    ends = np.cumsum(lengths)
    sp_rows = np.zeros((sps, SP_WIDTH), dtype=np.int64)
    counts = np.array([len(ws) for ws in warps_of], dtype=np.int64)
    sp_rows[:, HI] = np.cumsum(counts)
    sp_rows[:, LO] = sp_rows[:, HI] - counts
    sp_rows[:, 0:7] = [RULES[t.issue_priority], -1, 0, t.issue_interval, t.shared_issue_interval, 0, 0]
    sp_rows[:, LIVE] = [sum(len(slots.inst) > 0 for slots, _, _ in ws) for ws in warps_of]
    sp_rows[:, NUDGE] = -1
    pipes = np.zeros((sps, 2, len(t.pipes)), dtype=np.int64)
    pipes[:, 1] = list(t.pipes.values())
    warps = np.zeros((len(mine), 10), dtype=np.int64)
    warps[:, 0], warps[:, 1] = ends - lengths, ends  # POS, END
    warps[:, BASE] = warps[:, READY] = [start for _, start, _ in mine]
    warps[:, WAITS] = -1
    warps[:, SP] = np.repeat(np.arange(sps), counts)
    size = max(t.queue_depth, t.in_flight.entries if t.in_flight is not None else 0)
    entries = np.zeros((sps + 1, AT_RELEASE + size + len(mine)), dtype=np.int64)
    entries[:sps, FREE] = t.queue_depth
    entries[sps, FREE] = t.in_flight.entries if t.in_flight is not None else 0
    n = len(prog)
    inst = np.full((4, n), -1, dtype=np.int64)
    inst[PASSED] = 0
    _, dense = np.unique(prog.warp, return_inverse=True)
    row = np.zeros(n, dtype=np.int64)
    for r, (_, _, instructions) in enumerate(mine):
        row[instructions] = r
    columns = np.column_stack([dense.reshape(-1), prog.phases, prog.wavefronts, prog.wavefront_starts(), prog.sub_partition, prog.latency, row])
    if not log:
        columns[:, COL_START] = -1
    path = path_layout(t, sps, int(dense.max(initial=-1)) + 1)
    slots = [np.column_stack([s.inst, s.pipe, s.stall, s.wait, s.delay]).ravel() for s, _, _ in mine]
    tables = [sp_rows.ravel(), pipes.ravel(), warps.ravel(), entries.ravel(), inst.ravel(), columns.astype(np.int64).ravel(), path, *slots]
    numbers[TELL_AT] = numbers[RUNNING] = NONE
    numbers[[TO_BANKS, AFTER_PASS, ACCEPT_INTERVAL, FLIGHT, FLIGHT_AFTER, N_SPS, N_WARPS, N_PIPES, N_INST, ENTRY_WIDTH]] = [
        t.to_banks, int(prog.latency.min(initial=t.to_banks + 1)) - t.to_banks, t.accept_interval, t.in_flight is not None,
        t.in_flight.after if t.in_flight is not None else 0, sps, len(mine), len(t.pipes), n, entries.shape[1]]
    numbers[AT_SPS:HEAD] = HEAD + np.r_[0, np.cumsum([len(table) for table in tables[:7]])]
    state = np.concatenate([numbers, *tables], dtype=np.int64)
    for r in range(len(mine)):  # each warp's first slot: when it may issue
        if lengths[r]:
            _begin(state, r)
    return state


class SM:
    """One run's state and its simpy processes: a scheduler per sub-partition, tellings while warps wait."""

    def __init__(self, env: simpy.Environment, prog: Program, timing, sub_partitions: int, log: bool) -> None:
        self.env = env
        self.state = layout(prog, timing, sub_partitions, log)
        numbers = self.state[:HEAD]
        self.sps = self.state[numbers[AT_SPS]:numbers[AT_PIPES]].reshape(-1, SP_WIDTH)
        self.inst = self.state[numbers[AT_INST]:numbers[AT_COLUMNS]].reshape(4, -1)
        self.cycles = np.zeros(max(int(prog.wavefronts.sum()), 1) if log else 1, dtype=np.int64)  # each wavefront's cycle (for the log)
        self.alarms = [Alarm(env, WARP + s) for s in range(len(self.sps))]

    def start(self) -> None:
        """Start the scheduler of every sub-partition that has a warp with slots."""
        for s, alarm in enumerate(self.alarms):
            if self.sps[s, LIVE]:
                alarm.process = self.env.process(self._schedule(s))

    @property
    def issue(self) -> np.ndarray:
        return self.inst[ISSUE]

    def finish(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Pass every cycle left (every slot issued); each instruction's issue, completion and wavefronts passed."""
        _finish(self.state, self.cycles)
        return self.inst[ISSUE].copy(), self.inst[COMPLETE].copy(), self.inst[PASSED].copy()

    def _schedule(self, s: int):
        """Sub-partition ``s``'s scheduler: a wake per cycle it may issue at, until its warps' slots are issued."""
        env, state, cycles, alarm = self.env, self.state, self.cycles, self.alarms[s]
        while True:
            wake, nudged, at, tell, live = _wake(state, cycles, s, env.now)
            if nudged != NONE or tell != NONE:
                self._heard(nudged, at, tell)
            if not live:
                return
            yield alarm.sleep(None if wake == NONE else wake)
            alarm.woke()

    def _heard(self, nudged: int, at: int, tell: int) -> None:
        """After a call: wake the sub-partition ``nudged`` at ``at`` (NONE: none; SEVERAL: those in ``NUDGE``);
        cue a telling for ``tell`` (NONE: none)."""
        if nudged >= 0:
            self.alarms[nudged].nudge(at)
        elif nudged == SEVERAL:
            for s, cycle in enumerate(self.sps[:, NUDGE].tolist()):
                if cycle >= 0:
                    self.alarms[s].nudge(cycle)
            self.sps[:, NUDGE] = -1
        if tell != NONE:
            then(self.env, tell, TELL, lambda: self._heard(*_tell(self.state, self.cycles, tell)))


@numba.njit(cache=True, nogil=True, inline="always")
def _views(state):  # pragma: no cover - compiled
    """The tables in ``state``: sub-partitions', pipes', warps', entries', per-instruction rows and columns,
    the data path's state, the slots' (``v``: made once per call from Python, handed on)."""
    a = state[AT_SPS:HEAD]
    sps = state[a[0]:a[1]].reshape(state[N_SPS], SP_WIDTH)
    pipes = state[a[1]:a[2]].reshape(state[N_SPS], 2, state[N_PIPES])
    warps = state[a[2]:a[3]].reshape(state[N_WARPS], 10)
    entries = state[a[3]:a[4]].reshape(state[N_SPS] + 1, state[ENTRY_WIDTH])
    inst = state[a[4]:a[5]].reshape(4, state[N_INST])
    columns = state[a[5]:a[6]].reshape(state[N_INST], 7)
    return sps, pipes, warps, entries, inst, columns, state[a[6]:a[7]], state[a[7]:].reshape(-1, 5)


@numba.njit(cache=True, nogil=True)
def _begin(state, row):  # pragma: no cover - compiled
    """The warp at ``row``'s first slot: when it may issue (``Warps.__init__``)."""
    v = _views(state)
    sps, pipes, warps, entries, inst, columns, path, slots = v
    s = warps[row, SP]
    lo, hi = sps[s, LO], sps[s, HI]
    _after(warps[lo:hi], slots, sps[s], inst[COMPLETE], inst[SETTLED], row - lo, warps[row, BASE])


@numba.njit(cache=True, nogil=True)
def _wake(state, cycles, s, now):  # pragma: no cover - compiled
    """One wake of sub-partition ``s``'s scheduler at ``now`` (``SubPartition.schedule``'s loop, once): the
    cycle to wake again (NONE: when nudged), a sub-partition nudged and when (``_nudged``), a telling to cue
    (``_watch``), and how many of its warps have slots left."""
    v = _views(state)
    sps, pipes, warps, entries, inst, columns, path, slots = v
    state[RUNNING] = s
    _sync(state, v, cycles, now)
    sp = sps[s]
    told = now + state[TO_BANKS] - 1  # every instruction finished by then has been told (synced)
    horizon = told + (1 if sp[WAITING_ENTRY] else state[AFTER_PASS])
    c = max(sp[C], now)
    lo, hi = sp[LO], sp[HI]
    mine = warps[lo:hi]
    issued = -1
    while True:
        place, c, wake = _ahead(mine, slots, pipes[s], sp, inst[COMPLETE], inst[SETTLED], c, now, horizon, issued)
        state[WAITING] += sp[BLOCKS]
        sp[BLOCKS] = 0
        issued = -1
        if place < 0:
            break
        if c > now:
            if not _claim_ahead(state, v, s, lo + place, c, told):
                wake = c
                break
            horizon = min(horizon, told + 1)
            continue
        if not _entries(state, v, cycles, s, lo + place, now):
            continue
        _issue(state, v, cycles, s, slots[mine[place, POS], INST], now)
        issued = place
    sp[C] = c
    state[RUNNING] = NONE
    nudged, at = _nudged(state, v)
    return wake, nudged, at, _watch(state, v), sp[LIVE]


@numba.njit(cache=True, nogil=True)
def _tell(state, cycles, now):  # pragma: no cover - compiled
    """A telling cued for ``now`` (``_watch``): pass the path and tell what finished; (nudged, when, a telling
    to cue) as ``_wake``. One superseded by an earlier does nothing."""
    if now != state[TELL_AT]:
        return NONE, 0, NONE
    state[TELL_AT] = NONE
    v = _views(state)
    _sync(state, v, cycles, now)
    nudged, at = _nudged(state, v)
    return nudged, at, _watch(state, v)


@numba.njit(cache=True, nogil=True)
def _watch(state, v):  # pragma: no cover - compiled
    """While warps wait (for an instruction or an entry), a telling for the cycle after the next instruction
    to finish, the first its completion or freed entry can be seen at, unless one is cued before: the cycle
    to cue it at, or NONE."""
    finish = v[6][NEXT]
    if state[WAITING] and finish < NEVER and (state[TELL_AT] == NONE or finish < state[TELL_AT] - 1):
        state[TELL_AT] = finish + 1
        return state[TELL_AT]
    return NONE


@numba.njit(cache=True, nogil=True)
def _finish(state, cycles):  # pragma: no cover - compiled
    """Pass every cycle left and tell the rest."""
    _step(state, _views(state), cycles, NEVER, -1, 0)


@numba.njit(cache=True, nogil=True)
def _sync(state, v, cycles, now):  # pragma: no cover - compiled
    """Pass the cycles before ``now + to_banks`` if an instruction may finish in them (the path's ``NEXT``)."""
    if v[6][NEXT] < now + state[TO_BANKS]:
        _step(state, v, cycles, now, -1, 0)


@numba.njit(cache=True, nogil=True)
def _step(state, v, cycles, now, i, arrive):  # pragma: no cover - compiled
    """Pass the cycles before ``now + to_banks``, tell what finished, then add instruction ``i`` (-1: none),
    reaching the banks at ``arrive``."""
    sps, pipes, warps, entries, inst, columns, path, slots = v
    through = min(now + state[TO_BANKS] - 1, NEVER)
    finished = _pass_path(path, columns, cycles, through, i, arrive)
    done = _path_views(path)[2]
    for k in range(finished):
        _served(state, v, done[k, 0], done[k, 1], done[k, 2])


@numba.njit(cache=True, nogil=True)
def _issue(state, v, cycles, s, i, now):  # pragma: no cover - compiled
    """``SubPartition.issue``: instruction ``i`` (holding its entries) issues at ``now``; the LSU accepts it."""
    sps, pipes, warps, entries, inst, columns, path, slots = v
    inst[ISSUE, i] = now
    accept = max(now, sps[s, ACCEPT_FREE])
    sps[s, ACCEPT_FREE] = accept + state[ACCEPT_INTERVAL]
    _step(state, v, cycles, now, i, accept + state[TO_BANKS])


@numba.njit(cache=True, nogil=True)
def _served(state, v, i, last, passed):  # pragma: no cover - compiled
    """``SubPartition.served``: the path passed the ``passed`` wavefronts of ``i``, the last at ``last``."""
    sps, pipes, warps, entries, inst, columns, path, slots = v
    s, row = columns[i, COL_SP], columns[i, ROW]
    done = last + columns[i, LATENCY] - state[TO_BANKS]
    inst[COMPLETE, i] = done
    inst[PASSED, i] = passed
    warps[row, DONE_AT] = inst[SETTLED, i] = max(warps[row, DONE_AT], done)
    if warps[row, WAITS] == i:  # its warp waited for it (``Warps.completed``)
        state[WAITING] -= 1
        warps[row, WAITS] = -1
        warps[row, BLOCKED] = 0
        lo, hi = sps[s, LO], sps[s, HI]
        _after(warps[lo:hi], slots, sps[s], inst[COMPLETE], inst[SETTLED], row - lo, warps[row, BASE])
        _nudge(state, v, s, warps[row, READY])
    _release(state, v, s, last + 1)
    if state[FLIGHT]:
        _release(state, v, len(sps), last + 1 + state[FLIGHT_AFTER])


@numba.njit(cache=True, nogil=True)
def _nudge(state, v, s, cycle):  # pragma: no cover - compiled
    """Sub-partition ``s`` may issue at ``cycle``: its scheduler is to wake then if it sleeps until later (one
    that runs sees it)."""
    sps = v[0]
    if s != state[RUNNING] and (sps[s, NUDGE] < 0 or cycle < sps[s, NUDGE]):
        sps[s, NUDGE] = cycle


@numba.njit(cache=True, nogil=True)
def _nudged(state, v):  # pragma: no cover - compiled
    """The sub-partition nudged and its cycle, taken out of ``NUDGE`` (NONE: none; SEVERAL: more, left there)."""
    sps = v[0]
    who, at = NONE, 0
    for s in range(len(sps)):
        if sps[s, NUDGE] >= 0:
            if who != NONE:
                return SEVERAL, 0
            who, at = s, sps[s, NUDGE]
    if who != NONE:
        sps[who, NUDGE] = -1
    return who, at


@numba.njit(cache=True, nogil=True)
def _entries(state, v, cycles, s, row, now):  # pragma: no cover - compiled
    """``SubPartition._entries``: take a queue entry and a place in flight for the warp at ``row``'s
    shared-memory instruction at ``now``; True if it holds both now."""
    sps, pipes, warps, entries, inst, columns, path, slots = v
    for kind in range(2 if state[FLIGHT] else 1):
        held = HELD_QUEUE if kind == 0 else HELD_FLIGHT
        if warps[row, held]:
            continue
        got = _claim(state, v, cycles, s if kind == 0 else len(sps), row, now)
        if got == NONE:
            warps[row, BLOCKED] = 1
            sps[s, WAITING_ENTRY] += 1
            return False
        warps[row, held] = 1
        if got > now:
            warps[row, READY] = got
            return False
    warps[row, HELD_QUEUE] = 0
    warps[row, HELD_FLIGHT] = 0
    return True


@numba.njit(cache=True, nogil=True)
def _claim_ahead(state, v, s, row, c, told):  # pragma: no cover - compiled
    """The warp at ``row`` reaches its shared-memory instruction at ``c``, after now: where its queue's claim
    at ``c`` can only fail, make it now (True: it holds the first release known, or waits for one); else
    False (its scheduler wakes at ``c``). It can only fail where no entry is free or freed by ``c`` and none
    is held: every release by ``c`` is known (``c <= told + 1``), those told later are after ``c`` (and go to
    it in the same order, waiting or holding); so only for the queue (places in flight are the SM's: the
    other sub-partitions' claims before ``c`` are not yet made)."""
    sps, pipes, warps, entries, inst, columns, path, slots = v
    entry = entries[s]
    if state[FLIGHT] or c > told + 1 or warps[row, HELD_QUEUE] or entry[FREE] or (entry[RELEASES] and entry[AT_RELEASE] <= c):
        return False
    got = _later(state, entry, row)
    if got == NONE:
        warps[row, BLOCKED] = 1
        sps[s, WAITING_ENTRY] += 1
    else:
        warps[row, HELD_QUEUE] = 1
        warps[row, READY] = got
    return True


@numba.njit(cache=True, nogil=True)
def _claim(state, v, cycles, e, row, now):  # pragma: no cover - compiled
    """``Entries.claim`` of entries row ``e`` for the warp at ``row``: the cycle the entry is its, or NONE (it
    waits, and is handed one at a release)."""
    entry = v[3][e]
    if entry[FREE]:
        entry[FREE] -= 1
        return now
    _sync(state, v, cycles, now)
    while entry[RELEASES] and entry[AT_RELEASE] <= now:
        _first_release(entry)
        entry[FREE] += 1
    if entry[FREE]:
        entry[FREE] -= 1
        return now
    return _later(state, entry, row)


@numba.njit(cache=True, nogil=True)
def _later(state, entry, row):  # pragma: no cover - compiled
    """``Entries.claim`` where no entry is free by now: the first release known is the warp at ``row``'s, or
    it waits for one (NONE)."""
    if entry[RELEASES]:
        return _first_release(entry)
    entry[len(entry) - state[N_WARPS] + entry[WAITERS]] = row
    entry[WAITERS] += 1
    state[WAITING] += 1
    return NONE


@numba.njit(cache=True, nogil=True, inline="always")
def _first_release(entry):  # pragma: no cover - compiled
    """The earliest release known, taken out of the entries row."""
    first = _pop(entry, AT_RELEASE, entry[RELEASES])
    entry[RELEASES] -= 1
    return first


@numba.njit(cache=True, nogil=True)
def _release(state, v, e, cycle):  # pragma: no cover - compiled
    """``Entries.release``: an entry of row ``e`` is freed at ``cycle``, to the warp waiting longest or to the pool."""
    sps, pipes, warps, entries, inst, columns, path, slots = v
    entry = entries[e]
    if entry[WAITERS]:
        state[WAITING] -= 1
        row = _pop(entry, len(entry) - state[N_WARPS], entry[WAITERS])
        entry[WAITERS] -= 1
        warps[row, HELD_FLIGHT if e == len(sps) else HELD_QUEUE] = 1  # ``SubPartition._handed``
        s = warps[row, SP]
        sps[s, WAITING_ENTRY] -= 1
        warps[row, BLOCKED] = 0
        warps[row, READY] = max(warps[row, READY], cycle)
        _nudge(state, v, s, cycle)
        return
    k = AT_RELEASE + entry[RELEASES]  # the releases in order of their cycles
    while k > AT_RELEASE and entry[k - 1] > cycle:
        entry[k] = entry[k - 1]
        k -= 1
    entry[k] = cycle
    entry[RELEASES] += 1


@numba.njit(cache=True, nogil=True, inline="always")
def _pop(row, at, n):  # pragma: no cover - compiled
    """The first of the ``n`` numbers from ``row[at]`` on, taken out (the rest move up)."""
    first = row[at]
    for k in range(at, at + n - 1):
        row[k] = row[k + 1]
    return first
