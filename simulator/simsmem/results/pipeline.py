"""From a kernel or a trace to counts and times: the one path of every command and of ``simsmem.api``.

    source = open_source(path, arch, kernel)   # a trace file read (and its arch resolved), or a kernel traced
    result = count(source, keep="cta")          # checked against the arch and counted, in one streaming pass
    result = timed(source, result, fixes=3)     # the timed SM where the source has warp streams, else the LSU engine

A kernel traced here has its warps' streams, and so has a trace file ``simsmem trace`` wrote (its ``streams``); a trace
without them (hand-made, imported, written before) is timed one CTA at a time on the LSU engine (a traced kernel's
trace with a note saying why), as is every input on an arch without a timed SM.

``kernel`` is how to trace a kernel file (the launch options, which the CLI and the API each read their own way):
a callable that gets the ``StreamSink`` the timed SM needs (or None) and returns the kernel's ``TraceStream``.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs
import numpy as np

from ..config import ArchConfig, load_arch
from ..errors import TraceError
from ..explain.distinct import Distinct, gather
from ..explain.fixes import cycles_of, distinct_timing, launch_timing
from ..kernel.program import KERNEL_SUFFIXES
from ..kernel.streams import WarpStreams
from ..kernel.tracer import StreamSink
from ..sm import LaunchTiming
from ..traces import TraceStream, open_trace
from .analysis import Result, Spread, analyse_stream, with_launch, with_timeline
from .validate import resolve_arch, validated

Tracer = Callable[[StreamSink | None], TraceStream]


@attrs.frozen
class Source:
    """What is counted: a trace's stream on its arch, and, for a kernel traced (or a trace file holding its streams) on
    an arch with a timed SM, the warp streams of one SM's CTAs that the timed SM needs (``sink``); for a traced
    kernel's trace file that the timed SM cannot time, why not (``untimed``)."""

    stream: TraceStream
    arch: ArchConfig
    sink: StreamSink | None = None
    untimed: str = ""

    @property
    def ctas(self) -> frozenset[int]:
        """The CTAs the timed SM runs (their rows are the ones to keep)."""
        return self.sink.ctas if self.sink is not None else frozenset()


def open_source(path: str, arch: str | ArchConfig | None, kernel: Tracer | None, timed: bool = True) -> Source:
    """A trace file read (its own arch unless ``arch`` is given), or, for a kernel file, the kernel traced by ``kernel``
    on ``arch`` (default sm_90), keeping one SM's warp streams where ``timed`` and the arch has a timed SM."""
    if not path.endswith(KERNEL_SUFFIXES):
        stream = open_trace(path)
        chosen = arch if isinstance(arch, ArchConfig) else resolve_arch(stream, arch, path)
        if not timed:
            return Source(stream, chosen)
        streams = stream.streams()
        if streams is None:  # a traced kernel's trace written before the streams were (others are the LSU engine's own)
            return Source(stream, chosen, untimed="the trace holds no warp streams (simsmem trace writes them)" if stream.kernel else "")
        if chosen.sm is None:
            return Source(stream, chosen, untimed=f"{chosen.name} has no timed SM")
        if int(streams.sms) != chosen.sm.sms:
            return Source(stream, chosen, untimed=f"its warp streams are one SM's of {int(streams.sms)}, {chosen.name} has {chosen.sm.sms}")
        return Source(stream, chosen, StreamSink.of(streams, path))
    chosen = arch if isinstance(arch, ArchConfig) else load_arch(arch or "sm_90")
    sink = StreamSink(chosen.sm.sms) if timed and chosen.sm is not None else None
    return Source(kernel(sink), chosen, sink)


def checked(source: Source) -> TraceStream:
    """The source's stream, each chunk checked against its arch as it is read."""
    return validated(source.stream, source.arch)


def count(source: Source, keep: str = "none", worst: int = 10, advance: Callable[[int], None] | None = None, spread: Spread | None = None
          ) -> Result:
    """The source checked against its arch and counted (``analysis.analyse_stream``, its chunks read and counted on workers
    by ``spread`` where that helps), keeping ``keep`` of the rows (the timed SM's CTAs' where the source was traced for it)."""
    return analyse_stream(source.stream, source.arch, keep=keep, ctas=source.ctas, worst=worst, advance=advance, spread=spread)


def timed(source: Source, result: Result, fixes: int = 0, advance: Callable[[int], None] | None = None, sampling: bool = False) -> Result:
    """``result`` with its times: the whole launch on the timed SM (and ``fixes`` what-ifs; ``sampling``: the warp states
    ncu's sampler would take) where the source has warp streams, else one CTA on the LSU engine (a note says why)."""
    streams = _streams(source, result.rows, result.instructions)
    if streams is not None:
        return with_launch(result, streams, source.sink.resources, source.sink.code, fixes, sampling)
    result = with_timeline(result, advance)
    return attrs.evolve(result, notes=result.notes + (f"timed on the LSU engine, one CTA: {source.untimed}",)) if source.untimed else result


def cycles(source: Source, result: Result) -> Callable[[np.ndarray], float] | None:
    """The launch's cycles for given wavefronts of each kept row (a source with warp streams, on an arch with a timed SM)."""
    streams = _streams(source, result.rows, result.instructions)
    if streams is None:
        return None
    return cycles_of(launch_timing(streams, result.trace.instructions, source.arch, source.sink.resources, source.sink.code))


def distinct(source: Source, index: int | None = None, advance: Callable[[int], None] | None = None
             ) -> tuple[Distinct, Callable[[np.ndarray], LaunchTiming] | None]:
    """The source's distinct rows, counted, in the memory of them and of one CTA's rows (what ``explain`` and the fix
    search read), and the launch's timing for given wavefronts of each (a source with warp streams, on an arch with a
    timed SM)."""
    d = gather(source.stream, source.arch, ctas=source.ctas, index=index, advance=advance)
    streams = _streams(source, d.rows, d.instructions)
    return d, (distinct_timing(d, streams, source.sink.resources, source.sink.code) if streams is not None else None)


def _streams(source: Source, rows: np.ndarray | None, total: int) -> WarpStreams | None:
    """The sink's warp streams (None: none), every trace row they name among the kept ``rows`` (None: all ``total``
    rows were kept), as a trace file's streams need not have it."""
    streams = source.sink.streams() if source.sink is not None else None
    if streams is not None:
        named = np.concatenate([r[r >= 0] for r in streams.rows] or [np.zeros(0, np.int64)])
        outside = named[~np.isin(named, rows)] if rows is not None else named[named >= total]
        if len(outside):
            raise TraceError(f"{source.stream.where}: streams.row", f"row {outside[0]} is not one of the rows of the streams' CTAs")
    return streams
