"""The new realk entries (everything but the measured fields): `python3 build.py` compiles them and writes
manifest_new.json from this list. Paths are relative to calibration/realk/.

Each entry: name, origin (what it is and which shared-memory behaviour it is here for), source, ptx, kernel,
grid, block, smem (dynamic bytes), args (launch.cu's strings), problem.
"""

from __future__ import annotations

W = "written here (calibration/realk): "


def E(name, kernel, src, grid, block, smem, args, problem, origin):
    g = list(grid) + [1] * (3 - len(grid))
    b = list(block) + [1] * (3 - len(block))
    return {
        "name": name,
        "origin": W + origin,
        "source": f"src/{src}.cu",
        "ptx": f"ptx/{src}.ptx",
        "kernel": kernel,
        "grid": g,
        "block": b,
        "smem": smem,
        "args": args,
        "problem": problem,
    }


def z(nbytes: int) -> str:
    return f"zeros:{nbytes}"


def npy(name: str) -> str:
    return f"npy:data/{name}.npy"


ENTRIES: list[dict] = []
add = ENTRIES.append

# ------------------------------------------------------------------------------------------------ SGEMM
G32 = [z(64 * 64 * 4), npy("f32_ga"), npy("f32_gb"), "64", "64", "128"]
P32 = "C(64x64) = A(64x128) B(128x64) f32, 2x2 CTAs of 32x8 threads, 4 k-tiles of 32"
add(E("sgemm_tile32", "sgemm_tile32", "sgemm", [2, 2], [32, 8], 0, G32, P32,
      "SGEMM with 32x32 shared tiles of A and B, scalar reads As[r][k] (warp-uniform broadcast, merged into "
      "LDS.128 by ptxas) and Bs[k][tx] (conflict-free)"))
for mode, what in (("naive", "AsT[32][32]: the transposing stores of a warp all fall in one bank (32-way conflicts)"),
                   ("pad1", "AsT[32][33]: one padding column, conflict-free transposing stores"),
                   ("swz", "AsT[32][32] with column m ^ k: XOR swizzle, conflict-free stores, no padding")):
    add(E(f"sgemm_at32_{mode}", f"sgemm_at32_{mode}", "sgemm", [2, 2], [32, 8], 0, G32, P32,
          "SGEMM 32x32 tiles with the A tile stored transposed as it is read; " + what +
          "; reads AsT[k][m] are warp-uniform broadcasts"))
GRB = [z(128 * 128 * 4), npy("f32_ga"), npy("f32_gb"), "128", "128", "64"]
for mode, what in (("naive", "As[16][64]: the 4 transposing scalar stores per thread are 4-way bank conflicts"),
                   ("pad4", "As[16][68]: +4 padding keeps float4 alignment, stores 2-way"),
                   ("swz", "As[16][64] with 8-float groups XOR (k/4)&3: conflict-free stores, aligned float4 reads")):
    add(E(f"sgemm_rb64_{mode}", f"sgemm_rb64_{mode}", "sgemm", [2, 2], [16, 16], 0, GRB,
          "C(128x128) = A(128x64) B(64x128) f32, 2x2 CTAs of 16x16 threads, 64x64 CTA tile, BK=16, 4x4 per thread",
          "register-blocked SGEMM (4x4 outputs per thread) with LDS.128 reads of a transposed A tile and of B "
          "(broadcast/multicast float4 reads), STS.128 of B; " + what))
add(E("sgemm_rb128_8x8", "sgemm_rb128_8x8", "sgemm", [1, 1], [256], 0, GRB,
      "C(128x128) = A(128x64) B(64x128) f32, one CTA of 256 threads, 128x128 tile, BK=8, 8x8 per thread",
      "register-blocked SGEMM, 8x8 outputs per thread from two float4 of A and two of B per k (64 apart), "
      "A stored transposed (2-way store conflicts), 4 LDS.128 per 64 FFMA"))

# ------------------------------------------------------------------------------------------------ transposes
for name, dt, el, what in (
        ("transpose_f64_naive", "f64_t64", 8, "double tile[32][32]: column reads 256 bytes apart (LDS.64, all lanes "
                                              "in 2 banks)"),
        ("transpose_f64_padded", "f64_t64", 8, "double tile[32][33]: column reads 264 bytes apart (LDS.64)"),
        ("transpose_u8_naive", "u8_t64", 1, "unsigned char tile[32][32]: STS.U8 rows (4 lanes per word), LDS.U8 "
                                            "column reads 32 bytes apart (4-way)"),
        ("transpose_u8_padded", "u8_t64", 1, "unsigned char tile[32][33]: LDS.U8 column reads 33 bytes apart"),
        ("transpose_u16_padded", "u16_t64", 2, "unsigned short tile[32][34]: STS.U16 / LDS.U16, 68-byte lane stride")):
    add(E(name, name, "transpose2", [2, 2], [32, 8], 0, [z(64 * 64 * el), npy(dt), "64", "64"],
          f"64x64 {dt.split('_')[0]}, 32x8 threads, 4 elements per thread",
          "tiled transpose through shared memory with sub-word / double-word elements: " + what))

# ------------------------------------------------------------------------------------------------ reductions
add(E("reduce4_warpsync", "reduce4_warpsync", "reduce2", [16], [256], 1024,
      [npy("f32_red"), z(64), "8192"],
      "n=8192 f32, 16 blocks x 256 threads (512 elements per block), dynamic smem 1024",
      "block sum, 2 loads per thread, sequential addressing to 64 partials, then the last warp on volatile smem "
      "with no barrier (warp-synchronous LDS/LDS/STS steps by all 32 lanes)"))
add(E("reduce5_gridstride", "reduce5_gridstride", "reduce2", [8], [256], 1024,
      [npy("f32_red"), z(32), "8192"],
      "n=8192 f32, 8 blocks x 256 threads, 4 elements per thread by a grid-stride loop, dynamic smem 1024",
      "block sum after a grid-stride accumulation loop; sequential-addressing tree with __syncthreads to 1"))
add(E("reduce6_gridstride_f4", "reduce6_gridstride_f4", "reduce2", [4], [256], 1024,
      [npy("f32_red"), z(16), "2048"],
      "n=8192 f32 as 2048 float4, 4 blocks x 256 threads, 2 float4 per thread, dynamic smem 1024",
      "block sum with float4 grid-stride loads, two barrier levels, then the last warp on volatile smem"))

# ------------------------------------------------------------------------------------------------ histograms
for data, what in (("uniform", "uniform random bytes (few same-bin collisions in a warp)"),
                   ("skewed", "Zipf-skewed bytes: the top bin holds 44% of the bytes, the top 4 70% "
                              "(many lanes of a warp hit the same bin)")):
    add(E(f"hist256_smem_{data}", "hist256_smem", "histogram", [4], [256], 0,
          [z(1024), npy(f"u32_hist_{data}"), "8192"],
          f"8192 u32 words = 32768 bytes ({data}), 4 blocks x 256 threads, 8 words per thread",
          "256-bin histogram with shared atomicAdd (ATOMS.POPC.INC) per byte, one shared histogram per block; "
          + what))
    add(E(f"hist256_warp_private_{data}", "hist256_warp_private", "histogram", [4], [256], 0,
          [z(1024), npy(f"u32_hist_{data}"), "8192"],
          f"8192 u32 words = 32768 bytes ({data}), 4 blocks x 256 threads, 8 sub-histograms of 256 words",
          "256-bin histogram with one shared sub-histogram per warp (collisions only within a warp), merged by "
          "8 LDS per bin; " + what))
add(E("hist256_atomic_misc_skewed", "hist256_atomic_misc", "histogram", [4], [256], 0,
      [z(4 * 2560 * 4), npy("u32_hist_skewed"), "8192"],
      "first 8192 bytes of the skewed histogram data, 4 blocks x 256 threads, 8 bytes per thread",
      "every other shared atomic (ATOMS.MAX/MIN/OR/AND/XOR/EXCH/CAS/ADD/INC/DEC) on per-bin slots of skewed "
      "data, used so that outputs do not depend on arrival order"))
for spread in (32, 4):
    add(E(f"smem_atomic_cas_spread{spread}", "smem_atomic_cas_loops", "histogram", [2], [256], 0,
          [z(2 * 768 * 4), npy("f32_red"), "4", str(spread)],
          f"2 blocks x 256 threads, 4 rounds, lane l adds to its warp's slot l % {spread}",
          "f32 and u64 atomicAdd on shared memory, which ptxas compiles to LDS + ATOMS.CAST.SPIN retry loops; "
          + ("every lane its own slot: each loop succeeds at once" if spread == 32 else
             "8 lanes of a warp per slot: the loop retries until each has succeeded (only lanes of one warp "
             "collide, so the count is deterministic)")))

# ------------------------------------------------------------------------------------------------ sort, scan
add(E("bitonic_sort_1024", "bitonic_sort_1024", "bitonic", [4], [256], 0, [z(16384), npy("u32_keys")],
      "4 blocks x 1024 u32 keys (20-bit, some duplicates), 256 threads, 55 compare-exchange stages",
      "bitonic sort in shared memory: strided pair loads (i, i + j), data-dependent (divergent) write-back of "
      "swapped pairs, a barrier per stage"))
for cfo in (False, True):
    nm = "scan_blelloch_cfo" if cfo else "scan_blelloch"
    add(E(nm, nm, "scan", [4], [256], 0, [z(8192), z(16), npy("i32_scan")],
          "4 blocks x 512 int32 (2 per thread), exclusive scan per block and block totals",
          "work-efficient (Blelloch) scan: up-sweep and down-sweep with strides 1..256 "
          + ("with the conflict-free offset w + (w >> 5)" if cfo else
             "with plain indices (2- to 32-way bank conflicts as the stride grows)")))

# ------------------------------------------------------------------------------------------------ stencils
add(E("stencil1d_r3", "stencil1d_r3", "stencil", [16], [256], 0, [z(4000 * 4), npy("f32_red"), "4000"],
      "n=4000 f32 (last block partial), 16 blocks x 256 threads, radius 3",
      "1D 7-point stencil with a shared halo: the first 3 threads also load 3 left and 3 right halo elements "
      "(divergent), then 7 LDS per thread at consecutive offsets"))
add(E("stencil2d_5pt", "stencil2d_5pt", "stencil", [4, 4], [16, 16], 0,
      [z(64 * 64 * 4), npy("f32_t64"), "64", "64"],
      "64x64 f32 grid, 4x4 blocks of 16x16 threads, (16+2)x(16+2) shared tile",
      "2D 5-point stencil: interior loads, then 4 halo edges loaded by the border threads (divergent STS); "
      "a warp spans two tile rows 18 words apart (2-way conflicts on 2 banks)"))

# ------------------------------------------------------------------------------------------------ HGEMM
GH = [npy("f16_ha"), npy("f16_hb"), "128", "128", "256"]
PH = "C(128x128) = A(128x256) B(256x128) f16 in, f32 accumulate, 2x2 CTAs of 128 threads, 64x64x64 tiles, 4 k-tiles"
add(E("hgemm_cpasync_plain", "hgemm_cpasync_plain", "hgemm", [2, 2], [128], 0, [z(128 * 128 * 4)] + GH, PH,
      "tensor-core GEMM: cp.async (LDGSTS .cg 16 for A, .ca 16 for B) double buffering, ldmatrix.x4 (A) and "
      "ldmatrix.x4.trans (B) from a plain row-major layout (128-byte rows: 8-way conflicting LDSM), "
      "mma.m16n8k16, f32 C from registers"))
add(E("hgemm_cpasync_swz", "hgemm_cpasync_swz", "hgemm", [2, 2], [128], 0, [z(128 * 128 * 4)] + GH, PH,
      "the same tensor-core GEMM with the 16-byte chunks of each row XOR-swizzled by row % 8 "
      "(conflict-free LDSM and LDGSTS)"))
add(E("hgemm_stsm_plain", "hgemm_stsm_plain", "hgemm", [2, 2], [128], 0, [z(128 * 128 * 2)] + GH,
      PH.replace("f32 accumulate", "f32 accumulate, f16 C"),
      "swizzled tensor-core GEMM whose epilogue stores the 64x64 f16 C tile with stmatrix.x4 (STSM) into a "
      "plain row-major shared tile (8-way conflicts), then LDS.128 + 16-byte global stores"))
add(E("hgemm_stsm_swz", "hgemm_stsm_swz", "hgemm", [2, 2], [128], 0, [z(128 * 128 * 2)] + GH,
      PH.replace("f32 accumulate", "f32 accumulate, f16 C"),
      "swizzled tensor-core GEMM with a stmatrix.x4 epilogue into a swizzled C tile (conflict-free STSM)"))

# ------------------------------------------------------------------------------------------------ cp.async forms
add(E("cpasync_zfill", "cpasync_zfill", "cpasync", [2], [128], 0, [z(2 * 3 * 512 * 4), npy("f32_red"), "1000"],
      "n=1000 f32 staged in 2 blocks of 512 (the second mostly past the end), 128 threads",
      "cp.async with zero fill: .cg 16 with src-size 16/12/8/4/0 (LDGSTS.BYPASS.128.ZFILL), .ca 8 with "
      "src-size (LDGSTS.64.ZFILL), .ca 4 with the ignore-src predicate"))
add(E("cpasync_pred", "cpasync_pred", "cpasync", [4], [128], 0,
      [z(4 * 5 * 128 * 4), npy("f32_red"), npy("i32_flags"), "512"],
      "4 blocks x 128 threads, flags 0..3 per thread (bit 0: 4-byte copy, bit 1: 16-byte copy)",
      "predicated cp.async (`@p cp.async` in inline PTX -> `@P0 LDGSTS.E`, `@P1 LDGSTS.E.BYPASS.128`) over "
      "shared memory pre-filled by STS: per-lane data-dependent copy masks"))
add(E("cpasync_forms", "cpasync_forms", "cpasync", [4], [128], 0, [z(4 * 13 * 128 * 4), npy("f32_red")],
      "4 blocks x 128 threads, 16 floats per thread copied four ways",
      "the plain LDGSTS forms (.ca 4, .ca 8 with a 16-byte lane stride, .ca 16 with a conflicting chunk "
      "permutation, .cg 16 contiguous), read back with LDS.128"))

# ------------------------------------------------------------------------------------------------ generic
add(E("generic_smem_axpy", "generic_smem_axpy", "generic", [4], [256], 0, [z(4096), npy("f32_red"), "1.5"],
      "4 blocks x 256 threads, y = 1.5 x + y on a permuted 256-float shared tile",
      "shared memory through generic addresses: a __noinline__ function taking float* is called with "
      "pointers into __shared__ arrays, so its LD.E / ST.E land in shared memory"))
add(E("generic_mixed", "generic_mixed", "generic", [4], [256], 0,
      [z(4 * 512 * 4), npy("f32_red"), npy("i32_sel"), "0.75"],
      "4 blocks x 256 threads, per-lane choice (npy flags) of shared or global pointers",
      "generic LD.E / ST.E (and LD.E.128 / ST.E.128) in a __noinline__ function whose pointer is shared for "
      "some lanes and global for the others within one warp instruction"))

# ------------------------------------------------------------------------------------------------ divergence
add(E("div_while_then_smem", "div_while_then_smem", "diverge", [4], [256], 0,
      [z(4096), npy("i32_trips"), npy("f32_red")],
      "4 blocks x 256 threads, per-lane trip counts 0..40 (warp 0 all 7, warp 1 all 0, warp 2 lane l: l)",
      "divergence probe: a per-lane while-loop trip count then a shared load/store with no barrier in between "
      "(where does the warp reconverge?)"))
add(E("div_ifelse_order", "div_ifelse_order", "diverge", [4], [256], 0,
      [z(4096), npy("i32_sel"), npy("f32_red")],
      "4 blocks x 256 threads, per-lane flags 0..7 (bit 0: arm, bits 1-2: extra rounds)",
      "divergence probe: if/else with shared accesses in both arms; the else arm reads the neighbour lane's "
      "word, so the output shows which arm the hardware ran first"))
add(E("div_early_return", "div_early_return", "diverge", [4], [256], 0, [z(4096), npy("f32_red")],
      "4 blocks x 256 threads, lanes with negative input (about half) return at once",
      "divergence probe: early exit of some lanes (@P0 EXIT) then STS/LDS (2-word lane stride) by the rest"))
add(E("div_loop_break", "div_loop_break", "diverge", [4], [256], 0,
      [z(8192), npy("f32_pos"), npy("f32_thr")],
      "4 blocks x 256 threads, thresholds 0..40 against running sums of values in [0,1)",
      "divergence probe: a loop of shared loads with a data-dependent break (lanes leave one by one)"))
add(E("div_fdiv_slowpath", "div_fdiv_slowpath", "diverge", [4], [256], 0,
      [z(4096), npy("f32_diva"), npy("f32_divb"), npy("i32_sel")],
      "4 blocks x 256 threads, half the lanes divide, about 8% of operands need the slow path",
      "divergence probe: IEEE f32 division inside a divergent branch (FCHK, CALL to the slow-path "
      "subroutine for special operands, BSSY/BSYNC), shared loads/stores around it"))

# ------------------------------------------------------------------------------------------------ ISA checks
NI = 256
for name, nout, ins, what in (
        ("isa_int32", 81, ["u32_isa_a", "u32_isa_b", "u32_isa_c", "u32_isa_d"],
         "32-bit integer semantics: mul.hi/wide, mad, mul24, div/rem by run-time divisors (0, -1, INT_MIN/-1), "
         "bfe/bfi, prmt modes, popc/clz/brev/bfind, funnel shifts, shifts >= 32, min/max/abs, add.sat, carry "
         "chains, sad, dp4a/dp2a, SIMD video ops, every s32/u32 comparison"),
        ("isa_int64", 60, ["u64_isa_a", "u64_isa_b", "u32_isa_c", "u64_isa_d"],
         "64-bit integer semantics: add/sub/mul/mul.hi, shifts >= 64, u64/s64 div/rem (the CALLed "
         "subroutines), min/max/abs, popc/clz/brev/bfind/bfe, every s64/u64 comparison"),
        ("isa_float32", 61, ["f32_isa_x", "f32_isa_y", "f32_isa_z", "f32_isa_w"],
         "f32 semantics: add/mul/fma/div in four rounding modes, IEEE and fast division, rcp/sqrt/rsqrt, "
         "MUFU ex2/lg2/sin/cos/tanh, library sinf/cosf (with the Payne-Hanek local-memory path), min/max with "
         "NaN, rounding, ftz/sat forms, all 14 setp comparisons and testp classes"),
        ("isa_float64", 61, ["f64_isa_x", "f64_isa_y", "f64_isa_z"],
         "f64 semantics: add/mul/fma/div/sqrt/rcp with rounding modes (DADD/DMUL/DFMA, MUFU.RCP64H/RSQ64H "
         "and the CALLed slow paths), min/max, rounding, all 14 setp comparisons"),
        ("isa_convert", 72, ["f32_cvt_x", "u32_cvt_u", "f64_cvt_d"],
         "conversion semantics: f32/f64 -> s32/u32/s64/u64/s8/u8/s16/u16 in all rounding modes with saturation, "
         "ints -> f32/f64 with rounding, f32 <-> f16/bf16/tf32/e4m3/e5m2, f16x2/bf16x2 packing, f64 -> f32"),
        ("isa_half", 35, ["u32_half_p", "u32_half_q", "u32_half_r"],
         "half2/bfloat162 semantics: HADD2/HMUL2/HFMA2 (sat, relu), min/max (NaN), neg/abs, comparisons, "
         "division/rcp/sqrt/ex2/tanh (MUFU .F16)"),
        ("isa_warp", 42, ["u32_warp_v", "u32_warp_s"],
         "warp-level semantics: SHFL idx/up/down/bfly with widths, partial masks and the valid predicate, "
         "VOTE ballot/any/all (also under divergence, activemask), MATCH any/all (32- and 64-bit), "
         "REDUX add/min/max/and/or/xor")):
    add(E(name, name, "isa", [2], [128], 0, [z(nout * NI * 4)] + [npy(i) for i in ins] + [str(NI)],
          f"256 threads (2 x 128), {nout} result words per thread at out[j * 256 + thread]",
          "ISA-semantics check, no shared memory (the emulator's outputs must equal the GPU's bit for bit): "
          + what))
