"""Write the data and manifest_ldgsts_holdout.json: held-out probes of cp.async .cg 16 B in its three SASS forms
(src/probe_rules.cu: cpa_cg16 = .ZFILL with src-size in a register, cpa_cg16_pred = src-size 16 or 0 as a
predicate, cpa_cg16_plain = no src-size), one warp, lanes driven by these arrays. Written before they were
measured, to test the LDGSTS .cg rule fitted to the lg_cg16_* and rule_cpa_cg16_* probes (round 1,
manifest_ldgsts_holdout.json), then the predicate form's wavefront rule found on round 1's random probes (round 2,
manifest_ldgsts_holdout2.json), then the src-size forms' conflict rule refitted on both (round 3,
manifest_ldgsts_holdout3.json). Run from calibration/realk: python make_probe_ldgsts_holdout.py 1|2|3"""
import json
import sys

import numpy as np

L = np.arange(32)
rng = np.random.default_rng(20261127)
entries = []
KERNEL = {"zf": "cpa_cg16", "pr": "cpa_cg16_pred", "pl": "cpa_cg16_plain", "neg": "cpa_cg16_pred_neg", "off": "cpa_cg16_pred_off",
          "two": "cpa_cg16_pred_two", "ca": "cpa_ca4_pred", "caneg": "cpa_ca4_pred_neg", "zf2": "cpa_cg16_zfill_two"}
WHAT = {"zf": "src-size in a register (.ZFILL)", "pr": "src-size 16 or 0 (a predicate)", "pl": "no src-size",
        "neg": "src-size 16 or 0 (a negated predicate: size 0 copies)", "off": "src-size 16 or 0 (a predicate), source + 64 as an immediate",
        "two": "two copies, src-size 16 or 0 by bits 0 and 1 of size (predicates P2 and P0)",
        "ca": "cp.async.ca 4 B, src-size 4 or 0 (predicate P0)", "caneg": "cp.async.ca 4 B, src-size 4 or 0 (predicate !P0: size 0 copies)",
        "zf2": "two copies, src-size in a register (.ZFILL): bits 0-4 and 5-9 of size (predicates P2 and P0)"}
SOURCE = {"neg": "probe_ldgsts_forms", "off": "probe_ldgsts_forms", "two": "probe_ldgsts_pred2", "ca": "probe_ldgsts_ca_pred",
          "caneg": "probe_ldgsts_ca_pred", "zf2": "probe_ldgsts_zfill2"}


def arr(name, values):
    path = f"data/probe_{name}.npy"
    np.save(path, np.asarray(values, dtype=np.int32))
    return f"npy:{path}"


def entry(name, form, src, dst, size, what):
    tag = f"ho_{form}_{name}" if ROUND == 1 else f"ho{ROUND}_{form}_{name}"
    args = ["zeros:8192", "npy:data/f32_red.npy", arr(f"{tag}_src", src), arr(f"{tag}_dst", dst), arr(f"{tag}_size", size)]
    kind = "ca4" if form in ("ca", "caneg") else "cg16"
    entries.append({"name": f"ho_cg16_{form}_{name}" if ROUND == 1 else f"ho{ROUND}_{kind}_{form}_{name}", "origin": "written here: held-out LDGSTS .cg probe",
                    "source": f"src/{SOURCE.get(form, 'probe_rules')}.cu", "ptx": f"ptx/{SOURCE.get(form, 'probe_rules')}.ptx", "kernel": KERNEL[form], "grid": [1, 1, 1], "block": [32, 1, 1], "smem": 0,
                    "args": args, "problem": f"{'' if form in ('ca', 'caneg') else 'cp.async.cg 16 B, '}{WHAT[form]}: {what}"})


def round1():
    tri_src = (L // 4) * 256 + (L % 4) * 16  # Triton's A tile: 64 bytes of each 256-byte row
    tri_dst = np.load("data/probe_lg_tri0_dst.npy")
    con = 16 * L
    dup = np.where(L >= 26, 0, con)  # lanes 26-31 read one source
    full = np.full(32, 16)
    entry("rows", "zf", con, 128 * L % 8192, full, "contiguous sources, one 128-byte shared row a lane")
    entry("dup_zero", "zf", dup, con, np.where(L >= 26, 0, 16), "contiguous, lanes 26-31 zero-filled from one source")
    entry("dup_full", "zf", dup, con, full, "contiguous destinations, lanes 26-31 copy one source")
    entry("tri_q0zero", "zf", tri_src, tri_dst, np.where(L < 8, 0, 16), "Triton's A tile, lanes 0-7 zero-filled")
    entry("tri_q0true", "pr", tri_src, tri_dst, np.where(L < 8, 16, 0), "Triton's A tile, lanes 0-7 copy, the rest zero-fill")
    entry("tri_q0false", "pr", tri_src, tri_dst, np.where(L < 8, 0, 16), "Triton's A tile, lanes 0-7 zero-fill")
    entry("con_halfzero", "pr", con, con, np.where(L < 16, 16, 0), "contiguous, lanes 16-31 zero-fill")
    entry("rows_halfzero", "pr", 256 * L % 8192, con, np.where(L < 16, 16, 0), "sources 256 bytes apart, lanes 16-31 zero-fill")
    for k in range(3):
        src = rng.integers(0, 2048, 32) * 16 % 32752  # 16-byte aligned, inside the 32 KiB input
        dst = rng.permutation(512)[:32] * 16  # distinct 16-byte chunks of the 8 KiB tile
        for form in ("zf", "pr", "pl"):
            size = rng.choice([0, 16, 16, 8, 4], 32) if form == "zf" else rng.choice([0, 16, 16], 32) if form == "pr" else full
            entry(f"rand{k}", form, src, dst, size, f"random sources, destinations and sizes (seed 20261127, draw {k})")


def round2():
    rng2 = np.random.default_rng(20261128)
    rows = 128 * L % 8192  # every lane in 16-byte column 0 of its own row: 8 lanes a quarter-warp on one column
    entry("rows_true", "pr", 16 * L, rows, np.full(32, 16), "every lane copies, destinations down one column")
    entry("rows_false", "pr", 16 * L, rows, np.zeros(32), "every lane zero-fills, destinations down one column")
    entry("pairs_mixed", "pr", 16 * L, 128 * L % 8192 + 16 * (L // 2 % 8), 16 * (L % 2), "lane pairs on one column (rows apart), odd lanes copy")
    for k in range(4):
        src = rng2.integers(0, 2048, 32) * 16 % 32752
        dst = rng2.permutation(512)[:32] * 16
        entry(f"rand{k}", "pr", src, dst, rng2.choice([0, 16, 16], 32), f"random lanes (seed 20261128, draw {k})")
        if k < 3:
            entry(f"rand{k}", "zf", src, dst, rng2.choice([0, 16, 16, 8, 4], 32), f"random lanes (seed 20261128, draw {k})")
        if k == 0:
            entry(f"rand{k}", "pl", src, dst, np.full(32, 16), f"random lanes (seed 20261128, draw {k})")

def round3():
    rng3 = np.random.default_rng(20261129)
    col = 128 * L % 8192  # lane l in column 0 of row l
    entry("pairs_false", "pr", 16 * L, 128 * L % 8192 + 16 * (L // 2 % 8), np.zeros(32), "every lane zero-fills, lane pairs on a column")
    entry("srccol_mixed", "pr", 128 * L % 32768, 16 * L, 16 * (L % 4 != 0), "copying lanes on one source column, every fourth zero-fills")
    entry("col_q0copies", "pr", 16 * L, col, 16 * (L < 8), "destinations down one column, lanes 0-7 copy")
    entry("col_zeroed_half", "zf", 16 * L, col, 16 * (L % 2), "destinations down one column, even lanes zero-filled")
    entry("srccol_zeroed", "zf", 128 * L % 32768, 16 * L, 16 * (L % 4 != 0), "sources on one column, every fourth lane zero-filled")
    for k in range(3):
        src = rng3.integers(0, 2048, 32) * 16 % 32752
        dst = rng3.permutation(512)[:32] * 16
        entry(f"rand{k}", "pr", src, dst, rng3.choice([0, 16], 32), f"random lanes (seed 20261129, draw {k})")
        entry(f"rand{k}", "zf", src, dst, rng3.choice([0, 0, 16, 8], 32), f"random lanes (seed 20261129, draw {k})")


def round4():
    rng4 = np.random.default_rng(20261130)
    tri_src = (L // 4) * 256 + (L % 4) * 16
    tri_dst = np.load("data/probe_lg_tri0_dst.npy")
    copy, none = np.zeros(32), np.full(32, 16)  # cpa_cg16_pred_neg copies where size is 0
    entry("tri_all", "neg", tri_src, tri_dst, copy, "Triton's A tile, every lane copies")
    entry("tri_q0zero", "neg", tri_src, tri_dst, np.where(L < 8, 16, 0), "Triton's A tile, lanes 0-7 zero-fill")
    entry("rows_all", "neg", 256 * L % 8192, 16 * L, copy, "sources 256 bytes apart, every lane copies")
    entry("rows_none", "neg", 256 * L % 8192, 16 * L, none, "sources 256 bytes apart, every lane zero-fills")
    src, dst = rng4.integers(0, 2048, 32) * 16 % 32752, rng4.permutation(512)[:32] * 16
    entry("rand0", "neg", src, dst, rng4.choice([0, 16], 32), "random lanes (seed 20261130)")
    entry("tri_all", "off", tri_src, tri_dst, np.full(32, 16), "Triton's A tile, every lane copies")
    entry("rows_all", "off", 256 * L % 8192, 16 * L, np.full(32, 16), "sources 256 bytes apart, every lane copies")
    entry("con_all", "off", 16 * L, 16 * L, np.full(32, 16), "contiguous, every lane copies")
    entry("rand0", "off", src % 32688, dst, rng4.choice([0, 16], 32), "random lanes (seed 20261130; inside the input after the 64)")


def round5():
    rng5 = np.random.default_rng(20261201)
    tri_src = (L // 4) * 256 + (L % 4) * 16
    tri_dst = np.load("data/probe_lg_tri0_dst.npy")
    entry("tri_both", "two", tri_src, tri_dst, np.full(32, 3), "Triton's A tile, both copies in every lane")
    entry("tri_first", "two", tri_src, tri_dst, np.full(32, 1), "Triton's A tile, the first copy (P2) in every lane, the second zero-fills")
    entry("rows_both", "two", 256 * L % 8192, 16 * L, np.full(32, 3), "sources 256 bytes apart, both copies in every lane")
    entry("rand0", "two", rng5.integers(0, 1792, 32) * 16, rng5.permutation(256)[:32] * 16, rng5.integers(0, 4, 32), "random lanes (seed 20261201)")


def round6():
    rng6 = np.random.default_rng(20261202)
    con = 4 * L
    first8 = L < 8  # lanes 0-7 copy, the others zero-fill from one source (cpasync_zfill's last copy)
    for form in ("ca", "caneg"):
        copies = (lambda c: np.where(c, 4, 0)) if form == "ca" else (lambda c: np.where(c, 0, 4))
        entry("dupzero", form, np.where(first8, con, 0), con, copies(first8), "lanes 0-7 copy, 8-31 zero-fill from one source")
        entry("srccol", form, 128 * L, con, copies(np.ones(32, bool)), "every lane copies, sources 128 bytes apart")
        entry("dupall", form, np.zeros(32), con, copies(np.ones(32, bool)), "every lane copies one source word")
        src, dst = rng6.integers(0, 8188, 32) * 4, rng6.permutation(2048)[:32] * 4
        entry("rand", form, src, dst, copies(rng6.random(32) < 0.6), "random lanes (seed 20261202)")


def round7():
    rng7 = np.random.default_rng(20261203)
    con, dup = 16 * L, np.where(L >= 26, 0, 16 * L)  # lanes 26-31 on one source (cpasync_zfill's clamped lanes)
    zero6 = np.where(L >= 26, 0, 16)
    entry("dupzero_first", "zf2", dup, con, zero6 + 16 * 32, "the P2 copy's lanes 26-31 zero-filled from one source, the P0 copy whole")
    entry("dupzero_second", "zf2", dup, con, 16 + zero6 * 32, "the P2 copy whole, the P0 copy's lanes 26-31 zero-filled from one source")
    entry("rows_zero_first", "zf2", 256 * L % 8192, con, np.full(32, 16 * 32), "sources 256 bytes apart, the P2 copy all zero-filled")
    entry("rows_zero_second", "zf2", 256 * L % 8192, con, np.full(32, 16), "sources 256 bytes apart, the P0 copy all zero-filled")
    for k in range(2):
        sizes = rng7.choice([0, 16, 16, 8], 32) + 32 * rng7.choice([0, 16, 16, 8], 32)
        entry(f"rand{k}", "zf2", rng7.integers(0, 1792, 32) * 16, rng7.permutation(256)[:32] * 16, sizes, f"random lanes (seed 20261203, draw {k})")


def round8():
    rng8 = np.random.default_rng(20261204)
    tri_src = (L // 4) * 256 + (L % 4) * 16
    tri_dst = np.load("data/probe_lg_tri0_dst.npy")
    entry("tri_q0zero", "two", tri_src, tri_dst, np.where(L < 8, 2, 3), "Triton's A tile, the P2 copy's lanes 0-7 zero-fill, the P0 copy whole")
    entry("rows_half", "two", 256 * L % 8192, 16 * L, np.where(L < 16, 3, 2), "sources 256 bytes apart, the P2 copy's lanes 16-31 zero-fill")
    entry("con_odd", "two", 16 * L, 16 * L, np.where(L % 2 == 1, 3, 2), "contiguous, the P2 copy's even lanes zero-fill")
    for k in range(3):
        sizes = np.where(rng8.random(32) < 0.5, 1, 0) + 2  # the P0 copy whole, the P2 copy's lanes at random
        entry(f"rand{k}", "two", rng8.integers(0, 1792, 32) * 16, rng8.permutation(256)[:32] * 16, sizes, f"random lanes (seed 20261204, draw {k})")


ROUND = int(sys.argv[1]) if len(sys.argv) > 1 else 1
{1: round1, 2: round2, 3: round3, 4: round4, 5: round5, 6: round6, 7: round7, 8: round8}[ROUND]()
json.dump(entries, open("manifest_ldgsts_holdout.json" if ROUND == 1 else f"manifest_ldgsts_holdout{ROUND}.json", "w"), indent=1)
print(len(entries), "entries")
