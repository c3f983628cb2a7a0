"""Events at a chosen cycle, in a fixed order among the events of that cycle.

Results must not depend on the order in which events happened to be created (the compiled data path and
the wavefront-by-wavefront one create them at different times), so every event the engine schedules
names its place within its cycle: the data path tells of finished instructions first (completions,
freed queue entries), then the sub-partitions' schedulers act in the order of their index
(``SubPartition.order``; instructions issued in one cycle are older in that order), then (wavefront by
wavefront) the data path passes the cycle's wavefronts.
"""

from __future__ import annotations

import simpy

TELL = 0  # the data path tells its sub-partitions of finished instructions (completions, freed entries)
WARP = 1  # + the sub-partition's index: its scheduler wakes (SubPartition.order)
PASS = 1 << 41  # the data path passes this cycle's wavefronts (wavefront by wavefront only)


class Cue(simpy.Event):
    """An event that fires at ``cycle``, ordered by ``order`` among that cycle's events.

    Scheduled like ``simpy.Timeout`` (an event that succeeds at a later time), with an order in
    place of simpy's NORMAL priority; ``fire`` schedules a cue made without a cycle.
    """

    def __init__(self, env: simpy.Environment, cycle: int | None = None, order: int = WARP) -> None:
        self.env = env
        self.callbacks = []
        if cycle is not None:
            self.fire(cycle, order)

    def fire(self, cycle: int, order: int) -> None:
        """Succeed at ``cycle`` (not before now), in place ``order`` within it.

        The cycle is made a Python int: a numpy one (read from the engine's arrays) would make the
        clock, and all arithmetic on it, numpy scalars, several times slower."""
        self._ok = True
        self._value = None
        delay = int(cycle) - self.env.now
        self.env.schedule(self, order, delay if delay > 0 else 0)


def then(env: simpy.Environment, cycle: int, order: int, action) -> None:
    """Call ``action()`` at ``cycle``, in place ``order`` within it."""
    Cue(env, cycle, order).callbacks.append(lambda _event: action())


class Alarm:
    """What a scheduler process sleeps on: a cue for the cycle it may issue at next, or for when a warp is
    woken (``nudge``)."""

    def __init__(self, env: simpy.Environment, order: int) -> None:
        self.env = env
        self.order = order  # its place within a cycle
        self.process: simpy.Process | None = None  # the process that sleeps on it (set once started)
        self.cue: Cue | None = None  # the cue it sleeps on; None while it runs
        self.at: int | None = None  # the cycle that cue is for (None: until nudged)

    def sleep(self, wake: int | None) -> Cue:
        """The cue to sleep on: cued for ``wake`` (None: until nudged)."""
        self.cue = cue = Cue(self.env, wake, self.order)
        self.at = wake
        return cue

    def woke(self) -> None:
        """The process runs again."""
        self.cue = None

    def nudge(self, cycle: int) -> None:
        """Wake the process at ``cycle`` if it sleeps until later: a cue for then takes over the sleeping
        process from the one cued later (which then fires to no one)."""
        cue = self.cue
        if cue is None or (self.at is not None and self.at <= cycle):
            return
        self.at = cycle
        if getattr(cue, "_ok", False):  # cued already: hand its process over
            self.cue = earlier = Cue(self.env, cycle, self.order)
            earlier.callbacks, cue.callbacks = cue.callbacks, []
            self.process._target = earlier
        else:
            cue.fire(cycle, self.order)
