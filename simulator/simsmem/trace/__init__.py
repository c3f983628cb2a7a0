"""Trace I/O: files in, validated instruction records out (and back to files)."""

from __future__ import annotations

from pathlib import Path

from ..errors import TraceError
from .records import FULL_MASK, INACTIVE, LANES, MATRIX_OPS, OPS, Instruction, InstructionBatch, Trace
from .v1 import check_against_arch, read_trace, trace_from_json, write_trace

__all__ = [
    "FULL_MASK", "INACTIVE", "LANES", "MATRIX_OPS", "OPS", "Instruction", "InstructionBatch", "Trace",
    "check_against_arch", "load_trace", "read_trace", "trace_from_json", "write_trace",
]


def load_trace(path: str | Path) -> Trace:
    """Read a trace file of any supported format, chosen by its name."""
    name = Path(path).name
    if name.endswith(".json"):
        return read_trace(path)
    raise TraceError(str(path), "unknown trace format (expected a .json trace v1)")
