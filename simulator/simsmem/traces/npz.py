"""Trace v1 as numpy columns (``.npz``): for traces too large to parse as JSON quickly.

The file is an ordinary ``numpy.savez``-style zip, each member deflated where that at least halves it, else stored
(``SAMPLE``). Member ``header`` holds the v1 header as UTF-8 JSON bytes (with ``count``, the number of instructions).
The instructions follow in chunks: chunk ``i`` is one member per ``InstructionBatch`` column, ``c{i}.op``,
``c{i}.warp`` ..., each with its column's dtype (``records.DTYPES``). A per-lane column (``addrs``, ``src``) is three
members, its lane patterns (``patterns``): ``c{i}.addrs.base`` (a base a row), ``c{i}.addrs.pattern`` (int32: a row of
the table a row) and ``c{i}.addrs.table`` (the distinct patterns, ``(p, 32)``: the column's dtype, or the narrowest
unsigned one that holds each offset less ``INACTIVE``, ``NARROW``); files written before held it as one member
``c{i}.addrs`` of shape ``(n, 32)``, which still reads. A column added to the format after the first ``.npz`` files
(``Field.later``) is left out of a chunk where every row holds its default, and read back so. Reading loads one chunk
at a time (its members inflated by ISA-L, about three times zlib's speed, their CRC-32 checked) and holds its columns
to the rules of v1 (``v1.column_problem``). A traced kernel's ``streams`` (``records.Streams``) are members
``streams.{field}``, one array each, read when the file is opened.
"""

from __future__ import annotations

import functools
import io
import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import numpy as np
import orjson
from isal import isal_zlib

from ..errors import TraceError
from .files import atomic_output
from .lanes import INACTIVE
from .patterns import Patterns
from .records import COLUMNS, LANES, STREAMS, InstructionBatch
from .stream import Chunk, Piece, TraceStream
from .v1 import (
    canonical_others,
    column_problem,
    header_object,
    parse_header,
    streams_of,
)

#: Columns a chunk may leave out when every entry holds its default (and is read back so).
LATER = {name: f for name, f in COLUMNS.items() if f.later}
#: The members of a per-lane column in lane patterns (``c{i}.addrs.base`` ...), and their dtypes (None: the column's).
PARTS = {"base": None, "pattern": np.int32, "table": None}
#: The unsigned dtypes a lane table may be held in, narrowest first: each offset less ``INACTIVE`` (0 where a lane gives no
#: value). A random access's table (offsets spread over 48 KiB, 126 of a row's 165 bytes) as uint16 is the same size
#: stored as int32 deflated, and is read without inflating (ISA-L inflates such bytes at about 3 ns a byte).
NARROW = (np.uint8, np.uint16, np.uint32)
#: The bytes of a member (from its start) deflated to judge it: a member is deflated where they at least halve, else
#: stored (inflating what barely shrinks costs more than reading the bytes it saves).
SAMPLE = 1 << 16
#: The members of a traced kernel's ``streams``, one per field.
STREAM_MEMBERS = {f"streams.{name}" for name in STREAMS}
#: Errors numpy and zipfile raise for a file that is not a whole, well-formed npz.
BROKEN = (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile, zlib.error, isal_zlib.error, orjson.JSONDecodeError)


def write_npz(stream: TraceStream, path: str | Path) -> None:
    """The columns of every chunk, then the header (atomically: nothing is left behind on error)."""
    count = 0
    with atomic_output(path) as raw, zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1, allowZip64=True) as z:
        for i, c in enumerate(stream.chunks):
            for name, f in COLUMNS.items():
                column = getattr(c.instructions, name)
                if name in LATER and not (column != f.default).any():
                    continue
                if f.lanes:
                    patterns = Patterns.of(column)
                    for part in PARTS:
                        _put(z, f"c{i}.{name}.{part}", _narrow(patterns.table) if part == "table" else getattr(patterns, part))
                else:
                    _put(z, f"c{i}.{name}", column)
            count += len(c.instructions)
        streams = stream.streams()
        for name in STREAMS if streams is not None else ():
            _put(z, f"streams.{name}", getattr(streams, name))
        header = header_object(stream.name, stream.arch, stream.ctas, count, stream.kernel)
        _put(z, "header", np.frombuffer(orjson.dumps(header), dtype=np.uint8))


def _put(z: zipfile.ZipFile, name: str, array: np.ndarray) -> None:
    """``array`` as member ``name``, deflated where its first ``SAMPLE`` bytes deflate to at most half, else stored."""
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.require(array, requirements="C"), allow_pickle=False)
    data = buffer.getbuffer()
    sample = data[:SAMPLE]
    z.writestr(f"{name}.npy", data, zipfile.ZIP_DEFLATED if 2 * len(isal_zlib.compress(sample, 1)) <= len(sample) else zipfile.ZIP_STORED)


def _narrow(table: np.ndarray) -> np.ndarray:
    """A lane table in the narrowest ``NARROW`` dtype narrower than its own that holds each offset less ``INACTIVE``;
    else as it is."""
    top = int(table.max(initial=INACTIVE)) - INACTIVE
    for dtype in NARROW:
        if np.dtype(dtype).itemsize < table.itemsize and top <= np.iinfo(dtype).max:
            return (table - INACTIVE).astype(dtype)
    return table


def _wide(table: np.ndarray, dtype: type) -> np.ndarray | None:
    """A lane table as read back in the column's ``dtype`` (None: a dtype neither it nor a narrower ``NARROW`` one)."""
    if table.dtype.type is dtype:
        return table
    if table.dtype.type not in NARROW or table.itemsize >= np.dtype(dtype).itemsize:
        return None
    wide = table.astype(dtype)
    wide += INACTIVE
    return wide


def read_npz(path: str | Path) -> TraceStream:
    """An ``.npz`` trace; its chunks are loaded and checked one at a time as they are read."""
    where = str(path)
    try:
        z = np.load(path, allow_pickle=False)
    except FileNotFoundError as exc:
        raise TraceError(where, f"cannot read trace: {exc.strerror}") from None
    except BROKEN as exc:
        raise TraceError(where, f"not a readable .npz trace: {exc}") from None
    if not isinstance(z, np.lib.npyio.NpzFile):
        raise TraceError(where, "a single .npy array, not an .npz trace")
    try:
        members = {info.filename.removesuffix(".npy"): info for info in z.zip.infolist() if info.filename.endswith(".npy")}
        names = set(members)
        if "header" not in names:
            raise TraceError(where, "missing member 'header'")
        raw = _member(z.zip.fp, members, "header", where)
        if raw.dtype != np.uint8 or raw.ndim != 1:
            raise TraceError(f"{where}: header", "expected UTF-8 JSON bytes (uint8)")
        doc = _json(raw.tobytes(), where)
        header = parse_header(doc, where, with_instructions=False)
        if "streams" in doc:
            raise TraceError(f"{where}: header", "an .npz holds its streams as members (streams.{field}), not in the header")
        chunks = 0
        while f"c{chunks}.op" in names:
            chunks += 1
        _check_members(names, chunks, where)
        if names & STREAM_MEMBERS:
            streams = streams_of({name: _member(z.zip.fp, members, f"streams.{name}", where) for name in STREAMS if f"streams.{name}" in names},
                                 where, header["count"])
            header["streams"] = lambda: streams
    except BaseException:
        z.close()
        raise
    count = header.pop("count")
    size = Path(path).stat().st_size
    pieces = _pieces(z, members, path, chunks, count, size, where)
    return TraceStream(where, size=size, chunks=(p.chunk() for p in pieces), count=count, pieces=pieces, **header)


def _pieces(z: np.lib.npyio.NpzFile, members: dict[str, zipfile.ZipInfo], path: str | Path, chunks: int, count: int | None, size: int,
            where: str) -> Iterator[Piece]:
    """The chunks as ``Piece``s, each read where it is read (the file opened there again; its members found by the zip
    entries read here); a ``count`` the chunks do not hold is the last one's error (raised once it is read)."""
    first = 0
    try:
        for i in range(chunks):
            n = len(_member(z.zip.fp, members, f"c{i}.op", where))
            held = first + n
            short = i == chunks - 1 and count is not None and count != held
            own = {name: info for name, info in members.items() if name.startswith(f"c{i}.")}
            yield Piece(functools.partial(_read_chunk, path, own, i, first, size * (i + 1) // chunks, where),
                        _short(where, count, held) if short else None)
            first = held
    finally:
        z.close()
    if not chunks and count:
        yield Piece(functools.partial(Chunk, InstructionBatch.empty(), 0, 0), _short(where, count, 0))


def _short(where: str, count: int, held: int) -> TraceError:
    return TraceError(f"{where}: count", f"the header says {count} instructions, the file holds {held}")


def _read_chunk(path: str | Path, members: dict[str, zipfile.ZipInfo], i: int, first: int, done: int, where: str) -> Chunk:
    """Chunk ``i`` of the file (its first instruction ``first``; ``members``, its zip entries), checked against v1."""
    try:
        fp = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise TraceError(where, f"not a readable .npz trace: {exc}") from None
    with fp:
        columns = {name: _member(fp, members, f"c{i}.{name}", where) for name in COLUMNS if f"c{i}.{name}" in members}
        lanes = {name: _patterns(fp, members, f"c{i}.{name}", where) for name, f in COLUMNS.items() if f.lanes and f"c{i}.{name}.base" in members}
    columns |= {name: p.column() for name, p in lanes.items()}
    n = len(columns["op"])
    given = set(columns)
    columns |= {name: f.filled(n) for name, f in LATER.items() if name not in columns}
    for name, array in columns.items():
        f = COLUMNS[name]
        shape = (n, LANES) if f.lanes else (n,)
        if array.dtype.type is not f.dtype or array.shape != shape:
            raise TraceError(f"{where}: c{i}.{name}", f"expected {np.dtype(f.dtype).name} of shape {shape}, got {array.dtype.name} of shape {array.shape}")
    batch = InstructionBatch(**columns)
    problem = column_problem(batch)
    if problem:
        row, field, what = problem
        raise TraceError(f"{where}: instruction {first + row}: {field}", what)
    return Chunk(canonical_others(batch) if "others" in given else batch, first, done, lanes)


def _check_members(names: set[str], chunks: int, where: str) -> None:
    """Every member a chunk needs is there, and none other: a per-lane column as one member or as its three parts."""
    allowed = {"header"} | STREAM_MEMBERS
    for i in range(chunks):
        for name, f in COLUMNS.items():
            member = f"c{i}.{name}"
            forms = [{member}] + ([{f"{member}.{part}" for part in PARTS}] if f.lanes else [])
            given = names & set().union(*forms)
            allowed |= set().union(*forms)
            if given in forms or (not given and name in LATER):
                continue
            if member in given:
                raise TraceError(where, f"unexpected member {sorted(given - {member})[0]!r}")
            raise TraceError(where, f"missing member {sorted(forms[-1] - given)[0]!r}")
    if names - allowed:
        raise TraceError(where, f"unexpected member {sorted(names - allowed)[0]!r}")


def _patterns(fp: BinaryIO, members: dict[str, zipfile.ZipInfo], member: str, where: str) -> Patterns:
    """A per-lane column's lane patterns (``member``: ``c{i}.addrs``), checked."""
    dtype = COLUMNS[member.split(".")[1]].dtype
    arrays = {part: _member(fp, members, f"{member}.{part}", where) for part in PARTS}
    stored, arrays["table"] = arrays["table"], _wide(arrays["table"], dtype)
    if arrays["table"] is None:
        raise TraceError(f"{where}: {member}.table", f"expected {np.dtype(dtype).name} or a narrower unsigned dtype, got {stored.dtype.name}")
    for part, want in PARTS.items():
        if arrays[part].dtype.type is not (want or dtype):
            raise TraceError(f"{where}: {member}.{part}", f"expected {np.dtype(want or dtype).name}, got {arrays[part].dtype.name}")
    patterns = Patterns(**arrays)
    problem = patterns.problem()
    if problem:
        raise TraceError(f"{where}: {member}", problem)
    return patterns


def _member(fp: BinaryIO, members: dict[str, zipfile.ZipInfo], name: str, where: str) -> np.ndarray:
    """Member ``name`` of the zip file open as ``fp`` (``members``: its entries, by name without ``.npy``)."""
    try:
        return _npy(_inflated(fp, members[name]))
    except BROKEN as exc:
        pickled = "allow_pickle" in str(exc)  # numpy's advice for an object array, which no trace holds
        raise TraceError(f"{where}: {name}", "holds Python objects, not numbers: not a simsmem trace member" if pickled else f"unreadable member: {exc}") from None


def _inflated(fp: BinaryIO, info: zipfile.ZipInfo) -> bytes:
    """A member's bytes, read past its local header and inflated by ISA-L (stored: as they are), their size and CRC-32
    checked (what ``zipfile`` checks)."""
    fp.seek(info.header_offset)
    head = fp.read(30)
    if len(head) < 30 or head[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"no local header for {info.filename}")
    fp.seek(info.header_offset + 30 + sum(struct.unpack("<HH", head[26:30])))  # past the name and the extra field
    raw = fp.read(info.compress_size)
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED) or len(raw) != info.compress_size:
        raise zipfile.BadZipFile(f"{info.filename}: compression {info.compress_type}, {len(raw)} of {info.compress_size} bytes")
    data = raw if info.compress_type == zipfile.ZIP_STORED else isal_zlib.decompress(raw, wbits=-15, bufsize=max(info.file_size, 1))
    if len(data) != info.file_size or isal_zlib.crc32(data) != info.CRC:
        raise zipfile.BadZipFile(f"bad CRC-32 or size for {info.filename}")
    return data


def _npy(data: bytes) -> np.ndarray:
    """The array of a ``.npy`` file's bytes (a writable copy, as ``numpy.load`` gives), its data taken in one piece."""
    f = io.BytesIO(data)
    version = np.lib.format.read_magic(f)
    if version in ((1, 0), (2, 0)):
        shape, fortran, dtype = (np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0)(f)
        if not fortran and not dtype.hasobject:
            return np.frombuffer(data, dtype, int(np.prod(shape)), f.tell()).reshape(shape).copy()
    f.seek(0)
    return np.lib.format.read_array(f, allow_pickle=False)  # (numpy's errors for the rest)


def _json(raw: bytes, where: str) -> object:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise TraceError(f"{where}: header", f"invalid JSON: {exc.msg}") from None
