"""Write manifest_params.json and its inputs (data/params_*.npy): the kernels of src/params.cu, which take a struct by
value (``struct:`` and ``bytes:`` arguments) and ``__constant__``/``__device__`` data (``globals``), to be measured by
measure.sh (``OUT=... bash calibration/realk/measure.sh manifest_params.json``) and checked by ref.py.

Build: nvcc -arch=sm_90 -ptx -o ptx/params.ptx src/params.cu (CUDA 13.0.88). Run from calibration/realk:
python make_params.py [--check]. Inputs are multiples of small powers of two, so that every sum the kernels make
is exact in f32 whatever the order: ref.py compares outputs bit for bit (tol 0).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import struct
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SEED = 20261130
M = N = K = 64  # cute_sgemm's problem
ALPHA, BETA = 1.5, 0.5
WIDTH, HEIGHT, SCALE = 256, 8, 0.5  # conv_rows_const's image
BYTES = 8192  # lut_hist64's input
NS = 1024  # stencil_init's input


def rng(name: str) -> np.random.Generator:
    return np.random.default_rng([SEED, int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little")])


def inputs() -> dict[str, np.ndarray]:
    """data/params_*.npy by name."""
    a = rng("a").integers(-8, 9, (M, K)) / 8  # A[m][k], stored column-major below
    return {
        "params_gemm_a": a.T.astype(np.float32).reshape(-1),  # A[m][k] at m + k * M
        "params_gemm_b": (rng("b").integers(-8, 9, (K, N)) / 8).astype(np.float32).reshape(-1),
        "params_gemm_c": (rng("c").integers(-16, 17, (M, N)) / 4).astype(np.float32).reshape(-1),
        "params_image": (rng("image").integers(-32, 33, (HEIGHT, WIDTH)) / 8).astype(np.float32).reshape(-1),
        "params_filter": (rng("filter").integers(-16, 33, 17) / 64).astype(np.float32),
        "params_bytes": rng("bytes").integers(0, 256, BYTES).astype(np.uint8),
        "params_lut_spread": (np.arange(256) & 63).astype(np.uint8),  # 64 bins, 4 bytes each
        "params_lut_narrow": (np.arange(256) >> 6).astype(np.uint8),  # 4 bins: 64 bytes each, many lanes on one bin
        "params_signal": (rng("signal").integers(-64, 65, NS) / 8).astype(np.float32),
        "params_weights": np.array([0.125, -0.25, 0.5, -0.25, 0.125], dtype=np.float32),
        "params_taps": np.array([-3, -1, 0, 1, 3], dtype=np.int32),
    }


def gemm(name: str, ld: int, swizzle: int, relu: int, what: str) -> dict:
    fields = (f"struct:ptr=npy:data/params_gemm_a.npy,ptr=npy:data/params_gemm_b.npy,ptr=npy:data/params_gemm_c.npy,"
              f"{{i32={M},i32={N},i32={K}}},{{i64=1,i64={M}}},{{i64={N},i64=1}},{{i64={N},i64=1}},{{i32={ld},i8={swizzle}}},"
              f"i8={relu},f32={ALPHA},f32={BETA}")
    return {"name": name, "origin": f"written here (calibration/realk): {what}", "source": "src/params.cu", "ptx": "ptx/params.ptx",
            "kernel": "cute_sgemm", "grid": [N // 32, M // 32, 1], "block": [32, 8, 1], "smem": (32 * ld + 1024) * 4,
            "args": [fields, f"zeros:{M * N * 4}"],
            "problem": f"D({M}x{N}) = {'relu(' if relu else ''}{ALPHA} A B + {BETA} C{')' if relu else ''}, f32, A column-major, "
                       f"GemmParams by value (pointers to A, B, C; Shape; Strides; Tile ld={ld} swizzle={swizzle}; relu; alpha; beta)"}


def conv(name: str, form: str) -> dict:
    arg = (f"struct:i32={WIDTH},i32={HEIGHT},f32={SCALE}" if form == "struct"
           else "bytes:" + struct.pack("<iif", WIDTH, HEIGHT, SCALE).hex())
    return {"name": name, "origin": f"written here (calibration/realk): row convolution, ConvParams as a {form}: argument, "
                                    "its 17-tap filter in a __constant__ array filled by the host",
            "source": "src/params.cu", "ptx": "ptx/params.ptx", "kernel": "conv_rows_const",
            "grid": [WIDTH // 64, HEIGHT // 4, 1], "block": [64, 4, 1], "smem": 0,
            "args": [f"zeros:{WIDTH * HEIGHT * 4}", "npy:data/params_image.npy", arg], "globals": {"c_filter": "npy:data/params_filter.npy"},
            "problem": f"out = {SCALE} * (row-wise correlation of a {WIDTH}x{HEIGHT} f32 image with a 17-tap filter), zero outside"}


def lut(name: str, table: str, what: str) -> dict:
    return {"name": name, "origin": f"written here (calibration/realk): 64-bin histogram through a __device__ lookup table ({what})",
            "source": "src/params.cu", "ptx": "ptx/params.ptx", "kernel": "lut_hist64", "grid": [4, 1, 1], "block": [256, 1, 1], "smem": 0,
            "args": ["zeros:256", "npy:data/params_bytes.npy", str(BYTES)], "globals": {"d_lut": f"npy:data/{table}.npy"},
            "problem": f"hist[lut[b] & 63] over {BYTES} uniform random bytes, shared ATOMS bins, 4 CTAs of 256 threads"}


def stencil(name: str, globals_: dict[str, str], what: str) -> dict:
    entry = {"name": name, "origin": f"written here (calibration/realk): 5-tap stencil through a shared tile, {what}",
             "source": "src/params.cu", "ptx": "ptx/params.ptx", "kernel": "stencil_init", "grid": [NS // 256, 1, 1], "block": [256, 1, 1],
             "smem": 0, "args": [f"zeros:{NS * 4}", "npy:data/params_signal.npy", str(NS)]}
    if globals_:
        entry["globals"] = globals_
    entry["problem"] = f"out[i] = sum_j c_weights[j] * in[i + d_taps[j]], {NS} f32, zero outside"
    return entry


ENTRIES = [
    gemm("params_cute_sgemm_ld32", 32, 0, 0, "CuTe-style SGEMM with its shapes, strides, pointers, alpha and beta in a struct by value; "
         "the transposed A tile's pitch 32 words: every store a 32-way bank conflict"),
    gemm("params_cute_sgemm_ld33", 33, 0, 0, "the same SGEMM with the A tile's pitch 33 words (from the struct): conflict-free stores"),
    gemm("params_cute_sgemm_swz_relu", 32, 1, 1, "the same SGEMM with the struct's swizzle flag set (column r ^ k: conflict-free at pitch 32) and relu"),
    conv("params_conv_rows_struct", "struct"),
    conv("params_conv_rows_bytes", "bytes"),
    lut("params_lut_hist_spread", "params_lut_spread", "b & 63: 4 bytes a bin"),
    lut("params_lut_hist_narrow", "params_lut_narrow", "b >> 6: 4 bins, many lanes of a warp on one"),
    stencil("params_stencil_init", {}, "weights and tap offsets from the module's initialised __constant__ and __device__ data"),
    stencil("params_stencil_globals", {"c_weights": "npy:data/params_weights.npy", "d_taps": "npy:data/params_taps.npy"},
            "the initialised weights and tap offsets overwritten by the host (globals)"),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="check that the files are what this script makes; write nothing")
    a = ap.parse_args()
    files = {HERE / "data" / f"{k}.npy": v for k, v in inputs().items()}
    manifest = json.dumps(ENTRIES, indent=1) + "\n"
    if a.check:
        bad = [str(p) for p, v in files.items() if not p.exists() or not np.array_equal(np.load(p), v)]
        if (HERE / "manifest_params.json").read_text() != manifest:
            bad.append("manifest_params.json")
        print("differ:", *bad) if bad else print("all", len(files) + 1, "files as made")
        return 1 if bad else 0
    for p, v in files.items():
        np.save(p, v)
    (HERE / "manifest_params.json").write_text(manifest)
    print(len(ENTRIES), "entries:", " ".join(e["name"] for e in ENTRIES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
