"""Traces in chunks: the header at once, the instructions as columnar batches, in bounded memory.

Every reader returns a ``TraceStream``. Iterating its ``chunks`` reads, validates and yields about
``CHUNK`` instructions at a time (an ``InstructionBatch`` each, never a Python object per
instruction), so a trace of any length is counted in the memory of one chunk. A stream whose input
turns out bad raises ``TraceError`` from the iteration; ``read()`` gives the whole trace at once.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

import attrs

from ..errors import TraceError
from .records import InstructionBatch, Streams, Trace

#: Instructions per chunk: large enough for numpy to pay off, small enough to stay cache-friendly.
CHUNK = 1 << 16


@attrs.frozen(eq=False)
class Chunk:
    """Consecutive instructions of a trace."""

    instructions: InstructionBatch
    first: int  # trace index of the chunk's first instruction
    done: int  # bytes of the file read so far (progress)
    lanes: dict | None = None  # per-lane column name -> its ``patterns.Patterns``, where the reader read them so (.npz)


@attrs.frozen(eq=False)
class Piece:
    """A chunk not read yet: ``read()`` reads it, in this process or on a worker (``read`` pickles: a module's function
    and the raw bytes it parses)."""

    read: Callable[[], Chunk]
    #: what reading the file met after the piece's lines (a file cut short), raised once they are read
    error: TraceError | None = None

    def chunk(self) -> Chunk:
        """The chunk, read here."""
        chunk = self.read()
        if self.error is not None:
            raise self.error
        return chunk


def no_streams() -> None:
    """A trace without the timed SM's streams."""


@attrs.frozen(eq=False)
class TraceStream:
    """A trace being read: its header, and its instructions chunk by chunk (iterate ``chunks`` once)."""

    where: str  # the file, as errors name it
    name: str
    arch: str | None
    ctas: int
    size: int  # bytes of the file: the progress total that ``Chunk.done`` counts towards
    chunks: Iterator[Chunk]
    count: int | None = None  # instructions, where the reader knows them before reading them
    first_line: int | None = None  # the file line of instruction 0, where each instruction has one line (JSON Lines)
    notes: list[str] = attrs.field(factory=list)  # what the reader left out, known once chunks are read
    #: the v1 header's ``kernel`` object: what ``simsmem trace`` knows of the kernel (a writer asks only after the chunks)
    kernel: dict | None = None
    #: the v1 header's ``streams``: what the timed SM needs of a traced kernel (asked for, like ``kernel``, after the chunks)
    streams: Callable[[], Streams | None] = no_streams
    #: the chunks as ``Piece``s, where the reader can hand them out unread (to read them on workers); the same chunks
    #: as ``chunks``, from the same file: take one or the other
    pieces: Iterator[Piece] | None = None

    def read(self) -> Trace:
        """The whole trace: every chunk, concatenated."""
        batches = [c.instructions for c in self.chunks]
        return Trace(InstructionBatch.concat(batches), name=self.name, arch=self.arch, ctas=self.ctas, kernel=self.kernel, streams=self.streams())


def stream_of(trace: Trace, where: str = "trace", chunk: int = CHUNK) -> TraceStream:
    """A trace already in memory, as a stream (for the writers, and to count it as a file is counted)."""
    b = trace.instructions
    chunks = (Chunk(b.take(slice(s, s + chunk)), s, 0) for s in range(0, len(b), chunk))
    return TraceStream(where, trace.name, trace.arch, trace.ctas, 0, chunks, count=len(b), kernel=trace.kernel, streams=lambda: trace.streams)


def rechunk(parts: Iterable[tuple[InstructionBatch, int]], chunk: int = CHUNK) -> Iterator[Chunk]:
    """Gather small ``(batch, bytes done)`` parts into chunks of at least ``chunk`` instructions."""
    pending: list[InstructionBatch] = []
    first = held = done = 0
    for batch, done in parts:
        pending.append(batch)
        held += len(batch)
        if held >= chunk:
            yield Chunk(InstructionBatch.concat(pending), first, done)
            first += held
            pending, held = [], 0
    if held:
        yield Chunk(InstructionBatch.concat(pending), first, done)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while parsing builds and drops many small objects.

    Parsed JSON holds no reference cycles, so reference counting frees it all; left running, the
    collector would rescan the young objects every few hundred allocations (it doubled parse time).
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
