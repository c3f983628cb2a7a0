"""``simulate``: run a trace's instructions through warps, sub-partitions and the data path (``sm.py``)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import simpy

from ..banks import Counts
from ..config import ArchConfig
from ..trace import InstructionBatch
from .program import Program, program
from .sm import SM
from .timeline import Timeline

#: Events processed between two calls of ``advance`` (progress bars).
STEP = 1 << 16


def simulate(batch: InstructionBatch, counts: Counts, arch: ArchConfig, *, sub_partition: np.ndarray | None = None,
             start: np.ndarray | None = None, log: list | None = None, advance: Callable[[int], None] | None = None) -> Timeline:
    """Simulate one CTA of ``batch`` (counted by ``counts``) on ``arch``; ``log`` collects ``(name, cycle)``
    events (``event_log``), ``advance(n)`` hears of ``n`` more issued instructions now and then;
    ``sub_partition`` and ``start``: each warp's sub-partition and first cycle (``program``)."""
    prog = program(batch, counts, arch, sub_partition, start)
    env = simpy.Environment()
    sm = SM(env, prog, arch.timing, arch.sub_partitions, log is not None)
    sm.start()
    told, step = 0, env.step
    try:
        while True:
            for _ in range(STEP):
                step()
            if advance is not None:
                issued = int((sm.issue >= 0).sum())
                advance(issued - told)
                told = issued
    except simpy.core.EmptySchedule:  # every event processed
        pass
    if advance is not None:
        advance(len(prog) - told)
    timeline = Timeline(*sm.finish())
    if log is not None:
        log.extend(event_log(prog, timeline, sm.cycles))
    return timeline


def event_log(prog: Program, timeline: Timeline, cycles: np.ndarray) -> list[tuple[str, int]]:
    """A run's events by cycle: ``warp W issues #I``, ``#I wavefront K/N`` and ``#I completes``, each with its
    cycle; ``cycles``: every wavefront's (``Program.wavefront_starts``). Within a cycle, in the order the engine
    takes them (``cue.py``): completions first (told before the schedulers wake), then issues,
    then the wavefronts passed."""
    entries = []
    starts = prog.wavefront_starts()
    for i in range(len(prog)):
        entries.append(((int(timeline.complete[i]), 0, i), f"#{i} completes"))
        entries.append(((int(timeline.issue[i]), 1, i), f"warp {prog.warp[i]} issues #{i}"))
        passed = int(timeline.wavefronts[i])
        entries += [((int(cycles[starts[i] + k]), 2, i), f"#{i} wavefront {k + 1}/{passed}") for k in range(passed)]
    return [(name, key[0]) for key, name in sorted(entries)]
