"""``simsmem run TRACE``: what ncu would report for the trace's shared-memory instructions.

The table and CSV come from ``summarise``, which reads the trace chunk by chunk (any length, in
bounded memory, with a progress bar); JSON (every instruction's counts) and ncu's CSV page read the
trace whole.
"""

from __future__ import annotations

import argparse
import sys

import orjson
from rich.console import Console

from ..analysis import analyse, resolve_arch, summarise
from ..ncu_csv import details_csv
from ..progress import add_quiet_flag, progress
from ..report import print_table, to_csv, to_json
from ..trace import open_trace


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="count instructions, wavefronts and bank conflicts of a trace", description=__doc__)
    p.add_argument("trace", help="trace file: trace v1 .json, .jsonl (either also .gz), .npz, or an Accel-Sim kernel-N.traceg (also .xz/.gz)")
    p.add_argument("--arch", help="sm_90 (default), another built-in arch, or a path to an arch .yaml; wins over the trace's own arch")
    p.add_argument("--format", choices=("table", "json", "csv", "ncu-csv"), default="table", help="ncu-csv: ncu's --csv details page (one row per metric, with ID, Kernel Name, ... columns)")
    p.add_argument("--worst", type=int, default=10, metavar="K", help="list the K instructions with the most bank conflicts (table)")
    add_quiet_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    stream = open_trace(args.trace)
    arch = resolve_arch(stream, args.arch)
    if args.format in ("json", "ncu-csv"):
        result = analyse(stream.read(), arch, args.trace)
        out = orjson.dumps(to_json(result), option=orjson.OPT_INDENT_2) + b"\n" if args.format == "json" else details_csv(result).encode()
        sys.stdout.buffer.write(out)
    else:
        with progress(f"counting {stream.name or args.trace}", total=stream.size or None, quiet=args.quiet) as advance:
            summary = summarise(stream, arch, args.worst, advance)
        if args.format == "csv":
            sys.stdout.write(to_csv(summary))
        else:
            print_table(summary, Console())
            return 0
    for note in stream.notes:
        print(f"simsmem: note: {note}", file=sys.stderr)
    return 0
