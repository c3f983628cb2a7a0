"""Write manifest_ldgsts_l1.json: what adds L1-level LDGSTS bank conflicts (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts)
to copies that make none alone, src/probe_ldgsts_l1.cu (one PTX, ptx/probe_ldgsts_l1.ptx; build: nvcc -arch=sm_90 -ptx -o
ptx/probe_ldgsts_l1.ptx src/probe_ldgsts_l1.cu), launched by launch.cu and measured by measure_timing.sh
(TIMING_GROUPS='l1c:manifest_ldgsts_l1.json:all:ncu_metrics_variance.txt', METRICS=ncu_metrics.txt), with the corpus's
entries whose counter varies (ANCHORS) measured again beside them. Run from calibration/realk: python make_probe_ldgsts_l1.py
Kernel l1c(out, in, op, src, dst, wait, n, wmask): one CTA of 32 warps (or GRID), the warps in wmask copy (see the source).
Round 2 (manifest_ldgsts_l1_2.json, PLAN2, group l1c2): .ca 16 B copies of fresh lines at a sweep of footprints (the bytes
of distinct lines copied: warps x n x 512), with fewer warps copying more, and with dynamic shared memory (SMEM bytes,
unused by the kernel) taking L1's capacity away; round 1 found extras at 32 warps x 16 copies (256 KiB) and none at 16
warps (128 KiB)."""
import json
from pathlib import Path

OPS = {0: "cp.async.ca 16 B", 1: "cp.async.cg 16 B", 2: "cp.async.ca 8 B", 3: "cp.async.ca 4 B"}
SRCS = {0: "fresh lines", 1: "the same lines every copy", 2: "lines the warp just loaded with ld.global.cg",
        3: "half of each of 8 fresh lines", 4: "16 B of each of 32 fresh lines"}
ALL = 0xFFFFFFFF
#        name                  op src dst wait n   wmask       grid
PLAN = [("l1c_ca16_w32_alias",  0, 0,  1,  0,  16, ALL,        1),
        ("l1c_ca16_w32",        0, 0,  0,  0,  16, ALL,        1),
        ("l1c_ca16_w16",        0, 0,  0,  0,  16, 0xFFFF,     1),
        ("l1c_ca16_w8",         0, 0,  0,  0,  16, 0xFF,       1),
        ("l1c_ca16_w4",         0, 0,  0,  0,  16, 0xF,        1),
        ("l1c_ca16_w4_sp0",     0, 0,  0,  0,  16, 0x1111,     1),
        ("l1c_ca16_w8_sp0",     0, 0,  0,  0,  16, 0x11111111, 1),
        ("l1c_ca16_w2",         0, 0,  0,  0,  16, 0x3,        1),
        ("l1c_ca16_w1",         0, 0,  0,  0,  64, 0x1,        1),
        ("l1c_ca16_w32_wait",   0, 0,  0,  1,  16, ALL,        1),
        ("l1c_ca16_w32_same",   0, 1,  0,  0,  16, ALL,        1),
        ("l1c_ca16_w32_l2",     0, 2,  0,  0,  16, ALL,        1),
        ("l1c_ca16_w32_g4",     0, 0,  0,  0,  16, ALL,        4),
        ("l1c_cg16_w32",        1, 0,  0,  0,  16, ALL,        1),
        ("l1c_cg16_w32_same",   1, 1,  0,  0,  16, ALL,        1),
        ("l1c_ca8_w32",         2, 0,  0,  0,  16, ALL,        1),
        ("l1c_ca4_w32",         3, 0,  0,  0,  16, ALL,        1),
        ("l1c_cg16_w32_rows",   1, 3,  0,  0,  16, ALL,        1),
        ("l1c_cg16_w32_scat",   1, 4,  0,  0,  16, ALL,        1),
        ("l1c_cg16_w4_rows",    1, 3,  0,  0,  16, 0xF,        1),
        ("l1c_cg16_w1_rows",    1, 3,  0,  0,  64, 0x1,        1),
        ("l1c_ca16_w32_rows",   0, 3,  0,  0,  16, ALL,        1)]
KIB = 1024
#        name                  op src dst wait n    wmask       smem (dynamic, bytes)
PLAN2 = [("l1c2_w32_n8",        0, 0,  0,  0,  8,   ALL,        0),
         ("l1c2_w32_n10",       0, 0,  0,  0,  10,  ALL,        0),
         ("l1c2_w32_n12",       0, 0,  0,  0,  12,  ALL,        0),
         ("l1c2_w32_n13",       0, 0,  0,  0,  13,  ALL,        0),
         ("l1c2_w32_n14",       0, 0,  0,  0,  14,  ALL,        0),
         ("l1c2_w32_n16",       0, 0,  0,  0,  16,  ALL,        0),
         ("l1c2_w32_n20",       0, 0,  0,  0,  20,  ALL,        0),
         ("l1c2_w32_n24",       0, 0,  0,  0,  24,  ALL,        0),
         ("l1c2_w32_n32",       0, 0,  0,  0,  32,  ALL,        0),
         ("l1c2_w16_n32",       0, 0,  0,  0,  32,  0xFFFF,     0),
         ("l1c2_w8_n64",        0, 0,  0,  0,  64,  0xFF,       0),
         ("l1c2_w4_n128",       0, 0,  0,  0,  128, 0xF,        0),
         ("l1c2_w1_n512",       0, 0,  0,  0,  512, 0x1,        0),
         ("l1c2_w16_n16_s100",  0, 0,  0,  0,  16,  0xFFFF,     100 * KIB),
         ("l1c2_w8_n16_s100",   0, 0,  0,  0,  16,  0xFF,       100 * KIB),
         ("l1c2_w32_n8_s200",   0, 0,  0,  0,  8,   ALL,        200 * KIB),
         ("l1c2_rows_w32_n8",   0, 3,  0,  0,  8,   ALL,        0),
         ("l1c2_rows_w32_n4",   0, 3,  0,  0,  4,   ALL,        0),
         ("l1c2_w32_n16_wait",  0, 0,  0,  1,  16,  ALL,        0),
         ("l1c2_w32_n8_wait",   0, 0,  0,  1,  8,   ALL,        0)]
#: round 3 (manifest_ldgsts_l1_3.json, group l1c3): the footprints that add extras by default, with L1 made smaller
PLAN3 = [(f"l1c3_w32_n{n}_s{k}", 0, 0, 0, 0, n, ALL, k * KIB) for n, ks in ((16, (8, 32, 64, 100, 150, 200)), (32, (100, 200)), (10, (32, 64)))
         for k in ks]
#: round 4 (manifest_ldgsts_l1_4.json, group l1c4): src/probe_ldgsts_gemm.cu's lg, hgemm_cpasync_plain's loop with switches
#        name              opa opb ldsm wait0 K     grid
PLAN4 = [("lg_hgemm",         0,  1,  1,   0,    256,  2),
         ("lg_cgcg",          0,  0,  1,   0,    256,  2),
         ("lg_caca",          1,  1,  1,   0,    256,  2),
         ("lg_cacg",          1,  0,  1,   0,    256,  2),
         ("lg_hgemm_nold",    0,  1,  0,   0,    256,  2),
         ("lg_cgcg_nold",     0,  0,  0,   0,    256,  2),
         ("lg_caca_nold",     1,  1,  0,   0,    256,  2),
         ("lg_hgemm_wait0",   0,  1,  1,   1,    256,  2),
         ("lg_hgemm_1cta",    0,  1,  1,   0,    256,  1),
         ("lg_hgemm_k1024",   0,  1,  1,   0,    1024, 2),
         ("lg_cgcg_k1024",    0,  0,  1,   0,    1024, 2)]
#: round 5 (manifest_ldgsts_l1_5.json, group l1c5): lgz, round 4's loop with copies in the src-size form (zf: A bit 0, B bit 1)
#        name                 opa opb ldsm wait0 K     grid zf
PLAN5 = [("lgz_cgcg_z3",         0,  0,  1,   0,    256,  2,   3),
         ("lgz_cgcg_z3_nold",    0,  0,  0,   0,    256,  2,   3),
         ("lgz_cgcg_z3_k1024",   0,  0,  1,   0,    1024, 2,   3),
         ("lgz_cgcg_z3_1cta",    0,  0,  1,   0,    256,  1,   3),
         ("lgz_cgcg_z3_wait0",   0,  0,  1,   1,    256,  2,   3),
         ("lgz_cgcg_z1",         0,  0,  1,   0,    256,  2,   1),
         ("lgz_caca_z3",         1,  1,  1,   0,    256,  2,   3),
         ("lgz_hgemm_z1",        0,  1,  1,   0,    256,  2,   1)]
#: round 6 (manifest_ldgsts_l1_6.json, group l1c6): lg's hgemm form over 1 to 32 k-tiles, and the long loop on one CTA and swapped
PLAN6 = [(f"lg_hgemm_k{k}", 0, 1, 1, 0, k, 2) for k in (64, 128, 512, 2048)] + [("lg_hgemm_1cta_k1024", 0, 1, 1, 0, 1024, 1),
                                                                              ("lg_cacg_k1024", 1, 0, 1, 0, 1024, 2)]
IN_BYTES = 4 * 32 * 16 * 4096  # src 4: 4 KiB a copy, 16 copies, 32 warps, 4 CTAs at most
#: corpus entries whose L1-level LDGSTS conflicts varied (manifest.json, counters.json), measured again in the same run
ANCHORS = {"manifest.json": ("hgemm_cpasync_plain", "hgemm_cpasync_swz", "triton_matmul_f16", "cpasync_forms"),
           "counters.json": ("cpc_ca16_fresh_w32", "cpb_zfill4_rand", "tp_mm_128x128x32_w4")}


def _entry(name: str, op: int, src: int, dst: int, wait: int, n: int, wmask: int, grid: int, smem: int = 0) -> dict:
    warps = bin(wmask).count("1")
    return {"name": name, "origin": "written here: L1-level LDGSTS conflict probe (src/probe_ldgsts_l1.cu)",
            "source": "src/probe_ldgsts_l1.cu", "ptx": "ptx/probe_ldgsts_l1.ptx", "kernel": "l1c",
            "grid": [grid, 1, 1], "block": [1024, 1, 1], "smem": smem,
            "args": [f"zeros:{16384 * grid}", f"zeros:{IN_BYTES}", str(op), str(src), str(dst), str(wait), str(n), str(wmask)],
            "problem": f"{grid} CTA(s) of 32 warps: {warps} warp(s) (mask {wmask:#x}) make {n} x {OPS[op]} of {SRCS[src]}, "
                       f"into {'row w % 8 (aliased)' if dst else 'their own rows'}, {'waiting after each' if wait else 'all in flight'}"
                       + (f"; {smem // KIB} KiB of dynamic shared memory, unused" if smem else "")}


def main() -> None:
    entries = [_entry(*p) for p in PLAN]
    for manifest, names in ANCHORS.items():
        entries += [e for e in json.loads(Path(manifest).read_text()) if e["name"] in names]
    Path("manifest_ldgsts_l1.json").write_text(json.dumps(entries, indent=1) + "\n")
    round2 = [_entry(name, op, src, dst, wait, n, wmask, 1, smem) for name, op, src, dst, wait, n, wmask, smem in PLAN2]
    Path("manifest_ldgsts_l1_2.json").write_text(json.dumps(round2, indent=1) + "\n")
    round3 = [_entry(name, op, src, dst, wait, n, wmask, 1, smem) for name, op, src, dst, wait, n, wmask, smem in PLAN3]
    Path("manifest_ldgsts_l1_3.json").write_text(json.dumps(round3, indent=1) + "\n")
    round4 = [_gemm(name, opa, opb, ldsm, wait0, k, grid) for name, opa, opb, ldsm, wait0, k, grid in PLAN4]
    Path("manifest_ldgsts_l1_4.json").write_text(json.dumps(round4, indent=1) + "\n")
    round5 = [_gemm(*p) for p in PLAN5]
    Path("manifest_ldgsts_l1_5.json").write_text(json.dumps(round5, indent=1) + "\n")
    round6 = [_gemm(*p) for p in PLAN6]
    Path("manifest_ldgsts_l1_6.json").write_text(json.dumps(round6, indent=1) + "\n")
    print(len(entries), "+", len(round2), "+", len(round3), "+", len(round4), "+", len(round5), "+", len(round6), "entries")


def _gemm(name: str, opa: int, opb: int, ldsm: int, wait0: int, k: int, grid: int, zf: int | None = None) -> dict:
    return {"name": name, "origin": "written here: L1-level LDGSTS conflict probe (src/probe_ldgsts_gemm.cu)",
            "source": "src/probe_ldgsts_gemm.cu", "ptx": "ptx/probe_ldgsts_gemm.ptx", "kernel": "lg" if zf is None else "lgz",
            "grid": [grid, grid, 1], "block": [128, 1, 1], "smem": 0,
            "args": ["zeros:2048", f"zeros:{128 * k * 2}", f"zeros:{k * 128 * 2}", "128", str(k), str(opa), str(opb), str(ldsm), str(wait0)]
            + ([] if zf is None else [str(zf)]),
            "problem": f"hgemm_cpasync_plain's loop on C(128x128), K={k}, {grid}x{grid} CTAs of 4 warps: A by cp.async.{'ca' if opa else 'cg'}, "
                       f"B by .{'ca' if opb else 'cg'}, {'ldmatrix reads' if ldsm else 'no reads'}, wait_group {0 if wait0 else 1}"
                       + (f"; src-size form for {' and '.join(x for b, x in ((1, 'A'), (2, 'B')) if zf & b)}" if zf else "")}


if __name__ == "__main__":
    main()
