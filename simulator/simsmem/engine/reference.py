"""The same model passing wavefronts one cycle at a time: the reference the booking data path is held to.

Each cycle the data path looks at the front instruction of every warp whose next wavefront is ready
(one per ``feed_interval`` cycles of the warp) and passes up to ``wavefronts_per_cycle`` of them, the
front that has waited longest first (ties: lower warp).
An instruction is served when its last wavefront has passed. Warps, sub-partitions and queues are the
engine's own; only the data path differs from ``datapath.DataPath``, which books each front's cycles at
once. One event per busy cycle makes this several times slower, so ``simsmem`` runs the booking path.
"""

from __future__ import annotations

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
class Front:
    """A queue's front instruction, part way through the data path."""

    first: int  # cycle it reached the front
    sp: object  # its SubPartition
    warp: int
    i: int
    left: int  # wavefronts still to pass
    ready: int  # cycle its next wavefront may pass
    cycles: list[int] = attrs.Factory(list)


class WavefrontByWavefront:
    """The data path as one simpy event per busy cycle."""

    def __init__(self, per_cycle: int) -> None:
        self.per_cycle = per_cycle
        self.fronts: dict[int, Front] = {}  # warp -> its front
        self.cued: set[int] = set()  # cycles with a pass already cued
        self.passed = -1  # last cycle passed

    def serve(self, sp, i: int, first: int) -> None:
        """Instruction ``i`` of ``sp`` is at the front from cycle ``first`` (now)."""
        count = int(sp.run.program.wavefronts[i])
        if count == 0:
            sp.served(i, first, [])
            return
        w = int(sp.run.program.warp[i])
        self.fronts[w] = Front(first, sp, w, i, count, first)
        self._cue(sp.run.env, first)

    def _cue(self, env, cycle: int) -> None:
        if cycle not in self.cued:
            self.cued.add(cycle)
            then(env, cycle, PASS, lambda: self._pass(env))

    def _pass(self, env) -> None:
        t = env.now
        self.cued.discard(t)
        if t <= self.passed:
            return
        self.passed = t
        ready = sorted((f for f in self.fronts.values() if f.ready <= t), key=lambda f: (f.first, f.warp))
        for f in ready[: self.per_cycle]:
            f.cycles.append(t)
            f.left -= 1
            f.ready = t + f.sp.timing.feed_interval
            if f.left == 0:
                del self.fronts[f.warp]
                f.sp.served(f.i, f.first, f.cycles)
        if self.fronts:
            self._cue(env, max(t + 1, min(f.ready for f in self.fronts.values())))


def simulate_by_wavefront(batch: InstructionBatch, counts: Counts, arch: ArchConfig, *, sub_partition: np.ndarray | None = None,
                          log: list | None = None) -> Timeline:
    """``engine.simulate`` with the data path passing one wavefront at a time."""
    prog = program(batch, counts, arch, sub_partition)
    return Run(prog, arch.timing, arch.sub_partitions, WavefrontByWavefront(arch.timing.wavefronts_per_cycle), log).run(None)
