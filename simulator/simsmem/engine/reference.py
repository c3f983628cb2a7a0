"""The same model passing wavefronts one cycle at a time: the reference the booking data path is held to.

The data path keeps the issued instructions that have not finished in the order they issued. Each
cycle it looks at the oldest of them whose phases add up to at most ``window_phases`` (the oldest
always), takes those that are the first unfinished instruction of their warp and whose next
wavefront is ready (arrived at the banks, one per ``feed_interval`` cycles of the warp), and passes up
to ``wavefronts_per_cycle`` of them, oldest first. An instruction is served when its last wavefront
has passed (one without wavefronts when it is its warp's first and ready). Warps, sub-partitions and
queues are the engine's own; only the data path differs from ``datapath.DataPath``, which books an
instruction's cycles when it issues. One event per busy cycle makes this several times slower, so
``simsmem`` runs the booking path.
"""

from __future__ import annotations

from collections import defaultdict, deque

import attrs
import numpy as np

from ..banks import Counts
from ..config import ArchConfig
from ..trace import InstructionBatch
from .cue import PASS, then
from .program import program
from .simulate import Run
from .timeline import Timeline


@attrs.define
class Pending:
    """An issued instruction the data path has not finished."""

    sp: object  # its SubPartition
    i: int
    left: int  # wavefronts still to pass
    arrive: int  # cycle it reaches the banks
    cycles: list[int] = attrs.Factory(list)
    ready: int = -1  # cycle its next wavefront may pass, once it is its warp's first (-1: not yet)


class WavefrontByWavefront:
    """The data path as one simpy event per busy cycle."""

    def __init__(self, timing) -> None:
        self.per_cycle = timing.wavefronts_per_cycle
        self.window = timing.window_phases
        self.pending: list[Pending] = []  # issued, not finished, oldest first
        self.warps: defaultdict[int, deque[Pending]] = defaultdict(deque)  # warp -> its pending, oldest first
        self.cued: set[int] = set()  # cycles with a pass already cued
        self.passed = -1  # last cycle passed

    def issue(self, sp, i: int, now: int, arrive: int) -> None:
        """Instruction ``i`` of ``sp`` issued at ``now`` (now the youngest), reaching the banks at ``arrive``."""
        c = sp.run.columns
        p = Pending(sp, i, c.wavefronts[i], arrive)
        self.pending.append(p)
        queue = self.warps[c.warp[i]]
        queue.append(p)
        if len(queue) == 1:
            self._first_of_warp(p)

    def _first_of_warp(self, p: Pending) -> None:
        """``p`` is now the first unfinished instruction of its warp."""
        p.ready = max(p.arrive, p.sp.feed_free.get(p.sp.run.columns.warp[p.i], 0))
        self._cue(p.sp.run.env, p.ready)

    def _cue(self, env, cycle: int) -> None:
        cycle = max(cycle, env.now)
        if cycle not in self.cued:
            self.cued.add(cycle)
            then(env, cycle, PASS, lambda: self._pass(env))

    def _pass(self, env) -> None:
        t = env.now
        self.cued.discard(t)
        if t <= self.passed:
            return
        self.passed = t
        done = [p for p in self.pending if p.left == 0 and 0 <= p.ready <= t]  # no wavefronts: served when first and ready
        budget, window = self.window, []
        for p in self.pending:
            if p.left == 0:
                continue
            phases = p.sp.run.columns.phases[p.i]
            if window and phases > budget:
                break
            window.append(p)
            budget -= phases
        for p in self._serve_first([p for p in window if 0 <= p.ready <= t])[: self.per_cycle]:
            p.cycles.append(t)
            p.left -= 1
            p.ready = t + p.sp.timing.feed_interval
            if p.left == 0:
                done.append(p)
        for p in done:
            self._finish(p)
        later = [p.ready for p in self.pending if p.ready >= 0]
        if later:
            self._cue(env, max(t + 1, min(later)))

    def _serve_first(self, ready: list[Pending]) -> list[Pending]:
        """The ready instructions of the window in the order the path serves them: oldest first (a subclass
        may try another order: calibration/try_orders.py)."""
        return ready

    def _finish(self, p: Pending) -> None:
        self.pending.remove(p)
        queue = self.warps[p.sp.run.columns.warp[p.i]]
        queue.popleft()
        p.sp.served(p.i, p.ready if not p.cycles else p.cycles[0], p.cycles)
        if queue:
            self._first_of_warp(queue[0])


def simulate_by_wavefront(batch: InstructionBatch, counts: Counts, arch: ArchConfig, *, sub_partition: np.ndarray | None = None,
                          log: list | None = None, path: type[WavefrontByWavefront] = WavefrontByWavefront) -> Timeline:
    """``engine.simulate`` with the data path passing one wavefront at a time (``path``: this one, or a
    subclass serving in another order)."""
    prog = program(batch, counts, arch, sub_partition)
    return Run(prog, arch.timing, arch.sub_partitions, path(arch.timing), log).run(None)
