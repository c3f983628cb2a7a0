"""Triton matmuls written here (calibration/realk) for issue 34's LDGSTS counts: C = A @ B in fp16, no masks (the
sizes are multiples of the tiles), grouped program order as large-tile GEMMs use, and num_stages left to Triton
(its default, 3). Compiled on the CPU with Triton 3.6.0:
    triton.compile(ASTSource(fn, signature, constexprs), target=GPUTarget("cuda", ARCH, 32), options={"num_warps": W})
    python calibration/realk/src/triton_probes.py     (from the repo root, with Triton 3.6.0 + numpy)
writes calibration/realk/ptx/tp_NAME.ptx, ptx/tp_NAME.json (metadata: shared, num_warps) and data/tp_*.npy."""
import json
import os
import sys

import numpy as np
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    # one program per BLOCK_M x BLOCK_N tile of C, programs grouped GROUP_M tile rows at a time; A (M x K), B (K x N)
    # and C (M x N) row-major with unit column stride, M, N, K multiples of the blocks: no masks
    pid = tl.program_id(0)
    tiles_m = M // BLOCK_M
    tiles_n = N // BLOCK_N
    in_group = GROUP_M * tiles_n
    first_m = (pid // in_group) * GROUP_M
    rows = min(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % rows
    pid_n = (pid % in_group) // rows
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_tile = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K // BLOCK_K):
        acc = tl.dot(tl.load(a_tile), tl.load(b_tile), acc)
        a_tile += BLOCK_K
        b_tile += BLOCK_K * stride_bk
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float16))


#: name: (arch, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, num_warps, M, N, K)
KERNELS = {
    "tp_mm_128x128x32_w4": (80, 128, 128, 32, 8, 4, 256, 256, 256),
    "tp_mm_128x256x64_w8": (80, 128, 256, 64, 8, 8, 256, 256, 256),
    "tp_mm_64x64x32_w4_k512": (80, 64, 64, 32, 8, 4, 128, 128, 512),
    "tp_mm_128x128x64_w4": (80, 128, 128, 64, 8, 4, 256, 256, 256),
}


def main(root: str) -> None:
    realk = os.path.join(root, "calibration", "realk")
    rng = np.random.default_rng(20261130)
    for size in (256, 512):
        for tag in ("a", "b"):
            path = os.path.join(realk, "data", f"tp_f16_{tag}_{size}.npy")
            np.save(path, (rng.integers(-8, 8, (size, size)) / 8).astype(np.float16))
    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
           "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"}
    for name, (arch, bm, bn, bk, gm, warps, *_shape) in KERNELS.items():
        fn = triton.jit(mm.fn, repr=lambda _, name=name: name)
        attrs = {(i,): [["tt.divisibility", 16]] for i in range(9) if i < 3 or i >= 6}
        src = ASTSource(fn, sig, {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": gm}, attrs)
        k = triton.compile(src, target=GPUTarget("cuda", arch, 32), options={"num_warps": warps})
        with open(os.path.join(realk, "ptx", f"{name}.ptx"), "w") as f:
            f.write(k.asm["ptx"])
        meta = {"shared": k.metadata.shared, "num_warps": k.metadata.num_warps, "num_stages": k.metadata.num_stages,
                "name": k.metadata.name, "triton": triton.__version__, "arch": arch}
        with open(os.path.join(realk, "ptx", f"{name}.json"), "w") as f:
            json.dump(meta, f, indent=1)
        print(name, meta)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
