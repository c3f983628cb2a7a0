"""A warp: issues its instructions in trace order.

Before instruction ``i`` the warp issues ``early[i]`` other instructions on its sub-partition's port;
then waits, if ``wait[i]`` is N (true: 0), until all its earlier instructions but the N latest
completed (like ``cp.async.wait_group N``: its instructions complete in order); then issues
``issue[i]`` other instructions, then stalls ``delay[i]`` cycles, then issues ``i`` on its
sub-partition (whose port, MIO throttle and queue may make it wait more). It may issue again
``issue_interval`` cycles after each instruction.
"""

from __future__ import annotations

from .cue import Cue


def warp(run, w: int, instructions):
    """The simpy process of warp ``w``, issuing ``instructions`` (indices into the program)."""
    program, env = run.program, run.env
    sp = run.sub_partitions[program.sub_partition[instructions[0]]]
    free = 0  # first cycle the warp may issue again
    order = sp.order(w)
    yield Cue(env, 0, order)  # start in the order of issue priority, not of process creation
    for k, i in enumerate(instructions):
        i = int(i)
        ready = free
        early = int(program.early[i])
        if early:
            ready = yield from _other_instructions(env, sp, w, early, ready)
        latest = int(program.wait[i])  # earlier instructions that may stay in flight
        if 0 <= latest < k:
            target = int(instructions[k - latest - 1])
            if run.complete[target] < 0:  # not yet served: wake when it completes
                yield sp.wait_for(target, w)
            ready = max(ready, int(run.settled[target]))
        others = int(program.issue[i])
        if others:
            ready = yield from _other_instructions(env, sp, w, others, ready)
        ready += int(program.delay[i])
        if ready > env.now:
            yield Cue(env, ready, order)
        handed = sp.take_room(w)
        if handed is not None:
            yield handed
        while (later := sp.blocked_until(w, env.now)) is not None:
            yield Cue(env, later, order)
        sp.issue(i, env.now)
        free = env.now + run.timing.issue_interval


def _other_instructions(env, sp, w: int, count: int, ready: int):
    """Warp ``w`` issues ``count`` other instructions on ``sp``'s port from cycle ``ready`` on (one slot
    each, as the port's priority hands them out); the cycle it may issue again."""
    order = sp.order(w)
    if ready > env.now:
        yield Cue(env, ready, order)
    sp.want_slots(w, count, env.now)
    while (done := sp.slots_done(w, env.now)) is not None:
        yield Cue(env, done, order)
    return env.now
