"""``run FILE --jobs``: a trace file's chunks (.jsonl.gz, .npz) read, checked and counted on worker threads or Dask workers
give the serial run's result, and its errors are the serial run's, in the same order (a regression guard of simsmem's
own output against itself: no hardware numbers). The result on 2 threads (what ``--jobs 2`` starts) is in the quick
suite; the errors, and a Dask cluster of worker processes (what ``--scheduler`` reaches: pieces and results pickled),
are slow tests."""

from __future__ import annotations

import functools
import gzip
import logging

import numpy as np
import orjson
import pytest
from simsmem.cli import main
from simsmem.config import load_arch
from simsmem.errors import TraceError
from simsmem.results.analysis import analyse_stream
from simsmem.results.report import to_csv
from simsmem.scale.parallel import ordered
from simsmem.traces import LANES, OPS, InstructionBatch, open_trace, write_stream
from simsmem.traces.jsonl import read_jsonl
from simsmem.traces.records import Trace
from simsmem.traces.stream import stream_of

distributed = pytest.importorskip("distributed")
N, CHUNK = 25_000, 1_000  # a piece a block of the file (a megabyte of lines): 4 pieces


def random_trace(n: int, seed: int = 0) -> InstructionBatch:
    """LDS and STS of 32 and 128 bits at random aligned addresses, some with conflicts, over 64 warps."""
    rng = np.random.default_rng(seed)
    op = rng.choice([OPS.index("LDS"), OPS.index("STS")], n).astype(np.uint8)
    width = rng.choice([32, 128], n).astype(np.uint8)
    size = (width // 8).astype(np.int64)
    addrs = (rng.integers(0, 8192, (n, LANES)) // size[:, None] * size[:, None]).astype(np.int32)
    return InstructionBatch(op=op, warp=rng.integers(0, 64, n).astype(np.int32), width=width, num=np.zeros(n, np.uint8),
                            trans=np.zeros(n, bool), mask=np.full(n, 0xFFFFFFFF, np.uint32), atom=np.zeros(n, np.uint8),
                            generic=np.zeros(n, bool), wait=np.full(n, -1, np.int32), issue=np.zeros(n, np.int32),
                            delay=np.zeros(n, np.int64), addrs=addrs)


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict:
    """The trace as JSON Lines, and as .npz in chunks of ``CHUNK * 5`` (5 chunks)."""
    paths = {form: tmp_path_factory.mktemp("read") / f"t.{form}" for form in ("jsonl.gz", "npz")}
    for path in paths.values():
        write_stream(stream_of(Trace(random_trace(N), name="random", arch="sm_90"), chunk=CHUNK * 5), path)
    return paths


@pytest.fixture(params=["jsonl.gz", "npz"])
def trace(written, request):
    return written[request.param]


#: ``--jobs 2`` for a trace file: 2 worker threads.
THREADS = functools.partial(ordered, jobs=2)


def analysed(path, spread, keep="none"):
    """``run``'s counting of ``path`` in chunks of ``CHUNK``: serially (``spread`` None), or spread by ``spread``."""
    stream = read_jsonl(path, CHUNK) if path.name.endswith(".jsonl.gz") else open_trace(path)
    return analyse_stream(stream, load_arch("sm_90"), keep=keep, worst=5, spread=spread)


def same(a, b) -> None:
    assert to_csv(a) == to_csv(b)
    assert (a.instructions, a.warps, a.forms, a.worst, a.by_pc, a.unmodelled) == (b.instructions, b.warps, b.forms, b.worst, b.by_pc,
                                                                                  b.unmodelled)


def test_counted_on_workers_is_the_serial_count(trace):
    serial, spread = analysed(trace, None), analysed(trace, THREADS)
    assert serial.instructions == N and serial.worst  # (a trace with conflicts)
    same(serial, spread)


def lines_of(path) -> list[bytes]:
    return gzip.decompress(path.read_bytes()).split(b"\n")


@pytest.mark.slow
@pytest.mark.parametrize("edit", ["late bad line, earlier arch error", "cut short"])
def test_errors_are_the_serial_runs(written, tmp_path, edit):
    """The first error in trace order is raised, whichever piece a worker finishes first (the JSON Lines trace edited)."""
    lines = lines_of(written["jsonl.gz"])
    if edit != "cut short":  # (the file's pieces: 10,488 lines, then about 5,244 each)
        lines[21_000] = b'{"op":"LDS","width":33}'  # a bad line early in the last piece
    if edit == "late bad line, earlier arch error":
        row = orjson.loads(lines[5_000])
        row["addrs"][3] = 300_000  # past sm_90's shared memory: the arch check of the first piece
        lines[5_000] = orjson.dumps(row)
    if edit == "cut short":
        lines = lines[:18_000]  # the header's count says N
    path = tmp_path / "t.jsonl.gz"
    path.write_bytes(gzip.compress(b"\n".join(lines)))
    errors = []
    for spread in (None, THREADS):
        with pytest.raises(TraceError) as exc:
            analysed(path, spread)
        errors.append(str(exc.value))
    assert errors[0] == errors[1]
    assert {"late bad line, earlier arch error": "line 5001", "cut short": "count"}[edit] in errors[0]


@pytest.mark.slow
def test_worker_processes_count_as_serially(trace, capsys):
    """On worker processes (``--scheduler``'s kind of cluster), the pieces and results pickled: the serial result, and
    ``simsmem run FILE --scheduler`` prints the serial run's table."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.ERROR) as c, distributed.Client(c) as client:
        same(analysed(trace, None), analysed(trace, functools.partial(ordered, client=client)))
        command = ["run", str(trace), "--engine", "analytic", "--quiet"]
        outputs = []
        for extra in (["--jobs", "1"], ["--scheduler", c.scheduler_address]):
            assert main([*command, *extra]) == 0
            outputs.append(capsys.readouterr().out)
        assert outputs[0] == outputs[1] and "Bank" in outputs[0]
