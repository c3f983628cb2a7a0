"""Measured corpora: single-instruction launches (``calibration/*/instructions.json``) and whole kernels
(``calibration/realk/manifest*.json``), with ncu counters.

Each row of an instruction corpus names the SASS opcode it ran, the lanes' byte offsets and the active mask;
``row_instruction`` turns it into a trace instruction, ``corpus_trace`` the whole corpus into a trace v1 (one
instruction per row, in row order), so that every row can be replayed through the model. A kernel manifest's
entry is a launch as ``calibration/realk/launch.cu`` reads it (``ptx``, ``kernel``, ``grid``, ``block``,
``smem``, ``args``, and ``globals``: data for ``__constant__``/``__device__`` variables); ``entry_launch``
makes it ready to execute.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from .errors import SimsmemError
from .kernel.launch import Launch, make_launch
from .kernel.program import Program, load_program
from .traces import Instruction, InstructionBatch, Trace
from .traces.records import SOURCE_OPS
from .traces.sass import sass_form


def row_instruction(row: dict[str, Any]) -> Instruction:
    """The trace instruction a corpus row executed."""
    form = sass_form(row["sass"])
    mask = int(row["mask"], 16) if isinstance(row["mask"], str) else int(row["mask"])
    if form["op"] in ("LDSM", "STSM"):
        mask = 0xFFFFFFFF
    addrs = tuple(a if (mask >> lane) & 1 else None for lane, a in enumerate(row["addrs"]))
    src = tuple(a if (mask >> lane) & 1 else None for lane, a in enumerate(row["src"])) if form["op"] in SOURCE_OPS else None
    return Instruction(addrs=addrs, mask=mask, src=src, **form)


def load_corpus(path: str | Path) -> list[dict[str, Any]]:
    """The rows (``patterns``) of a corpus file."""
    return orjson.loads(Path(path).read_bytes())["patterns"]


def corpus_trace(rows: list[dict[str, Any]], name: str = "corpus") -> Trace:
    """All rows as one trace, one instruction per row."""
    return Trace(InstructionBatch.from_instructions(row_instruction(r) for r in rows), name=name)


def entry_launch(entry: dict[str, Any], base: Path) -> tuple[Program, Launch]:
    """A kernel manifest entry's program and launch (paths from ``base``, the manifest's folder)."""
    name = entry.get("name", "a manifest entry")
    missing = [k for k in ("ptx", "kernel", "grid", "block", "args") if k not in entry]
    if missing:
        raise SimsmemError(name, f"the entry has no {', '.join(missing)}")
    symbols = entry.get("globals", {})
    if not isinstance(symbols, dict) or not all(isinstance(v, str) for v in symbols.values()):
        raise SimsmemError(f"{name}: globals", 'expected {"NAME": "npy:FILE" or "zeros:BYTES", ...}')
    program = load_program(base / entry["ptx"], entry["kernel"])
    return program, make_launch(program, tuple(entry["grid"]), tuple(entry["block"]), entry.get("smem", 0), entry["args"], base,
                                symbols=symbols, cluster=tuple(entry["cluster"]) if "cluster" in entry else None)
