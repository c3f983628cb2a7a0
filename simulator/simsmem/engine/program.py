"""What the engine runs: each instruction's warp, sub-partition, wavefronts, phases, latency, ``early``, ``wait``, ``issue`` and ``delay``."""

from __future__ import annotations

import attrs
import numpy as np

from ..banks import Counts, shape_of
from ..config import ArchConfig
from ..trace import InstructionBatch
from ..trace.records import Form


@attrs.frozen(eq=False)
class Program:
    """A trace's instructions as the engine needs them, one entry per instruction (trace order)."""

    warp: np.ndarray  # int64
    sub_partition: np.ndarray  # int64: the sub-partition (SMSP) the warp runs on
    wavefronts: np.ndarray  # int64: from the counting model
    phases: np.ndarray  # int64: phases of its form (its weight in the data path's window, ``timing.window_phases``)
    latency: np.ndarray  # int64: cycles from issue to data with one wavefront, empty pipeline (config)
    early: np.ndarray  # int64: other instructions the warp issues before the wait, one issue slot each
    early_alu: np.ndarray  # int64: how many of those use the sub-partition's integer-ALU pipe
    wait: np.ndarray  # int64: issue once at most this many earlier instructions of the warp are in flight (NO_WAIT: any)
    issue: np.ndarray  # int64: other instructions the warp issues after the wait, one issue slot each
    issue_alu: np.ndarray  # int64: how many of those use the integer-ALU pipe
    delay: np.ndarray  # int64: cycles the warp stalls first
    by_warp: tuple[np.ndarray, ...]  # instruction indices of each warp that has any, in trace order

    def __len__(self) -> int:
        return len(self.warp)


def program(batch: InstructionBatch, counts: Counts, arch: ArchConfig, sub_partition: np.ndarray | None = None) -> Program:
    """The engine's view of ``batch``: warp ``w`` runs on sub-partition ``w % arch.sub_partitions`` unless
    ``sub_partition`` gives each warp's (indexed by warp number)."""
    warp = batch.warp.astype(np.int64)
    if sub_partition is None:
        where = warp % arch.sub_partitions
    else:
        where = np.asarray(sub_partition, dtype=np.int64)[warp]
    latency, phases = _per_form(batch, arch)
    order = np.argsort(warp, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(warp[order]) != 0]) if len(warp) else np.empty(0, dtype=np.int64)
    return Program(
        warp=warp,
        sub_partition=where,
        wavefronts=counts.wavefronts.astype(np.int64),
        phases=phases,
        latency=latency,
        early=batch.early.astype(np.int64),
        early_alu=batch.early_alu.astype(np.int64),
        wait=batch.wait.astype(np.int64),
        issue=batch.issue.astype(np.int64),
        issue_alu=batch.issue_alu.astype(np.int64),
        delay=batch.delay.astype(np.int64),
        by_warp=tuple(np.split(order, starts[1:])) if len(warp) else (),
    )


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
