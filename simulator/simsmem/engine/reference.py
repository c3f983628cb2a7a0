"""The same model as written: the reference the compiled data path and issue rule are held to.

Each busy cycle is one simpy event that runs the data path's rule as written (``passing.Passing.pass_cycle``)
and tells the sub-partitions of the instructions it finished; each sub-partition (``subpartition.py``) is
a simpy process that issues its warps' slots by ``warp.Warps`` and takes LSU queue entries and places in
flight from ``entries.Entries``, all in Python. ``simulate`` runs the same model with its state in arrays
and each scheduler wake one compiled call (``sm.py``), passing the data path's cycles only when it
looks. One event and a Python pass per busy cycle make this slower, so ``simsmem`` runs the compiled one.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import simpy

from ..banks import Counts
from ..config import ArchConfig, Timing
from ..trace import InstructionBatch
from .cue import PASS, then
from .entries import Entries
from .passing import Passing, Pending
from .program import Program, program
from .simulate import event_log
from .subpartition import SubPartition
from .timeline import Timeline


class Run:
    """One simulation as written: the simpy environment, the program, the sub-partitions, the data path and
    what they record."""

    def __init__(self, prog: Program, timing: Timing, sub_partitions: int, log: bool) -> None:
        self.env = simpy.Environment()
        self.program = prog
        self.timing = timing
        self.waiting = 0  # warps waiting for an instruction to complete or for an entry (Entries)
        self.after_pass = int(prog.latency.min(initial=timing.to_banks + 1)) - timing.to_banks  # cycles from a last wavefront to its completion, the fewest
        self.issue = np.full(len(prog), -1, dtype=np.int64)
        self.complete = np.full(len(prog), -1, dtype=np.int64)
        self.passed = np.zeros(len(prog), dtype=np.int64)  # wavefronts the data path passed, per instruction
        self.starts = prog.wavefront_starts()
        self.cycles = np.zeros(int(prog.wavefronts.sum()), dtype=np.int64) if log else None  # each wavefront's cycle, for the log
        self.warp_done: dict[int, int] = {}  # warp -> the latest completion of its instructions served so far
        self.settled = np.full(len(prog), -1, dtype=np.int64)  # cycle by which the instruction and its warp's earlier ones completed
        names = ("warp", "sub_partition", "wavefronts", "phases", "latency")
        self.columns = SimpleNamespace(**{name: getattr(prog, name).tolist() for name in names})  # per instruction, for the hot loops
        self.in_flight = None if timing.in_flight is None else Entries(self, timing.in_flight.entries)  # the SM's loads in flight
        self.sub_partitions = [SubPartition(self, s) for s in range(max(sub_partitions, int(prog.sub_partition.max(initial=-1)) + 1))]
        self.path = WavefrontByWavefront(timing)

    def run(self) -> Timeline:
        """Give each sub-partition its warps, start its scheduler and run every event."""
        prog = self.program
        warps: list[list] = [[] for _ in self.sub_partitions]
        for instructions, slots in zip(prog.by_warp, prog.slots):  # by warp number: their places
            w = int(prog.warp[instructions[0]])
            warps[int(prog.sub_partition[instructions[0]])].append((slots, int(prog.start[w])))
        for sp, mine in zip(self.sub_partitions, warps):
            if (process := sp.start(mine)) is not None:
                sp.alarm.process = self.env.process(process)
        self.env.run()
        return Timeline(self.issue, self.complete, self.passed)


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
    run = Run(prog, arch.timing, arch.sub_partitions, log is not None)
    timeline = run.run()
    if log is not None:
        log.extend(event_log(prog, timeline, run.cycles))
    return timeline
