"""The same model as written: the reference the compiled data path and issue rule are held to.

Each busy cycle is one simpy event that runs the data path's rule as written (``passing.Passing.pass_cycle``)
and tells the sub-partitions of the instructions it finished, and the sub-partitions issue their warps'
slots by ``warp.Warps`` in Python. Sub-partitions, queues and the scheduling process are the engine's own;
the engine runs the compiled data path (``datapath.DataPath``, passing cycles when it looks) and the
compiled issue rule (``compiled.CompiledWarps``). One event and a Python pass per busy cycle make this
slower, so ``simsmem`` runs the compiled parts.
"""

from __future__ import annotations

import numpy as np

from ..banks import Counts
from ..config import ArchConfig
from ..trace import InstructionBatch
from .cue import PASS, then
from .passing import Passing, Pending
from .program import program
from .simulate import Run
from .timeline import Timeline
from .warp import Warps


class WavefrontByWavefront:
    """The data path as one simpy event per busy cycle."""

    def __init__(self, timing) -> None:
        self.passing = Passing(timing)
        self.cued: set[int] = set()  # cycles with a pass already cued
        self.passed = -1  # last cycle passed

    def issue(self, sp, i: int, now: int, arrive: int) -> None:
        """Instruction ``i`` of ``sp`` issued at ``now`` (now the youngest), reaching the banks at ``arrive``."""
        c = sp.run.columns
        p = Pending(sp, i, c.warp[i], c.phases[i], c.wavefronts[i], arrive)
        self.passing.add(p)
        if p.ready >= 0:
            self._cue(sp.run.env, p.ready)

    def sync(self, now: int) -> None:
        """Nothing to do: each cycle's pass tells the sub-partitions of what it finished at once."""

    def told(self, now: int) -> int:
        """The last cycle whose finished instructions have been told: each cycle's pass comes after the
        warps' wake-ups of that cycle."""
        return now - 1

    def watch(self) -> None:
        """Nothing to do: a pass is cued for every cycle with a ready wavefront."""

    def finish(self) -> None:
        """Nothing to do: every cycle was passed."""

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
        for p in self.passing.pass_cycle(t):
            p.sp.served(p.i, p.cycles[-1] if p.cycles else p.ready, len(p.cycles), p.cycles)
        later = self.passing.next_cycle(t)
        if later is not None:
            self._cue(env, later)


def simulate_by_wavefront(batch: InstructionBatch, counts: Counts, arch: ArchConfig, *, sub_partition: np.ndarray | None = None,
                          start: np.ndarray | None = None, log: list | None = None) -> Timeline:
    """``engine.simulate`` as written: the data path passing one wavefront at a time, the sub-partitions'
    issue rule in Python (``warp.Warps``)."""
    prog = program(batch, counts, arch, sub_partition, start)
    return Run(prog, arch.timing, arch.sub_partitions, lambda run: WavefrontByWavefront(run.timing), log, Warps).run(None)
