"""``simsmem run TRACE``: what ncu would report for the trace's shared-memory instructions."""

from __future__ import annotations

import argparse
import sys

import orjson
from rich.console import Console

from ..analysis import analyse, resolve_arch
from ..ncu_csv import details_csv
from ..report import print_table, to_csv, to_json
from ..trace import load_trace


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="count instructions, wavefronts and bank conflicts of a trace", description=__doc__)
    p.add_argument("trace", help="trace file (trace v1 .json)")
    p.add_argument("--arch", help="sm_90 (default), another built-in arch, or a path to an arch .yaml; wins over the trace's own arch")
    p.add_argument("--format", choices=("table", "json", "csv", "ncu-csv"), default="table", help="ncu-csv: ncu's --csv details page (one row per metric, with ID, Kernel Name, ... columns)")
    p.add_argument("--worst", type=int, default=10, metavar="K", help="list the K instructions with the most bank conflicts (table)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    trace = load_trace(args.trace)
    arch = resolve_arch(trace, args.arch)
    result = analyse(trace, arch, args.trace)
    if args.format == "json":
        sys.stdout.buffer.write(orjson.dumps(to_json(result), option=orjson.OPT_INDENT_2) + b"\n")
    elif args.format == "csv":
        sys.stdout.write(to_csv(result))
    elif args.format == "ncu-csv":
        sys.stdout.write(details_csv(result))
    else:
        print_table(result, Console(), worst=args.worst)
    return 0
