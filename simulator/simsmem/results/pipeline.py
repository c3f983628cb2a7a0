"""From a kernel or a trace to counts and times: the one path of every command and of ``simsmem.api``.

    source = open_source(path, arch, kernel)   # a trace file read (and its arch resolved), or a kernel traced
    result = count(source, keep="cta")          # checked against the arch and counted, in one streaming pass
    result = timed(source, result, fixes=3)     # the timed SM for a traced kernel, the LSU engine for a trace file

``kernel`` is how to trace a kernel file (the launch options, which the CLI and the API each read their own way):
a callable that gets the ``StreamSink`` the timed SM needs (or None) and returns the kernel's ``TraceStream``.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs
import numpy as np

from ..config import ArchConfig, load_arch
from ..explain.distinct import Distinct, gather
from ..explain.fixes import distinct_cycles, launch_cycles
from ..kernel.program import KERNEL_SUFFIXES
from ..kernel.tracer import StreamSink
from ..traces import TraceStream, open_trace
from .analysis import Result, analyse_stream, with_launch, with_timeline
from .validate import resolve_arch, validated

Tracer = Callable[[StreamSink | None], TraceStream]


@attrs.frozen
class Source:
    """What is counted: a trace's stream on its arch, and, for a kernel traced on an arch with a timed SM, the warp
    streams of one SM's CTAs that the timed SM needs (``sink``)."""

    stream: TraceStream
    arch: ArchConfig
    sink: StreamSink | None = None

    @property
    def ctas(self) -> frozenset[int]:
        """The CTAs the timed SM runs (their rows are the ones to keep)."""
        return self.sink.ctas if self.sink is not None else frozenset()


def open_source(path: str, arch: str | ArchConfig | None, kernel: Tracer | None, timed: bool = True) -> Source:
    """A trace file read (its own arch unless ``arch`` is given), or, for a kernel file, the kernel traced by ``kernel``
    on ``arch`` (default sm_90), keeping one SM's warp streams where ``timed`` and the arch has a timed SM."""
    if not path.endswith(KERNEL_SUFFIXES):
        stream = open_trace(path)
        return Source(stream, arch if isinstance(arch, ArchConfig) else resolve_arch(stream, arch, path))
    chosen = arch if isinstance(arch, ArchConfig) else load_arch(arch or "sm_90")
    sink = StreamSink(chosen.sm.sms) if timed and chosen.sm is not None else None
    return Source(kernel(sink), chosen, sink)


def checked(source: Source) -> TraceStream:
    """The source's stream, each chunk checked against its arch as it is read."""
    return validated(source.stream, source.arch)


def count(source: Source, keep: str = "none", worst: int = 10, advance: Callable[[int], None] | None = None) -> Result:
    """The source checked against its arch and counted (``analysis.analyse_stream``), keeping ``keep`` of the rows (the
    timed SM's CTAs' where the source was traced for it)."""
    return analyse_stream(source.stream, source.arch, keep=keep, ctas=source.ctas, worst=worst, advance=advance)


def timed(source: Source, result: Result, fixes: int = 0, advance: Callable[[int], None] | None = None) -> Result:
    """``result`` with its times: a traced kernel's whole launch on the timed SM (and ``fixes`` what-ifs), else one CTA
    on the LSU engine."""
    streams = source.sink.streams() if source.sink is not None else None
    if streams is not None:
        return with_launch(result, streams, source.sink.resources, source.sink.code, fixes)
    return with_timeline(result, advance)


def cycles(source: Source, result: Result) -> Callable[[np.ndarray], float] | None:
    """The launch's cycles for given wavefronts of each kept row (a traced kernel on an arch with a timed SM)."""
    streams = source.sink.streams() if source.sink is not None else None
    if streams is None:
        return None
    return launch_cycles(streams, result.trace.instructions, source.arch, source.sink.resources, source.sink.code)


def distinct(source: Source, index: int | None = None, advance: Callable[[int], None] | None = None
             ) -> tuple[Distinct, Callable[[np.ndarray], float] | None]:
    """The source's distinct rows, counted, in the memory of them and of one CTA's rows (what ``explain`` and the fix
    search read), and the launch's cycles for given wavefronts of each (a traced kernel on an arch with a timed SM)."""
    d = gather(source.stream, source.arch, ctas=source.ctas, index=index, advance=advance)
    streams = source.sink.streams() if source.sink is not None else None
    return d, (distinct_cycles(d, streams, source.sink.resources, source.sink.code) if streams is not None else None)
