"""What the engine runs: each instruction's warp, sub-partition, wavefronts, phases and latency, and each warp's
issue slots (its other instructions and its shared-memory ones, in order, with what holds each)."""

from __future__ import annotations

import attrs
import numpy as np

from ..banks import Counts, shape_of
from ..config import ArchConfig
from ..traces import NO_WAIT, InstructionBatch
from ..traces.others import parse
from ..traces.records import Form

#: One issue slot of a warp: a shared-memory instruction, another instruction, or a run of ``count`` one-cycle
#: other instructions (a trace's ``early`` or ``issue``), one slot however long it is.
SLOT = np.dtype([
    ("inst", np.int64),  # the shared-memory instruction (trace index); -1: other instructions
    ("pipe", np.int64),  # index into ``timing.pipes`` of the pipe its instructions issue on (a run: its ``alu`` ones); -1: none
    ("stall", np.int64),  # cycles from an instruction's issue until the warp's next may issue (1 in a run)
    ("wait", np.int64),  # the instruction whose completion (and its warp's earlier ones') its first waits for; -1: none
    ("delay", np.int64),  # cycles after that wait (a shared-memory instruction's ``delay``)
    ("count", np.int64),  # instructions in it: 1, or a run's length
    ("alu", np.int64),  # how many of them use ``pipe``, spread evenly (``port.uses_pipe``): 1 or 0 for one instruction
])


@attrs.frozen(eq=False)
class Program:
    """A trace's instructions as the engine needs them, one entry per instruction (trace order), and its warps' slots."""

    warp: np.ndarray  # int64
    sub_partition: np.ndarray  # int64: the sub-partition (SMSP) the warp runs on
    wavefronts: np.ndarray  # int64: from the counting model
    phases: np.ndarray  # int64: phases of its form (its weight in the data path's window, ``timing.window_phases``)
    latency: np.ndarray  # int64: cycles from issue to data with one wavefront, empty pipeline (config)
    start: np.ndarray  # int64: the first cycle each warp may issue at (indexed by warp number)
    by_warp: tuple[np.ndarray, ...]  # instruction indices of each warp that has any, in trace order
    slots: np.ndarray  # ``SLOT``: every warp's issue slots, a warp's together, in ``by_warp``'s order
    slot_counts: np.ndarray  # int64: how many slots each warp has (``by_warp``'s order)

    def __len__(self) -> int:
        return len(self.warp)

    def wavefront_starts(self) -> np.ndarray:
        """Where each instruction's wavefronts begin in a run's array of every wavefront's cycle (the log's)."""
        return np.cumsum(self.wavefronts) - self.wavefronts


def program(batch: InstructionBatch, counts: Counts, arch: ArchConfig, sub_partition: np.ndarray | None = None,
            start: np.ndarray | None = None) -> Program:
    """The engine's view of ``batch``: warp ``w`` runs on sub-partition ``w % arch.sub_partitions`` unless
    ``sub_partition`` gives each warp's, from cycle 0 unless ``start`` gives each warp's first (both indexed
    by warp number: for replaying measured launches)."""
    warp = batch.warp.astype(np.int64)
    if sub_partition is None:
        where = warp % arch.sub_partitions
    else:
        where = np.asarray(sub_partition, dtype=np.int64)[warp]
    latency, phases = _per_form(batch, arch)
    order = np.argsort(warp, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(warp[order]) != 0]) if len(warp) else np.empty(0, dtype=np.int64)
    by_warp = tuple(np.split(order, starts[1:])) if len(warp) else ()
    slots, slot_counts = issue_slots(batch, order, np.diff(np.r_[starts, len(order)]), tuple(arch.timing.pipes))
    return Program(
        warp=warp,
        sub_partition=where,
        wavefronts=counts.wavefronts.astype(np.int64),
        phases=phases,
        latency=latency,
        start=np.zeros(int(warp.max(initial=-1)) + 1, dtype=np.int64) if start is None else np.asarray(start, dtype=np.int64),
        by_warp=by_warp,
        slots=slots,
        slot_counts=slot_counts,
    )


#: the columns of an instruction that make its slots, besides its place
SHAPE = ("early", "early_alu", "issue", "issue_alu", "wait", "delay", "stall")


def issue_slots(batch: InstructionBatch, order: np.ndarray, per_warp: np.ndarray, pipes: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The slots (``SLOT``) of the instructions ``order`` (trace indices, a warp's together and in order, ``per_warp``
    of each warp), and how many each warp has; ``pipes``: the arch's pipe names.

    Before each shared-memory instruction, the other instructions the trace gives: ``others`` one by one, or the
    runs of ``early`` then ``issue`` one-cycle others (``early_alu`` and ``issue_alu`` of them on the ``alu`` pipe,
    spread evenly), the first of ``issue`` holding the instruction's wait (else the instruction itself). Each
    distinct shape of instruction is worked out once; numpy lays them out."""
    if not len(order):
        return np.zeros(0, dtype=SLOT), np.zeros(len(per_warp), dtype=np.int64)
    texts = batch.others.tolist()
    codes = {text: k for k, text in enumerate(dict.fromkeys(["", *texts]))}  # each distinct text's number (sorting is slow)
    text_of = np.fromiter(map(codes.__getitem__, texts), dtype=np.int64, count=len(texts))[order]
    texts = list(codes)
    fields = np.column_stack([text_of, *(getattr(batch, name)[order] for name in SHAPE)]).astype(np.int64)
    shapes, shape_of = _distinct_rows(fields)
    pipe_of = {name: k for k, name in enumerate(pipes)}
    table = [_shape(str(texts[row[0]]), *row[1:].tolist(), pipe_of) for row in shapes]
    lengths = np.array([len(t) for t in table], dtype=np.int64)
    rows = np.array([slot for t in table for slot in t], dtype=np.int64).reshape(-1, len(SLOT))
    count = lengths[shape_of]  # slots per instruction
    ends = np.cumsum(count)  # each instruction's slots end with itself
    slots = rows.take(np.repeat(np.cumsum(lengths)[shape_of] - ends, count) + np.arange(ends[-1]), axis=0)  # (columns: SLOT's fields; take: faster)
    slots[ends - 1, 0] = order
    waiting = np.flatnonzero(slots[:, 3] >= 0)  # slots with a wait of N: the earlier instruction it needs completed
    k = np.searchsorted(ends, waiting, side="right")  # their instructions (places in ``order``)
    first = (np.cumsum(per_warp) - per_warp)[np.searchsorted(np.cumsum(per_warp), k, side="right")]  # where their warps begin
    back = k - first - slots[waiting, 3] - 1
    slots[waiting, 3] = np.where(back >= 0, order[first + np.maximum(back, 0)], -1)
    warp_ends = ends[np.cumsum(per_warp) - 1]
    return slots.view(SLOT).reshape(-1), np.diff(np.r_[0, warp_ends])


def _distinct_rows(fields: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(fields, axis=0, return_inverse=True)`` by a sort on the columns (several times faster)."""
    order = np.lexsort(fields.T[::-1])
    ordered = fields[order]
    new = np.r_[True, (ordered[1:] != ordered[:-1]).any(axis=1)]
    shape_of = np.empty(len(fields), dtype=np.int64)
    shape_of[order] = np.cumsum(new) - 1
    return ordered[new], shape_of


def _shape(others: str, early: int, early_alu: int, issue: int, issue_alu: int, wait: int, delay: int, stall: int,
           pipe_of: dict[str, int]) -> list[tuple[int, ...]]:
    """The slots of an instruction of this shape, as ``SLOT``'s fields (``inst`` -1, its own set later; ``wait`` an N,
    or NO_WAIT): its other instructions, then itself."""
    if others:
        slots = []
        for o in parse(others):
            pipe = pipe_of.get(o.pipe, -1) if o.pipe is not None else -1
            slots.append((-1, pipe, o.stall, NO_WAIT if o.wait is None else o.wait, 0, 1, int(pipe >= 0)))
    else:
        alu = pipe_of.get("alu", -1)
        runs = ((early, early_alu, NO_WAIT), (issue, issue_alu, wait))
        slots = [(-1, alu if used and alu >= 0 else -1, 1, held, 0, count, used if alu >= 0 else 0) for count, used, held in runs if count]
        if issue:
            wait = NO_WAIT
    return slots + [(-1, -1, stall, wait, delay, 1, 0)]


def _per_form(batch: InstructionBatch, arch: ArchConfig) -> tuple[np.ndarray, np.ndarray]:
    """Each instruction's latency and phases, looked up once per form (op and width or matrix count)."""
    latency = np.zeros(len(batch), dtype=np.int64)
    phases = np.zeros(len(batch), dtype=np.int64)
    form = batch.forms()
    for key in np.unique(form):
        f = Form.of(key)
        spec = arch.op(f.op)
        rows = form == key
        latency[rows] = spec.latency[f.width if spec.phase == "bytes" else f.num]
        phases[rows] = shape_of(spec, arch, f.width, f.num, f.atom, f.bypass).phases
    return latency, phases
