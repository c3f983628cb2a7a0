"""Hopper Triton kernels written here as their authors write them (issue 37): tensor descriptors built on the device
(tl.make_tensor_descriptor: TMA loads and stores), wgmma dots, a persistent grid and an attention forward in the
FlashAttention-3 style. For manifest_triton_tma.json, compiled on a CPU-only machine with Triton 3.9.0 by
triton_kernels.py's compile_one (GPUTarget("cuda", 90, 32): sm_90a), with options ptx_version=87: the PTX says
`.version 8.7` as the corpus's other sm_90 Triton entries do (Triton 3.9.0 would write 9.4, which CUDA 13.0's ptxas
and driver refuse).

    python calibration/realk/src/triton_tma.py [compile] [sass [--bin DIR]] [manifest] [predict]   (repository root)

writes data/ttma_*.npy (seeded inputs), ptx/triton_tma_NAME.ptx and .json (metadata), sass/,
manifest_triton_tma.json, and (predict) simsmem's counts into runs/2026-11-29-triton-tma/PREDICTED.txt. Each kernel writes its tensor maps into Triton's global scratch, the parameter after its
own: Triton's launcher allocates global_scratch_size (128 bytes a map) times the grid's programs, aligned to
global_scratch_align (128; cuMemAlloc gives 256); the profile scratch after it is NULL (size 0).

Kernels:
  matmul_tma          docs/hopper.md's "Your Hopper kernel" example as written there: C (f32) = A @ B (f16), 256^3,
                      one 128x128 tile a program over 64-wide K slices, 4 warps, Triton's default 3 stages; the same
                      inputs (default_rng(0) integers in [-2, 2]), so C is exact.
  matmul_persistent   C (f16) = A @ B (f16), 512x256 @ 256x512, 16 tiles of 128x128 shared out by a grid of 4
                      programs (tile t to program t mod 4), each building its three maps once; integer inputs, so C
                      is exact in f16.
  attention_tma       softmax(Q K^T / sqrt(64)) V for 2 heads of 512 rows, head dim 64, f16 in and out: one program a
                      128-row Q block of one head (8 warps: two warpgroups of 64 rows), Q loaded once by TMA, K and V
                      blocks of 64 rows by TMA, S = Q K^T by wgmma from shared memory, P (f16, registers) V by wgmma
                      with A in registers, online softmax in base 2, O stored by TMA.
"""
import json
import os
import sys

import numpy as np
import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from triton_kernels import named, write_manifest, write_ptx, write_sass  # noqa: E402


@triton.jit
def matmul_tma(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    m, n = tl.program_id(0) * BM, tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a.load([m, k]), b.load([k, n]), acc)
    c.store([m, n], acc)


@triton.jit
def matmul_persistent(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # the grid's programs take the BM x BN tiles of C in turn (row-major tile order); M, N, K multiples of the blocks
    a = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    tiles_n = N // BN
    for tile in range(tl.program_id(0), (M // BM) * tiles_n, tl.num_programs(0)):
        m, n = tile // tiles_n * BM, tile % tiles_n * BN
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            acc = tl.dot(a.load([m, k]), b.load([k, n]), acc)
        c.store([m, n], acc.to(tl.float16))


@triton.jit
def attention_tma(o_ptr, q_ptr, k_ptr, v_ptr, rows, seq_len, sm_scale,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    # Q, K, V, O: the heads' rows stacked (rows = heads * seq_len) x HEAD_DIM, row-major f16; program (i, h) computes
    # rows i*BLOCK_M.. of head h; seq_len a multiple of both blocks (no masks). m_i: running row max, l_i: running sum
    q_d = tl.make_tensor_descriptor(q_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_M, HEAD_DIM])
    k_d = tl.make_tensor_descriptor(k_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
    v_d = tl.make_tensor_descriptor(v_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
    o_d = tl.make_tensor_descriptor(o_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_M, HEAD_DIM])
    head = tl.program_id(1) * seq_len
    m0 = head + tl.program_id(0) * BLOCK_M
    q = q_d.load([m0, 0])
    qk_scale = sm_scale * 1.4426950408889634  # exp(x) = exp2(x log2 e)
    m_i = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    for n0 in range(head, head + seq_len, BLOCK_N):
        s = tl.dot(q, k_d.load([n0, 0]).T) * qk_scale
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = tl.dot(p.to(tl.float16), v_d.load([n0, 0]), acc * alpha[:, None])
        m_i = m_new
    o_d.store([m0, 0], (acc / l_i[:, None]).to(tl.float16))


# ---------------------------------------------------------------------------------------------------- corpus

OPTIONS = {"ptx_version": 87}  # `.version 8.7`, as the corpus's other sm_90 Triton PTX
SEQ, HEADS, DIM = 512, 2, 64
RUNS = "runs/2026-11-29-triton-tma"  # the measurement's folder: PREDICTED.txt


def _scratch(maps, programs):
    """Triton's two trailing pointers: the global scratch its launcher allocates for ``maps`` device-built tensor maps
    (128 bytes each) a program, and the profile scratch, NULL."""
    return [f"zeros:{128 * maps * programs}", "zeros:0"]


def corpus():
    """The kernels of manifest_triton_tma.json: compile options, launch and data (paths relative to realk/)."""
    mm = {"a_ptr": "*fp16", "b_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"}
    ks = [
        dict(name="triton_tma_matmul", fn=named(matmul_tma, "matmul_tma"),
             signature={**mm, "c_ptr": "*fp32"}, constexprs={"BM": 128, "BN": 128, "BK": 64},
             num_warps=4, num_stages=3, grid=[2, 2, 1],
             args=["npy:data/ttma_a_256x256.npy", "npy:data/ttma_b_256x256.npy", f"zeros:{256 * 256 * 4}",
                   "256", "256", "256"] + _scratch(3, 4),
             problem="C[256x256] f32 = A[256x256] @ B[256x256], f16 in (integers in [-2, 2]), f32 accumulate; 128x128x64 "
                     "tiles, 2x2 programs x 4 K steps; global scratch 4 programs x 384 B (three tensor maps), profile NULL",
             origin="written here: docs/hopper.md's Triton TMA matmul (tl.make_tensor_descriptor), compiled by Triton "
                    "3.9.0 for sm_90a, 4 warps, 3 stages: each program writes its three tensor maps into the global "
                    "scratch (tensormap.replace, fence), loads A and B tiles by TMA (UTMALDG) into 128B-swizzled "
                    "shared tiles read by wgmma m64n128k16, stores C through shared memory (STS) and a TMA store"),
        dict(name="triton_tma_persistent", fn=named(matmul_persistent, "matmul_persistent"),
             signature={**mm, "c_ptr": "*fp16"}, constexprs={"BM": 128, "BN": 128, "BK": 64},
             num_warps=4, num_stages=3, grid=[4, 1, 1],
             args=["npy:data/ttma_a_512x256.npy", "npy:data/ttma_b_256x512.npy", f"zeros:{512 * 512 * 2}",
                   "512", "512", "256"] + _scratch(3, 4),
             problem="C[512x512] f16 = A[512x256] @ B[256x512], f16 in (integers in [-2, 2]), f32 accumulate; 16 tiles "
                     "of 128x128 over 4 programs (4 tiles each, 4 K steps of 64); global scratch 4 x 384 B, profile NULL",
             origin="written here: a persistent Triton matmul with device-built tensor descriptors, compiled by Triton "
                    "3.9.0 for sm_90a, 4 warps, 3 stages: a fixed grid of 4 programs loops over output tiles, TMA "
                    "loads into swizzled tiles, wgmma, each f16 C tile written by stmatrix.x4 into a swizzled shared tile and "
                    "stored by TMA"),
        dict(name="triton_tma_attention", fn=named(attention_tma, "attention_tma"),
             signature={"o_ptr": "*fp16", "q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "rows": "i32",
                        "seq_len": "i32", "sm_scale": "fp32"},
             constexprs={"BLOCK_M": 128, "BLOCK_N": 64, "HEAD_DIM": DIM}, num_warps=8, num_stages=3,
             grid=[SEQ // 128, HEADS, 1],
             args=[f"zeros:{HEADS * SEQ * DIM * 2}", "npy:data/ttma_q.npy", "npy:data/ttma_k.npy", "npy:data/ttma_v.npy",
                   str(HEADS * SEQ), str(SEQ), "0.125"] + _scratch(4, SEQ // 128 * HEADS),
             problem=f"attention forward, {HEADS} heads x seq {SEQ} x head dim {DIM}, f16 Q/K/V/O (normal(0, 1)), f32 "
                     f"softmax and accumulator, sm_scale 0.125, no mask; 4x2 programs of 128 query rows x 8 key "
                     f"blocks of 64; global scratch 8 programs x 512 B (four tensor maps), profile NULL",
             origin="written here: a FlashAttention-3-style forward in Triton (tensor descriptors), compiled by Triton "
                    "3.9.0 for sm_90a, 8 warps (two warpgroups of 64 rows), 3 stages: Q by TMA once, K and V blocks "
                    "by TMA, S = Q K^T by wgmma from shared memory, P V by wgmma with P in registers, online softmax, "
                    "O stored by TMA"),
    ]
    for k in ks:
        k["block"] = [32 * k["num_warps"], 1, 1]
        k["arch"], k["options"] = 90, OPTIONS
    return ks


def inputs():
    """The seeded inputs by file name; matmul_tma's are docs/hopper.md's (default_rng(0), A then B)."""
    doc = np.random.default_rng(0)
    a, b = (doc.integers(-2, 3, (256, 256)).astype(np.float16) for _ in range(2))
    rng = np.random.default_rng(20261129)
    arrays = {"ttma_a_256x256.npy": a, "ttma_b_256x256.npy": b,
              "ttma_a_512x256.npy": rng.integers(-2, 3, (512, 256)).astype(np.float16),
              "ttma_b_256x512.npy": rng.integers(-2, 3, (256, 512)).astype(np.float16)}
    for t in "qkv":
        arrays[f"ttma_{t}.npy"] = rng.normal(0, 1, (HEADS * SEQ, DIM)).astype(np.float16)
    return arrays


def expected(name, data):
    """What kernel ``name`` writes (its output buffer as numpy computes it) from ``data`` (inputs())."""
    f32 = {k: v.astype(np.float32) for k, v in data.items()}
    if name == "triton_tma_matmul":
        return f32["ttma_a_256x256.npy"] @ f32["ttma_b_256x256.npy"]
    if name == "triton_tma_persistent":
        return (f32["ttma_a_512x256.npy"] @ f32["ttma_b_256x512.npy"]).astype(np.float16)
    q, k, v = (f32[f"ttma_{t}.npy"].reshape(HEADS, SEQ, DIM).astype(np.float64) for t in "qkv")
    s = q @ k.transpose(0, 2, 1) * 0.125
    p = np.exp(s - s.max(axis=2, keepdims=True))
    return ((p @ v) / p.sum(axis=2, keepdims=True)).reshape(HEADS * SEQ, DIM).astype(np.float16)


def _buffers(args, realk):
    """The manifest's arguments with each npy: and (non-NULL) zeros: buffer as a numpy array, to read back after a trace."""
    def one(a):
        if a.startswith("npy:"):
            return np.load(os.path.join(realk, a[4:]))
        return np.zeros(int(a[6:]), np.uint8) if a.startswith("zeros:") and a != "zeros:0" else a
    return [one(a) for a in args]


MARK = "---- simsmem's counts (python calibration/realk/src/triton_tma.py predict)\n\n"


def fnv(data):
    """launch.cu's hash of a buffer (FNV-1a 64), as its BUF lines print it."""
    h = 1469598103934665603
    for byte in data.tobytes():
        h = (h ^ byte) * 1099511628211 % 2**64
    return f"{h:016x}"


def predict(realk, out):
    """Trace each entry of manifest_triton_tma.json with simsmem twice (whole grid: the trace's counts, then the timed
    SM's), check the output against numpy (matmuls exact, attention within 2e-3 of the largest |O|) and write every
    counter of both, and the output's hash, to ``out`` below its MARK line (what is above it, the notes, is kept)."""
    import simsmem
    data = inputs()
    lines = []
    for e in json.load(open(os.path.join(realk, "manifest_triton_tma.json"))):
        runs = []
        for timed in (False, True):
            args = _buffers(e["args"], realk)
            runs.append(simsmem.trace(os.path.join(realk, e["ptx"]), entry=e["kernel"], grid=e["grid"], block=e["block"],
                                      smem=e["smem"], args=args, timed=timed).counters)
        arg = 0 if e["name"] == "triton_tma_attention" else 2
        want = expected(e["name"], data)
        got = args[arg].view(want.dtype).reshape(want.shape)
        err = float(np.abs(got.astype(np.float64) - want).max() / np.abs(want).max())
        assert err <= (2e-3 if e["name"] == "triton_tma_attention" else 0), (e["name"], err)
        lines += [f"== {e['name']} ({e['kernel']}, grid {e['grid']}, block {e['block']}, smem {e['smem']})",
                  f"output arg{arg}: {'equals numpy' if err == 0 else f'max |error| / max |numpy| = {err:.2e}'}; "
                  f"fnv={fnv(args[arg])} (launch.cu's BUF line)",
                  f"{'counter':64s} {'trace':>10s} {'timed SM':>10s}"]
        lines += [f"{k:64s} {runs[0].get(k, '-'):>10} {v:>10}" for k, v in sorted(runs[1].items())] + [""]
        print(*lines[-len(runs[1]) - 4:-len(runs[1]) - 2], sep="\n")
    head = open(out).read().split(MARK)[0] if os.path.exists(out) else ""
    with open(out, "w") as f:
        f.write(head + MARK + "\n".join(lines))


def main(argv):
    realk = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bindir = os.path.join(os.path.dirname(os.path.dirname(realk)), ".venv/lib/python3.11/site-packages/nvidia/cu13/bin")
    if "--bin" in argv:
        bindir = argv[argv.index("--bin") + 1]
    steps = [a for a in argv if a in ("compile", "sass", "manifest", "predict")] or ["compile"]
    ks = corpus()
    if "compile" in steps:
        for fname, a in inputs().items():
            np.save(os.path.join(realk, "data", fname), np.ascontiguousarray(a))
        for k in ks:
            md = write_ptx(realk, k)
            programs = k["grid"][0] * k["grid"][1] * k["grid"][2]
            assert md["global_scratch_align"] <= 256 and k["args"][-2:] == [
                f"zeros:{md['global_scratch_size'] * programs}", "zeros:0"], (k["name"], md["global_scratch_size"])
    if "sass" in steps or "manifest" in steps:
        counts = write_sass(realk, bindir, kernels=ks)
        for n, c in counts.items():
            print(f"{n:24s} sass_shared {c}")
        if "manifest" in steps:
            write_manifest(realk, counts, kernels=ks, manifest="manifest_triton_tma.json")
    if "predict" in steps:
        os.makedirs(os.path.join(realk, RUNS), exist_ok=True)
        predict(realk, os.path.join(realk, RUNS, "PREDICTED.txt"))


if __name__ == "__main__":
    main(sys.argv[1:])
