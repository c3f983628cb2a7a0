"""Timing engine speed: ``simsmem.engine.simulate`` on 100k warp-instructions from 32 warps (one CTA).

    python benchmarks/bench_engine.py [N] [RUNS]

Two workloads, N instructions each, over 32 warps:

- ``loop``: the LDS.32 2-way-conflict throughput loop of the H100 microbenchmark
  (traces/timing/thr_LDS32_2.json.gz: 2 wavefronts each, the loop's other instructions one by one with
  their stalls and waits: 4.6 issue slots a load), repeated;
- ``mixed``: bench_count's random mix of every sm_90 form (uniform addresses over 48 KiB: about 5
  wavefronts each), a fifth of them with ``wait`` and delays of 0 to 7 cycles.

After one small compiled run (the first compiles the engine, or loads it from numba's cache), prints
warp-instructions (shared-memory ones) per second of the compiled engine, RUNS times (default 3: a shared
VM's speed moves from run to run; the best is the machine's undisturbed speed), after counting (not
timed), and the issue slots per second (the other instructions included).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import attrs
import numpy as np
from bench_count import random_batch
from simsmem.banks import count
from simsmem.config import load_arch
from simsmem.engine import program, simulate
from simsmem.traces import NO_WAIT, InstructionBatch, load_trace

LOOP = Path(__file__).resolve().parent.parent / "traces" / "timing" / "thr_LDS32_2.json.gz"


def loop(n: int) -> InstructionBatch:
    """The measured loop's 32 warps, each repeating its 512 loads to n / 32 instructions."""
    one = load_trace(LOOP).instructions
    per_warp = n // 32
    rows = np.concatenate([np.flatnonzero(one.warp == w)[np.arange(per_warp) % 512] for w in range(32)])
    return one.take(rows)


def mixed(n: int) -> InstructionBatch:
    rng = np.random.default_rng(1)
    return attrs.evolve(random_batch(n), wait=np.where(rng.random(n) < 0.2, 0, NO_WAIT).astype(np.int32), delay=rng.integers(0, 8, n))


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    arch = load_arch("sm_90")
    start, warm = time.perf_counter(), loop(64)
    simulate(warm, count(warm, arch), arch, compiled=True)  # compiles the engine (once: numba caches it on disk)
    print(f"first call (compiling, or loading the cache): {time.perf_counter() - start:.2f} s")
    for name, batch in (("loop", loop(n)), ("mixed", mixed(n))):
        counts = count(batch, arch)
        slots = int(program(batch, counts, arch).slots["count"].sum())  # every instruction issued
        best = 0.0
        for _ in range(runs):
            start = time.perf_counter()
            timeline = simulate(batch, counts, arch, compiled=True)
            took = time.perf_counter() - start
            best = max(best, len(batch) / took)
            print(f"{name:5s}: {len(batch):,} instructions, {counts.wavefronts.sum():,} wavefronts, {timeline.cycles:,} cycles: "
                  f"{len(batch) / took:,.0f} warp-instructions/s ({took:.2f} s; {slots / took:,.0f} issue slots/s, the others included)")
        print(f"{name:5s}: best of {runs}: {best:,.0f} warp-instructions/s")


if __name__ == "__main__":
    main()
