"""The timed SM: a traced kernel's launch in cycles and warp stalls, under ncu's names.

``time_launch`` runs the CTAs one SM gets (the tracer kept their warps' instruction streams) through ``core.SMModel``
and scales what that SM did to the launch: CTAs go to the SMs round robin, so the first traced CTA's SM holds the
most of them and ends last, and its ``sm__cycles_active`` is the launch's ``.max``; sums over sub-partitions and
warps (``smsp__cycles_active.sum``, the stall reasons) count every CTA as that SM's average one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
import numpy as np

from ..config import ArchConfig
from .core import REASONS, SMModel, SMRun, occupancy
from .memory import spells_likely

if TYPE_CHECKING:
    from ..kernel.streams import WarpStreams
    from ..traces import InstructionBatch

__all__ = ["REASONS", "LaunchTiming", "SMRun", "WhatIf", "time_launch", "what_if"]


@attrs.frozen
class LaunchTiming:
    """A launch's timing: the SM that ends last (``run``), the counters under ncu's names, the stall cycles per SASS
    instruction offset (all CTAs), and how many CTAs the SM held at once."""

    run: SMRun
    metrics: dict[str, float]
    by_pc: dict[int, dict[str, int]]
    occupancy: int
    ctas: int  # the launch's (traced) CTAs
    store_clashes: int  # store wavefronts the launch's .cg copies add beside shared stores (all CTAs)
    code: dict[int, dict[str, str]] = attrs.field(factory=dict)  # each SASS instruction's text and line, by offset
    spins: int = 0  # warp-instructions the launch's spin loops add to its trace's by their further trips (all CTAs; ``SMRun.spins``)
    samples: dict[int, dict[str, float]] = attrs.field(factory=dict)  # ``time_launch(sampling=True)``: ncu's warp-state samples per
    # SASS instruction offset, as its Source page counts them at ``--warp-sampling-interval 0`` (all CTAs; ``SMRun.samples``)


#: What the H200 showed of launches whose CTAs share an SM across waves (calibration/realk/runs/2026-11-29-scale: 26
#: launches of four kernels, predicted round by round), which the timed SM does not model.
WAVES = ("the launch runs in {waves:.1f} waves of {resident} CTAs an SM: where CTAs of different waves share an SM, an H200 "
         "counts 0.2-18% more shared store wavefronts and 0.03-1% more load wavefronts than these (each a bank conflict too, "
         "varying run to run), which simsmem does not model")


def time_launch(streams: WarpStreams, batch: InstructionBatch, wavefronts: np.ndarray, arch: ArchConfig, resources: dict[str, int],
                code: dict[int, dict[str, str]] | None = None, sampling: bool = False) -> LaunchTiming:
    """Time the launch whose one SM's CTAs ``streams`` holds; ``batch`` and ``wavefronts``: the trace's rows and their counted
    wavefronts (rows are numbered as the streams number them); ``resources``: registers per thread, shared bytes per CTA,
    threads per CTA, traced CTAs; ``sampling``: also the warp states ncu's sampler would take."""
    sm = arch.sm
    resident = occupancy(sm, arch, streams.warps_per_cta, resources.get("registers", 0), resources.get("shared", 0))
    ctas = max(1, resources.get("ctas", len(streams.ctas)))
    share = min(ctas, sm.sms)
    run = SMModel(streams, arch, wavefronts, resident, share, batch.size, resources.get("registers", 0), sampling).run()
    # the launch's cycles are its last SM's: where one of its SMs likely meets DRAM's slow spells, that one, timed apart
    last = (SMModel(streams, arch, wavefronts, resident, share, batch.size, resources.get("registers", 0), spells=True).run()
            if spells_likely(sm.memory, share) and run.sectors.get("dram") else run)
    if resident > 1 and ctas > sm.sms * resident:
        run = attrs.evolve(run, notes=run.notes + (WAVES.format(waves=ctas / (sm.sms * resident), resident=resident),))
    scale = ctas / max(1, run.ctas)
    warps = run.warps * scale
    metrics: dict[str, float] = {
        "sm__cycles_elapsed.max": last.end + sm.launch_overhead,  # the gaps between a CTA's retirement and the next one's start too
        "sm__cycles_active.max": last.active,
        "smsp__cycles_active.sum": round(sum(run.sp_active) * scale),
        "smsp__warps_launched.sum": round(warps),
    }
    for reason in REASONS:
        total = run.stalls.get(reason, 0) * scale
        metrics[f"smsp__warps_issue_stalled_{reason}.sum"] = round(total)
        metrics[f"smsp__average_warp_latency_issue_stalled_{reason}.ratio"] = round(total / warps, 2) if warps else 0.0
    by_pc = {pc: {r: round(v * scale) for r, v in row.items()} for pc, row in run.by_pc.items()}
    samples = {pc: {r: v * scale for r, v in row.items()} for pc, row in run.samples.items()}
    return LaunchTiming(run, metrics, by_pc, resident, ctas, round(run.store_clashes * scale), code or {}, round(sum(run.spins.values()) * scale),
                        samples)


@attrs.frozen
class WhatIf:
    """The launch again with the bank conflicts of the SASS instructions at ``pcs`` removed (each of their rows given
    its ideal wavefronts): the conflicts that removes (traced CTAs) and the launch's timing then."""

    pcs: tuple[int, ...]
    conflicts: int
    timing: LaunchTiming


def what_if(streams: WarpStreams, batch: InstructionBatch, wavefronts: np.ndarray, ideal: np.ndarray, arch: ArchConfig,
            resources: dict[str, int], pcs: tuple[int, ...]) -> WhatIf:
    """``time_launch`` with the rows of the SASS instructions at ``pcs`` at their ideal wavefronts."""
    rows = np.isin(batch.pc, pcs)
    fixed = np.where(rows, ideal, wavefronts)
    removed = int((wavefronts - fixed)[rows].sum())
    return WhatIf(pcs, removed, time_launch(streams, batch, fixed, arch, resources))

