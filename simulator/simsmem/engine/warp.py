"""A warp's issue slots and what holds the next one.

Slot ``s`` (``program.Slots``: the warp's other instructions one by one, then each shared-memory one) may
issue once the previous slot's stall has passed (``base``) and the instruction it waits for, with the
warp's earlier ones, completed (``run.settled``), plus its own delay: ``ready``. Until that completion is
known the warp is ``blocked``; so it is while it waits for an entry (``entries.py``) whose release is not
yet known.
"""

from __future__ import annotations


class Warp:
    """One warp of a sub-partition: its slots, the next one's place and when it may issue."""

    __slots__ = ("number", "slots", "pos", "base", "ready", "blocked", "queue", "flight")

    def __init__(self, number: int, slots) -> None:
        self.number = number
        self.slots = slots
        self.pos = 0  # its next slot
        self.base = 0  # the cycle its next slot may issue by the previous one's stall
        self.ready = 0  # the cycle its next slot may issue by its wait and delay too
        self.blocked = False  # waiting for a completion or an entry not yet known
        self.queue = False  # its next (shared-memory) slot holds an LSU queue entry
        self.flight = False  # ... and one of the SM's places in flight

    @property
    def done(self) -> bool:
        return self.pos == len(self.slots.inst)

    def after(self, base: int, run) -> int | None:
        """Its next slot (``pos``) may issue from ``base`` by the previous one's stall: set ``ready``; the
        instruction it waits for if that one's completion is not known yet (it is then ``blocked``)."""
        s = self.pos
        self.base = base
        target = self.slots.wait[s]
        if target >= 0 and run.complete[target] < 0:
            self.blocked = True
            return target
        self.ready = (max(base, int(run.settled[target])) if target >= 0 else base) + self.slots.delay[s]
        return None

    def served(self, run) -> None:
        """The instruction it waited for completed (``run.settled`` known)."""
        self.blocked = False
        self.after(self.base, run)
