"""How long the default step limit lets a kernel that never ends run: benchmarks/spin.cu, traced as a lone warp and as
4096 threads (the widest batch of CTAs the tracer runs together), until the limit stops it.

    python benchmarks/bench_runaway.py

The issue's target: stopped within 30 s on one core, whatever the launch. Prints the seconds (wall and CPU) and the
peak memory of each case.
"""

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SPIN = Path(__file__).resolve().parent / "spin.cu"
CASES = {"one warp": ("1", "32"), "4096 threads": ("4", "1024")}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for name, (grid, block) in CASES.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "simsmem", "trace", str(SPIN), "--kernel", "spin", "--grid", grid, "--block", block,
                                   "--arg", "zeros:4", "--arg", f"zeros:{4 * int(block)}", "-o", f"{tmp}/o.npz", "-q"], capture_output=True, text=True)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
            print(f"{name:>13}: exit {proc.returncode}, {wall:5.1f} s wall, {cpu:5.1f} s CPU, peak {after.ru_maxrss / 1024:,.0f} MB")
            print(f"{'':>13}  {proc.stderr.strip()}")


if __name__ == "__main__":
    main()
