"""One cycle of the data path: which of the pending instructions' wavefronts pass. Both data paths run it.

The issued instructions not yet finished are kept oldest (first issued) first. Each cycle the path looks
at the oldest of them whose phases add up to at most ``window_phases`` (the oldest always), takes those
that are the first unfinished instruction of their warp and whose next wavefront is ready (arrived at
the banks, one per ``feed_interval`` cycles of the warp), and passes up to ``wavefronts_per_cycle`` of
them: the oldest first, except that the oldest one not yet started **overtakes** the started ones (their
replays, further phases) when each of these reached the banks at most ``overtake.within`` cycles before
it and has at most ``overtake.wavefronts`` wavefronts (sm_90: 4 cycles, 2 wavefronts: one replay;
``overtake: null``: never). An instruction is finished when its last wavefront has passed, one without
wavefronts when it is its warp's first and ready (taking no cycle: its warp's next may pass in that one).

``reference.py`` runs ``pass_cycle`` once per busy cycle; ``datapath.py`` runs the same rule compiled, over a
table of the pending instructions (tests hold the two identical).
"""

from __future__ import annotations

from collections import defaultdict, deque

import attrs


@attrs.define(eq=False)
class Pending:
    """An issued instruction the data path has not finished."""

    sp: object  # its SubPartition
    i: int
    warp: int
    phases: int  # its weight in the window
    left: int  # wavefronts still to pass
    arrive: int  # cycle it reaches the banks
    cycles: list[int] = attrs.Factory(list)  # cycles its wavefronts passed
    ready: int = -1  # cycle its next wavefront may pass, once it is its warp's first (-1: not yet)


class Passing:
    """The pending instructions and the rule that passes one cycle's wavefronts."""

    def __init__(self, timing) -> None:
        self.per_cycle = timing.wavefronts_per_cycle
        self.window = timing.window_phases
        self.feed = timing.feed_interval
        self.overtake = timing.overtake
        self.new_first = timing.path_order == "new-first"
        self.last = -1  # the sub-partition served first last cycle (``new-first``)
        self.pending: list[Pending] = []  # oldest first
        self.warps: defaultdict[int, deque[Pending]] = defaultdict(deque)  # warp -> its pending, oldest first
        self.feed_free: dict[int, int] = {}  # warp -> first cycle its next instruction's first wavefront may pass

    def add(self, p: Pending) -> None:
        """Take ``p`` as the youngest pending instruction (its ``cycles``: wavefronts passed already)."""
        self.pending.append(p)
        queue = self.warps[p.warp]
        queue.append(p)
        if len(queue) == 1:
            self._first_of_warp(p)

    def _first_of_warp(self, p: Pending) -> None:
        p.ready = p.cycles[-1] + self.feed if p.cycles else max(p.arrive, self.feed_free.get(p.warp, 0))

    def pass_cycle(self, t: int) -> list[Pending]:
        """Pass cycle ``t``'s wavefronts; the instructions finished at ``t``, in the order they finished."""
        done = []
        while idle := [p for p in self.pending if p.left == 0 and 0 <= p.ready <= t]:  # without wavefronts: finished
            for p in idle:  # once first and ready, which may make its warp's next first and ready at once
                self._finish(p)
            done += idle
        ready, budget, seen = [], self.window, False  # budget: phases the window has left; seen: it holds one
        for p in self.pending:
            if p.left == 0:
                continue
            if seen and p.phases > budget:
                break
            seen, budget = True, budget - p.phases
            if 0 <= p.ready <= t:
                ready.append(p)
        for p in self._serve_first(ready)[: self.per_cycle]:
            p.cycles.append(t)
            p.left -= 1
            p.ready = t + self.feed
            if p.left == 0:
                self._finish(p)
                done.append(p)
        return done

    def _finish(self, p: Pending) -> None:
        self.pending.remove(p)
        queue = self.warps[p.warp]
        queue.popleft()
        if p.cycles:
            self.feed_free[p.warp] = p.cycles[-1] + self.feed
        if queue:
            self._first_of_warp(queue[0])

    def next_cycle(self, t: int) -> int | None:
        """The next cycle after ``t`` at which something may pass (None: nothing pending)."""
        later = [p.ready for p in self.pending if p.ready >= 0]
        return max(t + 1, min(later)) if later else None

    def _serve_first(self, ready: list[Pending]) -> list[Pending]:
        """The ready instructions of the window (oldest first) in the order the path serves them."""
        if self.new_first:
            if ready:
                sps = len(ready[0].sp.run.sub_partitions)
                ready = sorted(ready, key=lambda p: (1, 0) if p.cycles else (0, (p.sp.index - self.last - 1) % sps))
                self.last = ready[0].sp.index
            return ready
        if self.overtake is None or len(ready) < 2:
            return ready
        k = next((k for k, p in enumerate(ready) if not p.cycles), 0)  # the oldest not started (the older ones are)
        within, most = self.overtake.within, self.overtake.wavefronts
        if k and all(ready[k].arrive - p.arrive <= within and len(p.cycles) + p.left <= most for p in ready[:k]):
            return [ready[k], *ready[:k], *ready[k + 1:]]
        return ready
