"""Write manifest_variance2.json: the second round of wavefront-variance probes, src/variance_probes2.cu (one PTX,
ptx/variance_probes2.ptx; build: nvcc -arch=sm_90 -ptx -o ptx/variance_probes2.ptx src/variance_probes2.cu), launched by
launch.cu and measured by measure_timing.sh (TIMING_GROUPS='var2:manifest_variance2.json:all:ncu_metrics_variance.txt',
METRICS=ncu_metrics.txt). Run from calibration/realk: python make_variance_probes2.py
Kernel vp2(out, gin, gin2, bits, smode, nmode, ns, nn): one CTA of 8 warps; warps 0-3 do ns conflict-free instructions
of form smode each, warps 4-7 nn instructions of neighbour traffic nmode each (see the source)."""
import json
from pathlib import Path

import numpy as np

SMODES = {1: ("sp", "STS.32 of the odd lanes (predicated)", 2048), 2: ("sd", "if-converted STS.32 / 2 LDS.32 per lane and round", 2048),
          7: ("sb", "divergent STS.32 / a loop of 1-2 LDS.32 per lane and round", 2048),
          3: ("s128", "STS.128", 512), 4: ("l128", "LDS.128", 512), 5: ("lsm", "LDSM.x4", 512),
          6: ("cg", "LDGSTS.E.BYPASS.128 (cp.async.cg 16 B)", 256)}
NMODES = {0: ("A", "nothing", 0), 1: ("B", "LDG of fresh lines (L1 fills)", 256), 3: ("C16", "cp.async.cg 16 B", 64),
          4: ("D", "conflict-free LDS.32", 2048), 8: ("S", "conflict-free STS.32", 2048), 9: ("L128", "conflict-free LDS.128", 512),
          10: ("M", "conflict-free LDSM.x4", 512)}
PLAN = {1: (0, 4, 8), 2: (0, 4), 7: (0, 4), 3: (0, 4, 9, 1, 3), 4: (0, 1, 3, 8), 5: (0, 1, 3), 6: (0, 4, 9, 10, 8)}
GIN = 4 * 256 * 128   # 4 warps x 256 fresh 128-B lines (nmode 1), or 64 x 512 B (nmode 3)
GIN2 = 4 * 256 * 512  # 4 warps x 256 LDGSTS.128 of 512 B (smode 6)
BITS = "data/vp2_bits.npy"


def main() -> None:
    rng = np.random.default_rng(20261129)
    np.save(BITS, rng.integers(0, 2**32, size=128, dtype=np.uint64).astype(np.uint32))  # one word a subject lane
    entries = []
    for sm, nms in PLAN.items():
        stag, swhat, ns = SMODES[sm]
        for nm in nms:
            ntag, nwhat, nn = NMODES[nm]
            entries.append({"name": f"vp2_{stag}_{ntag}", "origin": "written here: variance probe, round 2 (src/variance_probes2.cu)",
                            "source": "src/variance_probes2.cu", "ptx": "ptx/variance_probes2.ptx", "kernel": "vp2",
                            "grid": [1, 1, 1], "block": [256, 1, 1], "smem": 0,
                            "args": ["zeros:1024", f"zeros:{GIN}", f"zeros:{GIN2}", f"npy:{BITS}", str(sm), str(nm), str(ns), str(nn)],
                            "problem": f"1 CTA of 8 warps: warps 0-3 {ns} conflict-free {swhat} each, warps 4-7 {nn} x {nwhat} each"})
    Path("manifest_variance2.json").write_text(json.dumps(entries, indent=1) + "\n")
    print(len(entries), "entries:", " ".join(e["name"] for e in entries))


if __name__ == "__main__":
    main()
