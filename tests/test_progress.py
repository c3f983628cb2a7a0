"""Progress bars: a step that holds a bar still (numba compiling) says so in the bar drawn (regression guards)."""

from __future__ import annotations

import io

from rich.console import Console

from simsmem import progress


def test_noting_names_why_the_innermost_bar_waits_and_then_restores_it(monkeypatch):
    monkeypatch.setattr(progress, "Console", lambda stderr: Console(file=io.StringIO(), force_terminal=True))
    with progress.progress("running k", total=4) as outer:
        with progress.progress("counting k", total=4):
            bar, task, _ = progress._LIVE[-1]
            with progress.noting("loading the counting model"):
                assert bar.tasks[task].description == "counting k (loading the counting model)"
            assert bar.tasks[task].description == "counting k"
        outer()
    assert not progress._LIVE


def test_noting_without_a_bar_does_nothing():
    with progress.progress("quiet", quiet=True), progress.noting("why"):
        assert not progress._LIVE
