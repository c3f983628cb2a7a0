"""``simsmem compare TRACE NCU_REPORT.csv``: simsmem's counters next to a real ncu report's.

Reads ``ncu --csv`` output (the details page, or the raw page that ``ncu --page raw --csv`` writes), picks the kernel (``--kernel NAME|ID``;
by default the one named like the trace, or the report's only kernel), and prints measured against
simulated for every counter simsmem models. Exit status 1 if any differs (for CI), 0 if all match.
Counters simsmem does not model (``op_misc``, totals that include it; for some traces bank reads and writes)
are listed with the reason, never flagged; other shared-memory counters of the report are counted.
"""

from __future__ import annotations

import argparse
import math
import re

import attrs
from rich.table import Table

from ..errors import SimsmemError
from ..progress import add_quiet_flag, progress
from ..results.ncu_csv import Kernel, number, pick, read_report
from ..results.pipeline import count, open_source
from . import Console

#: Shared-memory counter totals of a report (those simsmem neither models nor lists are counted as such).
SHARED_MEMORY = re.compile(r"(shared|l1tex__data_bank).*\.sum$")


@attrs.frozen
class Line:
    """One counter: what ncu measured, what simsmem simulated, and the verdict."""

    metric: str
    measured: int | float | None  # None: not in the report
    simulated: int | None  # None: not modelled
    status: str  # "match", "MISMATCH", "not in report" or "not modelled"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="compare simulated counters with a real ncu --csv report (exit 1 on a mismatch)", description=__doc__)
    p.add_argument("trace", help="a trace file as `simsmem run` takes it (.json, .jsonl, either also .gz, .npz, Accel-Sim .traceg)")
    p.add_argument("report", help="ncu --csv output: its details page (ncu's default) or its raw page (what ncu --page raw writes); told apart by their columns")
    p.add_argument("--kernel", metavar="NAME|ID", help="kernel of the report: ID, function name or full name (default: the trace's name, or the only kernel)")
    p.add_argument("--arch", help="sm_90 (default), another built-in arch, or a path to an arch .yaml; wins over the trace's own arch")
    add_quiet_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    kernels = read_report(args.report)
    with progress("simulating the trace", quiet=args.quiet):
        result = count(open_source(args.trace, args.arch, None))
    key = args.kernel
    if key is None and any(result.name in (k.id, k.name, k.short_name) for k in kernels):
        key = result.name
    kernel = pick(kernels, key, args.report if args.kernel is None else "--kernel")
    lines = compare(kernel, result.metrics, args.report, result.unmodelled)
    bad = sum(line.status == "MISMATCH" for line in lines)
    console = Console(highlight=False)
    if not console.is_terminal:  # a log: wide enough for ncu's metric names
        console = Console(highlight=False, width=140)
    table = Table(title=f"{result.name or args.trace} (simsmem, {result.arch.name}) vs kernel {kernel.id} {kernel.short_name} ({args.report})", title_justify="left")
    for col in ("Metric Name", "Measured", "Simulated", ""):
        table.add_column(col, justify="left" if col == "Metric Name" else "right", no_wrap=col == "Metric Name")
    for line in lines:
        style = "bold red" if line.status == "MISMATCH" else ("dim" if line.simulated is None or line.measured is None else "")
        table.add_row(line.metric, _fmt(line.measured), _fmt(line.simulated), line.status, style=style)
    console.print(table)
    for line in lines:
        if line.status == "not modelled":
            console.print(f"not modelled: {line.metric}: {result.unmodelled[line.metric]}", style="dim")
    listed = {line.metric for line in lines}
    shared = sum(bool(SHARED_MEMORY.search(m)) for m in set(kernel.metrics) - listed)
    console.print(f"not compared: {shared} other shared-memory counter totals of the report (no model for them), "
                  f"{len(set(kernel.metrics) - listed) - shared} other metrics", style="dim")
    compared = sum(line.status in ("match", "MISMATCH") for line in lines)
    verdict = f"{bad} of {compared} modelled counters differ" if bad else f"all {compared} modelled counters match"
    console.print(verdict + _launch_note(kernel, math.prod(result.shape[0])), style="bold red" if bad else "bold green")
    return 1 if bad else 0


def compare(kernel: Kernel, simulated: dict[str, int], where: str, unknown: dict[str, str] | None = None) -> list[Line]:
    """Every simulated counter against the report, then the report's counters that simsmem knows it does not model for
    this trace (``unknown``: ``Result.unmodelled``)."""
    if not set(simulated) & set(kernel.metrics):
        raise SimsmemError(where, f"kernel {kernel.id} has none of the counters simsmem models (profile with --metrics, e.g. {next(iter(simulated))})")
    lines = []
    for name, value in simulated.items():
        if name not in kernel.metrics:
            lines.append(Line(name, None, value, "not in report"))
            continue
        measured = number(kernel.metrics[name], f"{where}: kernel {kernel.id}: {name}")
        lines.append(Line(name, measured, value, "match" if measured == value else "MISMATCH"))
    for name in sorted(set(kernel.metrics) & set(unknown or {}) - set(simulated)):
        lines.append(Line(name, _number_or_none(kernel.metrics[name]), None, "not modelled"))
    return lines


def _number_or_none(text: str) -> int | float | None:
    try:
        return number(text, "")
    except SimsmemError:
        return None


def _fmt(value: int | float | None) -> str:
    return "-" if value is None else f"{value:,}"


def _launch_note(kernel: Kernel, ctas: int) -> str:
    """A hint where the report's grid differs from the trace's CTA count (the usual cause of a factor)."""
    dims = [int(d) for d in re.findall(r"\d+", kernel.grid)]
    grid = math.prod(dims)
    if dims and grid != ctas:
        return f" (note: the report's grid {kernel.grid} has {grid} CTAs, the trace's launch {ctas})"
    return ""
