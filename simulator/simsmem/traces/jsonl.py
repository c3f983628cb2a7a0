"""Trace v1 as JSON text: one document (``.json``) or JSON Lines (``.jsonl``), either also gzipped (``.gz``).

JSON Lines puts the header object (without ``instructions``) on the first line and one instruction
object on each line after it; it is read in blocks of about a megabyte, so it streams. A ``.json``
document is parsed whole, then validated chunk by chunk. Both go through ``decode.batch_from_lines`` and,
where that declines, ``decode.BatchBuilder``: the same checks. A JSON Lines header may give ``count``, the
number of instructions; the reader then insists on it, which catches a file cut at a line boundary.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import numpy as np
import orjson

from ..errors import TraceError
from .decode import BatchBuilder, batch_from_lines, batch_from_objects
from .files import Input, atomic_output, open_input
from .records import InstructionBatch
from .stream import CHUNK, Chunk, Piece, TraceStream
from .v1 import header_object, instruction_objects, parse_header


def read_json(path: str | Path, chunk: int = CHUNK) -> TraceStream:
    """A v1 JSON document (``.json``, ``.json.gz``); its instructions are validated as the chunks are read."""
    where = str(path)
    with open_input(path) as f:
        raw, size = f.read_all(), f.size
    doc = _loads(raw, where)
    header = parse_header(doc, where, with_instructions=True)
    count = header.pop("count")
    instructions = doc["instructions"]
    if not isinstance(instructions, list):
        raise TraceError(f"{where}: instructions", "expected a list")
    if count is not None and count != len(instructions):
        raise TraceError(f"{where}: count", f"the header says {count} instructions, the document holds {len(instructions)}")
    chunks = (Chunk(batch_from_objects(instructions[s : s + chunk], where, s), s, size) for s in range(0, len(instructions), chunk))
    return TraceStream(where, size=size, chunks=chunks, count=len(instructions), **header)


def read_jsonl(path: str | Path, chunk: int = CHUNK) -> TraceStream:
    """A v1 JSON Lines trace (``.jsonl``, ``.jsonl.gz``), streamed in chunks."""
    where = str(path)
    f = Input(path)
    try:
        data = b""
        while b"\n" not in data and (block := f.read()):
            data += block
        head, _, rest = data.partition(b"\n")
        if not head.strip():
            raise TraceError(f"{where}: line 1", "expected the header object (JSON Lines: header first, then one instruction per line)")
        header = parse_header(_loads(head, where, 1), where, with_instructions=False)
    except BaseException:
        f.close()
        raise
    count = header.pop("count")
    pieces = _pieces(f, rest, where, count, chunk)
    return TraceStream(where, size=f.size, chunks=(p.chunk() for p in pieces), count=count, first_line=2, pieces=pieces, **header)


def _pieces(f: Input, pending: bytes, where: str, count: int | None, chunk: int) -> Iterator[Piece]:
    """The file's chunks as ``Piece``s: its whole lines as read, at least ``chunk`` a piece (the last: what is left),
    each parsed in one pass when it is read. An error reading the file, or a ``count`` it does not hold, is the error of
    the piece it cuts short, raised after its lines' own."""
    first, held, done = 0, _newlines(pending), f.done
    parts = [pending]  # the piece's bytes so far (``held`` lines ended), the first what was left of the piece before
    error = None
    try:
        while block := f.read():
            parts.append(block)
            held += _newlines(block)
            done = f.done
            if held >= chunk:  # the piece ends with the block's last line
                cut = block.rfind(b"\n")
                parts[-1] = block[:cut]
                yield Piece(functools.partial(_read_piece, b"".join(parts), where, first, held, done))
                first, parts, held = first + held, [block[cut + 1 :]], 0
    except TraceError as exc:
        error = exc
    finally:
        f.close()
    data = b"".join(parts).removesuffix(b"\n")  # the file's final newline ends its last line
    lines = _newlines(data) + 1 if data else 0
    if error is None and count is not None and first + lines != count:
        error = TraceError(f"{where}: count", f"the header says {count} instructions, the file holds {first + lines} (is it cut short?)")
    if lines or error is not None:
        yield Piece(functools.partial(_read_piece, data, where, first, lines, done), error)


def _newlines(data: bytes) -> int:
    """The newlines in ``data`` (numpy's vectorised compare: three times ``bytes.count``'s speed)."""
    return int(np.count_nonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n")))


def _read_piece(data: bytes, where: str, first: int, lines: int, done: int) -> Chunk:
    """The chunk of the ``lines`` whole lines of ``data`` (no final newline), its first instruction ``first``."""
    return Chunk(_parse_block(data, where, first, 2 + first, lines) if lines else InstructionBatch.empty(), first, done)  # (line 1: the header)


def _parse_block(data: bytes, where: str, first: int, first_line: int, lines: int) -> InstructionBatch:
    """The instructions on the ``lines`` lines of ``data`` (no final newline): vectorised, or exactly line by line."""
    batch = batch_from_lines(data, lines)
    if batch is not None:
        return batch
    builder = BatchBuilder(where)
    for i, text in enumerate(data.split(b"\n")):
        if not text.strip():
            raise TraceError(f"{where}: line {first_line + i}", "blank line (JSON Lines holds one instruction per line)")
        builder.add(_loads(text, where, first_line + i), first + i, line=first_line + i)
    return builder.build()


def _loads(text: bytes, where: str, line: int | None = None) -> object:
    """Parse JSON; an error names the line (``line``, or the one inside ``text``) and the column."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise TraceError(f"{where}: line {line or exc.lineno} column {exc.colno}", f"invalid JSON: {exc.msg}") from None


def write_json(stream: TraceStream, path: str | Path) -> None:
    """A v1 JSON document, one instruction per line (atomically: nothing is left behind on error)."""
    with atomic_output(path) as out, _spooled(stream, b",\n  ") as (body, count):
        head = orjson.dumps(header_object(stream.name, stream.arch, stream.ctas, kernel=stream.kernel, streams=stream.streams()))[:-1]
        out.write(head + b',\n "instructions": [' + (b"\n  " if count else b""))
        shutil.copyfileobj(body, out)
        out.write(b"\n]}\n")


def write_jsonl(stream: TraceStream, path: str | Path) -> None:
    """A v1 JSON Lines trace: the header (with ``count``), then one instruction per line (atomically)."""
    with atomic_output(path) as out, _spooled(stream, b"\n") as (body, count):
        header = header_object(stream.name, stream.arch, stream.ctas, count, stream.kernel, stream.streams())
        out.write(orjson.dumps(header, option=orjson.OPT_APPEND_NEWLINE))
        shutil.copyfileobj(body, out)
        if count:
            out.write(b"\n")


@contextmanager
def _spooled(stream: TraceStream, sep: bytes) -> Iterator[tuple[BinaryIO, int]]:
    """The stream's instructions as JSON objects joined by ``sep``, in a temporary file, and their count.

    The header comes first in the file but is known only after the last chunk (its ``count``, and a traced
    kernel's ``kernel`` and ``streams``), so the body is written aside first."""
    count = 0
    with tempfile.TemporaryFile() as body:
        for c in stream.chunks:
            objs = instruction_objects(c.instructions)
            if objs:
                body.write((sep if count else b"") + sep.join(map(orjson.dumps, objs)))
                count += len(objs)
        body.seek(0)
        yield body, count
