"""What the engine runs: each instruction's warp, sub-partition, wavefronts, phases and latency, and each warp's
issue slots (its other instructions and its shared-memory ones, in order, with what holds each)."""

from __future__ import annotations

import attrs
import numpy as np

from ..banks import Counts, shape_of
from ..config import ArchConfig
from ..trace import NO_WAIT, InstructionBatch
from ..trace.others import Other, parse
from ..trace.records import Form


@attrs.frozen(eq=False)
class Program:
    """A trace's instructions as the engine needs them, one entry per instruction (trace order)."""

    warp: np.ndarray  # int64
    sub_partition: np.ndarray  # int64: the sub-partition (SMSP) the warp runs on
    wavefronts: np.ndarray  # int64: from the counting model
    phases: np.ndarray  # int64: phases of its form (its weight in the data path's window, ``timing.window_phases``)
    latency: np.ndarray  # int64: cycles from issue to data with one wavefront, empty pipeline (config)
    start: np.ndarray  # int64: the first cycle each warp may issue at (indexed by warp number)
    by_warp: tuple[np.ndarray, ...]  # instruction indices of each warp that has any, in trace order
    slots: tuple[Slots, ...]  # each warp's issue slots (``by_warp``'s order)

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
    return Program(
        warp=warp,
        sub_partition=where,
        wavefronts=counts.wavefronts.astype(np.int64),
        phases=phases,
        latency=latency,
        start=np.zeros(int(warp.max(initial=-1)) + 1, dtype=np.int64) if start is None else np.asarray(start, dtype=np.int64),
        by_warp=by_warp,
        slots=tuple(issue_slots(batch, ins, tuple(arch.timing.pipes)) for ins in by_warp),
    )


@attrs.frozen(eq=False)
class Slots:
    """One warp's issue slots in order, column by column (int64): before each of its shared-memory instructions
    the other instructions the trace gives (``others``, or ``early`` and ``issue`` counts), then that one.

    Slot ``s`` may issue at ``max(issue of s-1 + stall[s-1], settled[wait[s]]) + delay[s]`` and when its pipe
    is free (``warp.Warps``)."""

    inst: np.ndarray  # the shared-memory instruction (trace index), -1 for another
    pipe: np.ndarray  # index into ``timing.pipes`` of the pipe it issues on; -1: none
    stall: np.ndarray  # cycles from its issue until the warp's next slot may issue
    wait: np.ndarray  # the instruction whose completion (and its warp's earlier ones') it waits for; -1: none
    delay: np.ndarray  # cycles after that wait (a shared-memory instruction's ``delay``)


#: the columns of an instruction that make its slots, besides its place
SHAPE = ("early", "early_alu", "issue", "issue_alu", "wait", "delay", "stall")


def issue_slots(batch: InstructionBatch, instructions: np.ndarray, pipes: tuple[str, ...]) -> Slots:
    """The slots of one warp's ``instructions`` (trace indices, in order); ``pipes``: the arch's pipe names.

    A trace's ``others`` give the other instructions one by one. Counts (``early``, ``issue``) give runs of
    one-cycle others, the ``early_alu`` and ``issue_alu`` of them on the ``alu`` pipe spread evenly through
    their run; the first ``issue`` one holds the instruction's wait (else the instruction itself). Each
    distinct shape of instruction is worked out once; numpy lays them out."""
    if not len(instructions):
        return Slots(*(np.zeros(0, dtype=np.int64) for _ in range(5)))
    codes: dict[str, int] = {}  # each distinct ``others`` text's number (a dict: sorting the strings is slow)
    text_of = np.array([codes.setdefault(text, len(codes)) for text in batch.others[instructions].tolist()], dtype=np.int64)
    texts = list(codes)
    fields = np.column_stack([text_of, *(getattr(batch, name)[instructions].astype(np.int64) for name in SHAPE)])
    shapes, shape_of = _distinct_rows(fields)
    # each shape's slots (its others, then itself): pipe, stall, wait (N, or NO_WAIT), delay, itself (1) or an other (0)
    table = [_shape(str(texts[row[0]]), *row[1:].tolist(), {name: k for k, name in enumerate(pipes)}) for row in shapes]
    lengths = np.array([len(t) for t in table], dtype=np.int64)
    first = np.r_[0, np.cumsum(lengths)[:-1]]
    rows = np.array([slot for t in table for slot in t], dtype=np.int64).reshape(-1, 5)
    count = lengths[shape_of]  # slots per instruction
    k = np.repeat(np.arange(len(instructions)), count)  # each slot's instruction, by its place in the warp
    at = np.repeat(first[shape_of] - (np.cumsum(count) - count), count) + np.arange(int(count.sum()))
    pipe, stall, wait, delay, own = rows[at].T
    back = k - wait - 1  # the earlier instruction a wait of N needs completed
    target = np.where((wait >= 0) & (back >= 0), instructions[np.maximum(back, 0)], -1)
    return Slots(np.where(own == 1, instructions[k], -1), pipe, stall, target, delay)


def _distinct_rows(fields: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(fields, axis=0, return_inverse=True)`` by a sort on the columns (several times faster)."""
    order = np.lexsort(fields.T[::-1])
    ordered = fields[order]
    new = np.r_[True, (ordered[1:] != ordered[:-1]).any(axis=1)]
    shape_of = np.empty(len(fields), dtype=np.int64)
    shape_of[order] = np.cumsum(new) - 1
    return ordered[new], shape_of


def _shape(others: str, early: int, early_alu: int, issue: int, issue_alu: int, wait: int, delay: int, stall: int,
           pipe_of: dict[str, int]) -> list[tuple[int, int, int, int, int]]:
    """The slots of an instruction of this shape: (pipe, stall, wait N or NO_WAIT, delay, itself?) each."""
    if others:
        before = parse(others)
    else:
        before = _run(early, early_alu, None) + _run(issue, issue_alu, None if wait == NO_WAIT else wait)
        if issue:
            wait = NO_WAIT
    slots = [(pipe_of.get(o.pipe, -1) if o.pipe is not None else -1, o.stall, NO_WAIT if o.wait is None else o.wait, 0, 0) for o in before]
    return slots + [(-1, stall, wait, delay, 1)]


def _run(count: int, alu: int, wait: int | None) -> tuple[Other, ...]:
    """``count`` one-cycle others, ``alu`` of them on the ``alu`` pipe spread evenly; the first holds ``wait``."""
    run = tuple(Other("alu" if k * alu // count != (k + 1) * alu // count else None) for k in range(count))
    return (attrs.evolve(run[0], wait=wait), *run[1:]) if run and wait is not None else run


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
