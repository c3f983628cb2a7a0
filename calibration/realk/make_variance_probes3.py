"""Write manifest_variance3.json: the third round of wavefront-variance probes, src/variance_probes3.cu (one PTX,
ptx/variance_probes3.ptx; build: nvcc -arch=sm_90 -ptx -o ptx/variance_probes3.ptx src/variance_probes3.cu), launched by
launch.cu and measured by measure_timing.sh (TIMING_GROUPS='var3:manifest_variance3.json:all:ncu_metrics_variance.txt',
METRICS=ncu_metrics.txt). Run from calibration/realk: python make_variance_probes3.py
Kernel vp3(out, gin, gin2, bits, smode, nmode, ns, nn, wmask): one CTA of 8 warps; the warps 0-3 set in wmask do ns
instructions of form smode each, warps 4-7 nn instructions of traffic nmode each (see the source)."""
import json
from pathlib import Path

SMODES = {0: "STS.32 of a register never overwritten (control)", 1: "STS.32, its data register overwritten by the next FADD",
          2: "STS.32, its data register overwritten by an LDS", 3: "STS.32, its data register overwritten by an LDG (L1 hit)",
          4: "STS.32, its address register overwritten", 5: "STS.128, its four data registers overwritten by FADDs",
          6: "STS.32 of the odd lanes (@P), its data register overwritten", 7: "divergent STS.32 of a constant / a loop of LDS",
          8: "2-way conflicting cp.async.cg 16 B"}
NMODES = {0: "nothing", 3: "cp.async.cg 16 B, at most 3 groups of 4 in flight", 10: "LDSM.x4", 11: "cp.async.cg 16 B, all in flight",
          12: "the subject's code"}
#        name             smode ns    nmode nn    wmask
PLAN = [("vp3_c0",          0, 2048,  0,    0,    0xF),
        ("vp3_war_alu",     1, 2048,  0,    0,    0xF),
        ("vp3_war_lds",     2, 2048,  0,    0,    0xF),
        ("vp3_war_ldg",     3, 2048,  0,    0,    0xF),
        ("vp3_war_addr",    4, 2048,  0,    0,    0xF),
        ("vp3_war_s128",    5, 512,   0,    0,    0xF),
        ("vp3_war_pred",    6, 2048,  0,    0,    0xF),
        ("vp3_war_alu_w1",  1, 8192,  0,    0,    0x1),
        ("vp3_war_alu_w8",  1, 2048,  12,   2048, 0xF),
        ("vp3_div_nowar",   7, 2048,  0,    0,    0xF),
        ("vp3_c0_C16u",     0, 2048,  11,   64,   0xF),
        ("vp3_c0_C16t",     0, 2048,  3,    64,   0xF),
        ("vp3_war_alu_C16t", 1, 2048, 3,    64,   0xF),
        ("vp3_cgc2_A",      8, 256,   0,    0,    0xF),
        ("vp3_cgc2_M",      8, 256,   10,   512,  0xF)]
GIN = 4 * 64 * 512    # neighbour copies: 4 warps x 64 x 512 B
GIN2 = 4 * 256 * 512  # subject copies: 4 warps x 256 x 512 B
BITS = "data/vp2_bits.npy"  # round 2's random bits, one word a subject lane


def main() -> None:
    entries = []
    for name, sm, ns, nm, nn, wmask in PLAN:
        warps = bin(wmask).count("1")
        entries.append({"name": name, "origin": "written here: variance probe, round 3 (src/variance_probes3.cu)",
                        "source": "src/variance_probes3.cu", "ptx": "ptx/variance_probes3.ptx", "kernel": "vp3",
                        "grid": [1, 1, 1], "block": [256, 1, 1], "smem": 0,
                        "args": ["zeros:1024", f"zeros:{GIN}", f"zeros:{GIN2}", f"npy:{BITS}", str(sm), str(nm), str(ns), str(nn), str(wmask)],
                        "problem": f"1 CTA of 8 warps: {warps} subject warp(s) do {ns} x {SMODES[sm]}, warps 4-7 {nn} x {NMODES[nm]}"})
    Path("manifest_variance3.json").write_text(json.dumps(entries, indent=1) + "\n")
    print(len(entries), "entries:", " ".join(e["name"] for e in entries))


if __name__ == "__main__":
    main()
