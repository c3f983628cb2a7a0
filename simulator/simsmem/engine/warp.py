"""A warp: issues its instructions in trace order.

Before instruction ``i`` the warp waits, if ``wait[i]``, until all its earlier instructions completed,
then spends ``delay[i]`` cycles on other instructions, then issues on its sub-partition (whose port and
queue may make it wait more). It may issue again ``issue_interval`` cycles later.
"""

from __future__ import annotations

from .cue import WARP, Cue


def warp(run, w: int, instructions):
    """The simpy process of warp ``w``, issuing ``instructions`` (indices into the program)."""
    program, env = run.program, run.env
    sp = run.sub_partitions[program.sub_partition[instructions[0]]]
    free = 0  # first cycle the warp may issue again
    last = None  # the warp's latest issued instruction
    for i in instructions:
        i = int(i)
        ready = free
        if program.wait[i] and last is not None:
            if run.complete[last] < 0:  # not yet served: wake when it completes
                yield sp.wait_for(last, w)
            ready = max(ready, run.warp_done[w])
        ready += int(program.delay[i])
        yield Cue(env, max(ready, env.now), WARP + w)
        handed = sp.take_room(w)
        if handed is not None:
            yield handed
        free = sp.issue(i, env.now) + run.timing.issue_interval
        last = i
