"""A run's state: named tables (numpy record arrays) laid out in one byte buffer, and the program's slots.

The compiled rules take the buffer and the slots' bytes (``slot_bytes``; few arguments: numba's cost of a call grows
with them) and ``views`` them as a ``State`` of tables, each field by name::

    sm       the SM's numbers: the timing, warps waiting, the scheduler running, the telling cued
    sps      each sub-partition's scheduler: the port, its MIO throttle, its LSU, its warps' rows, its alarm
    pipes    each sub-partition's pipes (sub-partition-major), then one always free (index -1: an instruction
             on none): when each may issue again
    warps    each warp (a row; a sub-partition's are together, by number): its next slot and when it may issue
    slots    every warp's issue slots (``Program.slots``, not copied), a warp's together
    inst     each instruction: its issue, completion, wavefronts passed, and what the rules look up
    pools    the LSU queue of each sub-partition and (last) the SM's places in flight
    releases, waiters   each pool's known releases (cycles, earliest first) and waiting warps (rows, in order)
    path, spec          the data path (``path.Path``), and scratch for its look ahead
    cycles   each wavefront's cycle (for the event log; one entry when not logged)
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..config import Timing
from .jit import compiled, plain, table
from .path import FEED, NUMBERS, ROW, Path, empty
from .port import RULES
from .program import SLOT, Program

NONE = -1  # no cycle, no warp
INT = np.dtype(np.int64)


def _record(*names: str) -> np.dtype:
    return np.dtype([(name, np.int64) for name in names])


SM = _record(
    "to_banks", "after_pass", "accept_interval", "issue_interval", "shared_interval", "rule", "pipes", "flight", "flight_after",
    "waiting",  # warps waiting for an instruction's completion or an entry (a telling is cued while any do)
    "running",  # the sub-partition whose scheduler runs (NONE: none)
    "tell_at",  # the cycle a telling is cued for (NONE: none)
)
SP = _record(
    "last",  # the place (among its warps) of the warp served last; -1: none
    "shared_free",  # the first cycle it may issue a shared-memory instruction (MIO throttle)
    "c",  # the first cycle not yet decided
    "accept_free",  # the first cycle its LSU may accept the next instruction
    "waiting_entry",  # its warps waiting for an entry whose release is not yet known
    "flying",  # its instructions issued and not yet told complete
    "lo", "hi",  # its warps' rows
    "live",  # its warps with slots left
    "alarm",  # the cycle its scheduler wakes at; NEVER: when a warp of its is woken; DONE: never
)
PIPE = _record("free", "gap")
WARP = _record(
    "sp", "pos", "end",  # its sub-partition; its next slot and the end of its slots
    "k",  # how many of that slot's run have issued
    "pipe", "shared",  # its next instruction's pipe (-1: none), and whether it is a shared-memory one
    "base",  # the cycle its next slot may issue by the previous one's stall
    "ready",  # ... by its wait and delay too
    "blocked",  # it waits for a completion or an entry not yet known
    "waits",  # the instruction it waits for; -1: none
    "held_queue", "held_flight",  # it holds a queue entry / a place in flight for its next instruction
    "done_at",  # the latest completion of its instructions told so far
)
INST = _record(
    "issue", "complete",  # cycles; -1 until known
    "settled",  # the cycle by which it and its warp's earlier instructions completed
    "passed",  # wavefronts the data path passed
    "row", "sp", "latency",  # its warp's row, its sub-partition, its form's latency
    "phases", "wavefronts", "start",  # what the data path takes: its window weight, wavefronts, first in ``cycles`` (-1: not logged)
)
POOL = _record("free", "releases", "waiters")

State = namedtuple("State", "sm sps pipes warps slots inst pools releases waiters path spec cycles")

_TABLES = ("sm", "sps", "pipes", "warps", "inst", "pools", "releases", "waiters", "path", "rows", "feeds", "done",
           "order", "spec_path", "spec_rows", "spec_feeds", "spec_done", "spec_order", "cycles")
#: Where each table starts in the buffer and how many entries it has (the buffer's first record).
LAYOUT = np.dtype([(f"{name}_{what}", np.int64) for name in _TABLES for what in ("at", "n")])
HEAD = LAYOUT.itemsize
SLOT_BYTES = SLOT.itemsize


def slot_bytes(slots: np.ndarray) -> np.ndarray:
    """``Program.slots`` as the bytes the rules take (not copied): numba's dispatcher types an array of records in
    Python at every call (0.09 us of each, measured), one of bytes at once."""
    return slots.view(np.uint8)


def layout(prog: Program, timing: Timing, sub_partitions: int, log: bool) -> np.ndarray:
    """The buffer of ``prog`` run on ``sub_partitions`` sub-partitions by ``timing``, at cycle 0 (``log``: keeping
    each wavefront's cycle); ``rules.begin`` then sets when each warp's first slot may issue."""
    t = timing
    sps = max(sub_partitions, int(prog.sub_partition.max(initial=-1)) + 1)
    mine = sorted(range(len(prog.by_warp)), key=lambda k: (int(prog.sub_partition[prog.by_warp[k][0]]), k))  # rows: by sub-partition, then number
    counts = np.bincount([int(prog.sub_partition[prog.by_warp[k][0]]) for k in mine], minlength=sps)
    ends = np.cumsum(prog.slot_counts)  # each warp's slots in ``prog.slots`` (``by_warp``'s order)
    lengths = prog.slot_counts[mine]
    n, pools, capacity = len(prog), sps + 1, t.queue_depth * sps
    sizes = {"sm": (SM, 1), "sps": (SP, sps), "pipes": (PIPE, sps * (len(t.pipes) + 1)), "warps": (WARP, len(mine)),
             "inst": (INST, n), "pools": (POOL, pools), "releases": (np.int64, pools * max(t.queue_depth, t.in_flight.entries if t.in_flight else 0)),
             "waiters": (np.int64, pools * max(len(mine), 1)), "path": (NUMBERS, 1), "rows": (ROW, 2 * capacity), "feeds": (FEED, len(mine)),
             "done": (np.int64, 3 * capacity), "order": (np.int64, capacity), "spec_path": (NUMBERS, 1), "spec_rows": (ROW, 2 * capacity),
             "spec_feeds": (FEED, len(mine)), "spec_done": (np.int64, 3 * capacity), "spec_order": (np.int64, capacity),
             "cycles": (np.int64, max(int(prog.wavefronts.sum()), 1) if log else 1)}
    head = np.zeros(1, dtype=LAYOUT)
    at = HEAD
    for name in _TABLES:
        dtype, count = sizes[name]
        head[0][f"{name}_at"], head[0][f"{name}_n"] = at, count
        at += np.dtype(dtype).itemsize * count
    buffer = np.zeros(at, dtype=np.uint8)
    buffer[:HEAD] = head.view(np.uint8)
    st = plain(views)(buffer, slot_bytes(prog.slots))

    sm = st.sm[0]
    sm["to_banks"], sm["accept_interval"], sm["issue_interval"], sm["shared_interval"] = t.to_banks, t.accept_interval, t.issue_interval, t.shared_issue_interval
    sm["after_pass"] = int(prog.latency.min(initial=t.to_banks + 1)) - t.to_banks  # the fewest cycles from a last wavefront to its completion
    sm["rule"], sm["pipes"], sm["flight"], sm["flight_after"] = RULES[t.issue_priority], len(t.pipes) + 1, t.in_flight is not None, t.in_flight.after if t.in_flight else 0
    sm["running"] = sm["tell_at"] = NONE
    sp = st.sps
    sp["hi"] = np.cumsum(counts)
    sp["lo"] = sp["hi"] - counts
    sp["last"] = -1
    sp["live"] = np.bincount([int(prog.sub_partition[prog.by_warp[k][0]]) for k in mine], weights=lengths > 0, minlength=sps).astype(np.int64)
    st.pipes["gap"] = np.tile([*t.pipes.values(), 0], sps)
    warps = st.warps
    warps["sp"] = np.repeat(np.arange(sps), counts)
    warps["end"] = ends[mine]
    warps["pos"] = warps["end"] - lengths
    warps["base"] = [int(prog.start[prog.warp[prog.by_warp[k][0]]]) for k in mine]
    warps["waits"] = -1
    inst = st.inst
    inst["issue"] = inst["complete"] = inst["settled"] = -1
    for r, k in enumerate(mine):
        inst["row"][prog.by_warp[k]] = r
    inst["sp"], inst["latency"], inst["phases"], inst["wavefronts"] = prog.sub_partition, prog.latency, prog.phases, prog.wavefronts
    inst["start"] = prog.wavefront_starts() if log else -1
    st.pools["free"] = [t.queue_depth] * sps + [t.in_flight.entries if t.in_flight else 0]
    st.path.numbers[:] = empty(t, sps, capacity)
    return buffer


@compiled(inline=True)
def views(buffer, slots):  # pragma: no cover - compiled
    """The buffer's tables and the slots (``slot_bytes``) as a ``State`` (inlined: returned from a call, the ``State`` cost a third of
    a cycle's time, measured)."""
    h = table(buffer, 0, 1, LAYOUT)[0]
    pools = h["pools_n"]
    return State(
        table(buffer, h["sm_at"], 1, SM), table(buffer, h["sps_at"], h["sps_n"], SP), table(buffer, h["pipes_at"], h["pipes_n"], PIPE),
        table(buffer, h["warps_at"], h["warps_n"], WARP), table(slots, 0, len(slots) // SLOT_BYTES, SLOT),
        table(buffer, h["inst_at"], h["inst_n"], INST), table(buffer, h["pools_at"], pools, POOL),
        table(buffer, h["releases_at"], (pools, h["releases_n"] // pools), INT), table(buffer, h["waiters_at"], (pools, h["waiters_n"] // pools), INT),
        Path(table(buffer, h["path_at"], 1, NUMBERS), table(buffer, h["rows_at"], h["rows_n"], ROW), table(buffer, h["feeds_at"], h["feeds_n"], FEED),
             table(buffer, h["done_at"], (h["done_n"] // 3, 3), INT), table(buffer, h["order_at"], h["order_n"], INT)),
        Path(table(buffer, h["spec_path_at"], 1, NUMBERS), table(buffer, h["spec_rows_at"], h["spec_rows_n"], ROW),
             table(buffer, h["spec_feeds_at"], h["spec_feeds_n"], FEED), table(buffer, h["spec_done_at"], (h["spec_done_n"] // 3, 3), INT),
             table(buffer, h["spec_order_at"], h["spec_order_n"], INT)),
        table(buffer, h["cycles_at"], h["cycles_n"], INT),
    )
