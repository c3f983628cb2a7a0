"""Write the issue-37 CuTe GEMM's corpus entry: ptx/cute_gemm.ptx (nvcc for sm_90a of src/cute_gemm.cu against the
CUTLASS headers of ``pip install 'simsmem[cute]'``, release build: -DNDEBUG), its inputs in data/, and
manifest_cute.json; with ``predict``, simsmem's counts of that entry (whole grid, untimed and timed) below the notes of
runs/2026-11-29-cute/PREDICTED.txt, C checked against numpy first. Run from calibration/realk:

    python make_cute.py [--nvcc PATH] [predict]

The kernel's parameters, as its PTX signature and ``cuobjdump -elf``'s EIATTR_KPARAM_INFO give them (ordinal, offset
in the parameter space, bytes) and CuTe's host code fills them (make_shape, make_tma_atom, make_stride):

    0  0x000   12  cute::tuple<int,int,int> (M, N, K)                    struct:i32=M,i32=N,i32=K
    1  0x070  256  TMA atom of A (.align 128): a CUtensorMap at 0, then    struct:tmap=...,u8=0
                   its empty AuxTmaParams (1 byte), padded to 256
    2  0x170  256  TMA atom of B, the same                                struct:tmap=...,u8=0
    3  0x270    8  float *C                                                zeros:BYTES
    4  0x278    8  cute::tuple<int64_t, C<1>> (C's row stride)            struct:i64=N

src/cute_host_params.cu prints those bytes as CuTe's host code makes them, on the CPU (tests/test_cute_gemm.py compares
them with these arguments). make_tma_atom encodes each map as a rank-2 tensor (K innermost, then the rows) with a 64 x 128 box and a 128B swizzle;
CuTe asks for L2 promotion of 128 B where the launcher asks for none: a field of the map simsmem does not read.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent / "simulator"), str(HERE / "src")]
from simsmem.kernel.toolchain import cutlass_flags
from triton_tma import fnv

PTX = "ptx/cute_gemm.ptx"
PREDICTED = HERE / "runs" / "2026-11-29-cute" / "PREDICTED.txt"
MARK = "---- simsmem's counts (python calibration/realk/make_cute.py predict)\n\n"
M = N = K = 256
TILE = 128
#: sizeof(cute_gemm::SharedStorage): 3 stages of A's and B's 128 x 64 f16 tiles, 6 mbarriers, to 1024 bytes
SMEM = 99328
#: A's and B's files, from calibration/realk
INPUTS = ("data/cute_a.npy", "data/cute_b.npy")


def inputs() -> None:
    """A (M x K) and B (N x K), row-major f16 of small integers: every product and sum is exact."""
    rng = np.random.default_rng(37)
    for path, rows in zip(INPUTS, (M, N)):
        np.save(HERE / path, rng.integers(-2, 3, (rows, K)).astype(np.float16))


def kernel_name(ptx: str) -> str:
    return next(line.split()[2].rstrip("(") for line in ptx.splitlines() if line.startswith(".visible .entry"))


def product() -> np.ndarray:
    """numpy's C of the entry's inputs."""
    a, b = (np.load(HERE / path).astype(np.float32) for path in INPUTS)
    return a @ b.T


def predict() -> None:
    """Trace the entry twice (the trace's counts, then the timed SM's), check C, write the counters below ``MARK``."""
    import simsmem

    e = json.loads((HERE / "manifest_cute.json").read_text())[0]
    runs = [simsmem.trace(HERE / e["ptx"], entry=e["kernel"], grid=e["grid"], block=e["block"], smem=e["smem"], args=e["args"], timed=timed)
            for timed in (False, True)]
    c = next(b.data for b in runs[0].launch.memory.buffers if b.name.startswith("argument 4 "))
    want = product()
    assert np.array_equal(c.view(np.float32).reshape(want.shape), want), "C differs from numpy's"
    lines = [f"== cute_gemm (grid {e['grid']}, block {e['block']}, smem {e['smem']})",
             f"output arg3: equals numpy; fnv={fnv(c)} (launch.cu's BUF line)", f"{'counter':64s} {'trace':>10s} {'timed SM':>10s}"]
    lines += [f"{k:64s} {runs[0].counters.get(k, '-'):>10} {v:>10}" for k, v in sorted(runs[1].counters.items())]
    head = PREDICTED.read_text().split(MARK)[0] if PREDICTED.exists() else ""
    PREDICTED.write_text(head + MARK + "\n".join(lines) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("step", nargs="?", choices=["predict"])
    a = ap.parse_args()
    if a.step:
        os.chdir(HERE)  # the manifest's paths are calibration/realk's
        predict()
        return 0
    subprocess.run([a.nvcc, "-gencode=arch=compute_90a,code=sm_90a", "-std=c++17", "-DNDEBUG", *cutlass_flags(), "-ptx",
                    str(HERE / "src" / "cute_gemm.cu"), "-o", str(HERE / PTX)], check=True)
    inputs()
    atom = "struct:tmap=f16:{k}x{rows}:64x128:128B:npy:{path},u8=0"
    entry = {"name": "cute_gemm", "origin": "written here: a Hopper GEMM in CuTe's own idiom (src/cute_gemm.cu, issue 37)",
             "source": "src/cute_gemm.cu", "ptx": PTX, "kernel": kernel_name((HERE / PTX).read_text()),
             "grid": [M // TILE, N // TILE, 1], "block": [256, 1, 1], "smem": SMEM,
             "args": [f"struct:i32={M},i32={N},i32={K}", atom.format(k=K, rows=M, path=INPUTS[0]), atom.format(k=K, rows=N, path=INPUTS[1]),
                      f"zeros:{M * N * 4}", f"struct:i64={N}"],
             "problem": f"C({M}x{N}) f32 = A({M}x{K}) B({N}x{K})^T f16; 128x128 CTA tiles of two warpgroups (a TiledMMA of "
                        "SM90_64x128x16_F32F16F16_SS), 3 stages of 64-wide K slices loaded by TMA atoms passed by value "
                        "(CUTE_GRID_CONSTANT), ClusterTransactionBarrier full and ClusterBarrier empty mbarriers, the "
                        "accumulators stored straight to global memory"}
    (HERE / "manifest_cute.json").write_text(json.dumps([entry], indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
