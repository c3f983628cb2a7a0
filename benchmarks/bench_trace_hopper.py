"""``simsmem trace`` speed on Hopper kernels: SASS executed on the CPU, in warp-level instructions per second.

    python benchmarks/bench_trace_hopper.py [RUNS] [--size S]

Entries of calibration/realk/hopper.json, each traced for its whole grid as the corpus launches it:

- ``ws_gemm_tma``, ``ws_gemm_multicast``: the warp-specialised GEMMs (a TMA producer warpgroup, two wgmma consumer
  warpgroups, full/empty mbarriers with try_wait; the second in 2x1 clusters with multicast TMA), C(256x256), 4 CTAs;
- ``hopper_gemm_n128``: a TMA-fed wgmma GEMM, one warpgroup; ``triton_matmul_f16_sm90``: Triton's cp.async + wgmma
  matmul; ``dsmem_halo``: distributed shared memory in clusters of 4;

then both warp-specialised GEMMs on C(SxS) = A(SxS) B(SxS)^T (S = 1024 unless ``--size``; f16 inputs drawn here
with a fixed seed): (S/128)^2 CTAs of 384 threads, as ``simsmem trace`` runs them (CTAs in batches).

Each is executed RUNS times (default 3), recording the trace rows but not writing them; printed: the rate of each
run by the wall clock, and the best, with that run's CPU seconds (the VM is shared: the CPU time moves less).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from simsmem.corpus import entry_launch
from simsmem.kernel.tracer import Execution, execute, select_ctas

REALK = Path(__file__).resolve().parent.parent / "calibration" / "realk"
ENTRIES = ("ws_gemm_tma", "ws_gemm_multicast", "hopper_gemm_n128", "triton_matmul_f16_sm90", "dsmem_halo")


def scaled(entry: dict, size: int, data: Path) -> dict:
    """A warp-specialised GEMM entry on C(size x size): its tensor maps over new S x S tensors, K = size, the grid to match."""
    rng = np.random.default_rng(0)
    for name in ("a", "b"):
        np.save(data / f"{name}.npy", rng.standard_normal((size, size)).astype(np.float16))
    a, b, c, _ = entry["args"]
    dims = f"{size}x{size}"
    args = [a.replace("256x256", dims).replace("data/hws_a.npy", f"{data}/a.npy"),
            b.replace("256x256", dims).replace("data/hws_b.npy", f"{data}/b.npy"),
            c.replace("256x256", dims).replace("zeros:131072", f"zeros:{size * size * 2}"), str(size)]
    return {**entry, "name": f"{entry['name']} C({dims})", "args": args, "grid": [size // 128, size // 128, 1]}


def timed(entry: dict) -> tuple[float, float, int]:
    """One whole-grid execution of ``entry``: wall seconds, CPU seconds, warp-instructions."""
    program, launch = entry_launch(entry, REALK)
    execution = Execution()
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in execute(program, launch, select_ctas(launch, None), execution=execution):
        pass
    return time.perf_counter() - wall, time.process_time() - cpu, execution.executed


def main() -> None:
    argv = sys.argv[1:]
    size = int(argv[argv.index("--size") + 1]) if "--size" in argv else 1024
    runs = int(argv[0]) if argv and argv[0].isdigit() else 3
    corpus = {e["name"]: e for e in json.loads((REALK / "hopper.json").read_text())}
    with tempfile.TemporaryDirectory() as tmp:
        cases = [corpus[n] for n in ENTRIES] + [scaled(corpus[n], size, Path(tmp)) for n in ENTRIES[:2]]
        for entry in cases:
            timed(entry)  # a first run builds the program's steps (and compiles what numba compiles on a first call)
            results = [timed(entry) for _ in range(runs)]
            wall, cpu, executed = min(results)
            print(f"{entry['name']}: grid {tuple(entry['grid'])}, {executed:,} warp-instructions: "
                  + ", ".join(f"{executed / w:,.0f}" for w, _, _ in results) + f" /s (best {executed / wall:,.0f}; CPU {cpu:.2f} s)")


if __name__ == "__main__":
    main()
