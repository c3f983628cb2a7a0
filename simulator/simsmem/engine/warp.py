"""A warp: issues its instructions in trace order.

Before instruction ``i`` the warp issues ``early[i]`` other instructions on its sub-partition's port
(``early_alu[i]`` of them also on its integer-ALU pipe, booked from when they start);
then waits, if ``wait[i]`` is N (true: 0), until all its earlier instructions but the N latest
completed (like ``cp.async.wait_group N``: its instructions complete in order); then issues
``issue[i]`` other instructions (``issue_alu[i]`` on the ALU pipe), then stalls ``delay[i]`` cycles
(and until its ALU instructions have issued), then takes an entry of its sub-partition's LSU queue and
a place among the SM's loads in flight (waiting while none is free), then issues ``i`` on its
sub-partition (whose port and MIO throttle may make it wait more). It may issue again
``issue_interval`` cycles after each instruction.
"""

from __future__ import annotations

from .cue import Cue


def warp(run, w: int, instructions):
    """The simpy process of warp ``w``, issuing ``instructions`` (indices into the program)."""
    env = run.env
    c = run.columns  # the program's columns as Python lists (a numpy read per field and instruction is slow)
    sp = run.sub_partitions[c.sub_partition[instructions[0]]]
    free = 0  # first cycle the warp may issue again
    order = sp.join(w)
    in_flight = run.in_flight
    yield Cue(env, 0, order)  # start in the order of issue priority, not of process creation
    for k, i in enumerate(instructions.tolist()):
        ready = free
        if early := c.early[i]:
            alu = sp.book_alu(max(ready, env.now), c.early_alu[i]) if c.early_alu[i] else 0
            if ready > env.now and ready > sp.port.free:  # slots before ``ready`` may go to other warps
                yield Cue(env, ready, order)
            # the port's slots, as its priority hands them out (asked for ahead when the port is booked
            # until ``ready`` anyway: the same slots, one wake-up fewer); written out here and for ``issue``
            # below, since a helper generator (``yield from``) costs the engine 3% (benchmarks/bench_engine.py)
            done = sp.want_slots(w, early, max(ready, env.now))
            while done is not None:
                yield Cue(env, done, order)
                done = sp.slots_done(w, env.now)
            ready = max(env.now, alu)
        latest = c.wait[i]  # earlier instructions that may stay in flight
        if 0 <= latest < k:
            target = int(instructions[k - latest - 1])
            if (cue := sp.wait_for(target, w)) is not None:  # not yet served: wake when it completes
                yield cue
            ready = max(ready, int(run.settled[target]))
        if alu := c.issue_alu[i]:
            start = sp.stretches[w] = max(ready, env.now)
        if others := c.issue[i]:
            if ready > env.now and ready > sp.port.free:  # slots before ``ready`` may go to other warps
                yield Cue(env, ready, order)
            done = sp.want_slots(w, others, max(ready, env.now))
            while done is not None:
                yield Cue(env, done, order)
                done = sp.slots_done(w, env.now)
            ready = env.now
        ready += c.delay[i]
        if alu:  # booked once the stretch is over, in the pipe's cycles from its start on
            ready = max(ready, sp.book_alu(start, alu))
            del sp.stretches[w]
        if ready > env.now:
            yield Cue(env, ready, order)
        if (handed := sp.queue.take(order)) is not None:  # an entry of its LSU queue
            yield handed
        if in_flight is not None and (handed := in_flight.take(order)) is not None:  # a place among the SM's loads in flight
            yield handed
        while (later := sp.blocked_until(w, env.now)) is not None:
            yield Cue(env, later, order)
        sp.issue(i, env.now)
        free = env.now + run.timing.issue_interval

