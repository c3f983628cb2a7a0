"""A sub-partition's issue port: the order it looks at its warps in, each cycle (``issue_priority``).

The port gives each cycle's slot to the first warp in this order whose next instruction may issue:

- ``youngest``: the highest-numbered first, every cycle;
- ``oldest``: the lowest-numbered first, every cycle;
- ``round-robin``: the warps after the one served last (by number, wrapping), so that the ready ones take
  turns;
- ``greedy``: the warp served last first (it keeps the port while it is ready), then the oldest (greedy
  then oldest).
"""

from __future__ import annotations

#: ``issue_priority`` -> its code (the compiled scheduler's ``RULE``).
RULES = {"round-robin": 0, "youngest": 1, "oldest": 2, "greedy": 3}


def looks(rule: int, warps: int, last: int) -> range | list[int]:
    """The places (0 .. ``warps`` - 1, the warps by number) in the order the port looks at them; ``last``:
    the place served last (-1: none)."""
    if rule == RULES["youngest"]:
        return range(warps - 1, -1, -1)
    if rule == RULES["oldest"]:
        return range(warps)
    if rule == RULES["greedy"]:
        last = max(last, 0)
        return [last, *(place for place in range(warps) if place != last)]
    return [(last + 1 + k) % warps for k in range(warps)]
