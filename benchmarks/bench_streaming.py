"""Large traces end to end: ``simsmem run`` on 10M random mixed instructions, from .jsonl.gz and from .npz.

    python benchmarks/bench_streaming.py [N] [--dir DIR] [--jobs 1 2] [--runs R]

Writes the trace once (bench_count's random mix, 32 warps; kept in DIR, default the system temp
folder, and reused by later runs: never committed), converts it to .npz (again once simsmem's .npz writer is newer
than the file), then times
``simsmem run FILE --engine analytic --quiet --jobs J`` (the summary table; ``--jobs 1``: one thread) in a child
process, best of R runs, and reports warp-instructions per second (wall and CPU), the child's peak RSS and the load
average. Also times, in this process, reading and checking the .jsonl.gz without counting, to say what parsing costs
on its own.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_count import random_batch
from simsmem.traces import CHUNK, Chunk, TraceStream, open_trace, write_stream
from simsmem.traces import npz as npz_form


def generated(n: int, path: Path) -> TraceStream:
    """``n`` random instructions, made chunk by chunk (the generator never holds the whole trace)."""
    chunks = (Chunk(random_batch(min(CHUNK, n - s), seed=s), s, 0) for s in range(0, n, CHUNK))
    return TraceStream(str(path), "random", "sm_90", 1, 0, chunks, count=n)


def child_run(path: Path, jobs: int) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (the child's and its threads') and peak RSS (MiB) of ``simsmem run PATH --engine
    analytic --quiet --jobs JOBS``."""
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    child = subprocess.run([sys.executable, "-c", CHILD, str(path), str(jobs)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    if child.returncode:
        raise SystemExit(f"simsmem run {path} failed: {child.stderr.strip()}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return seconds, cpu, int(child.stderr.split()[-2]) / 1024


#: ``simsmem run`` in a child that reports its own peak RSS (VmHWM, kB) on stderr. Not ``ru_maxrss``:
#: Linux carries a parent's peak across fork and exec into it, and this benchmark's parent is large.
CHILD = """
import re, sys
from simsmem.cli import main
code = main(["run", sys.argv[1], "--engine", "analytic", "--quiet", "--jobs", sys.argv[2]])
print(re.search(r"VmHWM:.*", open("/proc/self/status").read())[0], file=sys.stderr)
sys.exit(code)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("n", type=int, nargs="?", default=10_000_000)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "simsmem-bench")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    jsonl, npz = args.dir / f"random-{args.n}.jsonl.gz", args.dir / f"random-{args.n}.npz"
    print(f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; {args.n:,} instructions")
    if not jsonl.exists():
        start = time.perf_counter()
        write_stream(generated(args.n, jsonl), jsonl)
        print(f"wrote {jsonl} ({jsonl.stat().st_size / 2**20:.0f} MiB) in {time.perf_counter() - start:.0f} s")
    if not npz.exists() or npz.stat().st_mtime < Path(npz_form.__file__).stat().st_mtime:
        start = time.perf_counter()
        write_stream(open_trace(jsonl), npz)
        print(f"converted to {npz} ({npz.stat().st_size / 2**20:.0f} MiB) in {time.perf_counter() - start:.0f} s")
    sum(len(c.instructions) for c in open_trace(jsonl).chunks)  # warm: numba's cache loaded, the file in the page cache
    start, cpu = time.perf_counter(), time.process_time()
    read = sum(len(c.instructions) for c in open_trace(jsonl).chunks)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"read and check .jsonl.gz (gunzip, JSON, v1 checks; no counting): {read / seconds:,.0f} warp-instructions/s "
          f"({read / cpu:,.0f} a CPU second)")
    for path in (jsonl, npz):
        for jobs in args.jobs:
            loads = [os.getloadavg()[0]]
            seconds, cpu, peak = min(child_run(path, jobs) for _ in range(args.runs))
            loads.append(os.getloadavg()[0])
            print(f"simsmem run {path.name} --jobs {jobs}: {args.n / seconds:,.0f} warp-instructions/s ({seconds:.1f} s; "
                  f"{args.n / cpu:,.0f} a CPU second), peak RSS {peak:.0f} MiB; load average {min(loads):.1f} to {max(loads):.1f}")


if __name__ == "__main__":
    main()
