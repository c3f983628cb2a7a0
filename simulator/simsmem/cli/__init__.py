"""The ``simsmem`` command: one module per subcommand, each with ``register(subparsers)``.

Bad input ends with one line on stderr naming where and what, and exit status 2.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib
import os
import signal
import sys
import threading

import rich.console

from .. import __version__
from ..errors import SimsmemError

#: Subcommand modules of this package, in the order ``--help`` lists them.
COMMANDS = ("run", "trace", "sweep", "check", "gen", "swizzle", "explain", "compare", "convert")


def _at_least(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"expected an integer >= {least}, got {value}")
    return value


def non_negative(text: str) -> int:
    """argparse type: an integer >= 0 (argparse names the option in its error)."""
    return _at_least(text, 0)


def positive(text: str) -> int:
    """argparse type: an integer >= 1."""
    return _at_least(text, 1)


class Console(rich.console.Console):
    """rich's console, but a closed pipe (``simsmem ... | head``) ends the command as any write to it does, with status 0."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


class Parser(argparse.ArgumentParser):
    """argparse, with usage errors on one line like every other error (exit status 2)."""

    def error(self, message: str):
        self.exit(2, f"simsmem: {self.prog.removeprefix('simsmem').strip() or 'usage'}: {message} (--help lists the options)\n")


def build_parser(command: str | None = None) -> Parser:
    """The parser of every subcommand, or of ``command`` alone (so that a command imports only what it needs)."""
    parser = Parser(prog="simsmem", description="Simulate an NVIDIA SM's shared-memory path from a trace, as ncu would report it.")
    parser.add_argument("--version", action="version", version=f"simsmem {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in (command,) if command in COMMANDS else COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


#: glibc's ``mallopt`` parameters (malloc.h).
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3


def reuse_freed_memory() -> None:
    """Have glibc give a freed array's memory to the next array: arrays under 32 MiB taken from its heap, and up to 128
    MiB of it kept free. By default each chunk's arrays (megabytes each) were mapped afresh and handed back, every page
    a fault again: 10-15% of the CPU time of ``run`` on a large ``.npz`` (docs/performance.md). Elsewhere than glibc,
    nothing."""
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None) if sys.platform == "linux" else None
    if mallopt is not None:
        mallopt(M_MMAP_THRESHOLD, 32 << 20)
        mallopt(M_TRIM_THRESHOLD, 128 << 20)


def _terminated(signum: int, frame) -> None:
    """SIGTERM unwinds like an interrupt, so no output is left half-written."""
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    try:
        argv = sys.argv[1:] if argv is None else argv
        args = build_parser(next((a for a in argv if not a.startswith("-")), None)).parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already reported
        return exc.code if isinstance(exc.code, int) else 0
    reuse_freed_memory()
    held = signal.signal(signal.SIGTERM, _terminated) if threading.current_thread() is threading.main_thread() else None
    try:
        return args.func(args) or 0
    except SimsmemError as exc:
        print(f"simsmem: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly, and let nothing flush to the closed pipe
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("simsmem: interrupted", file=sys.stderr)
        return 130
    finally:
        if held is not None:
            signal.signal(signal.SIGTERM, held)
