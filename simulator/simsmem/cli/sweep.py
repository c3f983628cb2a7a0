"""``simsmem sweep INPUT... -o TABLE.csv``: inputs x arch variants x changes of one shared array, one row per point.

Each INPUT is a trace, or a kernel (.ptx, .cubin, .cu) that the launch options describe, traced once. Each point
is counted under each ``--arch`` (default sm_90) with every combination of the ``--vary`` settings (``--vary
banks=16,32,64 --vary bank_width=4,8``: six variants of each arch; a dotted field reaches into a mapping,
``--vary timing.feed_interval=1,2``), and with ``--array NAME``, also with each re-declaration, padding and
swizzle of that shared array (``simsmem run`` lists a kernel's arrays). A row holds ncu's counters and the cycles
(``--engine full``: a kernel's launch on the timed SM, a trace's one CTA on the timing engine). The table is
rewritten as points finish (at least every second): a rerun runs only the points it lacks, or that failed. ``best`` marks each input's
point with the fewest cycles (then bank conflicts). Points run on ``--jobs`` local Dask workers or the ``--scheduler``
cluster. Exit status 1 when a point failed (its row says why), 0 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..errors import SimsmemError
from ..kernel.program import KERNEL_SUFFIXES
from ..progress import add_quiet_flag, progress
from . import Console
from .trace import add_launch_options, open_kernel

#: Seconds between rewrites of the table while points finish (it is written at the end in any case).
WRITE_EVERY = 1.0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sweep", help="count and time inputs under arch variants and shared-array changes, into one table",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="a trace file, or a kernel (.ptx, .cubin, .cu) with the launch options")
    p.add_argument("-o", "--output", required=True, metavar="TABLE", help="the table to write (.csv); one there already is resumed")
    p.add_argument("--arch", action="append", default=[], metavar="ARCH", help="a built-in arch or an arch .yaml (repeat; default sm_90)")
    p.add_argument("--vary", action="append", default=[], metavar="FIELD=V1,V2,...", help="a config field's values to try (repeat: every combination)")
    p.add_argument("--array", metavar="NAME", help="also try each re-declaration, padding and swizzle of this shared array")
    p.add_argument("--engine", choices=("full", "analytic"), default="full", help="full: counters and cycles; analytic: counters only")
    add_launch_options(p, required=False)
    add_quiet_flag(p)
    p.set_defaults(func=sweep)


def sweep(args: argparse.Namespace) -> int:
    from ..kernel.tracer import StreamSink
    from ..scale.parallel import spread
    from ..scale.sweep import Source, points, read_table, variants, write_table
    from ..traces import load_trace

    out = Path(args.output)
    if not out.name.endswith(".csv"):
        raise SimsmemError(args.output, "expected a .csv table")
    if not out.parent.is_dir():
        raise SimsmemError(args.output, "its folder does not exist")
    archs = variants(args.arch or ["sm_90"], args.vary)
    done = read_table(out)
    timed = args.engine == "full"
    sources = []
    for name in args.inputs:
        if name.endswith(KERNEL_SUFFIXES):
            sm = archs[0].sm
            sink = StreamSink(sm.sms) if timed and sm is not None else None
            trace = open_kernel(args, name, sink).read()
            label = f"{name}:{trace.kernel['entry']}"
            sources.append(Source(label, trace, sink.streams() if sink else None, sink.resources if sink else {}, sink.code if sink else {}))
        else:
            sources.append(Source(name, load_trace(name)))
    grid = points(sources, archs, args.array)
    rows = {p.key(sources): done[p.key(sources)] for p in grid if p.key(sources) in done}
    todo = [p for p in grid if p.key(sources) not in rows]
    print(f"simsmem: {len(grid)} points ({len(sources)} inputs x {len(archs)} archs"
          + (f" x changes of {args.array}" if args.array else "") + f"), {len(grid) - len(todo)} already in {out}", file=sys.stderr)
    failed, written = 0, time.monotonic()
    ordered = lambda: {p.key(sources): rows[p.key(sources)] for p in grid if p.key(sources) in rows}  # noqa: E731
    with progress("sweeping", total=len(todo), quiet=args.quiet) as advance:
        try:
            for k, row in spread(_point, [(p, timed) for p in todo], sources, _source, args.jobs, args.scheduler):
                key = todo[k].key(sources)
                rows[key] = row
                if row["status"] != "ok":
                    failed += 1
                    print(f"simsmem: point {' / '.join(key)}: {row['status'].removeprefix('error: ')}", file=sys.stderr)
                if time.monotonic() - written > WRITE_EVERY:
                    write_table(out, ordered())
                    written = time.monotonic()
                advance()
        finally:  # interrupted too: what was done stays for the rerun
            write_table(out, ordered())
    _summary(out)
    return 1 if failed else 0


def _point(source, item) -> dict:
    from ..scale.sweep import evaluate

    point, timed = item
    return evaluate(source, point, timed)


def _source(item) -> int:
    """The input a point counts (``spread``'s ``pick``)."""
    return item[0].source


def _summary(out: Path) -> None:
    """Each input's best point, on stdout."""
    import csv

    from rich.table import Table

    from ..scale.sweep import CONFLICTS, CYCLES

    table = Table(title=f"Best point per input ({out})")
    for col in ("input", "arch", "change", "cycles", "bank conflicts"):
        table.add_column(col, justify="right" if col in ("cycles", "bank conflicts") else "left")
    for r in csv.DictReader(out.open()):
        if r["best"] == "1":
            table.add_row(r["input"], r["arch"], r["change"] if not r["array"] else f"{r['array']}: {r['change']}", r[CYCLES] or "-", r.get(CONFLICTS, ""))
    Console().print(table)
