"""The data path: the 32 bank ports, each serving one distinct word per cycle to every lane that wants it.

A wavefront is one pass of the bank ports (the counting model makes each wavefront ask a bank for at
most one distinct word), so the path serves ``wavefronts_per_cycle`` wavefronts a cycle, whatever banks
they use, by the rule of ``passing.py``: the oldest instruction (the earliest issued) first, and only
among the oldest unfinished ones (``window_phases`` phases of them); the oldest one not yet started
overtakes the started ones of at most ``overtake.wavefronts`` wavefronts that reached the banks at
most ``overtake.within`` cycles before it. Each
warp's wavefronts leave one per ``feed_interval`` cycles, in order.

A younger instruction takes no cycle an older one could use unless it overtakes, so ``issue`` books an
instruction's cycles when it issues (instructions issue oldest first): the earliest free cycles the
window and the warp's feed allow. If it might overtake (while it waits, a later wavefront of such an
instruction takes a cycle), the
rule is run one cycle at a time (``Passing``) over the instructions pending from that cycle until it is
back where the bookings have it, and their bookings in between are replaced: the same schedule as
passing wavefronts one cycle at a time (``reference.py``). No instruction issued later reaches the
banks within ``to_banks`` cycles, so an instruction booked to finish before then is told to its
sub-partition (with no overtaking: at once).
"""

from __future__ import annotations

import bisect
import heapq

import attrs

from .cue import ROOM, then
from .passing import Passing, Pending

PRUNE_EVERY = 4096  # bookings between two sweeps of cycles already past


@attrs.define(eq=False)
class Booked:
    """An instruction whose cycles are booked but may still move (an instruction issued later may overtake)."""

    sp: object  # its SubPartition
    i: int
    seq: int  # its place in the order of issue
    warp: int
    phases: int
    arrive: int  # cycle it reaches the banks
    after: int  # first cycle its warp's earlier instructions leave its first wavefront
    cycles: list[int]  # booked cycles of its wavefronts
    last: int  # its last booked cycle; without wavefronts the cycle it finishes at (``first``)

    @property
    def first(self) -> int:
        """The cycle its first wavefront may pass, its warp's earlier ones permitting."""
        return max(self.arrive, self.after)


class DataPath:
    """Cycles booked on the data path, and the booking of an instruction's wavefronts."""

    def __init__(self, timing) -> None:
        self.timing = timing
        self.per_cycle = timing.wavefronts_per_cycle
        self.window = timing.window_phases
        self.overtake = timing.overtake
        self.booked: dict[int, int] = {}  # cycle -> wavefronts booked in it
        self.full: dict[int, int] = {}  # full cycle -> a later cycle to look at for room (a disjoint-set forest)
        self.holes: list[int] = []  # sorted: cycles with room that looks in ``full`` may jump (freed by overtaking)
        self.unfinished: list[tuple[int, int, int]] = []  # (last wavefront's cycle, phases, seq) of booked instructions, sorted
        self.unfinished_phases = 0  # their phases together
        self.uniform: int | None = 0  # the phases of every unfinished one, when they are the same (None: they differ)
        self.issued = 0  # instructions booked so far
        self.feed_free: dict[int, int] = {}  # warp -> first cycle its next instruction's first wavefront may pass, as booked
        self.open: dict[int, Booked] = {}  # seq -> booked, not yet told (overtaking may move them), oldest first
        self.lasts: list[tuple[int, int]] = []  # heap of (last, seq) of the open ones (stale entries skipped)
        self.arrivals: list[tuple[int, int]] = []  # (arrive, seq) of the open ones that may be overtaken, sorted (told ones skipped)
        self.idle: dict[int, Booked] = {}  # the open ones without wavefronts, by seq
        self.tell_at: int | None = None  # the cycle the next telling is cued for

    def issue(self, sp, i: int, now: int, arrive: int) -> None:
        """Book instruction ``i`` of sub-partition ``sp``, issued at ``now`` (after every older one) and
        reaching the banks at ``arrive``."""
        t, c = self.timing, sp.run.columns
        horizon = now + t.to_banks  # no instruction issued from now on reaches the banks before it
        if self.lasts and self.lasts[0][0] < horizon:
            self._tell_before(horizon)
        w, seq = c.warp[i], self.issued
        self.issued += 1
        after = self.feed_free.get(w, 0)
        first = max(arrive, after)
        count, phases = c.wavefronts[i], c.phases[i]
        cycles = []
        if count:
            start = entry = self._window_entry(first, phases, horizon)
            full, step = self.full, t.feed_interval
            for _ in range(count):
                if start in full:
                    start = self._room_from(start, horizon)
                self._take(start)
                cycles.append(start)
                start += step
            bisect.insort(self.unfinished, (cycles[-1], phases, seq))
            self.unfinished_phases += phases
            self.uniform = phases if len(self.unfinished) == 1 or self.uniform == phases else None
            self.feed_free[w] = cycles[-1] + step
            if self.issued % PRUNE_EVERY == 0:
                self._forget_before(horizon)
        if self.overtake is None:
            sp.served(i, first, cycles)
            return
        b = self.open[seq] = Booked(sp, i, seq, w, phases, arrive, after, cycles, cycles[-1] if cycles else first)
        heapq.heappush(self.lasts, (b.last, seq))
        if count:
            if 1 < count <= self.overtake.wavefronts:  # one that may be overtaken
                bisect.insort(self.arrivals, (arrive, seq))
            if (t0 := self._first_chance(b, entry, horizon)) is not None:
                self._rebook(t0)
        else:
            self.idle[seq] = b
        self._cue_telling(sp.run.env)

    def _take(self, cycle: int) -> None:
        """Book one wavefront in ``cycle`` (which has room)."""
        n = self.booked.get(cycle, 0) + 1
        self.booked[cycle] = n
        if n == self.per_cycle:
            self.full[cycle] = cycle + 1
            if self.holes and cycle in self.holes:
                self.holes.remove(cycle)

    def _first_chance(self, b: Booked, entry: int, horizon: int) -> int | None:
        """The first cycle ``b`` (booked, the youngest) might overtake at, or None: while it waits (from
        ``entry``, the window's, to its first booked cycle) a later wavefront of an instruction that reached
        the banks at most ``overtake.within`` cycles before it, of at most ``overtake.wavefronts``, takes a
        cycle (it could only overtake when every started instruction ready then is such a one)."""
        arrivals = self.arrivals
        within, most = self.overtake.within, self.overtake.wavefronts
        del arrivals[: bisect.bisect_left(arrivals, (horizon - within,))]  # none issued later can look back that far
        end, chance = b.cycles[0], None
        for k in range(bisect.bisect_left(arrivals, (b.arrive - within,)), len(arrivals)):
            o = self.open.get(arrivals[k][1])
            if o is None or o is b:
                continue
            cycles = o.cycles
            if 1 < len(cycles) <= most and cycles[1] < end and o.last >= entry:
                j = bisect.bisect_left(cycles, entry, 1)
                if cycles[j] < end and (chance is None or cycles[j] < chance):
                    chance = cycles[j]
        return chance

    def _rebook(self, t0: int) -> None:
        """Pass the instructions pending at cycle ``t0`` one cycle at a time from there until the passing is
        back where the bookings have it (the youngest started in both), and book what it passed instead."""
        seqs = [seq for _, _, seq in self.unfinished[bisect.bisect_left(self.unfinished, (t0,)):]]
        seqs += [seq for seq, b in self.idle.items() if b.last >= t0]
        pending = [self.open[seq] for seq in sorted(seqs)]
        passing = Passing(self.timing)
        moved: list[tuple[Pending, Booked]] = []
        for b in pending:
            if b.warp not in passing.warps:
                passing.feed_free[b.warp] = b.after
            n = bisect.bisect_left(b.cycles, t0)
            p = Pending(b.sp, b.i, b.warp, b.phases, len(b.cycles) - n, b.arrive, b.cycles[:n])
            passing.add(p)
            moved.append((p, b))
        youngest = moved[-1][0]
        t = t0
        while t is not None and not (youngest.cycles and _agree(moved, passing, t)):
            passing.pass_cycle(t)
            t = passing.next_cycle(t)
        back = t if t is not None else max(b.last for b in pending) + 1  # passed and booked agree from here on
        full = self.full
        was_full = [cycle for cycle in range(t0, back) if cycle in full]
        for cycle in range(t0, back):
            self.booked.pop(cycle, None)
            full.pop(cycle, None)
        step, feed = self.timing.feed_interval, {}
        for p, b in moved:
            b.after = feed.get(b.warp, b.after)
            for cycle in p.cycles[bisect.bisect_left(p.cycles, t0):]:
                self._take(cycle)
            if b.cycles:
                cycles = p.cycles + b.cycles[bisect.bisect_left(b.cycles, back):]
                if cycles[-1] != b.last:
                    self.unfinished.remove((b.last, b.phases, b.seq))
                    bisect.insort(self.unfinished, (cycles[-1], b.phases, b.seq))
                    self.feed_free[b.warp] = cycles[-1] + step
                b.cycles = cycles
                feed[b.warp] = cycles[-1] + step
            last = b.cycles[-1] if b.cycles else b.first
            if last != b.last:
                b.last = last
                heapq.heappush(self.lasts, (last, b.seq))
        for cycle in was_full:
            if cycle not in full:  # a look from before it may jump it
                bisect.insort(self.holes, cycle)

    def _tell_before(self, horizon: int) -> None:
        """Tell their sub-partitions of the open instructions that finish before ``horizon``: no instruction
        issued later can reach the banks before it and move them."""
        lasts, open_ = self.lasts, self.open
        while lasts and lasts[0][0] < horizon:
            last, seq = heapq.heappop(lasts)
            b = open_.get(seq)
            if b is None or b.last != last:  # told, or moved since
                continue
            del open_[seq]
            self.idle.pop(seq, None)
            b.sp.served(b.i, b.first, b.cycles)

    def _cue_telling(self, env) -> None:
        """Cue a telling for the cycle the earliest open instruction's last cycle falls behind the horizon
        (unless one is cued before it: that one cues the next)."""
        if self.lasts:
            cycle = max(env.now, self.lasts[0][0] - self.timing.to_banks + 1)
            if self.tell_at is None or cycle < self.tell_at:
                self.tell_at = cycle
                then(env, cycle, ROOM, lambda: self._telling(env, cycle))

    def _telling(self, env, cycle: int) -> None:
        if cycle != self.tell_at:  # superseded by an earlier one
            return
        self.tell_at = None
        horizon = env.now + self.timing.to_banks
        if self.lasts and self.lasts[0][0] < horizon:
            self._tell_before(horizon)
        self._cue_telling(env)

    def _window_entry(self, first: int, phases: int, horizon: int) -> int:
        """The first cycle from ``first`` at which the older unfinished instructions have at most
        ``window - phases`` phases together, or none is left (``horizon``: no later instruction reaches
        the banks before it, so instructions finished before it can be forgotten)."""
        unfinished = self.unfinished
        if unfinished and unfinished[0][0] < horizon:
            gone = bisect.bisect_left(unfinished, (horizon,))
            self.unfinished_phases -= sum(e[1] for e in unfinished[:gone])
            del unfinished[:gone]
            if not unfinished:
                self.uniform = 0
        budget = self.window - phases
        if self.unfinished_phases <= budget:
            return first
        if self.uniform:  # every unfinished one has these phases: the window is the latest budget // uniform of them
            k = len(unfinished) - 1 - max(budget, 0) // self.uniform
            return max(first, unfinished[k][0] + 1) if k >= 0 else first
        for k in range(len(unfinished) - 1, -1, -1):  # the last to finish first
            last, weight, _ = unfinished[k]
            if last < first:
                break
            if weight > budget:
                return max(first, last + 1)
            budget -= weight
        return first

    def _room_from(self, t: int, horizon: int) -> int:
        """The first cycle from ``t`` (a full one) with room, shortening the paths it walked."""
        full = self.full
        room, start = t, t
        while room in full:
            room = full[room]
        while t != room:
            full[t], t = room, full[t]
        if holes := self.holes:
            if holes[0] < horizon:
                del holes[: bisect.bisect_left(holes, horizon)]
            k = bisect.bisect_left(holes, start)
            if k < len(holes) and holes[k] < room:
                return holes[k]
        return room

    def _forget_before(self, cycle: int) -> None:
        """Drop bookings of cycles before ``cycle``: no instruction can reach the banks that early any more."""
        for table in (self.booked, self.full):
            for past in [c for c in table if c < cycle]:
                del table[past]


def _agree(moved: list[tuple[Pending, Booked]], passing: Passing, t: int) -> bool:
    """Whether the passing is, before cycle ``t``, where the bookings have it: every instruction's
    wavefronts passed so far and the last of them the same (which fixes what is ready and when)."""
    for p, b in moved:
        if b.cycles:
            k = bisect.bisect_left(b.cycles, t)
            if k != len(p.cycles) or k and b.cycles[k - 1] != p.cycles[-1]:
                return False
        elif (b.first < t) != (p not in passing.pending) or b.first < t and p.ready != b.first:  # without wavefronts: finished at ``first``
            return False
    return True
