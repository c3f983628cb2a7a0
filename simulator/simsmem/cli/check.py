"""``simsmem check KERNEL --max-bank-conflicts N``: a CI gate on shared-memory bank conflicts.

Counts the kernel (traced first, with the launch options of ``simsmem trace``) or the trace as ``simsmem run`` does,
and exits 0 when its bank conflicts are at most N, 1 when they are more, printing one line that names the worst SASS
instruction and the source line it came from (``--op`` keeps some opcodes; ``--per-instruction`` bounds each
instruction instead of the kernel's total). Bad input: one line and exit status 2, as every command.

``simsmem check sgemm.cu --kernel sgemm --grid 4,4 --block 16,16 --arg zeros:65536 ... --max-bank-conflicts 0 --op STS``
"""

from __future__ import annotations

import argparse

from ..results.check import check
from ..results.pipeline import count, open_source
from ..traces.records import OPS
from . import non_negative
from .trace import add_launch_options, tracer


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="exit 1 if a kernel's bank conflicts pass a bound (for CI)", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trace", help="a kernel (.ptx, .cubin, .cu) with the launch options below, or a trace file as `simsmem run` takes")
    p.add_argument("--max-bank-conflicts", type=non_negative, required=True, metavar="N", help="the most bank conflicts allowed")
    p.add_argument("--op", action="append", choices=OPS, default=[], help="count only this SASS opcode's instructions (repeat; default: all)")
    p.add_argument("--per-instruction", action="store_true", help="bound each SASS instruction's bank conflicts, not the kernel's total")
    p.add_argument("--arch", help="sm_90 (default), another built-in arch, or a path to an arch .yaml")
    add_launch_options(p, required=False)
    p.set_defaults(func=run, quiet=True)


def run(args: argparse.Namespace) -> int:
    source = open_source(args.trace, args.arch, tracer(args, args.trace), timed=False)
    verdict = check(count(source), args.max_bank_conflicts, tuple(args.op), args.per_instruction)
    print(f"simsmem check: {verdict.line()}")
    return 0 if verdict.passed else 1
