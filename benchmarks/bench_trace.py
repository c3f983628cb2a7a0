"""``simsmem trace`` speed: SASS executed on the CPU, in warp-level instructions (all of them) per second.

    python benchmarks/bench_trace.py [RUNS]

GEMMs of the real-kernel corpus (calibration/realk), on larger problems than the corpus measures (inputs drawn
here with a fixed seed):

- ``sgemm``: sgemm_rb64_naive, a register-blocked SGEMM (64x64 tile, 4x4 outputs a thread, 16x16 threads),
  C(512x512) = A(512x256) B(256x512): 64 CTAs of 8 warps;
- ``hgemm``: hgemm_cpasync_swz (cp.async, ldmatrix, mma.sync, 4 warps), C(256x256) = A(256x256) B(256x256): 16 CTAs;
- ``triton``: Triton's matmul_f16 (64x64x32 tiles, 3 stages, 4 warps), C(256x256): 16 CTAs.

For each: the time to assemble and disassemble it (ptxas, nvdisasm; once), then the execution of one CTA alone
and of the whole grid (as ``simsmem trace`` runs it, CTAs in batches), RUNS times each (default 3; the best is
printed too: a shared VM's speed moves between runs). Execution includes recording the trace rows, not writing them.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from simsmem.kernel.launch import make_launch
from simsmem.kernel.program import assemble, load_program
from simsmem.kernel.tracer import Execution, execute, select_ctas

REALK = Path(__file__).resolve().parent.parent / "calibration" / "realk"


def cases(data: Path) -> list[tuple[str, str, str, tuple, tuple, int, list[str]]]:
    rng = np.random.default_rng(0)
    np.save(data / "a32.npy", rng.standard_normal((512, 256), dtype=np.float32))
    np.save(data / "b32.npy", rng.standard_normal((256, 512), dtype=np.float32))
    np.save(data / "a16.npy", rng.standard_normal((256, 256)).astype(np.float16))
    np.save(data / "b16.npy", rng.standard_normal((256, 256)).astype(np.float16))
    return [
        ("sgemm", "ptx/sgemm.ptx", "sgemm_rb64_naive", (8, 8, 1), (16, 16, 1), 0,
         [f"zeros:{512 * 512 * 4}", f"npy:{data}/a32.npy", f"npy:{data}/b32.npy", "512", "512", "256"]),
        ("hgemm", "ptx/hgemm.ptx", "hgemm_cpasync_swz", (4, 4, 1), (128, 1, 1), 0,
         [f"zeros:{256 * 256 * 4}", f"npy:{data}/a16.npy", f"npy:{data}/b16.npy", "256", "256", "256"]),
        ("triton", "ptx/triton_matmul_f16.ptx", "matmul_f16", (16, 1, 1), (128, 1, 1), 16384,
         [f"npy:{data}/a16.npy", f"npy:{data}/b16.npy", f"zeros:{256 * 256 * 2}", "256", "256", "256", "256", "256", "256", "zeros:0", "zeros:0"]),
    ]


def timed(program, geometry_args, ctas) -> tuple[float, int]:
    launch = make_launch(program, *geometry_args)
    chosen = select_ctas(launch, ctas)
    execution = Execution()
    start = time.perf_counter()
    for _ in execute(program, launch, chosen, execution=execution):
        pass
    return time.perf_counter() - start, execution.executed


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory() as tmp:
        for name, ptx, kernel, grid, block, smem, args in cases(Path(tmp)):
            start = time.perf_counter()
            assemble.cache_clear()
            program = load_program(REALK / ptx, kernel)
            print(f"{name}: {kernel}, grid {grid}, block {block}: ptxas + nvdisasm {time.perf_counter() - start:.2f} s")
            geometry_args = (grid, block, smem, args, REALK, 233472)
            for label, ctas in (("one CTA", [(0, 0, 0)]), ("whole grid", None)):
                rates = []
                for _ in range(runs):
                    seconds, executed = timed(program, geometry_args, ctas)
                    rates.append(executed / seconds)
                print(f"  {label:10s} {executed:>9,} warp-instructions: " + ", ".join(f"{r:,.0f}" for r in rates) + f" /s (best {max(rates):,.0f})")


if __name__ == "__main__":
    main()
