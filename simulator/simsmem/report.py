"""Reports of a ``Result`` or ``Summary``: a rich table for people, JSON and ncu-style CSV for programs."""

from __future__ import annotations

import csv
import io
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from .analysis import Result, Summary
from .metrics import labels, unit
from .trace import OPS


def instruction_rows(result: Result) -> list[dict[str, Any]]:
    """One dict per instruction: where it is, what it is, and its counts."""
    b, c = result.trace.instructions, result.counts
    names = labels(b)
    return [
        {
            "index": i,
            "warp": int(b.warp[i]),
            "op": OPS[b.op[i]],
            "sass": names[i],
            "wavefronts": int(c.wavefronts[i]),
            "ideal_wavefronts": int(c.ideal[i]),
            "bank_conflicts": int(c.bank_conflicts[i]),
            "bytes": int(c.bytes[i]),
        }
        for i in range(len(b))
    ]


def to_json(result: Result) -> dict[str, Any]:
    return {
        "trace": result.trace.name,
        "arch": result.arch.name,
        "ctas": result.trace.ctas,
        "metrics": result.metrics,
        "instructions": instruction_rows(result),
    }


def to_csv(result: Result | Summary) -> str:
    """One row per metric, with ncu's column names."""
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(["Metric Name", "Metric Unit", "Metric Value"])
    for name, value in result.metrics.items():
        w.writerow([name, unit(name), value])
    return out.getvalue()


def print_table(summary: Summary, console: Console) -> None:
    """Per-op summary in ncu's words, then the instructions with the most bank conflicts."""
    ctas = summary.ctas
    table = Table(title=f"{summary.name or 'trace'} on {summary.arch.name}" + (f" ({ctas} CTAs)" if ctas > 1 else ""))
    for col in ("Op", "Instructions", "Wavefronts", "Ideal Wavefronts", "Bank Conflicts", "% of Ideal"):
        table.add_column(col, justify="left" if col == "Op" else "right", no_wrap=col == "Op")
    total = np.zeros(4, dtype=np.int64)
    for name, values in summary.forms.items():
        v = np.array(values, dtype=np.int64) * ctas
        total += v
        table.add_row(name, *_fmt(v))
    if len(summary.forms) > 1:
        table.add_row("all", *_fmt(total), style="bold")
    console.print(table)
    if summary.worst:
        top = Table(title=f"Worst instructions (of {summary.instructions:,})")
        for col in ("Index", "Warp", "Op", "Wavefronts", "Ideal", "Bank Conflicts"):
            top.add_column(col, justify="right", no_wrap=col == "Op")
        for w in summary.worst:
            top.add_row(str(w.index), str(w.warp), w.sass, str(w.wavefronts), str(w.ideal), str(w.bank_conflicts))
        console.print(top)
    else:
        console.print("No bank conflicts.")
    for note in summary.notes:
        console.print(f"Note: {note}.")


def _fmt(v: np.ndarray) -> list[str]:
    of_ideal = f"{100 * v[1] / v[2]:.1f}" if v[2] else "-"
    return [f"{x:,}" for x in v] + [of_ideal]
