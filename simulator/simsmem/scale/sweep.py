"""A sweep: inputs x arch variants x changes of one shared array, each point counted and timed, in one table.

An input is a trace, or a kernel traced once (its CTAs on workers as ``simsmem trace`` runs them). An arch variant
is a config (``--arch``) with fields set over it (``variants``: ``banks=16``, ``timing.feed_interval=1``, every
combination of the values given). A change is one of ``fixes.candidates`` of a named shared array (a
re-declaration, a padding or a swizzle; the array as written is always a point). A point's row holds ncu's
counters and its cycles (a traced kernel's launch on the timed SM; a trace's one CTA on the timing engine). Points
run on Dask workers (``parallel.spread``); the table is rewritten whole as points finish, so a rerun takes the
points it holds and runs only the others, and a point that fails is a row saying why. ``best`` marks each input's
point with the fewest cycles (then bank conflicts).
"""

from __future__ import annotations

import csv
import io
import itertools
import os
import pickle
import tempfile
from pathlib import Path

import attrs
import numpy as np
import yaml

from ..config import ArchConfig, load_arch
from ..errors import SimsmemError
from ..explain.arrays import arrays_of, find
from ..explain.fixes import apply, candidates
from ..kernel.streams import WarpStreams
from ..results.analysis import analyse, with_launch, with_timeline
from ..results.metrics import reported
from ..traces import Trace
from .parallel import pack, unpack

CYCLES = "sm__cycles_elapsed.max"
CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
#: The columns before the counters, in order; a point is known by the first four.
KEY = ("input", "arch", "array", "change")
LEAD = (*KEY, "status", "best", CYCLES)


@attrs.frozen(eq=False)
class Source:
    """One input, ready to count: its whole trace, and for a traced kernel what the timed SM needs."""

    name: str
    trace: Trace
    streams: WarpStreams | None = None
    resources: dict[str, int] = attrs.field(factory=dict)
    code: dict[int, dict[str, str]] = attrs.field(factory=dict)
    sent: bytes | None = attrs.field(default=None, init=False, repr=False)  # its pickled form as received (``_source``)

    def __reduce__(self):
        """To the workers with its columns of one value as that value (an SGEMM's: 148 MB to 43 MB), as one bytes object
        (Dask sends each array apart otherwise: the 64-CTA SGEMM's warp streams, 4,665 frames); a worker passes on the
        bytes it received (a peer fetching the trace costs it no pickling while it runs a point)."""
        if self.sent is not None:
            return _source, (self.sent,)
        t = self.trace
        fields = (self.name, pack(t.instructions), attrs.evolve(t, instructions=None), self.streams, self.resources, self.code)
        return _source, (pickle.dumps(fields, protocol=pickle.HIGHEST_PROTOCOL),)


def _source(data: bytes) -> Source:
    name, columns, trace, *rest = pickle.loads(data)  # noqa: S301 - what a Source's __reduce__ made
    source = Source(name, attrs.evolve(trace, instructions=unpack(columns)), *rest)
    object.__setattr__(source, "sent", data)  # (not an init field: a Source evolved from it pickles itself anew)
    return source


@attrs.frozen
class Point:
    source: int  # index into the sweep's sources
    arch: ArchConfig
    array: str  # "" for none
    change: int  # index into fixes.candidates of the array under this arch; -1: as written
    label: str  # what the table says of the change

    def key(self, sources: list[Source]) -> tuple[str, str, str, str]:
        return sources[self.source].name, self.arch.name, self.array, self.label


def variants(archs: list[str], vary: list[str]) -> list[ArchConfig]:
    """Each arch with every combination of the ``FIELD=V1,V2,...`` settings (a dotted FIELD reaches into a mapping:
    ``timing.feed_interval``); the variant is named ``ARCH+FIELD=V+...``."""
    axes = []
    for text in vary:
        field, sep, values = text.partition("=")
        if not sep or not field or not values:
            raise SimsmemError("--vary", f"expected FIELD=V1,V2,..., got {text!r}")
        axes.append([(field, v.strip()) for v in values.split(",")])
    out = []
    with tempfile.TemporaryDirectory(prefix="simsmem-sweep-") as tmp:
        for arch in archs:
            base = load_arch(arch)
            if not axes:
                out.append(base)
                continue
            for combo in itertools.product(*axes):
                name = "+".join([base.name, *(f"{f}={v}" for f, v in combo)])
                data: dict = {"base": arch if not Path(arch).exists() else str(Path(arch).resolve()), "name": name}
                for field, value in combo:
                    *path, last = field.split(".")
                    node = data
                    for part in path:
                        node = node.setdefault(part, {})
                    node[last] = yaml.safe_load(value)
                path = Path(tmp) / f"v{len(out)}.yaml"
                path.write_text(yaml.safe_dump(data))
                try:
                    out.append(load_arch(str(path)))
                except SimsmemError as exc:
                    raise SimsmemError(f"--vary {name}", exc.what) from None
    return out


def points(sources: list[Source], archs: list[ArchConfig], array: str | None) -> list[Point]:
    """Every point of the grid: each source under each arch, as written and (``array``) with each change of that array."""
    out = []
    for s, source in enumerate(sources):
        try:
            found = find(arrays_of(source.trace), array) if array else None
        except SimsmemError as exc:
            raise SimsmemError(f"{source.name}: --array", exc.what) from None
        for arch in archs:
            out.append(Point(s, arch, array or "", -1, "as written"))
            if found is not None:
                out += [Point(s, arch, array, k, c.statement or c.what) for k, c in enumerate(candidates(found, arch))]
    return out


def evaluate(source: Source, point: Point, timed: bool = True) -> dict:
    """A point's row (``source``: its input): ncu's counters, and its cycles (``timed``); a point that cannot be counted
    says why in ``status``."""
    try:
        trace = source.trace
        if point.change >= 0:
            a = find(arrays_of(trace), point.array)
            remap = candidates(a, point.arch)[point.change].remap
            b = trace.instructions
            trace = attrs.evolve(trace, instructions=attrs.evolve(b, addrs=apply(b.addrs, remap, (a.base, a.size))))
        result = analyse(trace, point.arch)
        metrics = dict(result.metrics)
        if timed and source.streams is not None:
            metrics = dict(with_launch(result, source.streams, source.resources, source.code).metrics)
        elif timed:
            metrics[CYCLES] = with_timeline(result).timeline.cycles
        return {"status": "ok", **reported(metrics, result.unmodelled)}
    except SimsmemError as exc:
        return {"status": f"error: {exc}"}
    except Exception as exc:  # a fault of simsmem's own: named, and the other points go on
        return {"status": f"error: {type(exc).__name__}: {exc}"}


def read_table(path: Path) -> dict[tuple[str, ...], dict]:
    """The rows an earlier run wrote, by point (those that did not fail)."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise SimsmemError(str(path), f"cannot read ({exc.strerror})") from None
    reader = csv.DictReader(io.StringIO(text))
    if text.strip() and not set(LEAD) <= set(reader.fieldnames or ()):
        raise SimsmemError(str(path), f"not a sweep table (its columns lack {', '.join(sorted(set(LEAD) - set(reader.fieldnames or ())))}); "
                                      "it is left as it is")
    return {tuple(r[k] for k in KEY): r for r in reader if r["status"] == "ok"}


def write_table(path: Path, rows: dict[tuple[str, ...], dict]) -> None:
    """The table, whole (a temporary file, then a rename): rows in point order, ``best`` marking each input's point
    with the fewest cycles, then bank conflicts."""
    best: dict[str, tuple] = {}
    for key, r in rows.items():
        if r.get("status") == "ok":
            rank = (_number(r.get(CYCLES)), _number(r.get(CONFLICTS)), key)
            if key[0] not in best or rank < best[key[0]]:
                best[key[0]] = rank
    chosen = {rank[2] for rank in best.values()}
    counters = sorted({c for r in rows.values() for c in r} - set(LEAD) - set(KEY))
    out = io.StringIO()
    w = csv.DictWriter(out, [*LEAD, *counters], lineterminator="\n", restval="")
    w.writeheader()
    for key, r in rows.items():
        w.writerow({**r, **dict(zip(KEY, key)), "best": int(key in chosen)})
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(out.getvalue())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _number(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return np.inf
