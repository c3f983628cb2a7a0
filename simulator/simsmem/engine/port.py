"""A sub-partition's issue port: one instruction per ``issue_interval`` cycles, and the rule that picks the warp.

Warps want slots for their runs of other instructions (a trace's ``early`` and ``issue``) and one for each
shared-memory instruction. The port does not step cycle by cycle: it keeps how many slots each warp still
wants and hands out the slots that started before a cycle when asked about it (``hand_out``), so that a
warp's run of N others costs a few events, not N. ``issue_priority`` picks the rule:

- ``youngest`` / ``oldest`` (``PriorityPort``): each slot to the wanting warp of highest priority, so a
  warp of higher priority runs as if alone and the others take the slots it leaves;
- ``round-robin`` (``RoundRobinPort``): each slot to the wanting warp after the one served last (by
  number, wrapping), so the wanting warps take turns.
"""

from __future__ import annotations


def turn(warp: int, last: int) -> int:
    """``warp``'s place in the turn that starts after warp ``last`` (by number, wrapping): the lower first."""
    return (warp - last - 1) % (1 << 32)


class Port:
    """The slots handed out so far (``free``: the first cycle not handed out) and those still wanted;
    ``sign``: of two warps, the one of lower ``sign * warp`` has the higher priority (and acts first
    within a cycle)."""

    def __init__(self, interval: int, sign: int = 1) -> None:
        self.interval = interval
        self.sign = sign
        self.free = 0  # first cycle a slot may start (those before it are handed out)
        self.wanting: dict[int, int] = {}  # warp -> slots it still wants for other instructions

    def join(self, warp: int) -> None:
        """Take ``warp`` in as it starts."""

    def want(self, warp: int, count: int) -> None:
        """``warp`` wants ``count`` more slots."""
        self.wanting[warp] = self.wanting.get(warp, 0) + count

    def idle(self, now: int) -> bool:
        """No slot is wanted or booked at ``now``."""
        return not self.wanting and self.free <= now

    def take(self, warp: int, now: int) -> None:
        """``warp`` issues a shared-memory instruction at ``now`` (a cycle ``end`` allowed)."""
        self.free = now + self.interval

    def hand_out(self, now: int) -> None:
        """Give the slots that started before ``now`` to the wanting warps, by the port's rule."""
        raise NotImplementedError

    def end(self, warp: int) -> int:
        """As things stand, the cycle after the last of the slots ``warp`` wants."""
        raise NotImplementedError

    def start(self, warp: int) -> int:
        """As things stand, the cycle a slot ``warp`` wanted now would start (for a shared-memory instruction)."""
        raise NotImplementedError

    def _serve(self, warp: int, k: int) -> None:
        self.free += k * self.interval
        self.wanting[warp] -= k
        if not self.wanting[warp]:
            del self.wanting[warp]


class PriorityPort(Port):
    """Each slot to the wanting warp of highest priority: ``sign * warp`` the lowest (-1: the youngest)."""

    def __init__(self, interval: int, sign: int) -> None:
        super().__init__(interval, sign)
        self.rank: dict[int, int] = {}  # warp -> its place (the lowest goes first)

    def join(self, warp: int) -> None:
        self.rank[warp] = self.sign * warp

    def hand_out(self, now: int) -> None:
        while self.wanting and self.free < now:
            w = min(self.wanting, key=self.rank.__getitem__)
            self._serve(w, min(self.wanting[w], -(-(now - self.free) // self.interval)))
        self.free = max(self.free, now)

    def end(self, warp: int) -> int:
        return self.start(warp) + self.wanting.get(warp, 0) * self.interval

    def start(self, warp: int) -> int:
        rank = self.rank
        mark = rank[warp]
        return self.free + sum(n for v, n in self.wanting.items() if rank[v] < mark) * self.interval


class RoundRobinPort(Port):
    """Each slot to the wanting warp after the one served last, by number (wrapping): the warps take turns."""

    def __init__(self, interval: int) -> None:
        super().__init__(interval)  # within a cycle the oldest acts first
        self.last = -1  # the warp served last

    def _after_last(self, warp: int) -> int:
        return turn(warp, self.last)

    def take(self, warp: int, now: int) -> None:
        super().take(warp, now)
        self.last = warp

    def hand_out(self, now: int) -> None:
        while self.wanting and self.free < now:
            turn = sorted(self.wanting, key=self._after_last)
            slots = -(-(now - self.free) // self.interval)
            rounds = min(min(self.wanting.values()), slots // len(turn))
            for w in turn[: len(turn) if rounds else slots]:  # whole rounds at once, else the start of one
                self._serve(w, rounds or 1)
            self.last = turn[-1] if rounds else turn[slots - 1]
        self.free = max(self.free, now)

    def end(self, warp: int) -> int:
        n = self.wanting.get(warp, 0)
        return self._slot(warp, n) + self.interval if n else self.free

    def start(self, warp: int) -> int:
        return self._slot(warp, self.wanting.get(warp, 0) + 1)

    def _slot(self, warp: int, n: int) -> int:
        """The start of ``warp``'s ``n``-th slot from now, the others wanting theirs: before it, every warp's
        first ``n - 1`` and the ``n``-th of those ahead of ``warp`` in the turn."""
        place = self._after_last(warp)
        before = sum(min(m, n - 1) + (m >= n and self._after_last(v) < place) for v, m in self.wanting.items() if v != warp)
        return self.free + (before + n - 1) * self.interval


def port(timing) -> Port:
    """The issue port of ``timing``'s ``issue_priority``."""
    if timing.issue_priority == "round-robin":
        return RoundRobinPort(timing.issue_interval)
    return PriorityPort(timing.issue_interval, -1 if timing.issue_priority == "youngest" else 1)
