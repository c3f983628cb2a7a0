"""``--jobs``/``--scheduler``: a launch's CTAs on a real local Dask cluster (2 worker processes) give the serial run's
output byte for byte, even where CTAs read what earlier CTAs wrote.

Regression guards of simsmem's own output (no hardware numbers): each test compares a run on the workers with a
serial run of simsmem itself. The kernels are written here (CUDA below, compiled by nvcc when the test runs). The
cluster's tests are slow (starting 2 worker processes and their first imports: 15 to 30 s on the 2-core VM).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import attrs
import numpy as np
import pytest
from simsmem.cli import main
from simsmem.kernel.tracer import launch_kernel
from simsmem.scale import parallel

#: One warp a CTA, so a batch holds 128 CTAs and 300 CTAs make 3 batches. ``ticket``: each CTA draws a ticket from a
#: global counter and its shared-memory stride (32 words: 32-way conflicts; 33: none) follows the ticket, so a batch
#: run on the memory before any CTA ran would trace other addresses. ``plain``: the CTA's own index instead.
#: ``fault``: CTA 299 writes past its output.
SOURCE = r"""
__device__ void body(int t, int *out, int n) {
    __shared__ int s[32 * 33];
    int stride = (t & 1) ? 33 : 32;
    s[threadIdx.x * stride] = threadIdx.x;
    __syncthreads();
    out[blockIdx.x * 32 + threadIdx.x + n] = s[(threadIdx.x * stride + 32) % (32 * 33)] + t;
}
extern "C" __global__ void ticket(int *counter, int *out) {
    __shared__ int t;
    if (threadIdx.x == 0) t = atomicAdd(counter, 1);
    __syncthreads();
    body(t, out, 0);
}
extern "C" __global__ void plain(int *counter, int *out) { body(blockIdx.x, out, 0); }
extern "C" __global__ void fault(int *counter, int *out) { body(blockIdx.x, out, blockIdx.x == 299 ? 64 : 0); }
"""
LAUNCH = ["--grid", "300", "--block", "32", "--arg=zeros:4", "--arg=zeros:38400", "-q"]


@pytest.fixture(scope="module")
def cluster():
    """A local Dask cluster of 2 worker processes, and its scheduler's address."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.ERROR) as c, distributed.Client(c) as client:
        yield client


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("parallel") / "k.cu"
    path.write_text(SOURCE)
    main(["trace", str(path), "--kernel", "plain", *LAUNCH, "--cta", "0,0,0", "-o", str(path.with_suffix(".json"))])  # nvcc once
    return path


@pytest.fixture
def reruns(monkeypatch) -> list[list[int]]:
    """The CTA lists run in this process (before the workers took over, or again after them)."""
    seen: list[list[int]] = []
    real = parallel._here

    def counting(program, launch, ctas, *rest):
        seen.append(ctas)
        return real(program, launch, ctas, *rest)
    monkeypatch.setattr(parallel, "_here", counting)
    return seen


@pytest.mark.slow
@pytest.mark.parametrize("name", ["plain", "ticket"])
def test_trace_on_workers_is_the_serial_trace(cluster, kernel, reruns, name, tmp_path, capsys):
    serial, spread = tmp_path / "serial.jsonl.gz", tmp_path / "spread.jsonl.gz"
    assert main(["trace", str(kernel), "--kernel", name, *LAUNCH, "--jobs", "1", "-o", str(serial)]) == 0
    assert main(["trace", str(kernel), "--kernel", name, *LAUNCH, "--scheduler", cluster.scheduler.address, "-o", str(spread)]) == 0
    assert spread.read_bytes() == serial.read_bytes()
    err = capsys.readouterr().err
    assert "2 workers" in err and "wrote" in err
    # plain: every batch taken from the workers; ticket: batches 2 and 3 read the counter that batch 1 changed, so they
    # ran again here on the serial run's memory
    assert [c[0] for c in reruns] == ([] if name == "plain" else [128, 256])


@pytest.mark.slow
def test_memory_after_the_launch_is_the_serial_runs(cluster, kernel):
    """The counter and the outputs, as ``launch_kernel``'s launch holds them once the trace is read."""
    outs = []
    for runner in (None, parallel.runner(client=cluster)):
        stream, launch = launch_kernel(kernel, "ticket", (300, 1, 1), (32, 1, 1), 0, ["zeros:4", "zeros:38400"], runner=runner)
        rows = sum(len(c.instructions) for c in stream.chunks)
        outs.append((rows, stream.kernel["executed"], *(b.data.tobytes() for b in launch.memory.buffers)))
    assert outs[0] == outs[1]
    assert np.frombuffer(outs[1][2], np.int32).tolist() == [300]  # every CTA's ticket drawn once


@pytest.mark.slow
def test_timed_run_on_workers_is_the_serial_run(cluster, kernel, capsys):
    """``run --engine full``: the timed SM's CTAs (0, 132 and 264: one in each batch) come back from the workers."""
    common = ["run", str(kernel), "--kernel", "plain", *LAUNCH, "--format", "json"]
    assert main([*common, "--jobs", "1"]) == 0
    serial = capsys.readouterr().out
    assert main([*common, "--scheduler", cluster.scheduler.address]) == 0
    assert capsys.readouterr().out == serial
    assert json.loads(serial)["timing"]["sm"]["ctas"] == 3


@pytest.mark.slow
def test_a_failed_batch_names_its_ctas(cluster, kernel, tmp_path, capsys):
    out = tmp_path / "f.jsonl"
    assert main(["trace", str(kernel), "--kernel", "fault", *LAUNCH, "--scheduler", cluster.scheduler.address, "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "(CTA 256,0,0 to 299,0,0)" in err and "out of bounds" in err and "Traceback" not in err
    assert not out.exists()


def _total(shared: np.ndarray, item: int) -> int:
    return int(shared.sum()) + item


@pytest.mark.slow
def test_spreads_of_equal_data_on_one_client(cluster):
    """Ten ``spread``s of the same shared array on one client (a sweep of the same trace again): while Dask hashed what
    was scattered, equal data had one key, and one spread's release of it could lose the next one's ("lost
    dependencies": a race, in 1 of 3 runs of this test before 0a67745)."""
    shared = [np.arange(1 << 20)]
    for _ in range(10):
        assert dict(parallel.spread(_total, list(range(8)), shared, lambda item: 0, client=cluster)) == {i: int(shared[0].sum()) + i for i in range(8)}


def test_packed_columns_come_back_as_they_were():
    """A worker sends a column of one value as that value; the coordinator's column is the same (a broadcast stays one)."""
    from simsmem.traces.lanes import no_sources
    from simsmem.traces.records import Instruction, InstructionBatch

    batch = InstructionBatch.from_instructions([Instruction(op="LDS", warp=w, addrs=list(range(0, 128, 4))) for w in range(3)])
    back = parallel.unpack(parallel.pack(batch))
    for name in ("op", "warp", "width", "mask", "addrs", "src", "others"):
        a, b = getattr(batch, name), getattr(back, name)
        assert a.dtype == b.dtype and a.shape == b.shape and (a == b).all() and (not any(a.strides)) == (not any(b.strides)), name
    viewed = parallel.unpack(parallel.pack(attrs.evolve(batch, src=no_sources(3)))).src
    assert not any(viewed.strides) and viewed.shape == (3, 32) and (viewed == -1).all()


def test_merged_ranges_and_indices():
    """Accesses (offset, bytes) joined into ranges where they overlap or touch, and the bytes of ranges back."""
    ranges = parallel.merged(np.array([9, 0, 4, 10, 1, 20]), np.array([2, 2, 2, 2, 2, 4]))
    assert ranges.tolist() == [[0, 3], [4, 6], [9, 12], [20, 24]]
    assert parallel.indices(ranges).tolist() == [0, 1, 2, 4, 5, 9, 10, 11, 20, 21, 22, 23]


def test_a_scheduler_not_there_is_one_line(kernel, tmp_path, capsys):
    out = tmp_path / "t.jsonl"
    assert main(["trace", str(kernel), "--kernel", "plain", *LAUNCH, "--scheduler", "nonsense", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("simsmem: --scheduler: cannot reach a Dask scheduler at nonsense") and not out.exists()
