"""Replay the timing microbenchmarks' rows (``h100/timing.json`` and runs of the same schema) through the timing engine.

A latency row is one warp's chain of dependent loads: simulated cycles per load are the chain's
issue-to-issue time per link. A throughput row is the first ``warps`` warps of the 32-warp loop:
simulated cycles per warp-instruction are all loads' completion over their number. The traces are
``traces/timing/`` (written by ``timing_traces.py``).
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table
from simsmem.banks import count
from simsmem.engine import simulate
from simsmem.traces import load_trace

TRACES = Path(__file__).resolve().parent.parent / "traces" / "timing"


def simulate_rows(arch, rows, kinds=("lat", "thr"), simulate=simulate):
    """Simulated cycles of every latency and throughput row of ``rows`` on ``arch``, keyed like the rows;
    ``kinds``: the trace names' prefixes of the latency and throughput loops; ``simulate``: the engine's,
    or the wavefront-by-wavefront reference's."""
    out = {}
    for row in rows["latency"]:
        batch = load_trace(TRACES / f"{kinds[0]}_{row['op']}_{row['ways']}.json.gz").instructions
        issue = simulate(batch, count(batch, arch), arch).issue
        out["lat", row["op"], row["ways"]] = (issue[-1] - issue[0]) / (len(batch) - 1)
    loops = {}
    for row in rows["throughput"]:
        key = row["op"], row["ways"]
        if key not in loops:
            loops[key] = load_trace(TRACES / f"{kinds[1]}_{row['op']}_{row['ways']}.json.gz").instructions
        batch = loops[key].take(loops[key].warp < row["warps"])
        out["thr", *key, row["warps"]] = simulate(batch, count(batch, arch), arch).cycles / len(batch)
    return out


def throughput_errors(out, rows):
    """(op, ways, warps) -> relative error of the simulated cycles per warp-instruction."""
    return {(r["op"], r["ways"], r["warps"]): out["thr", r["op"], r["ways"], r["warps"]] / r["cycles_per_warp_instruction"] - 1
            for r in rows["throughput"]}


def print_table(out, rows, source):
    """The measured-vs-simulated tables of ``rows`` (from ``source``)."""
    console = Console(width=120)
    if rows["latency"]:
        table = Table(title=f"H100 ({source}) vs simsmem: cycles per dependent load")
        for col in ("op", "ways", "measured", "simulated", "difference"):
            table.add_column(col, justify="right")
        for row in rows["latency"]:
            sim, meas = out["lat", row["op"], row["ways"]], row["cycles_per_dependent_load"]
            table.add_row(row["op"], str(row["ways"]), f"{meas:.2f}", f"{sim:.2f}", f"{sim - meas:+.2f}")
        console.print(table)
    table = Table(title=f"H100 ({source}) vs simsmem: cycles per warp-instruction (throughput)")
    for col in ("op", "ways", "warps", "measured", "simulated", "error"):
        table.add_column(col, justify="right")
    for row in rows["throughput"]:
        sim, meas = out["thr", row["op"], row["ways"], row["warps"]], row["cycles_per_warp_instruction"]
        table.add_row(row["op"], str(row["ways"]), str(row["warps"]), f"{meas:.3f}", f"{sim:.3f}", f"{100 * (sim - meas) / meas:+.1f}%")
    console.print(table)
