"""The ``simsmem`` command: one module per subcommand, each with ``register(subparsers)``.

Bad input ends with one line on stderr naming where and what, and exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .. import __version__
from ..errors import SimsmemError

#: Subcommand modules of this package, in the order ``--help`` lists them.
COMMANDS = ("run", "gen", "swizzle", "explain", "compare", "convert")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="simsmem", description="Simulate an NVIDIA SM's shared-memory path from a trace, as ncu would report it.")
    parser.add_argument("--version", action="version", version=f"simsmem {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args) or 0
    except SimsmemError as exc:
        print(f"simsmem: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("simsmem: interrupted", file=sys.stderr)
        return 130
