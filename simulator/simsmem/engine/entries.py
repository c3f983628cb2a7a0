"""Entries: a fixed number of places that issued instructions hold (a sub-partition's LSU queue, the SM's
loads in flight), one ``state.POOL`` record each, with its known releases and waiting warps.

A warp takes an entry before it issues; when none is free it waits. An instruction frees its entry a fixed
number of cycles after its last wavefront (the queue's the cycle after, the SM's once its data returned):
to the warp that has waited longest, handed over then, else back to the pool. Entries free in the order
the data path finishes their instructions, so a warp gets the same entry whether the data path told of it
before the warp looked or after. Freed entries are counted when a warp finds none left (``free_by``).
"""

from __future__ import annotations

from .jit import compiled


@compiled(inline=True)
def take(pool):  # pragma: no cover - compiled
    """Take a free entry (True), if one is."""
    if pool["free"]:
        pool["free"] -= 1
        return True
    return False


@compiled(inline=True)
def free_by(pool, releases, now):  # pragma: no cover - compiled
    """Count the entries released by ``now`` as free."""
    while pool["releases"] and releases[0] <= now:
        first_release(pool, releases)
        pool["free"] += 1


@compiled(inline=True)
def first_release(pool, releases):  # pragma: no cover - compiled
    """The earliest release known, taken out."""
    pool["releases"] -= 1
    return _pop(releases, pool["releases"] + 1)


@compiled(inline=True)
def wait(pool, waiters, row):  # pragma: no cover - compiled
    """The warp at ``row`` waits for an entry (after those waiting already)."""
    waiters[pool["waiters"]] = row
    pool["waiters"] += 1


@compiled
def release(pool, releases, waiters, cycle):  # pragma: no cover - compiled
    """An entry is freed at ``cycle``: the row of the warp waiting longest, handed it; else -1 (the release is
    kept, in order of cycles)."""
    if pool["waiters"]:
        pool["waiters"] -= 1
        return _pop(waiters, pool["waiters"] + 1)
    k = pool["releases"]
    while k > 0 and releases[k - 1] > cycle:
        releases[k] = releases[k - 1]
        k -= 1
    releases[k] = cycle
    pool["releases"] += 1
    return -1


@compiled(inline=True)
def _pop(values, n):  # pragma: no cover - compiled
    """The first of ``values[:n]``, taken out (the rest move up)."""
    first = values[0]
    for k in range(n - 1):
        values[k] = values[k + 1]
    return first
