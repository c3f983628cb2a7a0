"""Write the issue-37 Hopper corpus: ptx/hopper_ws.ptx (nvcc -gencode=arch=compute_90a,code=sm_90a of
src/hopper_ws.cu), its inputs in data/, and manifest_hopper_ws.json. Run from calibration/realk:

    python make_hopper_ws.py [--nvcc PATH]

Entries: the warp-specialised GEMMs (ws_gemm_tma; ws_gemm_multicast in 2x1 clusters), the stmatrix epilogues
(stsm_*: every shape, plain and 128B-swizzled tiles, TMA stores overlapping the next tile), distributed shared memory
(dsmem_halo in clusters of 4, dsmem_histogram, and the dsm_* probes of one remote or local access per lane at lane
strides of 1, 2 and 32 words), the cluster special registers (cluster_sregs launched with and without a launch-time
cluster, cluster_sregs_2x2 with its own), tensor maps in global memory (tmap_by_pointer, tmap_built), and two TMA
loads of src/probe_hopper.cu's tma_load_3d over maps with a zero stride (on a dimension of size 1, and of size 4).
"""
from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RNG = np.random.default_rng(37)
PTX = "ptx/hopper_ws.ptx"
ORIGIN = "written here: Hopper kernel as its authors write them (src/hopper_ws.cu, issue 37)"


def save(name: str, array: np.ndarray) -> str:
    np.save(HERE / "data" / f"hws_{name}.npy", array)
    return f"npy:data/hws_{name}.npy"


def entry(name: str, kernel: str, grid, block, smem: int, args: list[str], problem: str, **extra) -> dict:
    return {"name": name, "origin": ORIGIN, "source": "src/hopper_ws.cu", "ptx": PTX, "kernel": kernel, "grid": list(grid),
            "block": list(block), "smem": smem, "args": args, "problem": problem, **extra}


def gemms() -> list[dict]:
    m = n = k = 256
    a = save("a", (RNG.integers(-4, 5, (m, k)) / 4).astype(np.float16))
    b = save("b", (RNG.integers(-4, 5, (n, k)) / 4).astype(np.float16))
    smem = 3 * (128 * 64 * 2) * 2 + 128 * 128 * 2
    ta = f"tmap:f16:{k}x{m}:64x128:128B:{a}"
    tc = f"tmap:f16:{n}x{m}:64x64:128B:zeros:{m * n * 2}"
    what = (f"C({m}x{n}) f16 = A({m}x{k}) B({n}x{k})^T f16, f32 accumulation; 128x128 CTA tiles, 3 TMA stages of 64-wide K slices, "
            "a producer warpgroup (setmaxnreg 40) and two consumer warpgroups (setmaxnreg 232, wgmma m64n128k16), full/empty "
            "mbarriers, a stmatrix.x4 epilogue into a 128B-swizzled C tile stored by TMA")
    return [entry("ws_gemm_tma", "ws_gemm_tma", (m // 128, n // 128, 1), (384, 1, 1), smem,
                  [ta, f"tmap:f16:{k}x{n}:64x128:128B:{b}", tc, str(k)], what),
            entry("ws_gemm_multicast", "ws_gemm_multicast", (m // 128, n // 128, 1), (384, 1, 1), smem,
                  [ta, f"tmap:f16:{k}x{n}:64x64:128B:{b}", tc, str(k)],
                  what + "; clusters of 2 CTAs (__cluster_dims__(2,1,1)) with the same columns of C: each loads half of the B tile "
                  "multicast into both, and consumers release a stage on the empty mbarriers of both CTAs (one remote arrive)")]


def epilogues() -> list[dict]:
    tiles = save("tiles", RNG.integers(0, 1 << 16, (256, 64)).astype(np.uint16))
    out = []
    for kernel, num, trans, swz in (("stsm_x1", 1, False, False), ("stsm_x2", 2, False, False), ("stsm_x4", 4, False, False),
                                    ("stsm_x1_swz", 1, False, True), ("stsm_x2_swz", 2, False, True), ("stsm_x4_swz", 4, False, True),
                                    ("stsm_x2_trans", 2, True, False), ("stsm_x4_trans_swz", 4, True, True)):
        out.append(entry(kernel, kernel, (2, 1, 1), (128, 1, 1), 16384,
                         [tiles, f"tmap:f16:64x256:64x64:{'128B' if swz else 'none'}:zeros:{256 * 64 * 2}"],
                         f"two 64x64 f16 tiles a CTA, from registers laid out as a wgmma accumulator, stored with stmatrix.x{num}"
                         f"{'.trans' if trans else ''} into a {'128B-swizzled' if swz else 'plain (128-byte rows)'} tile, then by TMA; "
                         "the second tile's stmatrix overlaps the first tile's TMA store"))
    return out


def dsmem() -> list[dict]:
    x = save("x", RNG.integers(-64, 65, 8 * 256).astype(np.float32) / 4)
    data = save("bytes", RNG.integers(0, 256, 4 * 4 * 256).astype(np.uint8))
    out = [entry("dsmem_halo", "dsmem_halo", (8, 1, 1), (256, 1, 1), 0, [x, f"zeros:{8 * 256 * 4}"],
                 "3-point stencil over clusters of 4 CTAs (__cluster_dims__(4,1,1)): each CTA's edge neighbours read from the "
                 "adjacent CTAs' shared memory with ld.shared::cluster"),
           entry("dsmem_histogram", "dsmem_histogram", (4, 1, 1), (256, 1, 1), 0, [data, "zeros:1024"],
                 "256-bin histogram over clusters of 2 CTAs, each owning 128 bins: red.shared::cluster.add into the owner's "
                 "shared memory, then the owners add their bins to global memory")]
    for op in ("ld", "st", "atom", "red"):
        for peer in (0, 1):
            for stride in ((1, 2, 32) if op in ("ld", "st") else (1, 32)):
                out.append(entry(f"dsm_{op}_{'remote' if peer else 'local'}_s{stride}", f"dsm_{op}", (2, 1, 1), (32, 1, 1), 0,
                                 ["zeros:512", str(peer), str(stride)],
                                 f"one {op}.shared::cluster (32-bit) per lane of one warp per CTA, a cluster of 2, to word lane*{stride} of "
                                 + ("the other CTA's shared memory" if peer else "its own CTA's shared memory (a shared::cluster address)")))
    for peer in (0, 1):
        for stride in (1, 8):
            out.append(entry(f"dsm_ld128_{'remote' if peer else 'local'}_s{stride}", "dsm_ld128", (2, 1, 1), (32, 1, 1), 0,
                             ["zeros:1024", str(peer), str(stride)],
                             f"one ld.shared::cluster.v4.u32 per lane of one warp per CTA, a cluster of 2, 16*{stride} bytes apart, from "
                             + ("the other CTA" if peer else "its own CTA")))
    out.append(entry("dsm_mbar_remote", "dsm_mbar_remote", (2, 1, 1), (32, 1, 1), 0, ["zeros:256"],
                     "lane 0 of each CTA of a cluster of 2 arrives on the other CTA's mbarrier (mbarrier.arrive.shared::cluster), "
                     "then every lane waits on its own"))
    return out


def registers() -> list[dict]:
    size = f"zeros:{8 * 64 * 16 * 4}"
    what = "every thread writes the cluster special registers (rank, sizes, ids, is_explicit_cluster), grid 4x2"
    return [entry("cluster_sregs_plain", "cluster_sregs", (4, 2, 1), (64, 1, 1), 0, [size], what + ", no clusters"),
            entry("cluster_sregs_launch", "cluster_sregs", (4, 2, 1), (64, 1, 1), 0, [size], what + ", clusters of 2x1x1 given at launch",
                  cluster=[2, 1, 1]),
            entry("cluster_sregs_2x2", "cluster_sregs_2x2", (4, 2, 1), (64, 1, 1), 0, [size], what + ", the kernel's own 2x2x1 clusters")]


def tensor_maps() -> list[dict]:
    x = save("rows", RNG.integers(-99, 100, (128, 32)).astype(np.float32))
    out = [entry("tmap_by_pointer", "tmap_by_pointer", (2, 1, 1), (128, 1, 1), 0, [f"tmap:f32:32x128:32x32:none:{x}", "zeros:16384"],
                 "TMA loads through a tensor map in global memory passed by pointer (prefetch.tensormap first)"),
           entry("tmap_built", "tmap_built", (2, 1, 1), (128, 1, 1), 0,
                 ["tmap:f32:32x64:32x16:none:zeros:8192", "zeros:256", x, "128", "zeros:16384"],
                 "each CTA builds its tensor map in global memory from a template (tensormap.replace of the address, the outer size "
                 "and stride and the box in shared memory, tensormap.cp_fenceproxy, fence.proxy.tensormap acquire), then loads through it")]
    for tag, outer in (("unit", 1), ("four", 4)):
        box = (32, 8, min(outer, 2))
        footprint = box[1] * box[2] * 64
        out.append({"name": f"hop_tma_ld_3d_zero_stride_{tag}", "origin": "written here: TMA load probe (issue 37)", "source": "src/probe_hopper.cu",
                    "ptx": "ptx/probe_hopper.ptx", "kernel": "tma_load_3d", "grid": [1, 1, 1], "block": [128, 1, 1], "smem": footprint + 1024,
                    "args": [f"tmap:f16:64x16x{outer}@128,0:{box[0]}x{box[1]}x{box[2]}:64B:npy:data/hopper_tensor.npy", "16", "4", "0", "0", "0",
                             str(box[0] * box[1] * box[2] * 2), f"zeros:{footprint}", str(footprint // 16)],
                    "problem": f"one 3D TMA load whose outer dimension (of size {outer}) has stride 0"})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nvcc", default="nvcc")
    a = ap.parse_args()
    subprocess.run([a.nvcc, "-gencode=arch=compute_90a,code=sm_90a", "-ptx", str(HERE / "src" / "hopper_ws.cu"), "-o", str(HERE / PTX)],
                   check=True)
    entries = gemms() + epilogues() + dsmem() + registers() + tensor_maps()
    (HERE / "manifest_hopper_ws.json").write_text(json.dumps(entries, indent=1) + "\n")
    print(len(entries), "entries")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
