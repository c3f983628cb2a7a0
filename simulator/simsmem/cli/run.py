"""``simsmem run TRACE``: what ncu would report for the trace's shared-memory instructions.

The table and CSV come from ``summarise``, which reads the trace chunk by chunk (any length, in
bounded memory, with a progress bar); JSON (every instruction's counts) and ncu's CSV page read the
trace whole. ``--engine full`` (the default) also runs one CTA through the timing engine, which needs
the whole trace: cycles, latency per form, and (JSON) every instruction's issue and completion cycles.
"""

from __future__ import annotations

import argparse
import sys

import attrs
import orjson
from rich.console import Console

from . import non_negative
from ..analysis import analyse, resolve_arch, summarise, with_timeline
from ..ncu_csv import details_csv
from ..progress import add_quiet_flag, progress
from ..report import print_table, print_timing, to_csv, to_json
from ..trace import open_trace, stream_of
from .trace import KERNEL_SUFFIXES, add_launch_options, open_kernel


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="count instructions, wavefronts and bank conflicts of a trace", description=__doc__)
    p.add_argument("trace", help="trace file: trace v1 .json, .jsonl (either also .gz), .npz, or an Accel-Sim kernel-N.traceg (also .xz/.gz); "
                                 "or a kernel (.ptx, .cubin, .cu) to trace first, with the launch options below")
    p.add_argument("--arch", help="sm_90 (default), another built-in arch, or a path to an arch .yaml; wins over the trace's own arch")
    p.add_argument("--format", choices=("table", "json", "csv", "ncu-csv"), default="table", help="ncu-csv: ncu's --csv details page (one row per metric, with ID, Kernel Name, ... columns)")
    p.add_argument("--worst", type=non_negative, default=10, metavar="K", help="list the K instructions with the most bank conflicts (table)")
    p.add_argument("--engine", choices=("full", "analytic"), default="full",
                   help="full: counters and cycles from the timing engine (reads the trace whole); analytic: counters only, faster")
    add_launch_options(p, required=False)
    add_quiet_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    stream = open_kernel(args, args.trace) if args.trace.endswith(KERNEL_SUFFIXES) else open_trace(args.trace)
    arch = resolve_arch(stream, args.arch, args.trace)
    timed = args.engine == "full"
    result = None
    if timed or args.format in ("json", "ncu-csv"):
        result = analyse(stream.read(), arch, args.trace, stream.first_line)
        if timed:
            with progress(f"simulating {stream.name or args.trace}", total=len(result.trace.instructions), quiet=args.quiet) as advance:
                result = with_timeline(result, advance)
    if args.format == "json":
        sys.stdout.buffer.write(orjson.dumps(to_json(result), option=orjson.OPT_INDENT_2) + b"\n")
    elif args.format == "ncu-csv":
        sys.stdout.write(details_csv(result))
    else:
        if result is None:
            with progress(f"counting {stream.name or args.trace}", total=stream.size or None, quiet=args.quiet) as advance:
                summary = summarise(stream, arch, args.worst, advance)
        else:
            summary = summarise(stream_of(result.trace, args.trace), arch, args.worst)
            summary = attrs.evolve(summary, notes=(*stream.notes, *summary.notes))
        if args.format == "csv":
            sys.stdout.write(to_csv(summary, result.timeline.cycles if timed else None))
        else:
            console = Console()
            print_table(summary, console)
            if timed:
                print_timing(result, console)
            return 0
    for note in stream.notes if result is not None else summary.notes:
        print(f"simsmem: note: {note}", file=sys.stderr)
    return 0
