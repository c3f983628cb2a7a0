"""A whole grid, small and quick (issue 35): the 64x64-CTA SGEMM traced, stored, run, explained and searched.

    python benchmarks/bench_grid.py [--dir DIR] [--sizes] [--kernel]

sgemm_rb64_naive of calibration/realk (ptxas 13.0.88's SASS: a 64x64 tile, 4x4 outputs a thread, 16x16 threads) on
C(4096x4096) = A(4096x128) B(128x4096): 64x64 CTAs, 9,699,328 shared-memory warp-instructions. A and B are drawn
here with a fixed seed (kept in DIR, default the system temp folder, with the trace: never committed; a later run
reuses the trace). Each step runs in a child process, ``simsmem ... --quiet``; printed: its wall seconds, its CPU
seconds (user + system) and its peak RSS (VmHWM). ``--sizes``: the trace's bytes stored as it is and three other
ways (whole lane columns stored, as simsmem wrote them before, and deflated; lane patterns stored), by deflating
the decoded columns again (about a minute). ``--kernel``: also ``run`` and ``explain`` the kernel itself (traced
again each time, then timed on the timed SM: minutes).
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PTX = ROOT / "calibration" / "realk" / "ptx" / "sgemm.ptx"
M = N = 4096
K = 128


def launch(data: Path) -> list[str]:
    """``simsmem trace``'s kernel and launch options for the grid."""
    return [str(PTX), "--kernel", "sgemm_rb64_naive", "--grid", f"{N // 64},{M // 64}", "--block", "16,16",
            f"--arg=zeros:{M * N * 4}", f"--arg=npy:{data / 'a.npy'}", f"--arg=npy:{data / 'b.npy'}", f"--arg={M}", f"--arg={N}", f"--arg={K}"]


#: ``simsmem`` in a child that reports its own peak RSS (VmHWM, kB) on stderr's last line. Not ``ru_maxrss``: Linux
#: carries a parent's peak across fork and exec into it.
CHILD = """
import re, sys
from simsmem.cli import main
code = main(sys.argv[1:])
print(re.search(r"VmHWM:.*", open("/proc/self/status").read())[0], file=sys.stderr)
sys.exit(code)
"""


def child(argv: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MiB) of ``simsmem ARGV``."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen([sys.executable, "-c", CHILD, *argv], stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        seconds = time.perf_counter() - start
        err.seek(0)
        text = err.read().decode()
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"simsmem {' '.join(argv)} failed: {text.strip()}")
    return seconds, usage.ru_utime + usage.ru_stime, int(text.split()[-2]) / 1024


def sizes(path: Path) -> None:
    """The trace's bytes as stored, and as whole lane columns (stored, deflated) and lane patterns stored."""
    from simsmem.traces import open_trace

    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
    lanes = [i for i in infos if i.filename.split(".")[1] in ("addrs", "src")]
    rest = [i for i in infos if i not in lanes]
    stored, deflated = sum(i.file_size for i in infos), path.stat().st_size
    whole_stored = whole_deflated = whole_lanes = whole_lanes_deflated = 0
    patterns = []
    for chunk in open_trace(path).chunks:
        for name, p in (chunk.lanes or {}).items():
            column = np.ascontiguousarray(getattr(chunk.instructions, name)).tobytes()
            whole_lanes += len(column) + 128  # the member's .npy header
            whole_lanes_deflated += len(zlib.compress(column, 1))
            patterns.append(len(p.table))
    whole_stored = sum(i.file_size for i in rest) + whole_lanes
    whole_deflated = sum(i.compress_size for i in rest) + whole_lanes_deflated
    print(f"lane patterns a chunk: at most {max(patterns)}, {np.mean(patterns):.1f} on average ({len(patterns)} chunks)")
    print(f"{'as':38} {'bytes':>15} {'of which lanes':>15}")
    for what, total, of_lanes in (("whole lane columns, stored (before)", whole_stored, whole_lanes),
                                  ("whole lane columns, deflated", whole_deflated, whole_lanes_deflated),
                                  ("lane patterns, stored", stored, sum(i.file_size for i in lanes)),
                                  ("lane patterns, deflated (the file)", deflated, sum(i.compress_size for i in lanes))):
        print(f"{what:38} {total:>15,} {of_lanes:>15,}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "simsmem-bench-grid")
    parser.add_argument("--sizes", action="store_true", help="also the trace's size stored other ways")
    parser.add_argument("--kernel", action="store_true", help="also run and explain the kernel itself (minutes)")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(35)
    for name, shape in (("a", (M, K)), ("b", (K, N))):
        if not (args.dir / f"{name}.npy").exists():
            np.save(args.dir / f"{name}.npy", rng.standard_normal(shape, dtype=np.float32))
    trace = args.dir / "sgemm64x64.npz"
    print(f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; load average {os.getloadavg()[0]:.1f}")
    steps = [] if trace.exists() else [("trace", ["trace", *launch(args.dir), "-o", str(trace)])]
    t = str(trace)
    steps += [("run --engine analytic", ["run", t, "--engine", "analytic"]), ("run", ["run", t]), ("run --format json", ["run", t, "--format", "json"]),
              ("explain", ["explain", t]), ("swizzle --search --trace", ["swizzle", "--search", "--trace", t])]
    if args.kernel:
        steps += [("run KERNEL", ["run", *launch(args.dir)]), ("explain KERNEL", ["explain", *launch(args.dir)])]
    print(f"{'step':28} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9}")
    for name, argv in steps:
        seconds, cpu, peak = child([*argv, "--quiet"])
        print(f"{name:28} {seconds:8.1f} {cpu:8.1f} {peak:9.0f}", flush=True)
        if name == "trace":
            print(f"{'':28} {trace.stat().st_size:,} bytes")
    print(f"load average {os.getloadavg()[0]:.1f}")
    if args.sizes:
        sizes(trace)


if __name__ == "__main__":
    main()
