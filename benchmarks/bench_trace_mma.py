"""``simsmem trace`` speed on tensor-core GEMMs of the mma.sync family (DMMA, IMMA, HMMA): SASS executed on the CPU, in
warp-level instructions per second.

    python benchmarks/bench_trace_mma.py [RUNS] [--digest] [--opcodes]

- ``dgemm``: benchmarks/dgemm_wmma.cu, an f64 wmma GEMM written here (DMMA.8x8x4, fed from shared memory by generic
  loads), C(64x64) = A(64x256) B(256x64): 4 CTAs of 4 warps, 1,024 DMMA a CTA;
- ``igemm``: benchmarks/igemm_wmma.cu, a u8 wmma GEMM written here (IMMA.16816.U8.U8, LDSM), C(128x128) =
  A(128x2048) B(2048x128): 16 CTAs of 4 warps;
- ``isa_mma_f64``: calibration/isa's four DMMA shapes (one CTA, from its cached cubin; its output is checked bit for
  bit against an H200 by tests/test_isa.py);
- ``hgemm``, ``triton``: the corpus's HMMA GEMMs as benchmarks/bench_trace.py runs them (hgemm_cpasync_swz and
  Triton's matmul_f16, C(256x256), 16 CTAs of 4 warps: HMMA.16816.F32).

Inputs are drawn here with a fixed seed. Each is executed RUNS times (default 3), one CTA alone and the whole grid (as ``simsmem trace`` runs it,
CTAs in batches), recording the trace rows but not writing them; printed: the rate of each run by the wall clock and
the best, with that run's CPU seconds, and the least CPU seconds of the runs as a rate (on a shared machine the
wall clock moves with the other processes' load, the CPU time much less), and how far C is from numpy's product (f64: the DMMA chain rounds in its own
order; u8: exact). ``--digest``: also a SHA-256 of every output buffer and every trace row of the whole-grid run, to
show that a change of the executor left every bit as it was. ``--opcodes``: instead, one whole-grid run of each with
its CPU time per opcode (the tracer's built steps wrapped, as bench_trace_hopper.py does): the costliest opcodes, their
steps, and per step.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

import attrs
import numpy as np
from simsmem.kernel.launch import make_launch
from simsmem.kernel.program import load_program
from simsmem.kernel.tracer import Execution, execute, select_ctas

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_trace  # the HMMA cases
import bench_trace_hopper  # step_profile

HERE = Path(__file__).resolve().parent
ISA = HERE.parent / "calibration" / "isa"


def cases(data: Path) -> list[dict]:
    rng = np.random.default_rng(0)
    a64, b64 = rng.standard_normal((64, 256)), rng.standard_normal((256, 64))
    a8, b8 = rng.integers(0, 256, (128, 2048), dtype=np.uint8), rng.integers(0, 256, (2048, 128), dtype=np.uint8)
    np.save(data / "a64.npy", a64)
    np.save(data / "b64.npy", b64)
    np.save(data / "a8.npy", a8)
    np.save(data / "b8t.npy", np.ascontiguousarray(b8.T))  # column-major B
    f64 = next(e for e in json.loads((ISA / "manifest.json").read_text()) if e["name"] == "isa_mma_f64")
    hmma = [{"name": name, "path": bench_trace.REALK / ptx, "kernel": kernel, "grid": grid, "block": block, "smem": smem, "args": args,
             "base": bench_trace.REALK, "want": None} for name, ptx, kernel, grid, block, smem, args in bench_trace.cases(data)
            if name in ("hgemm", "triton")]
    return [
        {"name": "dgemm", "path": HERE / "dgemm_wmma.cu", "kernel": "dgemm_wmma", "grid": (2, 2, 1), "block": (128, 1, 1),
         "args": ["zeros:32768", f"npy:{data}/a64.npy", f"npy:{data}/b64.npy", "64", "64", "256"], "base": data,
         "want": a64 @ b64, "dtype": np.float64},
        {"name": "igemm", "path": HERE / "igemm_wmma.cu", "kernel": "igemm_wmma", "grid": (4, 4, 1), "block": (128, 1, 1),
         "args": ["zeros:65536", f"npy:{data}/a8.npy", f"npy:{data}/b8t.npy", "128", "128", "2048"], "base": data,
         "want": a8.astype(np.int64) @ b8.astype(np.int64), "dtype": np.int32},
        {"name": "isa_mma_f64", "path": ISA / "cubin" / "mma_f64.cubin", "kernel": f64["kernel"], "grid": tuple(f64["grid"]),
         "block": tuple(f64["block"]), "args": f64["args"], "base": ISA, "want": None},
        *hmma,
    ]


def timed(program, case: dict, ctas) -> tuple[float, float, int, object, str]:
    """One execution: wall seconds, CPU seconds, warp-instructions, the launch after it, a digest of its rows."""
    launch = make_launch(program, case["grid"], case["block"], case.get("smem", 0), case["args"], case["base"], 233472)
    execution = Execution()
    rows = hashlib.sha256()
    wall, cpu = time.perf_counter(), time.process_time()
    for batch in execute(program, launch, select_ctas(launch, ctas), execution=execution):
        for field in attrs.fields(type(batch)):
            rows.update(np.ascontiguousarray(getattr(batch, field.name)).tobytes())
    return time.perf_counter() - wall, time.process_time() - cpu, execution.executed, launch, rows.hexdigest()


def opcodes(program, case: dict) -> None:
    """One whole-grid execution of ``case`` with its CPU time per opcode."""
    launch = make_launch(program, case["grid"], case["block"], case.get("smem", 0), case["args"], case["base"], 233472)
    bench_trace_hopper.print_profile(case["name"], bench_trace_hopper.step_profile(program, launch, lambda ins: ins.opcode), 6)


def main() -> None:
    argv = sys.argv[1:]
    digest, by_opcode = "--digest" in argv, "--opcodes" in argv
    argv = [a for a in argv if a not in ("--digest", "--opcodes")]
    runs = int(argv[0]) if argv else 3
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases(Path(tmp)):
            start = time.perf_counter()
            program = load_program(case["path"], case["kernel"])
            if by_opcode:
                timed(program, case, None)  # numba's cache loaded, the steps built
                opcodes(program, case)
                continue
            print(f"{case['name']}: {case['kernel']}, grid {case['grid']}, block {case['block']}: loaded in {time.perf_counter() - start:.2f} s")
            for label, ctas in (("one CTA", [(0, 0, 0)]), ("whole grid", None)):
                if label == "one CTA" and case["grid"] == (1, 1, 1):
                    continue
                results = [timed(program, case, ctas) for _ in range(runs)]
                rates = [n / wall for wall, _, n, _, _ in results]
                best = int(np.argmax(rates))
                wall, cpu, executed, launch, rows = results[best]
                least = min(c for _, c, _, _, _ in results)
                print(f"  {label:10s} {executed:>9,} warp-instructions: " + ", ".join(f"{r:,.0f}" for r in rates)
                      + f" /s (best {rates[best]:,.0f}: {wall:.3f} s wall, {cpu:.3f} s CPU; least CPU {least:.3f} s: "
                      + f"{executed / least:,.0f}/s)")
            if case["want"] is not None:
                out = next(b.data for b in launch.memory.buffers if b.name.startswith("argument 1 ")).view(case["dtype"])
                print(f"  C: largest |C - numpy's A @ B| {np.abs(out.reshape(case['want'].shape) - case['want']).max():.3g}")
            if digest:
                outputs = hashlib.sha256(b"".join(b.data.tobytes() for b in launch.memory.buffers)).hexdigest()
                print(f"  digest: outputs {outputs[:16]}, rows {rows[:16]}")


if __name__ == "__main__":
    main()
