"""``simsmem convert IN OUT``: a trace of any supported form, written as trace v1 in the form OUT's name asks for.

IN: trace v1 (.json, .jsonl, either also .gz; .npz) or an Accel-Sim kernel-N.traceg (also .xz/.gz).
OUT: .json, .json.gz, .jsonl, .jsonl.gz or .npz (numpy columns, the fastest to read back). The
instructions are checked against the arch (``--arch``, else the trace's own, else sm_90) as they
stream through; OUT appears only once every instruction was read and written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator

import attrs

from ..progress import add_quiet_flag, progress
from ..results.pipeline import checked, open_source
from ..traces import Chunk, TraceStream, write_stream


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("convert", help="write a trace (or an Accel-Sim .traceg) as trace v1 .json/.jsonl/.jsonl.gz/.npz", description=__doc__)
    p.add_argument("input", help="trace to read")
    p.add_argument("output", help="trace to write; its name picks the form")
    p.add_argument("--arch", help="check the instructions against this arch (default: the trace's own, else sm_90)")
    add_quiet_flag(p)
    p.set_defaults(func=convert)


def convert(args: argparse.Namespace) -> int:
    source = open_source(args.input, args.arch, None)
    stream = source.stream
    with progress(f"converting {stream.name or args.input}", total=stream.size or None, quiet=args.quiet) as advance:
        ok = checked(source)
        write_stream(attrs.evolve(ok, chunks=_advancing(ok, advance)), args.output)
    for note in stream.notes:
        print(f"simsmem: note: {note}", file=sys.stderr)
    return 0


def _advancing(stream: TraceStream, advance: Callable[[int], None]) -> Iterator[Chunk]:
    """The stream's chunks, telling ``advance`` the bytes of the file each one read."""
    done = 0
    for chunk in stream.chunks:
        yield chunk
        advance(chunk.done - done)
        done = chunk.done
