"""Trace I/O: files in, instruction records held to trace v1 out (and back to files).

``open_trace`` reads any supported file as a ``TraceStream`` (chunks of columns, bounded memory);
``load_trace`` reads it whole. ``write_trace``/``write_stream`` write trace v1 in the form the
output's name asks for. The form is chosen by the file name:

=========================  ==============================================================
``.json``, ``.json.gz``    trace v1 document (``jsonl.read_json``)
``.jsonl``, ``.jsonl.gz``  trace v1 JSON Lines, streamed (``jsonl.read_jsonl``)
``.npz``                   trace v1 numpy columns, streamed (``npz.read_npz``), written by ``simsmem convert``
``.traceg`` (``.xz``/``.gz``)  Accel-Sim SASS trace, imported (``accelsim.read_accelsim``)
=========================  ==============================================================
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..errors import TraceError
from .accelsim import read_accelsim
from .jsonl import read_json, read_jsonl, write_json, write_jsonl
from .npz import read_npz, write_npz
from .records import (
    FULL_MASK,
    INACTIVE,
    LANES,
    MATRIX_OPS,
    NO_WAIT,
    OPS,
    Instruction,
    InstructionBatch,
    Trace,
)
from .stream import CHUNK, Chunk, TraceStream, stream_of

__all__ = [
    "CHUNK", "FULL_MASK", "INACTIVE", "LANES", "MATRIX_OPS", "NO_WAIT", "OPS", "Chunk", "Instruction", "InstructionBatch", "Trace",
    "TraceStream", "load_trace", "open_trace", "read_trace", "write_stream", "write_trace",
]

#: Readers and writers by the end of the file name (longest first where they overlap).
READERS: dict[str, Callable[[Path], TraceStream]] = {
    ".json": read_json, ".json.gz": read_json, ".jsonl": read_jsonl, ".jsonl.gz": read_jsonl, ".npz": read_npz,
    ".traceg": read_accelsim, ".traceg.xz": read_accelsim, ".traceg.gz": read_accelsim,
}
WRITERS: dict[str, Callable[[TraceStream, Path], None]] = {
    ".json": write_json, ".json.gz": write_json, ".jsonl": write_jsonl, ".jsonl.gz": write_jsonl, ".npz": write_npz,
}


def _form(path: str | Path, table: dict) -> Callable:
    name = Path(path).name
    for suffix in sorted(table, key=len, reverse=True):
        if name.endswith(suffix):
            return table[suffix]
    raise TraceError(str(path), f"unknown trace format (the name must end in {', '.join(table)})")


def open_trace(path: str | Path) -> TraceStream:
    """A trace file of any supported form, as a stream of checked chunks (header read now)."""
    return _form(path, READERS)(Path(path))


def load_trace(path: str | Path) -> Trace:
    """A trace file of any supported form, read whole."""
    return open_trace(path).read()


#: The name the core used for reading a whole trace.
read_trace = load_trace


def write_stream(stream: TraceStream, path: str | Path) -> None:
    """Write a stream as trace v1 in the form ``path``'s name asks for, atomically."""
    _form(path, WRITERS)(stream, Path(path))


def write_trace(trace: Trace, path: str | Path) -> None:
    """Write a whole trace as trace v1 in the form ``path``'s name asks for, atomically."""
    write_stream(stream_of(trace, str(path)), path)
