"""One call from a validated trace to everything the reports show."""

from __future__ import annotations

import attrs

from .banks import Counts, count
from .config import ArchConfig, load_arch
from .metrics import kernel_metrics
from .trace import Trace, check_against_arch


@attrs.frozen(eq=False)
class Result:
    """A trace, the arch it ran on, per-instruction counts and the kernel's ncu metrics."""

    trace: Trace
    arch: ArchConfig
    counts: Counts
    metrics: dict[str, int]


def resolve_arch(trace: Trace, arch: str | None) -> ArchConfig:
    """``--arch`` wins over the trace's own ``arch``; with neither, sm_90."""
    return load_arch(arch or trace.arch or "sm_90")


def analyse(trace: Trace, arch: ArchConfig, where: str = "trace") -> Result:
    """Check the trace against the arch, then count every instruction."""
    check_against_arch(trace.instructions, arch, where)
    counts = count(trace.instructions, arch)
    return Result(trace, arch, counts, kernel_metrics(trace, counts, arch))
