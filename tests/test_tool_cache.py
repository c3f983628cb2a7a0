"""ptxas and nvdisasm results kept on disk (``toolchain.cached``): a second load of an unchanged kernel runs no tool.

Regression guards of simsmem's own behaviour (no hardware numbers): the PTX is written here; what is counted is how
often a CUDA tool is started (``toolchain._run``) and what the cache folder holds.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import neighbour_ptx
from simsmem.kernel import program, toolchain


@pytest.fixture
def runs(monkeypatch, tmp_path):
    """The tools started (by name), with a cache of this test's own and no results held in the process."""
    monkeypatch.setenv("SIMSMEM_CACHE", str(tmp_path / "cache"))
    started: list[str] = []
    real = toolchain._run

    def counting(args, where, what):
        started.append(Path(args[0]).name)
        return real(args, where, what)
    monkeypatch.setattr(toolchain, "_run", counting)
    forget()
    yield started
    forget()


def forget() -> None:
    """Drop what the process holds, as a new process would start."""
    program.assemble.cache_clear()
    toolchain.assembler.cache_clear()
    toolchain._ptxas.cache_clear()


def load(tmp_path: Path) -> program.Program:
    path = tmp_path / "k.ptx"
    path.write_text(neighbour_ptx())
    return program.load_program(path, "k")


def entries(tmp_path: Path) -> list[Path]:
    return sorted(p for p in (tmp_path / "cache" / "results").rglob("*") if p.is_file())


def test_a_second_load_runs_no_tool(runs, tmp_path):
    first = load(tmp_path)
    assert {"ptxas", "nvdisasm"} <= set(runs)  # the first load assembles (3 times: plain, PTX lines, none of its own) and disassembles
    made = len(runs)
    forget()
    again = load(tmp_path)
    assert len(runs) == made  # nothing started the second time
    assert [i.text for i in again.code] == [i.text for i in first.code]
    assert again.ptx_lines == first.ptx_lines and again.ptxas == first.ptxas
    assert not [p for p in entries(tmp_path) if p.name.startswith(".tmp-")]


def test_a_damaged_entry_is_made_again_and_rewritten(runs, tmp_path):
    """Entries cut short, altered by a bit, or empty (one damage each, in turn): none is trusted, all are written again."""
    first = load(tmp_path)
    kept = {p: p.read_bytes() for p in entries(tmp_path)}
    damages = [lambda raw: raw[: len(raw) // 2], lambda raw: raw[:-1] + bytes([raw[-1] ^ 1]), lambda raw: b""]
    for k, (p, raw) in enumerate(kept.items()):
        p.write_bytes(damages[k % 3](raw))
    forget()
    made = len(runs)
    again = load(tmp_path)
    assert len(runs) - made == len(kept)  # each damaged entry made again (the entries: ptxas's, nvdisasm's, --version's)
    assert [i.text for i in again.code] == [i.text for i in first.code]
    assert {p: p.read_bytes() for p in entries(tmp_path)} == kept


def test_a_changed_tool_is_run_again(runs, tmp_path, monkeypatch):
    """A stand-in ptxas (a script running the real one) whose file changes: its results are not taken for the old one's."""
    folder = tmp_path / "bin"
    folder.mkdir()
    stand_in = folder / "ptxas"
    stand_in.write_text(f'#!/bin/sh\nexec {toolchain.tool("ptxas")} "$@"\n')
    stand_in.chmod(0o755)
    monkeypatch.setenv("SIMSMEM_CUDA_BIN", str(folder))
    toolchain.tool.cache_clear()
    try:
        load(tmp_path)
        forget()
        made = len(runs)
        load(tmp_path)
        assert runs[made:] == []
        forget()
        os.utime(stand_in, ns=(stand_in.stat().st_atime_ns, stand_in.stat().st_mtime_ns + 10**9))
        load(tmp_path)
        assert runs[made:].count("ptxas") >= 2  # --version and the assembly, since the key holds the tool's file
    finally:
        toolchain.tool.cache_clear()


def test_an_unwritable_cache_still_gives_the_result(runs, tmp_path, monkeypatch):
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("SIMSMEM_CACHE", str(tmp_path / "file"))
    assert [i.name for i in load(tmp_path).code if i.name in ("STS", "LDS")] == ["STS", "LDS"]
