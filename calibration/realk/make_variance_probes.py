"""Write manifest_variance.json: the store/load wavefront-variance probes of src/variance_probes.cu (one PTX,
ptx/variance_probes.ptx; build: nvcc -arch=sm_90 -ptx -o ptx/variance_probes.ptx src/variance_probes.cu), launched by
launch.cu and measured by measure_timing.sh (TIMING_GROUPS='var:manifest_variance.json:all:ncu_metrics_variance.txt',
METRICS=ncu_metrics.txt). Run from calibration/realk: python make_variance_probes.py
Kernel vp(out, gin, gout, smode, nmode, ns, nn): warps 0-3 do ns conflict-free full-warp STS.32 (smode 0) or LDS.32
(smode 1) each; warps 4-7 do nn instructions each of neighbour traffic nmode (see the source)."""
import json

NMODES = {0: ("A", "nothing"), 1: ("B", "LDG of fresh lines (L1 fills)"), 2: ("C4", "cp.async.ca 4 B (LDGSTS, 1 fresh line)"),
          3: ("C16", "cp.async.cg 16 B (LDGSTS.BYPASS.128, 4 fresh lines)"), 4: ("D", "conflict-free LDS.32"),
          5: ("D32", "32-way conflicting LDS.32"), 6: ("E", "STG of fresh lines"), 7: ("F", "LDG of the same 4 lines (L1 hits)"),
          8: ("S", "conflict-free STS.32")}
NN = {0: 0, 1: 256, 2: 256, 3: 64, 4: 2048, 5: 64, 6: 256, 7: 256, 8: 2048}
NS = 2048
BUF = 4 * 4 * 256 * 128  # 4 CTAs x 4 warps x 256 lines x 128 B (mode 3: 64 instr x 512 B: the same)
entries = []


def entry(smode, nmode, grid=1, nn=None, suffix=""):
    nn = NN[nmode] if nn is None else nn
    tag, what = NMODES[nmode]
    s = "st" if smode == 0 else "ld"
    name = f"vp_{s}_{tag}{suffix}" + (f"_g{grid}" if grid > 1 else "")
    entries.append({"name": name, "origin": "written here: variance probe (src/variance_probes.cu)",
                    "source": "src/variance_probes.cu", "ptx": "ptx/variance_probes.ptx", "kernel": "vp",
                    "grid": [grid, 1, 1], "block": [256, 1, 1], "smem": 0,
                    "args": [f"zeros:{4 * 256 * 4}", f"zeros:{BUF}", f"zeros:{BUF}", str(smode), str(nmode), str(NS), str(nn)],
                    "problem": f"{grid} CTA(s) of 8 warps: warps 0-3 {NS} conflict-free full-warp {'STS' if smode == 0 else 'LDS'}.32 "
                               f"each, warps 4-7 {nn} x {what} each"})


for nm in range(9):
    entry(0, nm)
entry(0, 1, nn=64, suffix="64")
for nm in (0, 1, 2, 3, 8, 6):
    entry(1, nm)
for nm in (0, 1, 3):
    entry(0, nm, grid=4)
entry(1, 1, grid=4)

with open("manifest_variance.json", "w") as f:
    json.dump(entries, f, indent=1)
    f.write("\n")
print(len(entries), "entries:", " ".join(e["name"] for e in entries))
