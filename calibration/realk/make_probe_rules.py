"""Write the data and manifest_rules.json of the rule probes (src/probe_rules.cu): one warp, one instruction form,
lanes driven by these arrays. Run from calibration/realk: python make_probe_rules.py"""
import json

import numpy as np

L = np.arange(32)
entries = []


def arr(name, values):
    path = f"data/probe_{name}.npy"
    np.save(path, np.asarray(values, dtype=np.int32))
    return f"npy:{path}"


def entry(name, kernel, args, what, block=32, grid=1):
    entries.append({"name": f"rule_{name}", "origin": f"written here: rule probe ({what})", "source": "src/probe_rules.cu",
                    "ptx": "ptx/probe_rules.ptx", "kernel": kernel, "grid": [grid, 1, 1], "block": [block, 1, 1], "smem": 0, "args": args,
                    "problem": what})


all_shared = arr("sel_shared", np.ones(32))
half_shared = arr("sel_half", L < 16)
generic = {"contig": L, "stride2": 2 * L, "stride32": 32 * L % 512, "stride33": 33 * L % 512, "bcast": np.zeros(32), "rev": 31 - L}
for w in range(8):
    generic[f"axpy{w}"] = (32 * w + 33 * L) & 255
for k, v in generic.items():
    entry(f"generic_st_{k}", "generic_st", ["zeros:8192", arr(f"gidx_{k}", v), all_shared], f"generic ST.E of 32 bits, word index pattern {k}")
entry("generic_st_axpy0_half", "generic_st", ["zeros:8192", arr("gidx_axpy0", generic["axpy0"]), half_shared], "generic ST.E, lanes 0-15 shared, 16-31 global")
for k in ("contig", "stride32", "axpy0", "axpy3"):
    entry(f"generic_ld_{k}", "generic_ld", ["zeros:8192", arr(f"gidx_{k}", generic[k]), all_shared], f"generic LD.E of 32 bits, pattern {k}")
for k, v in {"contig": L, "stride2": 2 * L % 256, "stride16": 16 * L % 256, "spread33": 33 * L % 256}.items():
    entry(f"generic_st64_{k}", "generic_st64", ["zeros:8192", arr(f"g64_{k}", v), all_shared], f"generic ST.E.64, 8-byte index pattern {k}")
for k, v in {"contig": L, "stride8": 8 * L % 128}.items():
    entry(f"generic_st128_{k}", "generic_st128", ["zeros:8192", arr(f"g128_{k}", v), all_shared], f"generic ST.E.128, 16-byte index pattern {k}")

# cp.async: src byte offset, dst byte offset, src-size per lane
tri_src = (L // 4) * 256 + (L % 4) * 16  # Triton's A tile: 64 bytes of each 256-byte row
tri_dst = np.array([0, 16, 32, 48, 64, 80, 96, 112, 144, 128, 176, 160, 208, 192, 240, 224, 288, 304, 256, 272, 352, 368, 320, 336,
                    432, 416, 400, 384, 496, 480, 464, 448])
con = 16 * L
cases = {
    "tri_full": (tri_src, tri_dst, np.full(32, 16)), "tri_zero": (tri_src, tri_dst, np.zeros(32)), "tri_halfzero": (tri_src, tri_dst, 16 * (L < 16)),
    "con_full": (con, con, np.full(32, 16)), "con_zero": (con, con, np.zeros(32)), "con_evenzero": (con, con, 16 * (L % 2)),
    "con_size8": (con, con, np.full(32, 8)), "con_size4": (con, con, np.full(32, 4)), "rows_zero": (256 * L % 8192, con, np.zeros(32)),
    "rows_full": (256 * L % 8192, con, np.full(32, 16)),
}
for k, (src, dst, size) in cases.items():
    args = ["zeros:8192", "npy:data/f32_red.npy", arr(f"cs_{k}", src), arr(f"cd_{k}", dst), arr(f"cn_{k}", size)]
    entry(f"cpa_cg16_{k}", "cpa_cg16", args, f"cp.async.cg 16 B, src-size in a register, case {k}")
    if k in ("tri_full", "tri_zero", "tri_halfzero", "con_zero", "con_evenzero", "rows_zero"):
        entry(f"cpa_cg16_pred_{k}", "cpa_cg16_pred", args, f"cp.async.cg 16 B, src-size 16 or 0 (a predicate), case {k}")
    if k in ("tri_full", "tri_zero", "con_full", "con_zero"):
        entry(f"cpa_ca16_{k}", "cpa_ca16", args, f"cp.async.ca 16 B, case {k}")
for k, (src, dst, size) in {"con_full": (4 * L, 4 * L, np.full(32, 4)), "con_zero": (4 * L, 4 * L, np.zeros(32)),
                            "src128_full": (128 * L % 8192, 4 * L, np.full(32, 4)), "src128_zero": (128 * L % 8192, 4 * L, np.zeros(32)),
                            "dst128_full": (4 * L, 128 * L % 8192, np.full(32, 4)), "dst128_zero": (4 * L, 128 * L % 8192, np.zeros(32))}.items():
    entry(f"cpa_ca4_{k}", "cpa_ca4", ["zeros:8192", "npy:data/f32_red.npy", arr(f"c4s_{k}", src), arr(f"c4d_{k}", dst), arr(f"c4n_{k}", size)],
          f"cp.async.ca 4 B, case {k}")
for k, (src, dst, size) in {"con_full": (8 * L, 8 * L, np.full(32, 8)), "con_zero": (8 * L, 8 * L, np.zeros(32))}.items():
    entry(f"cpa_ca8_{k}", "cpa_ca8", ["zeros:8192", "npy:data/f32_red.npy", arr(f"c8s_{k}", src), arr(f"c8d_{k}", dst), arr(f"c8n_{k}", size)],
          f"cp.async.ca 8 B, case {k}")

# the compiler's atomicCAS loop (ATOMS.CAST.SPIN): k lanes on each word
for k, v in {"distinct": L, "pairs": L // 2, "eight": L % 4, "all": np.zeros(32), "stride32": 32 * L % 256}.items():
    entry(f"cas_spin32_{k}", "cas_spin32", ["zeros:8192", arr(f"cas32_{k}", v)], f"float atomicAdd on shared words {k}")
for k, v in {"distinct": L, "pairs": L // 2, "eight": L % 4, "all": np.zeros(32), "halfwarp": L % 16}.items():
    entry(f"cas_spin64_{k}", "cas_spin64", ["zeros:8192", arr(f"cas64_{k}", v)], f"double atomicAdd on shared words {k}")

# store variance: LDG then STS, whole warps or one side of a branch (flags: bits 0-7 take the branch in round r % 8,
# bits 8-9 and 10-11 the lengths of the two sides' loops)
rng = np.random.default_rng(7)
flags = arr("sts_flags", rng.integers(0, 1 << 12, 1024))
for kern in ("sts_ldg", "sts_ldg_div", "sts_alu_div"):
    entry(f"{kern}_b256_g8", kern, ["zeros:8192", "npy:data/f32_red.npy", flags], f"store variance: {kern}, 8 CTAs of 8 warps", 256, 8)
    entry(f"{kern}_b32_g1", kern, ["zeros:8192", "npy:data/f32_red.npy", flags], f"store variance: {kern}, one warp", 32, 1)

json.dump(entries, open("manifest_rules.json", "w"), indent=1)
print(len(entries), "entries")
