"""``simulate``: run a trace's instructions through warps, sub-partitions and the data path."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

import numpy as np
import simpy

from ..banks import Counts
from ..config import ArchConfig, Timing
from ..trace import InstructionBatch
from .compiled import CompiledWarps
from .datapath import DataPath
from .entries import Entries
from .program import Program, program
from .subpartition import SubPartition
from .timeline import Timeline

#: Events processed between two calls of ``advance`` (progress bars).
STEP = 1 << 16


class Run:
    """One simulation: the simpy environment, the program, the parts of the path and what they record
    (``path``: the data path's class; ``warps``: the class of the sub-partitions' issue rule; compiled or as written)."""

    def __init__(self, prog: Program, timing: Timing, sub_partitions: int, path: Callable, log: list | None, warps: Callable = CompiledWarps) -> None:
        self.env = simpy.Environment()
        self.program = prog
        self.timing = timing
        self.log = log
        self.waiting = 0  # warps waiting for an instruction to complete or for an entry (Entries)
        self.after_pass = int(prog.latency.min(initial=timing.to_banks + 1)) - timing.to_banks  # cycles from a last wavefront to its completion, the fewest
        self.issue = np.full(len(prog), -1, dtype=np.int64)
        self.complete = np.full(len(prog), -1, dtype=np.int64)
        self.passed = np.zeros(len(prog), dtype=np.int64)  # wavefronts the data path passed, per instruction
        self.warp_done: dict[int, int] = {}  # warp -> the latest completion of its instructions served so far
        self.settled = np.full(len(prog), -1, dtype=np.int64)  # cycle by which the instruction and its warp's earlier ones completed
        names = ("warp", "sub_partition", "wavefronts", "phases", "latency")
        self.columns = SimpleNamespace(**{name: getattr(prog, name).tolist() for name in names})  # per instruction, for the hot loops
        self.in_flight = None if timing.in_flight is None else Entries(self, timing.in_flight.entries)  # the SM's loads in flight
        self.sub_partitions = [SubPartition(self, s, warps) for s in range(max(sub_partitions, int(prog.sub_partition.max(initial=-1)) + 1))]
        self.path = path(self)  # the data path, made for this run

    def record(self, name: str, cycle: int) -> None:
        """Add ``(name, cycle)`` to the log, if there is one."""
        if self.log is not None:
            self.log.append((name, int(cycle)))

    def start(self) -> None:
        """Give each sub-partition its warps and start its scheduler."""
        prog = self.program
        warps: list[list] = [[] for _ in self.sub_partitions]
        for instructions, slots in zip(prog.by_warp, prog.slots):  # by warp number: their places
            w = int(prog.warp[instructions[0]])
            warps[int(prog.sub_partition[instructions[0]])].append((slots, int(prog.start[w])))
        for sp, mine in zip(self.sub_partitions, warps):
            if (process := sp.start(mine)) is not None:
                sp.process = self.env.process(process)

    def run(self, advance: Callable[[int], None] | None) -> Timeline:
        self.start()
        issued, step = 0, self.env.step
        try:
            while True:
                for _ in range(STEP):
                    step()
                if advance is not None:
                    now_issued = int((self.issue >= 0).sum())
                    advance(now_issued - issued)
                    issued = now_issued
        except simpy.core.EmptySchedule:  # every event processed
            pass
        self.path.finish()
        if advance is not None:
            advance(len(self.program) - issued)
        if self.log is not None:
            self.log.sort(key=lambda entry: entry[1])
        return Timeline(self.issue, self.complete, self.passed)


def simulate(batch: InstructionBatch, counts: Counts, arch: ArchConfig, *, sub_partition: np.ndarray | None = None,
             start: np.ndarray | None = None, log: list | None = None, advance: Callable[[int], None] | None = None) -> Timeline:
    """Simulate one CTA of ``batch`` (counted by ``counts``) on ``arch``; ``log`` collects ``(name, cycle)``
    events, ``advance(n)`` hears of ``n`` more issued instructions now and then; ``sub_partition`` and
    ``start``: each warp's sub-partition and first cycle (``program``)."""
    prog = program(batch, counts, arch, sub_partition, start)
    return Run(prog, arch.timing, arch.sub_partitions, DataPath, log).run(advance)
