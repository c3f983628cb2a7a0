"""What the engine runs: each instruction's warp, sub-partition, wavefronts, phases and latency, and each warp's
issue slots (its other instructions and its shared-memory ones, in order, with what holds each)."""

from __future__ import annotations

import attrs
import numpy as np

from ..banks import Counts, shape_of
from ..config import ArchConfig
from ..trace import InstructionBatch
from ..trace import NO_WAIT
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
    """One warp's issue slots in order, column by column: before each of its shared-memory instructions the
    other instructions the trace gives (``others``, or ``early`` and ``issue`` counts), then that one.

    Slot ``s`` may issue at ``max(issue of s-1 + stall[s-1], settled[wait[s]]) + delay[s]`` and when its pipe
    is free (``SubPartition``)."""

    inst: list[int]  # the shared-memory instruction (trace index), -1 for another
    pipe: list[int]  # index into ``timing.pipes`` of the pipe it issues on; -1: none
    stall: list[int]  # cycles from its issue until the warp's next slot may issue
    wait: list[int]  # the instruction whose completion (and its warp's earlier ones') it waits for; -1: none
    delay: list[int]  # cycles after that wait (a shared-memory instruction's ``delay``)


def issue_slots(batch: InstructionBatch, instructions: np.ndarray, pipes: tuple[str, ...]) -> Slots:
    """The slots of one warp's ``instructions`` (trace indices, in order); ``pipes``: the arch's pipe names.

    A trace's ``others`` give the other instructions one by one. Counts (``early``, ``issue``) give runs of
    one-cycle others, the ``early_alu`` and ``issue_alu`` of them on the ``alu`` pipe spread evenly through
    their run; the first ``issue`` one holds the instruction's wait (else the instruction itself)."""
    out = Slots([], [], [], [], [])
    pipe_of = {name: k for k, name in enumerate(pipes)}
    cols = [getattr(batch, name)[instructions].tolist() for name in ("others", "early", "early_alu", "issue", "issue_alu", "wait", "delay", "stall")]
    shapes: dict[tuple, tuple[list[int], list[int], list[int | None], int, int]] = {}  # an instruction's fields -> its others' columns, its wait
    for k, (i, *fields) in enumerate(zip(instructions.tolist(), *cols)):
        shape = shapes.get(key := tuple(fields))
        if shape is None:
            others, early, early_alu, issue, issue_alu, wait, delay, stall = fields
            if others:
                before = parse(others)
            else:
                before = _run(early, early_alu, None) + _run(issue, issue_alu, None if wait == NO_WAIT else wait)
                if issue:
                    wait = NO_WAIT
            shape = shapes[key] = ([pipe_of.get(o.pipe, -1) for o in before], [o.stall for o in before], [o.wait for o in before], wait, delay, stall)
        pipe, stall, waits, wait, delay, own_stall = shape
        n = len(pipe)
        out.inst.extend([-1] * n)
        out.pipe.extend(pipe)
        out.stall.extend(stall)
        out.wait.extend([_target(instructions, k, w) for w in waits] if any(w is not None for w in waits) else [-1] * n)
        out.delay.extend([0] * n)
        out.inst.append(i)
        out.pipe.append(-1)
        out.stall.append(own_stall)
        out.wait.append(_target(instructions, k, None if wait == NO_WAIT else wait))
        out.delay.append(delay)
    return out


def _run(count: int, alu: int, wait: int | None) -> tuple[Other, ...]:
    """``count`` one-cycle others, ``alu`` of them on the ``alu`` pipe spread evenly; the first holds ``wait``."""
    run = tuple(Other("alu" if k * alu // count != (k + 1) * alu // count else None) for k in range(count))
    return (attrs.evolve(run[0], wait=wait), *run[1:]) if run and wait is not None else run


def _target(instructions: np.ndarray, k: int, wait: int | None) -> int:
    """The instruction a slot before the warp's ``k``-th shared-memory instruction waits for under ``wait`` (at
    most that many of the earlier ones in flight): the latest that must have completed; -1: none."""
    if wait is None or k - wait - 1 < 0:
        return -1
    return int(instructions[k - wait - 1])


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
