"""Triton kernels written here for the real-kernel corpus (manifest_triton.json), compiled to PTX for sm_80.

Each kernel is compiled on a CPU-only machine with Triton 3.6.0:
    triton.compile(ASTSource(fn, signature, constexprs, attrs), target=GPUTarget("cuda", 80, 32),
                   options={"num_warps": W, "num_stages": S})
and the PTX is launched unchanged (the driver JITs it for sm_90) by shared/realk/launch.cu. Every kernel takes,
after its own parameters, Triton's two trailing scratch pointers (global scratch, profile scratch), passed as
zeros:0 (NULL). Pointers and the 16-divisible integer parameters carry tt.divisibility=16, as Triton's JIT gives
them when called with aligned tensors and multiples of 16; the unit strides are not parameters at all.

    python calibration/realk/src/triton_kernels.py            (run from the repo root, with Triton 3.6.0 + numpy)

writes calibration/realk/ptx/triton_NAME.ptx, ptx/triton_NAME.json (the compiled kernel's metadata: `shared` =
the launch's dynamic shared memory, `num_warps` -> block 32*num_warps) and data/triton_*.npy (seeded inputs).

Kernels (what each sends through shared memory on sm_80):
  matmul           C = A @ B, row-major, no masks (the sizes are multiples of the tiles), K loop software-pipelined
                   by Triton: f16 -> cp.async (LDGSTS) into swizzled shared tiles, ldmatrix (LDSM), mma.sync;
                   tf32 -> cp.async, ldmatrix / ld.shared, mma.sync tf32; ieee f32 -> FMA dot whose operands are
                   read from shared memory by ld.shared (broadcast-heavy).
  layernorm        one program per row, the row in registers; mean and variance: cross-warp sums through shared
                   memory.
  colsum           column sums of a 2D block (tl.sum(axis=0)): the reduction across warps (and the result's layout
                   change for the store) through shared memory, once per row block of the loop.
  transpose        a 2D tile loaded coalesced, tl.trans, stored coalesced: Triton's layout conversion writes and
                   reads the tile through shared memory.
  attention_fwd    one head of softmax(Q K^T * scale) V, online softmax over key blocks (flash-attention style):
                   Q, K, V tiles through shared memory (cp.async, ldmatrix, ldmatrix.trans), two mma.sync dots.
"""
import inspect
import json
import os
import re
import sys

import triton
import triton.language as tl


# ---------------------------------------------------------------------------------------------------- kernels


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
           PRECISION: tl.constexpr, OUT_F16: tl.constexpr):
    # one program per BLOCK_M x BLOCK_N tile of C, row-major program order; A is M x K, B is K x N, C is M x N,
    # all row-major with unit column stride; M, N, K multiples of the block sizes (no masks).
    pid = tl.program_id(0)
    tiles_n = N // BLOCK_N
    pid_m = pid // tiles_n
    pid_n = pid % tiles_n
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_tile = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_tile = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K // BLOCK_K):
        a = tl.load(a_tile)
        b = tl.load(b_tile)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
        a_tile += BLOCK_K
        b_tile += BLOCK_K * stride_bk
    c_tile = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    if OUT_F16:
        tl.store(c_tile, acc.to(tl.float16))
    else:
        tl.store(c_tile, acc)


@triton.jit
def layernorm(y_ptr, mean_ptr, rstd_ptr, x_ptr, w_ptr, b_ptr, n_cols, row_stride, eps, BLOCK: tl.constexpr):
    # one program per row (the whole row in registers, BLOCK >= n_cols): y = (x - mean) * rstd * w + b,
    # and the row's mean and 1/std written out.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=valid, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(valid, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=valid, other=0.0)
    b = tl.load(b_ptr + cols, mask=valid, other=0.0)
    tl.store(y_ptr + row * row_stride + cols, d * rstd * w + b, mask=valid)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


@triton.jit
def colsum(out_ptr, x_ptr, n_rows, row_stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # one program per BLOCK_N columns; walks the rows BLOCK_M at a time and reduces each BLOCK_M x BLOCK_N block
    # over its rows (tl.sum axis 0) into a running column sum; n_rows a multiple of BLOCK_M (no masks).
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rows = tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for m0 in range(0, n_rows, BLOCK_M):
        x = tl.load(x_ptr + (m0 + rows)[:, None] * row_stride + cols[None, :])
        acc += tl.sum(x, axis=0)
    tl.store(out_ptr + cols, acc)


@triton.jit
def transpose(out_ptr, in_ptr, in_stride, out_stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # out[n, m] = in[m, n] for one BLOCK_M x BLOCK_N tile per program (grid: in's column tiles x row tiles);
    # both arrays row-major with unit column stride, sizes multiples of the tile (no masks).
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    x = tl.load(in_ptr + rm[:, None] * in_stride + rn[None, :])
    xt = tl.trans(x)
    tl.store(out_ptr + rn[:, None] * out_stride + rm[None, :], xt)


@triton.jit
def attention_fwd(o_ptr, q_ptr, k_ptr, v_ptr, seq_len, stride_row, sm_scale,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    # one head, no mask: O = softmax(Q K^T * sm_scale) V for BLOCK_M query rows per program; Q, K, V, O are
    # seq_len x HEAD_DIM row-major fp16 with the same row stride; seq_len a multiple of BLOCK_N. Online softmax
    # in base 2 (m: running row max, l: running row sum), fp32 accumulator, fp16 output.
    pid = tl.program_id(0)
    rm = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rd = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + rm[:, None] * stride_row + rd[None, :])
    qk_scale = sm_scale * 1.4426950408889634
    m_i = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    for n0 in range(0, seq_len, BLOCK_N):
        kt = tl.load(k_ptr + (n0 + rn)[None, :] * stride_row + rd[:, None])  # HEAD_DIM x BLOCK_N view of K^T
        v = tl.load(v_ptr + (n0 + rn)[:, None] * stride_row + rd[None, :])
        s = tl.dot(q, kt) * qk_scale
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + rm[:, None] * stride_row + rd[None, :], acc.to(tl.float16))


# ---------------------------------------------------------------------------------------------------- corpus

SCRATCH = ["zeros:0", "zeros:0"]  # Triton's trailing global-scratch and profile-scratch pointers: NULL


def named(kernel, name):
    """The same @triton.jit kernel under another PTX .entry name (one distinct name per manifest entry, so that
    profiler rows are told apart by kernel name)."""
    return triton.jit(kernel.fn, repr=lambda _: name)


def _mm(name, prec, in_dt, out_f16, M, N, K, BM, BN, BK, stages, warps, a, b, what):
    esz_in = 2 if in_dt == "fp16" else 4
    esz_out = 2 if out_f16 else 4
    return dict(
        name=name, fn=named(matmul, name[len("triton_"):]),
        signature={"a_ptr": "*" + in_dt, "b_ptr": "*" + in_dt, "c_ptr": "*fp16" if out_f16 else "*fp32",
                   "M": "i32", "N": "i32", "K": "i32", "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"},
        constexprs={"BLOCK_M": BM, "BLOCK_N": BN, "BLOCK_K": BK, "PRECISION": prec, "OUT_F16": out_f16},
        num_warps=warps, num_stages=stages,
        grid=[(M // BM) * (N // BN), 1, 1],
        args=[f"npy:data/{a}", f"npy:data/{b}", f"zeros:{M * N * esz_out}", str(M), str(N), str(K), "128", "128",
              str(N)] + SCRATCH,  # the inputs are 128x128 arrays: row strides 128
        problem=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}], {in_dt} in, fp32 accumulate, "
                f"{'fp16' if out_f16 else 'fp32'} out; tiles {BM}x{BN}x{BK}, num_stages={stages}, "
                f"num_warps={warps}; {(M // BM) * (N // BN)} programs x {K // BK} K steps; scratch params NULL",
        origin=what, _esz_in=esz_in)


def _mm90(name, in_dt, M, N, K, BM, BN, BK, stages, warps, a, b, what):
    """A matmul compiled for sm_90 (GPUTarget('cuda', 90, 32)): Triton's Hopper path, wgmma on shared-memory tiles."""
    k = _mm(name, "tf32", in_dt, False, M, N, K, BM, BN, BK, stages, warps, a, b, what)
    k["arch"] = 90
    return k


def corpus():
    """The kernels of manifest_triton.json: compile options, launch and data (paths relative to realk/)."""
    ks = [
        _mm90("triton_matmul_f16_sm90", "fp16", 128, 128, 128, 64, 64, 32, 3, 4,
              "triton_f16_a_128x128.npy", "triton_f16_b_128x128.npy",
              "written here: Triton fp16 GEMM (tutorial style) compiled for sm_90, 64x64x32 tiles, 3 stages, 4 warps "
              "(one warpgroup): cp.async (LDGSTS) into swizzled shared tiles read by wgmma (HGMMA) through matrix "
              "descriptors, no ld.shared for the operands; fp32 C"),
        _mm90("triton_matmul_f16_sm90_w8", "fp16", 128, 128, 128, 128, 64, 64, 2, 8,
              "triton_f16_a_128x128.npy", "triton_f16_b_128x128.npy",
              "written here: Triton fp16 GEMM compiled for sm_90, 128x64x64 tiles, 2 stages, 8 warps (two "
              "warpgroups, each its own 64-row wgmma): cp.async into swizzled tiles, HGMMA; fp32 C"),
        _mm90("triton_matmul_tf32_sm90", "fp32", 128, 128, 128, 64, 64, 32, 2, 4,
              "triton_f32_a_128x128.npy", "triton_f32_b_128x128.npy",
              "written here: Triton fp32 GEMM with tf32 dot compiled for sm_90, 64x64x32 tiles, 2 stages, 4 warps: "
              "cp.async into swizzled tiles, tf32 wgmma (HGMMA .TF32) with B N-major...; fp32 C"),
        _mm("triton_matmul_f16", "tf32", "fp16", True, 128, 128, 128, 64, 64, 32, 3, 4,
            "triton_f16_a_128x128.npy", "triton_f16_b_128x128.npy",
            "written here: Triton fp16 GEMM (tutorial style), 64x64x32 tiles, 3 stages, 4 warps, GPUTarget('cuda', 80, 32): "
            "K loop pipelined with cp.async.cg 16 B (LDGSTS.E.BYPASS.128) into swizzled shared tiles, A read by "
            "ldmatrix.x4 (LDSM.16.M88.4), B by ldmatrix.x4.trans (LDSM.16.MT88.4), mma.sync m16n8k16; fp16 C "
            "re-laid out through shared memory for 16 B stores (STS.64 / LDS.64); the 9 LDS are ptxas's "
            "@!PT LDS RZ,[RZ] pads of the LDGSTS"),
        _mm("triton_matmul_f16_s2", "tf32", "fp16", False, 64, 128, 128, 32, 64, 64, 2, 4,
            "triton_f16_a_128x128.npy", "triton_f16_b_128x128.npy",
            "written here: Triton fp16 GEMM, 32x64x64 tiles, 2 stages, 4 warps, fp32 out, GPUTarget('cuda', 80, 32): "
            "another tile shape, swizzle and pipeline depth than triton_matmul_f16 (LDGSTS.E.BYPASS.128, "
            "LDSM.16.M88.4 for A, LDSM.16.MT88.4 for B, mma.sync m16n8k16); fp32 C re-laid out through shared "
            "memory (STS.128 / LDS.128); the 6 LDS are @!PT LDS RZ,[RZ] pads; A's first 64 rows"),
        _mm("triton_matmul_tf32", "tf32", "fp32", False, 128, 128, 128, 64, 64, 32, 2, 4,
            "triton_f32_a_128x128.npy", "triton_f32_b_128x128.npy",
            "written here: Triton fp32 GEMM with tf32 dot (mma.sync m16n8k8 tf32), 64x64x32 tiles, 2 stages, 4 warps, "
            "GPUTarget('cuda', 80, 32): LDGSTS.E.BYPASS.128 into swizzled shared tiles, A fragments by "
            "ldmatrix.x4 (LDSM.16.M88.4) of 32-bit pairs, B fragments by 32 scalar LDS per K iteration (strided, "
            "transposed reads); fp32 C re-laid out through shared memory (STS.128 / LDS.128); 6 of the 38 LDS "
            "are @!PT LDS RZ,[RZ] pads; GPU result carries tf32 rounding (~1e-3 relative)"),
        _mm("triton_matmul_f32_fma", "ieee", "fp32", False, 64, 64, 64, 32, 32, 32, 2, 4,
            "triton_f32_a_128x128.npy", "triton_f32_b_128x128.npy",
            "written here: Triton fp32 GEMM, input_precision='ieee' (FMA dot, no tensor cores), 32x32x32 tiles, "
            "2 stages, 4 warps, GPUTarget('cuda', 80, 32): LDGSTS.E.BYPASS.128 into shared tiles, then the FMA "
            "operands read back by LDS.128 / LDS.64 with many lanes on the same words (broadcast); the 6 LDS are "
            "@!PT LDS RZ,[RZ] pads; the first 64x64 of the 128x128 inputs (row strides 128)"),
        dict(name="triton_layernorm", fn=named(layernorm, "layernorm"),
             signature={"y_ptr": "*fp32", "mean_ptr": "*fp32", "rstd_ptr": "*fp32", "x_ptr": "*fp32",
                        "w_ptr": "*fp32", "b_ptr": "*fp32", "n_cols": "i32", "row_stride": "i32", "eps": "fp32"},
             constexprs={"BLOCK": 1024}, num_warps=4, num_stages=3, grid=[16, 1, 1],
             args=["zeros:65536", "zeros:64", "zeros:64", "npy:data/triton_ln_x_16x1024.npy",
                   "npy:data/triton_ln_w_1024.npy", "npy:data/triton_ln_b_1024.npy", "1024", "1024", "1e-05"]
             + SCRATCH,
             problem="16 rows x 1024 f32, weight and bias 1024 f32, eps 1e-5; outputs y, mean, rstd; "
                     "scratch params NULL",
             origin="written here: Triton layer norm forward, one program per row, BLOCK=1024, 4 warps, "
                    "GPUTarget('cuda', 80, 32): two cross-warp sums (mean, variance) through a 16 B shared "
                    "buffer (predicated STS by lane 0 of each warp, LDS by the first lanes, broadcast LDS of the "
                    "total), 5 barriers"),
        dict(name="triton_colsum", fn=named(colsum, "colsum"),
             signature={"out_ptr": "*fp32", "x_ptr": "*fp32", "n_rows": "i32", "row_stride": "i32"},
             constexprs={"BLOCK_M": 32, "BLOCK_N": 64}, num_warps=4, num_stages=3, grid=[4, 1, 1],
             args=["zeros:1024", "npy:data/triton_colsum_x_128x256.npy", "128", "256"] + SCRATCH,
             problem="column sums of a 128x256 f32 matrix; 4 programs of 64 columns, 4 row blocks of 32 each; "
                     "scratch params NULL",
             origin="written here: Triton column sum, 32x64 blocks reduced over rows (tl.sum axis 0), 4 warps, "
                    "GPUTarget('cuda', 80, 32): every row block the warps' partial column sums go through shared "
                    "memory (predicated scalar STS, LDS, STS, LDS at 16 B strides); the final sums are re-laid out "
                    "for the store by STS.128 and an ldmatrix.x1 (LDSM.16.M88) of 32-bit data"),
        dict(name="triton_transpose", fn=named(transpose, "transpose_f32"),
             signature={"out_ptr": "*fp32", "in_ptr": "*fp32", "in_stride": "i32", "out_stride": "i32"},
             constexprs={"BLOCK_M": 64, "BLOCK_N": 64}, num_warps=4, num_stages=3, grid=[2, 2, 1],
             args=["zeros:65536", "npy:data/triton_f32_a_128x128.npy", "128", "128"] + SCRATCH,
             problem="128x128 f32 transpose, 64x64 tiles, 2x2 programs; scratch params NULL",
             origin="written here: Triton tiled transpose (tl.trans), 64x64 f32 tile, 4 warps, "
                    "GPUTarget('cuda', 80, 32): the layout conversion between the coalesced load and the coalesced "
                    "store goes through a 16 KiB shared tile, 32 scalar STS and 32 scalar LDS per thread, one barrier"),
        dict(name="triton_transpose_f16", fn=named(transpose, "transpose_f16"),
             signature={"out_ptr": "*fp16", "in_ptr": "*fp16", "in_stride": "i32", "out_stride": "i32"},
             constexprs={"BLOCK_M": 64, "BLOCK_N": 64}, num_warps=4, num_stages=3, grid=[2, 2, 1],
             args=["zeros:32768", "npy:data/triton_f16_a_128x128.npy", "128", "128"] + SCRATCH,
             problem="128x128 fp16 transpose, 64x64 tiles, 2x2 programs; scratch params NULL",
             origin="written here: Triton tiled transpose (tl.trans), 64x64 fp16 tile, 4 warps, "
                    "GPUTarget('cuda', 80, 32): with 2-byte elements Triton converts through a swizzled 8 KiB "
                    "shared tile written by STS.128 and read transposed by ldmatrix.x4.trans (LDSM.16.MT88.4)"),
        dict(name="triton_attention_fwd", fn=named(attention_fwd, "attention_fwd"),
             signature={"o_ptr": "*fp16", "q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16",
                        "seq_len": "i32", "stride_row": "i32", "sm_scale": "fp32"},
             constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "HEAD_DIM": 64}, num_warps=4, num_stages=2,
             grid=[2, 1, 1],
             args=["zeros:16384", "npy:data/triton_attn_q_128x64.npy", "npy:data/triton_attn_k_128x64.npy",
                   "npy:data/triton_attn_v_128x64.npy", "128", "64", "0.125"] + SCRATCH,
             problem="one head, seq 128, head dim 64, fp16 Q/K/V/O, fp32 softmax and accumulator, "
                     "sm_scale 0.125; 2 programs of 64 query rows x 2 key blocks of 64; scratch params NULL",
             origin="written here: Triton fused attention forward (flash-attention style online softmax), "
                    "64x64 blocks, head dim 64, 2 stages, 4 warps, GPUTarget('cuda', 80, 32): Q stored to shared "
                    "memory by STS.128, K and V pipelined by LDGSTS.E.BYPASS.128; Q and K^T fragments by ldmatrix.x4 "
                    "(LDSM.16.M88.4), V by ldmatrix.x4.trans (LDSM.16.MT88.4) for two mma.sync dots per key block; "
                    "fp16 O re-laid out by STS.128 / LDSM.16.M88.4; the 4 LDS are @!PT LDS RZ,[RZ] pads"),
    ]
    for k in ks:
        k["block"] = [32 * k["num_warps"], 1, 1]
    return ks


def make_data(data_dir):
    """Seeded inputs (values kept small so fp16 sums stay well inside range)."""
    import numpy as np
    rng = np.random.default_rng(20261127)
    arrays = {
        "triton_f16_a_128x128.npy": rng.uniform(-1, 1, (128, 128)).astype(np.float16),
        "triton_f16_b_128x128.npy": rng.uniform(-1, 1, (128, 128)).astype(np.float16),
        "triton_f32_a_128x128.npy": rng.uniform(-1, 1, (128, 128)).astype(np.float32),
        "triton_f32_b_128x128.npy": rng.uniform(-1, 1, (128, 128)).astype(np.float32),
        "triton_ln_x_16x1024.npy": rng.normal(0.5, 2.0, (16, 1024)).astype(np.float32),
        "triton_ln_w_1024.npy": rng.uniform(0.5, 1.5, (1024,)).astype(np.float32),
        "triton_ln_b_1024.npy": rng.uniform(-0.5, 0.5, (1024,)).astype(np.float32),
        "triton_colsum_x_128x256.npy": rng.uniform(-1, 1, (128, 256)).astype(np.float32),
        "triton_attn_q_128x64.npy": rng.normal(0, 1, (128, 64)).astype(np.float16),
        "triton_attn_k_128x64.npy": rng.normal(0, 1, (128, 64)).astype(np.float16),
        "triton_attn_v_128x64.npy": rng.normal(0, 1, (128, 64)).astype(np.float16),
    }
    os.makedirs(data_dir, exist_ok=True)
    for fname, a in arrays.items():
        np.save(os.path.join(data_dir, fname), np.ascontiguousarray(a))
    return arrays


def _attrs(fn, signature):
    # tt.divisibility=16 on every pointer and on every i32 parameter whose launch value is a multiple of 16 (all
    # of them here), as Triton's JIT specializes them for aligned tensors and sizes.
    return {(fn.arg_names.index(p),): [["tt.divisibility", 16]] for p, t in signature.items()
            if t.startswith("*") or t == "i32"}


def compile_one(k):
    os.environ["TRITON_ALWAYS_COMPILE"] = "1"  # the cache key ignores the .entry name given by named()
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    fn = k["fn"]
    sig = dict(k["signature"])
    for c in k["constexprs"]:
        sig[c] = "constexpr"
    sig = {n: sig[n] for n in fn.arg_names}  # parameter order
    src = ASTSource(fn, signature=sig, constexprs=k["constexprs"], attrs=_attrs(fn, k["signature"]))
    ck = triton.compile(src, target=GPUTarget("cuda", k.get("arch", 80), 32),
                        options={"num_warps": k["num_warps"], "num_stages": k["num_stages"], **k.get("options", {})})
    return ck


def _relpaths(text, src_file):
    """Machine-specific absolute paths in the PTX .file lines and the metadata -> relative ones."""
    site = os.path.dirname(os.path.dirname(triton.__file__))  # .../site-packages
    text = text.replace(os.path.abspath(src_file), "src/" + os.path.basename(src_file))
    return text.replace(site, "site-packages")


SHARED_OPS = ("LDS", "STS", "ATOMS", "LDSM", "STSM", "LDGSTS")  # SASS opcodes (any modifiers) that use shared memory


def sass_shared_counts(sass_text):
    """Static count of each shared-memory SASS form (opcode with its modifiers, predicate dropped). ptxas's
    `@!PT LDS RZ, [RZ]` pads next to each LDGSTS are LDS instructions and are counted under LDS."""
    counts = {}
    for line in sass_text.split("\n"):
        m = re.match(r"\s*/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if m and m.group(1).split(".")[0] in SHARED_OPS:
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    return dict(sorted(counts.items()))


def write_sass(realk, bindir, names=None, kernels=None):
    """ptxas -arch=sm_90 each ptx/NAME.ptx of ``kernels`` (default: corpus()), cuobjdump -sass, encodings stripped ->
    sass/NAME.sass (the format of shared/realk/sass/). Returns {name: sass_shared counts}."""
    import subprocess
    import tempfile
    ver = subprocess.run([os.path.join(bindir, "ptxas"), "--version"], capture_output=True, text=True).stdout
    ver = re.search(r"V(\d+\.\d+\.\d+)", ver).group(1)
    os.makedirs(os.path.join(realk, "sass"), exist_ok=True)
    out = {}
    for k in kernels or corpus():
        if names and k["name"] not in names:
            continue
        ptx = os.path.join(realk, "ptx", k["name"] + ".ptx")
        kernel = re.search(r"\.entry\s+(\w+)", open(ptx).read()).group(1)
        with tempfile.TemporaryDirectory() as td:
            cubin = os.path.join(td, k["name"] + ".cubin")
            arch = "sm_90a" if ".target sm_90a" in open(ptx).read() else "sm_90"
            subprocess.run([os.path.join(bindir, "ptxas"), f"-arch={arch}", ptx, "-o", cubin], check=True)
            dump = subprocess.run([os.path.join(bindir, "cuobjdump"), "-sass", cubin], check=True,
                                  capture_output=True, text=True).stdout
        lines = [re.sub(r"\s*/\* 0x[0-9a-f]{16} \*/", "", l) for l in dump.split("\n")
                 if re.match(r"\s+/\*[0-9a-f]{4}\*/", l) or "headerflags" in l]
        text = (f"// {k['name']}: {kernel}\n// ptxas -arch={arch} ptx/{k['name']}.ptx (CUDA {ver}, pip nvidia-cuda-nvcc "
                f"on a CPU-only machine) ; cuobjdump -sass ; encodings stripped\n" + "\n".join(lines) + "\n")
        with open(os.path.join(realk, "sass", k["name"] + ".sass"), "w") as f:
            f.write(text)
        out[k["name"]] = sass_shared_counts(text)
    return out


def write_manifest(realk, sass_counts, kernels=None, manifest="manifest_triton.json"):
    """The manifest of ``kernels`` (default: corpus()): the shared/realk manifest format without the measured fields."""
    entries = []
    for k in kernels or corpus():
        md = json.load(open(os.path.join(realk, "ptx", k["name"] + ".json")))
        ptx = open(os.path.join(realk, "ptx", k["name"] + ".ptx")).read()
        kernel = re.search(r"\.entry\s+(\w+)", ptx).group(1)
        assert md["num_warps"] * 32 == k["block"][0] and md["name"] == kernel
        entries.append({"name": k["name"], "origin": k["origin"], "source": "src/" + os.path.basename(_source(k)),
                        "ptx": "ptx/" + k["name"] + ".ptx", "kernel": kernel, "grid": k["grid"], "block": k["block"],
                        "smem": md["shared"], "args": k["args"], "problem": k["problem"],
                        "sass_shared": sass_counts[k["name"]]})
    with open(os.path.join(realk, manifest), "w") as f:
        json.dump(entries, f, indent=1)
        f.write("\n")
    return entries


def main(argv=None):
    """triton_kernels.py [compile] [sass [--bin DIR]] [manifest] [NAME ...]: compile (the default) writes data/ and
    ptx/ (needs Triton 3.6.0); sass writes sass/ with ptxas/cuobjdump from DIR (default: the repo's
    .venv nvidia/cu13/bin); manifest writes manifest_triton.json from ptx/*.json and the sass counts."""
    argv = sys.argv[1:] if argv is None else list(argv)
    realk = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bindir = os.path.join(os.path.dirname(os.path.dirname(realk)), ".venv/lib/python3.11/site-packages/nvidia/cu13/bin")
    if "--bin" in argv:
        i = argv.index("--bin")
        bindir = argv[i + 1]
        del argv[i:i + 2]
    steps = [a for a in argv if a in ("compile", "sass", "manifest")] or ["compile"]
    only = set(a for a in argv if a not in steps)
    if "compile" in steps:
        compile_all(realk, only)
    if "sass" in steps or "manifest" in steps:
        counts = write_sass(realk, bindir, only)
        for n, c in counts.items():
            print(f"{n:24s} sass_shared {c}")
        if "manifest" in steps:
            if only:
                raise SystemExit("manifest: give no names (it lists every kernel)")
            write_manifest(realk, counts)
            print("wrote", os.path.join(realk, "manifest_triton.json"))


def compile_all(realk, only):
    make_data(os.path.join(realk, "data"))
    for k in corpus():
        if not only or k["name"] in only:
            write_ptx(realk, k)


def _source(k):
    """The .py file that defines kernel ``k``'s @triton.jit function."""
    return inspect.getsourcefile(k["fn"].fn)


def write_ptx(realk, k):
    """Compile kernel ``k`` into ptx/NAME.ptx and its metadata ptx/NAME.json (machine paths made relative); returns
    the metadata."""
    os.makedirs(os.path.join(realk, "ptx"), exist_ok=True)
    ck = compile_one(k)
    md = ck.metadata._asdict()
    md = {key: (str(v) if key == "target" else v) for key, v in md.items()}
    ptx = ck.asm["ptx"]
    ptx = "\n".join(_relpaths(l, _source(k)) if l.lstrip().startswith(".file") else l for l in ptx.split("\n"))
    with open(os.path.join(realk, "ptx", k["name"] + ".ptx"), "w") as f:
        f.write(ptx)
    mdj = json.loads(_relpaths(json.dumps(md), _source(k)))
    with open(os.path.join(realk, "ptx", k["name"] + ".json"), "w") as f:
        json.dump(mdj, f, indent=1, sort_keys=True)
    entry = re.search(r"\.entry\s+(\w+)\s*\(([^)]*)\)", ptx)
    nparams = len(re.findall(r"\.param\b", entry.group(2)))
    assert nparams == len(k["args"]), (k["name"], nparams, len(k["args"]))
    assert md["num_warps"] * 32 == k["block"][0]
    print(f"{k['name']:24s} entry={entry.group(1)} params={nparams} shared={md['shared']} "
          f"num_warps={md['num_warps']} num_stages={md['num_stages']}")
    return md


if __name__ == "__main__":
    main()
