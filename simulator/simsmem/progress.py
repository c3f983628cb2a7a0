"""Progress bars for long runs: rich.progress on stderr, drawn only once a run has taken about a second,
and never when stderr is not a terminal or the user gave ``--quiet``.

::

    with progress("counting", total=len(chunks), quiet=args.quiet) as advance:
        for chunk in chunks:
            ...
            advance()

    for row in track(rows, "explaining", quiet=args.quiet): ...

    with progress("reading trace", quiet=args.quiet):   # no total: a spinner and the elapsed time
        trace = load_trace(path)
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterable, Iterator, Sized
from contextlib import contextmanager
from typing import TypeVar

from rich.console import Console, RenderableType
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.text import Text

T = TypeVar("T")
#: Seconds a run goes before its bar appears (shorter runs stay silent).
DELAY = 1.0


def add_quiet_flag(parser: argparse.ArgumentParser) -> None:
    """Give a subcommand the ``--quiet`` flag that turns progress bars off."""
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bars (for scripts)")


#: The bars drawn now, innermost last: (bar, task, description), for ``noting``.
_LIVE: list[tuple[Progress, int, str]] = []


@contextmanager
def progress(description: str, total: int | None = None, quiet: bool = False) -> Iterator[Callable[..., None]]:
    """A bar of ``total`` steps (a spinner if None) on stderr; yields ``advance(steps=1)``."""
    console = Console(stderr=True)
    if quiet or not console.is_terminal:
        yield _ignore
        return
    columns = [SpinnerColumn(), TextColumn("{task.description}")]
    if total is not None:
        columns += [BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()]
    with _Delayed(*columns, TimeElapsedColumn(), console=console, transient=True) as bar:
        task = bar.add_task(description, total=total)
        _LIVE.append((bar, task, description))
        try:
            yield lambda steps=1: bar.advance(task, steps)
        finally:
            _LIVE.remove((bar, task, description))


@contextmanager
def noting(why: str) -> Iterator[None]:
    """Add ``why`` to the description of the bar drawn now (the innermost) while the block runs: a step that holds the
    bar still, such as numba compiling, says so."""
    if not _LIVE:
        yield
        return
    bar, task, description = _LIVE[-1]
    bar.update(task, description=f"{description} ({why})")
    try:
        yield
    finally:
        bar.update(task, description=description)


def track(items: Iterable[T], description: str, total: int | None = None, quiet: bool = False) -> Iterator[T]:
    """Yield ``items`` while a bar counts them (``total`` defaults to ``len(items)``)."""
    if total is None and isinstance(items, Sized):
        total = len(items)
    with progress(description, total, quiet) as advance:
        for item in items:
            yield item
            advance()


class _Delayed(Progress):
    """A rich Progress that draws nothing until it has run for ``DELAY`` seconds."""

    _started_at = float("inf")

    def start(self) -> None:
        self._started_at = time.monotonic()
        super().start()

    def get_renderable(self) -> RenderableType:
        if time.monotonic() - self._started_at < DELAY:
            return Text("")
        return super().get_renderable()


def _ignore(steps: int = 1) -> None:
    """``advance`` of a silent progress bar."""
