"""``simsmem run TRACE``: what ncu would report for the trace's shared-memory instructions.

The trace is read, checked and counted in one pass (any length, with a progress bar), in the memory of one chunk and
of the rows of one CTA: ``--engine full`` (the default) runs that CTA through the timing engine (cycles, latency per
form), or, for a kernel traced here, the CTAs of one SM through the timed SM. JSON gives a traced kernel's counts per
SASS instruction, another trace's (one CTA's) per instruction, with each one's issue and completion cycles when timed.
"""

from __future__ import annotations

import argparse
import sys

import orjson

from ..explain.arrays import print_arrays
from ..kernel.program import KERNEL_SUFFIXES
from ..progress import add_quiet_flag, progress
from ..results.kept import warps_per_cta
from ..results.ncu_csv import details_csv
from ..results.pipeline import count, open_source, timed
from ..results.report import print_launch, print_table, print_timing, to_csv, to_json
from . import Console, non_negative, positive
from .trace import add_launch_options, tracer


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="count instructions, wavefronts and bank conflicts of a trace", description=__doc__)
    p.add_argument("trace", help="trace file: trace v1 .json, .jsonl (either also .gz), .npz, or an Accel-Sim kernel-N.traceg (also .xz/.gz); "
                                 "or a kernel (.ptx, .cubin, .cu) to trace first, with the launch options below")
    p.add_argument("--arch", help="sm_90 (default), another built-in arch, or a path to an arch .yaml; wins over the trace's own arch")
    p.add_argument("--format", choices=("table", "json", "csv", "ncu-csv"), default="table", help="ncu-csv: ncu's --csv details page (one row per metric, with ID, Kernel Name, ... columns)")
    p.add_argument("--worst", type=positive, default=10, metavar="K", help="list the K instructions with the most bank conflicts (table)")
    p.add_argument("--engine", choices=("full", "analytic"), default="full",
                   help="full: counters and cycles from the timing engine (keeps one CTA's rows); analytic: counters only, faster")
    p.add_argument("--what-if", type=non_negative, metavar="K",
                   help="a traced kernel, full engine: also simulate it with the bank conflicts of each of its K worst SASS instructions "
                        "removed (their ideal wavefronts), then of every instruction's; 0: none (default: 3 for the table, 0 for json and csv)")
    add_launch_options(p, required=False)
    add_quiet_flag(p)
    p.set_defaults(func=run)


def spread(args: argparse.Namespace):
    """How a trace file's chunks are read and counted on workers (``--jobs`` threads, ``--scheduler``): ``parallel.ordered``
    (imported only for a file read in pieces: 15 ms a small run does without)."""

    def ordered(work, items, shared):
        from ..scale.parallel import ordered

        return ordered(work, items, shared, args.jobs, args.scheduler)
    return ordered


def run(args: argparse.Namespace) -> int:
    kernel = args.trace.endswith(KERNEL_SUFFIXES)
    full = args.engine == "full"
    source = open_source(args.trace, args.arch, tracer(args, args.trace), full)
    stream = source.stream
    # a kernel's stream draws its own bar as it runs
    with progress(f"counting {stream.name or args.trace}", total=stream.size or None, quiet=args.quiet or kernel) as advance:
        traced = warps_per_cta(stream.kernel) is not None  # its arrays are read from its first CTA
        keep = "cta" if full or traced or args.format == "json" else "none"
        result = count(source, keep=keep, worst=args.worst, advance=advance, spread=None if kernel else spread(args))
    if source.sink is not None:
        fixes = args.what_if if args.what_if is not None else 3 if args.format == "table" else 0
        with progress(f"timing the launch: its {len(source.ctas)} CTAs of one SM" + (", and the what-ifs" if fixes else ""), quiet=args.quiet):
            result = timed(source, result, fixes, sampling=args.format == "json")
    elif full:
        with progress(f"simulating {result.name or args.trace}", total=result.instructions, quiet=args.quiet) as advance:
            result = timed(source, result, advance=advance)
    if args.format == "table":
        console = Console()
        print_table(result, console)
        print_arrays(result.trace, console)
        if result.launch is not None:
            print_launch(result, console)
        elif full:
            print_timing(result, console)
        return 0
    if args.format == "json":
        sys.stdout.buffer.write(orjson.dumps(to_json(result), option=orjson.OPT_INDENT_2) + b"\n")
    else:
        sys.stdout.write(details_csv(result) if args.format == "ncu-csv" else to_csv(result))
    for note in result.notes:
        print(f"simsmem: note: {note}", file=sys.stderr)
    return 0
