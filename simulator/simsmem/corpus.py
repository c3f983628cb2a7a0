"""Measured corpora (``calibration/*/instructions.json``): single-instruction launches with ncu counters.

Each row names the SASS opcode it ran, the lanes' byte offsets and the active mask; ``row_instruction``
turns it into a trace instruction, ``corpus_trace`` the whole corpus into a trace v1 (one
instruction per row, in row order), so that every row can be replayed through the model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from .trace import Instruction, InstructionBatch, Trace
from .trace.records import SOURCE_OPS
from .trace.sass import sass_form


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
