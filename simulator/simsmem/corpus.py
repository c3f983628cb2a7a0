"""Measured corpora (``calibration/*/instructions.json``): single-instruction launches with ncu counters.

Each row names the SASS opcode it ran, the lanes' byte offsets and the active mask; ``row_instruction``
turns it into a trace instruction, ``corpus_trace`` the whole corpus into a trace v1 (one
instruction per row, in row order), so that every row can be replayed through the model.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from .errors import TraceError
from .trace import Instruction, InstructionBatch, Trace

_SASS = re.compile(r"^(?P<op>LDS|STS|ATOMS|LDSM|STSM)(?P<rest>(\.[A-Z0-9]+)*)$")
_WIDTHS = {"U8": 8, "S8": 8, "U16": 16, "S16": 16, "64": 64, "128": 128}


def sass_form(sass: str) -> dict[str, Any]:
    """Trace-v1 fields of a SASS opcode: ``LDS.64`` -> op LDS width 64; ``LDSM.16.MT88.4`` -> num 4 trans."""
    m = _SASS.match(sass)
    if not m:
        raise TraceError(sass, "not a shared-memory SASS opcode simsmem models")
    op, parts = m["op"], [p for p in m["rest"].split(".") if p]
    if op in ("LDSM", "STSM"):
        shape = next((p for p in parts if p in ("M88", "MT88")), None)
        if shape is None:
            raise TraceError(sass, "matrix op without .M88 or .MT88")
        return {"op": op, "num": int(parts[-1]) if parts[-1] in ("2", "4") else 1, "trans": shape == "MT88"}
    if op == "ATOMS":
        return {"op": op, "width": 64 if "64" in parts else 32}
    widths = [_WIDTHS[p] for p in parts if p in _WIDTHS]
    return {"op": op, "width": widths[0] if widths else 32}


def row_instruction(row: dict[str, Any]) -> Instruction:
    """The trace instruction a corpus row executed."""
    form = sass_form(row["sass"])
    mask = int(row["mask"], 16) if isinstance(row["mask"], str) else int(row["mask"])
    if form["op"] in ("LDSM", "STSM"):
        mask = 0xFFFFFFFF
    addrs = tuple(a if (mask >> lane) & 1 else None for lane, a in enumerate(row["addrs"]))
    return Instruction(addrs=addrs, mask=mask, **form)


def load_corpus(path: str | Path) -> list[dict[str, Any]]:
    """The rows (``patterns``) of a corpus file."""
    return orjson.loads(Path(path).read_bytes())["patterns"]


def corpus_trace(rows: list[dict[str, Any]], name: str = "corpus") -> Trace:
    """All rows as one trace, one instruction per row."""
    return Trace(InstructionBatch.from_instructions(row_instruction(r) for r in rows), name=name)
