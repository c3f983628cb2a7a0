"""Start-up: ``simsmem run traces/ldsm_x4.json``, and a second ``simsmem trace`` of an unchanged one-CTA kernel.

    python benchmarks/bench_startup.py [RUNS] [OTHER_TREE]

Each command runs RUNS times (default 5) after one warm-up (which fills the ptxas/nvdisasm cache); wall time and the
CPU seconds of the process and its children (ptxas, nvdisasm) are printed, min and median. OTHER_TREE: a checkout of
another commit (``git archive COMMIT simulator | tar -x -C DIR``), run by turns with this one (its ``simulator`` on
PYTHONPATH), so that both see the same load. The commands run as on a user's machine, writing Python's bytecode
cache (a PYTHONDONTWRITEBYTECODE in the environment, as some sandboxes and CI images set, is dropped for them: without
the cache every run compiles simsmem's 80 modules again, about 0.13 s).
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REALK = ROOT / "calibration" / "realk"


def once(cmd: list[str], tree: str | None) -> tuple[float, float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | ({"PYTHONPATH": f"{tree}/simulator"} if tree else {})
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run([sys.executable, "-m", "simsmem", *cmd], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter() - start, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    trees = [None, *sys.argv[2:3]]
    with tempfile.TemporaryDirectory() as tmp:
        commands = {
            "run traces/ldsm_x4.json": ["run", str(ROOT / "traces" / "ldsm_x4.json")],
            "trace one CTA, again": ["trace", str(REALK / "ptx" / "transpose.ptx"), "--kernel", "transpose_smem_naive", "--grid", "2,2",
                                     "--block", "32,8", "--arg=zeros:16384", f"--arg=npy:{REALK}/data/f32_t64.npy", "--arg=64", "--arg=64",
                                     "--cta", "0,0,0", "-o", f"{tmp}/t.jsonl.gz", "-q"],
        }
        print(f"load average {os.getloadavg()[0]:.1f}; {runs} runs each")
        for name, cmd in commands.items():
            times: dict = {t: [] for t in trees}
            for tree in trees:
                once(cmd, tree)
            for _ in range(runs):
                for tree in trees:
                    times[tree].append(once(cmd, tree))
            for tree, got in times.items():
                wall, cpu = [w for w, _ in got], [c for _, c in got]
                print(f"{name:24} {tree or 'this tree':24} wall min {min(wall):.2f} s, median {statistics.median(wall):.2f} s; "
                      f"CPU min {min(cpu):.2f} s, median {statistics.median(cpu):.2f} s")
        print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
