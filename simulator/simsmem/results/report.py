"""Reports of a ``Result``: a rich table for people, JSON and ncu-style CSV for programs. They only render."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from ..engine import latency_by_form
from ..sm import REASONS
from ..traces import OPS
from ..traces.records import sass_at
from .analysis import Result
from .metrics import labels, reported
from .ncu_csv import metric_csv

#: ncu's elapsed cycles of a kernel on an SM; simsmem's: one CTA of the trace, first issue to last completion.
CYCLES = "sm__cycles_elapsed.max"
#: The two timing models, as reports name them: the whole launch's (``simsmem.sm``), and one CTA's shared-memory
#: instructions' (``simsmem.engine``).
SM, LSU = "timed SM", "LSU engine"


def timing_summary(result: Result) -> dict[str, Any]:
    """The timeline in short: cycles, data-path utilisation, and latency per SASS form."""
    t = result.timeline
    return {
        "model": LSU,
        CYCLES: t.cycles,
        "data_path_wavefronts_per_cycle": t.wavefronts_per_cycle,
        "latency": {name: {"avg": avg, "min": lo, "max": hi} for name, (avg, lo, hi) in latency_by_form(t, labels(timed_batch(result))).items()},
    }


def by_instruction(result: Result) -> list[dict[str, Any]]:
    """One dict per SASS instruction of a trace whose rows name theirs (a traced kernel's): its offset, SASS, source line,
    and the whole grid's executions, wavefronts, ideal wavefronts and bank conflicts (and stall cycles where timed)."""
    stalls = result.launch.by_pc if result.launch is not None else {}
    rows = []
    for pc, (n, wavefronts, ideal, conflicts) in sorted(result.by_pc.items()):
        code = sass_at(result.kernel, pc)
        row = {"pc": pc, "sass": code.get("sass", ""), "line": code.get("line", ""), "executed": n, "wavefronts": wavefronts,
               "ideal_wavefronts": ideal, "bank_conflicts": conflicts}
        if stalls:
            row["stall_cycles"] = int(sum(stalls.get(pc, {}).values()))
        rows.append(row)
    return rows


def instruction_rows(result: Result) -> list[dict[str, Any]]:
    """JSON's rows: those of ``by_instruction`` where the rows name their SASS instruction; else one dict per instruction
    (every row kept): where it is, what it is, its counts, and (timed) its issue and completion cycles."""
    if result.by_pc:
        return by_instruction(result)
    b, c = result.trace.instructions, result.counts
    names = labels(b)
    rows = [
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
    for row, pc in zip(rows, b.pc.tolist()):
        if pc >= 0:
            row["pc"] = pc
    if result.timeline is not None:
        timed = range(len(rows)) if result.timed is None else result.timed.tolist()
        for i, issue, complete in zip(timed, result.timeline.issue.tolist(), result.timeline.complete.tolist()):
            rows[i]["issue"], rows[i]["complete"] = issue, complete
    return rows


def launch_summary(result: Result) -> dict[str, Any]:
    """A timed launch in short: its cycles, the SM that ends last, stall cycles by reason and per SASS instruction."""
    lt = result.launch
    run = lt.run
    return {
        "model": SM,
        CYCLES: lt.metrics[CYCLES],
        "sm": {"ctas": run.ctas, "resident_ctas": lt.occupancy, "warps": run.warps, "issued": run.issued, "spins": run.spins, "sectors": run.sectors,
               "active": run.active},  # the average SM's active cycles (the sums' and samples' SM; CYCLES is the last SM's)
        "stalls": {r: lt.metrics[f"smsp__warps_issue_stalled_{r}.sum"] for r in REASONS},
        "stalls_by_sass": {f"{pc:#06x}": row for pc, row in sorted(lt.by_pc.items())},
        **({"samples_by_sass": {f"{pc:#06x}": {r: round(v, 2) for r, v in row.items()} for pc, row in sorted(lt.samples.items())}}
           if lt.samples else {}),
        "what_if": [{"fixed": [f"{pc:#06x}" for pc in w.pcs], "bank_conflicts_removed": w.conflicts, CYCLES: w.timing.metrics[CYCLES],
                     "speedup": round(lt.metrics[CYCLES] / w.timing.metrics[CYCLES], 3)} for w in result.what_if],
    }


def to_json(result: Result) -> dict[str, Any]:
    """The JSON report of a kept result: its metrics, the timing summary (timed) and its rows (``instruction_rows``)."""
    return {
        "trace": result.name,
        "arch": result.arch.name,
        "ctas": math.prod(result.shape[0]),
        "grid": list(result.shape[0]),
        "block": list(result.shape[1]),
        "metrics": reported(result.metrics, result.unmodelled),
        **({"not_modelled": result.unmodelled} if result.unmodelled else {}),
        **({"kernel": result.kernel} if result.kernel else {}),
        **({"timing": timing_summary(result)} if result.timeline is not None else {}),
        **({"timing": launch_summary(result)} if result.launch is not None else {}),
        "instructions": instruction_rows(result),
    }


def to_csv(result: Result) -> str:
    """One row per metric, with ncu's column names (and the simulated cycles, if timed)."""
    return metric_csv(reported({**result.metrics, **({CYCLES: result.timeline.cycles} if result.timeline is not None else {})}, result.unmodelled))


def timed_batch(result: Result):
    """The instructions the timeline covers."""
    b = result.trace.instructions
    return b if result.timed is None else b.take(result.timed)


def print_timing(result: Result, console: Console) -> None:
    """Per-form latency of the timed CTA, its cycles and how busy the data path was."""
    t = timing_summary(result)
    table = Table(title=("Timing (one CTA)" if result.timed is None else "Timing (the kernel's first traced CTA, alone on an SM)") + f" on the {LSU}")
    for col in ("Op", "Avg Latency", "Min", "Max"):
        table.add_column(col, justify="left" if col == "Op" else "right", no_wrap=col == "Op")
    for name, lat in t["latency"].items():
        table.add_row(name, f"{lat['avg']:.1f}", str(lat["min"]), str(lat["max"]))
    console.print(table)
    console.print(f"{t[CYCLES]:,} cycles ({CYCLES}); data path {t['data_path_wavefronts_per_cycle']:.2f} wavefronts/cycle")


def print_launch(result: Result, console: Console, top: int = 10) -> None:
    """A timed launch: its cycles, its warps' stall cycles by reason, and the SASS instructions warps stall on most."""
    lt = result.launch
    m, run = lt.metrics, lt.run
    total = sum(m[f"smsp__warps_issue_stalled_{r}.sum"] for r in REASONS) or 1
    table = Table(title=f"Warp states on the {SM} (the launch: {lt.ctas:,} CTAs; the SM that ends last ran {run.ctas}, {lt.occupancy} at once)")
    for col in ("Stall reason", "Cycles (all warps)", "Per warp", "Share"):
        table.add_column(col, justify="left" if col == "Stall reason" else "right", no_wrap=True)
    for r in sorted(REASONS, key=lambda r: -m[f"smsp__warps_issue_stalled_{r}.sum"]):
        v = m[f"smsp__warps_issue_stalled_{r}.sum"]
        if v:
            table.add_row(r, f"{v:,}", f"{m[f'smsp__average_warp_latency_issue_stalled_{r}.ratio']:,.1f}", f"{100 * v / total:.1f}%")
    console.print(table)
    worst = sorted(lt.by_pc.items(), key=lambda kv: -sum(v for r, v in kv[1].items() if r != "selected"))[:top]
    if worst:
        by = Table(title=f"Where warps stall (the {len(worst)} SASS instructions with the most stall cycles)")
        by.add_column("SASS", no_wrap=True)
        by.add_column("Stall cycles", justify="right", no_wrap=True)
        by.add_column("Mostly", no_wrap=True)
        by.add_column("Instruction", ratio=1)
        for pc, row in worst:
            stalls = {r: v for r, v in row.items() if r != "selected"}
            main = max(stalls, key=stalls.get) if stalls else "-"
            code = lt.code.get(pc, {})
            by.add_row(f"{pc:#06x}", f"{sum(stalls.values()):,}", main, "\n".join(filter(None, (code.get("sass"), code.get("line")))))
        console.print(by)
    console.print(f"{m[CYCLES]:,} cycles ({CYCLES}: {m['sm__cycles_active.max']:,} active on the SM that ends last, "
                  f"{result.arch.sm.launch_overhead:,} of launch); {run.issued:,} warp-instructions issued on it"
                  + "".join(f", {n:,} of them {loop} loops' further trips" for loop, n in sorted(run.spins.items())))
    if result.what_if:
        fix = Table(title="What a fix buys (the same launch with these instructions' bank conflicts removed: their ideal wavefronts)")
        for col in ("Fixed", "Conflicts removed", CYCLES, "Speed-up"):
            fix.add_column(col, justify="left" if col == "Fixed" else "right", no_wrap=col != "Fixed")
        fix.add_row("nothing (as written)", "0", f"{m[CYCLES]:,}", "1.00x")
        for w in result.what_if:
            cycles = w.timing.metrics[CYCLES]
            names = ", ".join(f"{pc:#06x} {lt.code.get(pc, {}).get('sass', '')}".strip() for pc in w.pcs)
            fix.add_row(names if len(w.pcs) == 1 else f"all {len(w.pcs)} instructions with bank conflicts", f"{w.conflicts:,}", f"{cycles:,}", f"{m[CYCLES] / cycles:.2f}x")
        console.print(fix)


def print_table(result: Result, console: Console) -> None:
    """Per-op summary in ncu's words, then the instructions with the most bank conflicts."""
    ctas = result.ctas
    table = Table(title=f"{result.name or 'trace'} on {result.arch.name}" + (f" ({ctas} CTAs)" if ctas > 1 else ""))
    for col in ("Op", "Instructions", "Wavefronts", "Ideal", "Bank Conflicts", "% of Ideal"):
        table.add_column(col, justify="left" if col == "Op" else "right", no_wrap=col in ("Op", "Instructions"))
    total = np.zeros(4, dtype=np.int64)
    for name, values in result.forms.items():
        v = np.array(values, dtype=np.int64) * ctas
        total += v
        table.add_row(name, *_fmt(v))
    if len(result.forms) > 1:
        table.add_row("all", *_fmt(total), style="bold")
    console.print(table)
    if result.worst:
        top = Table(title=f"Worst instructions (of {result.instructions:,})")
        for col in ("Index", "Warp", "Op", "Wavefronts", "Ideal", "Bank Conflicts"):
            top.add_column(col, justify="right", no_wrap=col == "Op")
        for w in result.worst:
            top.add_row(str(w.index), str(w.warp), w.sass, str(w.wavefronts), str(w.ideal), str(w.bank_conflicts))
        console.print(top)
    else:
        console.print("No bank conflicts.")
    if result.by_pc:
        print_by_instruction(result, console)
    reasons: dict[str, list[str]] = {}
    for metric, why in result.unmodelled.items():
        reasons.setdefault(why, []).append(metric)
    for why, metrics in reasons.items():  # one line a reason, its counters together
        console.print(f"{', '.join(metrics)}: not modelled for this trace ({why}).")
    for note in result.notes:
        console.print(f"Note: {note}.")


def print_by_instruction(result: Result, console: Console, top: int = 10) -> None:
    """A traced kernel's shared-memory SASS instructions with the most bank conflicts (then wavefronts), where each came from."""
    rows = sorted(result.by_pc.items(), key=lambda kv: (-kv[1][3], -kv[1][1], kv[0]))[:top]
    table = Table(title=f"Shared-memory instructions of {result.kernel.get('entry', 'the kernel') if result.kernel else 'the kernel'}, "
                        f"most bank conflicts first (of {len(result.by_pc)})")
    table.add_column("SASS", no_wrap=True, min_width=6)
    for col in ("Executed", "Wavefronts", "Ideal", "Conflicts"):
        table.add_column(col, justify="right", no_wrap=True, min_width=len(col))
    table.add_column("Instruction, and where it came from", ratio=1)
    for pc, (n, wavefronts, ideal, conflicts) in rows:
        code = sass_at(result.kernel, pc)
        table.add_row(f"{pc:#06x}", f"{n:,}", f"{wavefronts:,}", f"{ideal:,}", f"{conflicts:,}", "\n".join(filter(None, (code.get("sass"), code.get("line")))))
    console.print(table)


def _fmt(v: np.ndarray) -> list[str]:
    of_ideal = f"{100 * v[1] / v[2]:.1f}" if v[2] else "-"
    return [f"{x:,}" for x in v] + [of_ideal]
