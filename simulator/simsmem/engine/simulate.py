"""``simulate``: run a trace's instructions through the SM (``sm.py``) as a simpy process.

The SM is one simpy process: it sleeps (a timeout) until the next cycle anything is due at (a scheduler's
wake, a telling), then runs that cycle's events, in their order, with one call of the rules (``sm.cycle``).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable
from types import SimpleNamespace

import numpy as np
import simpy

from ..banks import Counts
from ..config import ArchConfig
from ..progress import noting
from ..traces import InstructionBatch
from . import sm
from .jit import plain
from .path import NEVER
from .program import Program, program
from .state import layout, slot_bytes, views
from .timeline import Timeline

#: What a bar says while a process's first compiled run loads the rules (measured: docs/performance.md).
COMPILING = "loading the timing engine; numba compiles it on a machine's first run, about 30 s"
#: Events processed between two calls of ``advance`` (progress bars).
STEP = 1 << 16
#: How much work (instructions issued, the others included, and wavefronts) a process runs as plain Python before it
#: compiles the rules (numba compiles the engine once per machine, in tens of seconds, then loads it from its cache
#: in about half a second; plain Python does about this much in a second): a small trace runs at once, and a process
#: that simulates much pays once.
PLAIN_WORK = 20_000
_plain_work = [0]  # the work this process has run as plain Python


def simulate(batch: InstructionBatch, counts: Counts, arch: ArchConfig, *, sub_partition: np.ndarray | None = None,
             start: np.ndarray | None = None, log: list | None = None, advance: Callable[[int], None] | None = None,
             compiled: bool | None = None) -> Timeline:
    """Simulate one CTA of ``batch`` (counted by ``counts``) on ``arch``; ``log`` collects ``(name, cycle)``
    events (``event_log``), ``advance(n)`` hears of ``n`` more issued instructions now and then;
    ``sub_partition`` and ``start``: each warp's sub-partition and first cycle (``program``); ``compiled``: run
    the compiled rules (True), or the same as plain Python (False; None: plain until the process has run
    ``PLAIN_WORK``)."""
    with _without_collector():
        prog = program(batch, counts, arch, sub_partition, start)
        if compiled is None:
            compiled = _compile(int(prog.slots["count"].sum()) + int(prog.wavefronts.sum()))
        rules = rules_of(compiled)
        buffer = layout(prog, arch.timing, arch.sub_partitions, log is not None)
        slots = slot_bytes(prog.slots)
        st = plain(views)(buffer, slots)
        env = simpy.Environment()
        env.process(_sm(env, rules, buffer, slots))
        issue = st.inst["issue"]
        told, step = 0, env.step
        try:
            with contextlib.nullcontext() if not compiled or sm.cycle.signatures else noting(COMPILING):
                step(), step()  # the SM process's start and first cycle: their first calls load (or compile) the rules
            while True:
                for _ in range(STEP):
                    step()
                if advance is not None:
                    issued = int((issue >= 0).sum())
                    advance(issued - told)
                    told = issued
        except simpy.core.EmptySchedule:  # every event processed
            pass
        if advance is not None:
            advance(len(prog) - told)
        rules.finish(buffer, slots)
        timeline = Timeline(issue.copy(), st.inst["complete"].copy(), st.inst["passed"].copy())
    if log is not None:
        log.extend(event_log(prog, timeline, st.cycles))
    return timeline


def _sm(env: simpy.Environment, rules, buffer: np.ndarray, slots: np.ndarray):
    """The SM's process: each cycle anything is due at, that cycle's events."""
    timeout, cycle = env.timeout, rules.cycle
    due = int(rules.begin(buffer, slots))
    while due != NEVER:
        yield timeout(due - env.now)
        due = int(cycle(buffer, slots, due))


@contextlib.contextmanager
def _without_collector():
    """Python's cyclic garbage collector off meanwhile: a run makes much garbage (simpy's events, the program's
    arrays), none of it in cycles, and the collector would walk every object (numba's too) now and then."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _compile(work: int) -> bool:
    """Whether to run ``work`` compiled: once plain Python would have run more than ``PLAIN_WORK`` in this process."""
    if _plain_work[0] + work > PLAIN_WORK:
        return True
    _plain_work[0] += work
    return False


def rules_of(compiled: bool) -> SimpleNamespace:
    """The entry points of ``sm.py``: compiled, or as plain Python."""
    entries = {name: getattr(sm, name) for name in ("begin", "cycle", "finish")}
    return SimpleNamespace(**{name: f.dispatcher if compiled else plain(f) for name, f in entries.items()})


def event_log(prog: Program, timeline: Timeline, cycles: np.ndarray) -> list[tuple[str, int]]:
    """A run's events by cycle: ``warp W issues #I``, ``#I wavefront K/N`` and ``#I completes``, each with its
    cycle; ``cycles``: every wavefront's (``Program.wavefront_starts``). Within a cycle, in the order the engine
    takes them (``sm.cycle``): completions first (told before the schedulers wake), then issues, then the
    wavefronts passed."""
    entries = []
    starts = prog.wavefront_starts()
    for i in range(len(prog)):
        entries.append(((int(timeline.complete[i]), 0, i), f"#{i} completes"))
        entries.append(((int(timeline.issue[i]), 1, i), f"warp {prog.warp[i]} issues #{i}"))
        passed = int(timeline.wavefronts[i])
        entries += [((int(cycles[starts[i] + k]), 2, i), f"#{i} wavefront {k + 1}/{passed}") for k in range(passed)]
    return [(name, key[0]) for key, name in sorted(entries)]
