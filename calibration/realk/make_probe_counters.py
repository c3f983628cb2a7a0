"""Write manifest_counters.json and manifest_counters2.json (the second batch, written after the first's results) and their
data: the probes of issue 34's counters (runs/2026-11-29-counters/README.md), launched by launch.cu and measured by
measure.sh. Run from calibration/realk: python make_probe_counters.py
  gen_*  src/probe_generic_atom.cu: one generic atomic, reduction, load or store of one warp on shared words
  cpc_*  src/probe_cpasync_counters.cu cpc_loop: cp.async copies of 1 to 32 warps, fresh lines, L1 hits, waits
  cpb_*  src/probe_cpasync_counters.cu cpb_*: sequences of cp.async in the predicate, .ZFILL and plain forms (bytes)
  pg_*   src/pipeline_gemm.cu: SGEMM through a cuda::pipeline (block scope: shared state, float4 copies; thread scope:
         4-byte copies), cuda::memcpy_async
  tp_*   src/triton_probes.py: Triton fp16 matmuls without masks, num_stages Triton's default (3)
Second batch: gen2_* (64-bit MIN and F64 ADD, F32 ADD on conflicting words, lanes on global memory beside shared ones,
generic LD.64 at a 16-byte stride), pg16_* (16x16 tiles: the CUDA samples' multistage form, two half-warp rows per
copy; a one-producer-warp block-scope pipeline), cpb2_* (predicate-form copies whose addresses come from loads)."""
import json

import numpy as np

L = np.arange(32)
entries = []


def arr(name, values):
    path = f"data/pc_{name}.npy"
    np.save(path, np.asarray(values, dtype=np.int32))
    return f"npy:{path}"


def entry(name, source, kernel, grid, block, args, problem, smem=0, ptx=None):
    base = source.split("/")[-1].rsplit(".", 1)[0]
    entries.append({"name": name, "origin": f"written here: issue 34 counter probe ({source})", "source": source,
                    "ptx": ptx or f"ptx/{base}.ptx", "kernel": kernel, "grid": list(grid) + [1] * (3 - len(grid)),
                    "block": list(block) + [1] * (3 - len(block)), "smem": smem, "args": args, "problem": problem})


# ---------------------------------------------------------------------------------------------- generic accesses
rng = np.random.default_rng(20261129)
shared = arr("sel_all", np.ones(32))
half = arr("sel_low16", L < 16)
P32 = {"contig": L, "stride2": 2 * L, "stride32": 32 * L, "same": np.zeros(32), "pairs": L // 2, "rand": rng.integers(0, 1024, 32)}
OPS32 = {"add": ("gatom_add", list(P32) + ["half"]), "cas": ("gatom_cas", ["contig", "stride32", "same", "pairs"]),
         "exch": ("gatom_exch", ["contig", "stride32", "same"]), "max": ("gatom_max", ["contig", "stride32"]),
         "inc": ("gatom_inc", ["contig", "same"]), "and": ("gatom_and", ["contig", "stride32"]),
         "add_cta": ("gatom_add_cta", ["contig", "same"]), "addf": ("gatom_addf", ["contig", "same"]),
         "red_add": ("gred_add", ["contig", "stride32", "same"]), "red_addf": ("gred_addf", ["contig"])}
for op, (kernel, pats) in OPS32.items():
    for p in pats:
        idx = arr(f"g32_{p}", P32["contig" if p == "half" else p])
        entry(f"gen_{op}_{p}", "src/probe_generic_atom.cu", kernel, [1], [32], ["zeros:16384", idx, half if p == "half" else shared],
              f"one warp, generic {kernel[1:]} on shared word idx[l] ({p})" + (", lanes 16-31 on global memory" if p == "half" else ""))
P64 = {"contig": L, "stride16": 16 * L % 512, "same": np.zeros(32), "pairs": L // 2}
for op, kernel, pats in (("add64", "gatom_add64", ["contig", "same"]), ("exch64", "gatom_exch64", ["contig", "stride16", "same"]),
                         ("cas64", "gatom_cas64", ["contig", "stride16", "same"])):
    for p in pats:
        entry(f"gen_{op}_{p}", "src/probe_generic_atom.cu", kernel, [1], [32], ["zeros:16384", arr(f"g64_{p}", P64[p]), shared],
              f"one warp, generic 64-bit {kernel[6:]} on shared 8-byte unit idx[l] ({p})")
LDST = {  # kernel: unit patterns (units of the access size)
    "gld8": {"contig": L, "stride4": 4 * L, "stride128": 128 * L, "same": np.zeros(32)},
    "gld16": {"contig": L, "stride64": 64 * L, "same": np.zeros(32)},
    "gld64": {"contig": L, "stride16": 16 * L % 512, "same": np.zeros(32), "pairs": L // 2},
    "gld128": {"contig": L, "stride8": 8 * L % 256, "same": np.zeros(32), "quads": L // 4},
    "gst8": {"contig": L, "stride128": 128 * L, "same": np.zeros(32)},
    "gst16": {"contig": L, "stride64": 64 * L, "same": np.zeros(32)},
}
for kernel, pats in LDST.items():
    for p, v in pats.items():
        entry(f"gen_{kernel[1:]}_{p}", "src/probe_generic_atom.cu", kernel, [1], [32], ["zeros:16384", arr(f"{kernel}_{p}", v), shared],
              f"one warp, generic {kernel[1:]} on shared unit idx[l] ({p})")

# ---------------------------------------------------------------------------------------------- cp.async loops
MODES = {"ca4_fresh": 0, "ca4_same": 1, "ca4_wait": 2, "cg16_fresh": 3, "ca16_fresh": 4, "ca4_warm": 5}
for tag, mode in MODES.items():
    for warps, n in ((1, 64), (4, 32), (32, 16)):
        if warps == 4 and mode not in (0, 3):
            continue
        entry(f"cpc_{tag}_w{warps}", "src/probe_cpasync_counters.cu", "cpc_loop", [1], [32 * warps],
              ["zeros:16384", f"zeros:{warps * n * 512}", str(mode), str(n)], f"{warps} warp(s), {n} copies each, mode {mode} ({tag})")

# ---------------------------------------------------------------------------------------------- cp.async sequences (bytes)
on = arr("cpb_on", np.full(32, 0xFF))
rand = arr("cpb_rand", rng.integers(0, 256, 32))
zf_on = arr("cpb_zf_on", np.full(32, 16 | 16 << 5 | 16 << 10 | 16 << 15))
zf_rand = arr("cpb_zf_rand", sum(rng.choice([0, 4, 8, 12, 16], 32) << (5 * k) for k in range(4)))
for kernel, flags, tag in (("cpb_pred1", on, "on"), ("cpb_pred2", on, "on"), ("cpb_pred4", on, "on"), ("cpb_pred8", on, "on"),
                           ("cpb_pred4", rand, "rand"), ("cpb_pred4_wait", on, "on"), ("cpb_pred4_bar", on, "on"),
                           ("cpb_pred4_spin", on, "on"), ("cpb_plain4", on, "on"), ("cpb_zfill4", zf_on, "on"),
                           ("cpb_zfill4", zf_rand, "rand"), ("cpb_ca4_pred4", on, "on"), ("cpb_ca4_pred4", rand, "rand")):
    entry(f"{kernel}_{tag}", "src/probe_cpasync_counters.cu", kernel, [1], [32], ["zeros:16384", "npy:data/f32_red.npy", flags],
          f"one warp, {kernel[4:]}, flags {tag}")

# ---------------------------------------------------------------------------------------------- cuda::pipeline GEMMs
g = np.random.default_rng(7)
np.save("data/pc_pg_a.npy", g.integers(-4, 4, (128, 128)).astype(np.float32))
np.save("data/pc_pg_b.npy", g.integers(-4, 4, (128, 128)).astype(np.float32))
ab = ["npy:data/pc_pg_a.npy", "npy:data/pc_pg_b.npy", "128", "128"]
entry("pg_block", "src/pipeline_gemm.cu", "mm_pipe_block", [4, 4], [8, 32], ["zeros:65536"] + ab,
      "C[128x128] = A B, 32x32 tiles, block-scope cuda::pipeline of 4 stages (pipeline_shared_state), float4 memcpy_async")
entry("pg_thread", "src/pipeline_gemm.cu", "mm_pipe_thread", [4, 4], [32, 32], ["zeros:65536"] + ab,
      "C[128x128] = A B, 32x32 tiles, thread-scope cuda::pipeline of 4 stages, 4-byte memcpy_async per thread and matrix")
entry("pg_thread_1cta", "src/pipeline_gemm.cu", "mm_pipe_thread", [1, 1], [32, 32], ["zeros:65536"] + ab,
      "pg_thread's first CTA alone")

# ---------------------------------------------------------------------------------------------- Triton matmuls
TP = {"tp_mm_128x128x32_w4": (256, 4, 128), "tp_mm_128x256x64_w8": (256, 2, 256), "tp_mm_64x64x32_w4_k512": (512, 4, 128),
      "tp_mm_128x128x64_w4": (256, 4, 128)}
for name, (size, grid, block) in TP.items():
    meta = json.load(open(f"ptx/{name}.json"))
    m = n = 128 if size == 512 else 256
    k = size
    entry(name, "src/triton_probes.py", name, [grid], [block],
          [f"npy:data/tp_f16_a_{size}.npy", f"npy:data/tp_f16_b_{size}.npy", f"zeros:{2 * m * n}", str(m), str(n), str(k), str(size), str(size),
           str(n), "zeros:0", "zeros:0"], f"C[{m}x{n}] fp16 = A[{m}x{k}] B[{k}x{n}], Triton {name[6:]}, num_stages {meta['num_stages']}",
          smem=meta["shared"], ptx=f"ptx/{name}.ptx")
entries.append(dict(entries[-4], name="tp_mm_128x128x32_w4_512", grid=[16, 1, 1],
                    args=["npy:data/tp_f16_a_512.npy", "npy:data/tp_f16_b_512.npy", "zeros:524288", "512", "512", "512", "512", "512", "512",
                          "zeros:0", "zeros:0"], problem="C[512x512] fp16 = A B, Triton mm_128x128x32_w4, 16 programs, 16 K steps"))

with open("manifest_counters.json", "w") as f:
    json.dump(entries, f, indent=1)
    f.write("\n")
print(len(entries), "entries")

# ---------------------------------------------------------------------------------------------- second batch
first = entries
entries = []
for kernel, p, tag in (("gatom_min64", "contig", "min64"), ("gatom_min64", "same", "min64"), ("gatom_addf64", "contig", "addf64"),
                       ("gatom_addf64", "same", "addf64")):
    entry(f"gen2_{tag}_{p}", "src/probe_generic_atom.cu", kernel, [1], [32], ["zeros:16384", arr(f"g64_{p}", P64[p]), shared],
          f"one warp, generic 64-bit {kernel[6:]} on shared 8-byte unit idx[l] ({p})")
entry("gen2_addf_stride32", "src/probe_generic_atom.cu", "gatom_addf", [1], [32], ["zeros:16384", arr("g32_stride32", P32["stride32"]), shared],
      "one warp, generic atom.add.f32 on shared words 32 apart (one bank)")
for kernel, tag, v in (("gst32", "st32", L), ("gatom_exch", "exch", L), ("gld128", "ld128", L), ("gld64", "ld64", L // 2)):
    entry(f"gen2_{tag}_half", "src/probe_generic_atom.cu", kernel, [1], [32], ["zeros:16384", arr(f"g2_{tag}_half", v), half],
          f"one warp, generic {kernel[1:]}, lanes 0-15 on shared units idx[l], 16-31 on global memory")
entry("gen2_ld64_stride2", "src/probe_generic_atom.cu", "gld64", [1], [32], ["zeros:16384", arr("gld64_stride2", 2 * L), shared],
      "one warp, generic ld.v2.u32 on shared 8-byte units 2 apart (16-byte stride)")
g = np.random.default_rng(8)
np.save("data/pc_pg_a256.npy", g.integers(-4, 4, (256, 256)).astype(np.float32))
np.save("data/pc_pg_b256.npy", g.integers(-4, 4, (256, 256)).astype(np.float32))
for size, grid in ((128, 8), (256, 16)):
    ab = [f"npy:data/pc_pg_a{'' if size == 128 else 256}.npy", f"npy:data/pc_pg_b{'' if size == 128 else 256}.npy", str(size), str(size)]
    sfx = "" if size == 128 else "_256"
    entry(f"pg16_thread{sfx}", "src/pipeline_gemm.cu", "mm16_pipe_thread", [grid, grid], [16, 16], [f"zeros:{4 * size * size}"] + ab,
          f"C[{size}x{size}] = A B, 16x16 tiles, thread-scope cuda::pipeline of 4 stages, 4-byte copies (two half-warp rows a copy)")
    entry(f"pg16_producer{sfx}", "src/pipeline_gemm.cu", "mm16_pipe_producer", [grid, grid], [16, 18], [f"zeros:{4 * size * size}"] + ab,
          f"C[{size}x{size}] = A B, 16x16 tiles, block-scope cuda::pipeline, one producer warp copying every tile, 8 consumer warps")
con16 = arr("cpb2_con16", 16 * L)
for warps in (1, 4):
    entry(f"cpb2_pred2_idx_w{warps}", "src/probe_cpasync_counters.cu", "cpb_pred2_idx", [1], [32 * warps],
          ["zeros:16384", "npy:data/f32_red.npy", on, con16, con16], f"{warps} warp(s), two predicate-form copies, addresses loaded from arrays")
ho5 = next(e for e in json.load(open("manifest.json")) if e["name"] == "ho5_cg16_two_tri_both")
entries.append({k: ho5[k] for k in ("origin", "source", "ptx", "kernel", "grid", "block", "smem", "args", "problem")} | {"name": "cpb2_ho5_tri_both"})
with open("manifest_counters2.json", "w") as f:
    json.dump(entries, f, indent=1)
    f.write("\n")
print(len(entries), "entries in the second batch")
