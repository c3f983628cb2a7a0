"""``simsmem trace`` speed on Hopper kernels: SASS executed on the CPU, in warp-level instructions per second.

    python benchmarks/bench_trace_hopper.py [RUNS] [--size S] [--opcodes]

Entries of calibration/realk/hopper.json, each traced for its whole grid as the corpus launches it:

- ``ws_gemm_tma``, ``ws_gemm_multicast``: the warp-specialised GEMMs (a TMA producer warpgroup, two wgmma consumer
  warpgroups, full/empty mbarriers with try_wait; the second in 2x1 clusters with multicast TMA), C(256x256), 4 CTAs;
- ``hopper_gemm_n128``: a TMA-fed wgmma GEMM, one warpgroup; ``triton_matmul_f16_sm90``: Triton's cp.async + wgmma
  matmul; ``dsmem_halo``: distributed shared memory in clusters of 4;

then both warp-specialised GEMMs on C(SxS) = A(SxS) B(SxS)^T (S = 1024 unless ``--size``; f16 inputs drawn here
with a fixed seed): (S/128)^2 CTAs of 384 threads, as ``simsmem trace`` runs them (CTAs in batches).

Each is executed RUNS times (default 3), recording the trace rows but not writing them; printed: the rate of each
run by the wall clock, and the best, with that run's CPU seconds (the VM is shared: the CPU time moves less).
``--opcodes``: one run of the larger ws_gemm_tma instead, its CPU time per opcode (steps, total, per step), each
step timed (the tracer's built steps wrapped), and what the steps leave to the machine's loop and the recorder.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
from simsmem.corpus import entry_launch
from simsmem.kernel import tracer
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


def step_profile(program, launch, label=lambda ins: ins.name) -> tuple[int, int, float, Counter, Counter]:
    """One whole-grid execution with each step's CPU time added to its instruction's ``label``: warp-instructions, steps,
    CPU seconds, and the seconds and steps by label (the tracer's built steps wrapped; bench_trace_mma.py uses it too)."""
    spent, steps = Counter(), Counter()

    def timing(step, name):
        def run(m, ex):
            start = time.process_time()
            step(m, ex)
            spent[name] += time.process_time() - start
            steps[name] += 1
        run.plain = getattr(step, "plain", False)
        return run

    built = tracer.program_steps(program, launch)
    held = next(k for k, v in tracer._STEPS.items() if v[1] is built)
    tracer._STEPS[held] = (program, [s and timing(s, label(ins)) for s, ins in zip(built, program.code)])
    execution = Execution()
    start = time.process_time()
    for _ in execute(program, launch, select_ctas(launch, None), execution=execution):
        pass
    return execution.executed, sum(steps.values()), time.process_time() - start, spent, steps


def print_profile(name: str, profile: tuple, top: int) -> None:
    """``step_profile``'s figures for ``name``: the totals, then the ``top`` costliest kinds of step."""
    executed, nsteps, total, spent, steps = profile
    print(f"{name}: {executed:,} warp-instructions, {nsteps:,} steps, CPU {total:.3f} s ({total - sum(spent.values()):.3f} s outside the steps)")
    for kind, seconds in spent.most_common(top):
        print(f"  {kind:20s} {steps[kind]:6,} steps {seconds * 1e3:7.1f} ms {seconds / steps[kind] * 1e6:7.1f} us a step")


def opcodes(entry: dict) -> None:
    """One execution of ``entry`` with its CPU time per opcode."""
    print_profile(entry["name"], step_profile(*entry_launch(entry, REALK)), 12)


def main() -> None:
    argv = sys.argv[1:]
    size = int(argv[argv.index("--size") + 1]) if "--size" in argv else 1024
    runs = int(argv[0]) if argv and argv[0].isdigit() else 3
    corpus = {e["name"]: e for e in json.loads((REALK / "hopper.json").read_text())}
    with tempfile.TemporaryDirectory() as tmp:
        if "--opcodes" in argv:
            return opcodes(scaled(corpus[ENTRIES[0]], size, Path(tmp)))
        cases = [corpus[n] for n in ENTRIES] + [scaled(corpus[n], size, Path(tmp)) for n in ENTRIES[:2]]
        for entry in cases:
            timed(entry)  # a first run builds the program's steps (and compiles what numba compiles on a first call)
            results = [timed(entry) for _ in range(runs)]
            wall, cpu, executed = min(results)
            print(f"{entry['name']}: grid {tuple(entry['grid'])}, {executed:,} warp-instructions: "
                  + ", ".join(f"{executed / w:,.0f}" for w, _, _ in results) + f" /s (best {executed / wall:,.0f}; CPU {cpu:.2f} s)")


if __name__ == "__main__":
    main()
