"""Parallel efficiency of ``--jobs``: a 256-CTA SGEMM trace and a 20-point sweep, on 1 and on N Dask workers.

    python benchmarks/bench_scale.py [WORKERS] [K]

- trace: sgemm_rb64_naive of the real-kernel corpus (64x64 tiles, 16x16 threads), C(1024x1024) = A(1024xK) B(Kx1024),
  K=256 by default: 256 CTAs, 16 batches of 16; the stream read to its end (executed, gathered, checked), as
  ``simsmem trace`` does before writing;
- sweep: the same kernel on an 8x8 grid traced once, then 20 arch variants (banks 16..256 x feed_interval 1, 2 x
  accept_interval 1, 2), each counted and its launch timed on the timed SM (``--engine full``).

Each is timed on a local cluster of 1 worker, then of WORKERS (default: this machine's cores), the clusters started
(as simsmem starts them: ``parallel.WORKER_CONFIG``, ``parallel.warm``) before the clock (their start is printed apart),
and once serially with no cluster. Efficiency = (1 worker's time /
WORKERS' time) / WORKERS. The load average is printed, and the trace's CPU seconds here and on the workers against
the serial run's (what the workers cost besides the work): on a shared machine other processes take cores too.
On a bigger machine: the same command with WORKERS = its cores (a cluster: start ``dask scheduler`` and ``dask
worker`` processes where simsmem is installed, and pass ``--scheduler`` to simsmem).
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from simsmem.config import load_arch
from simsmem.kernel.tracer import StreamSink, trace_kernel
from simsmem.scale import parallel, sweep

REALK = Path(__file__).resolve().parent.parent / "calibration" / "realk"
VARY = ["banks=16,32,64,128,256", "timing.feed_interval=1,2", "timing.accept_interval=1,2"]


def sgemm(data: Path, n: int, k: int, runner=None, sink=None):
    rng = np.random.default_rng(0)
    np.save(data / "a.npy", rng.standard_normal((n, k), dtype=np.float32))
    np.save(data / "b.npy", rng.standard_normal((k, n), dtype=np.float32))
    return trace_kernel(REALK / "ptx" / "sgemm.ptx", "sgemm_rb64_naive", (n // 64, n // 64, 1), (16, 16, 1), 0,
                        [f"zeros:{n * n * 4}", f"npy:{data}/a.npy", f"npy:{data}/b.npy", str(n), str(n), str(k)], base=data,
                        runner=runner, sink=sink)


def traced(data: Path, k: int, runner) -> tuple[float, int]:
    start = time.perf_counter()
    stream = sgemm(data, 1024, k, runner)
    rows = sum(len(c.instructions) for c in stream.chunks)
    return time.perf_counter() - start, rows


def swept(sources, grid, client) -> float:
    start = time.perf_counter()
    rows = (list(parallel.spread(_point, grid, sources, lambda p: p.source, jobs=1, client=client)) if client
            else [(0, _point(sources[p.source], p)) for p in grid])
    assert all(r["status"] == "ok" for _, r in rows), [r["status"] for _, r in rows if r["status"] != "ok"]
    return time.perf_counter() - start


def _point(source, point):
    return sweep.evaluate(source, point, True)


def main() -> None:
    import dask
    from distributed import Client, LocalCluster

    workers = int(sys.argv[1]) if len(sys.argv) > 1 else parallel.jobs_default(None)
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 256
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start; Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        sink = StreamSink(load_arch("sm_90").sm.sms)
        trace = sgemm(data, 512, 256, sink=sink).read()
        sources = [sweep.Source("sgemm", trace, sink.streams(), sink.resources, sink.code)]
        grid = sweep.points(sources, sweep.variants(["sm_90"], VARY), None)
        traced(data, k, None)  # warm: the program's steps, numba's cache
        serial_cpu = time.process_time()
        results = {"serial": (traced(data, k, None)[0],)}
        serial_cpu = time.process_time() - serial_cpu
        results["serial"] += (swept(sources, grid[:2], None) / 2 * len(grid),)
        for n in (1, workers):
            start = time.perf_counter()
            with dask.config.set(parallel.WORKER_CONFIG), LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                                                        dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
                    Client(cluster) as client:
                client.run(parallel.warm)  # (as a cluster simsmem starts: parallel.Workers)
                began = time.perf_counter() - start
                cpu = [time.process_time(), sum(client.run(time.process_time).values())]
                trace_time = traced(data, k, parallel.runner(client=client))[0]
                cpu = [time.process_time() - cpu[0], sum(client.run(time.process_time).values()) - cpu[1]]
                results[n] = (trace_time, swept(sources, grid, client))
                print(f"{n} worker(s): cluster up in {began:.1f} s; the trace took {cpu[0]:.1f} CPU s here and {cpu[1]:.1f} on the "
                      f"workers (serial: {serial_cpu:.1f}); load average {os.getloadavg()[0]:.1f}")
    t1, tn = results[1], results[workers]
    print(f"\n{'':28}{'serial':>10}{'1 worker':>10}{f'{workers} workers':>11}{'speed-up':>10}{'efficiency':>11}")
    for i, what in enumerate((f"trace, 256 CTAs, K={k}", f"sweep, {len(grid)} points")):
        print(f"{what:28}{results['serial'][i]:>9.1f}s{t1[i]:>9.1f}s{tn[i]:>10.1f}s{t1[i] / tn[i]:>9.2f}x{t1[i] / tn[i] / workers:>10.0%}")
    print(f"(serial sweep: 2 points timed, scaled to {len(grid)}); load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
