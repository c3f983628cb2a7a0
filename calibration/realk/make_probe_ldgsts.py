"""Write the data and manifest_ldgsts.json: one cp.async .cg 16-byte copy a launch, in each of the three SASS forms
ptxas makes of it (plain; src-size 16-or-0 as a predicate; .ZFILL with src-size in a register), over Triton's A-tile
pattern at each 64-byte offset of the source line, and a few more. Run from calibration/realk."""
import json

import numpy as np

L = np.arange(32)
tri_dst = np.array([0, 16, 32, 48, 64, 80, 96, 112, 144, 128, 176, 160, 208, 192, 240, 224, 288, 304, 256, 272, 352, 368, 320, 336,
                    432, 416, 400, 384, 496, 480, 464, 448])
cases = {}
for k in range(4):
    cases[f"tri{k}"] = ((L // 4) * 256 + (L % 4) * 16 + 64 * k, tri_dst)
cases["tri0_dstcon"] = ((L // 4) * 256 + (L % 4) * 16, 16 * L)
cases["con"] = (16 * L, 16 * L)
cases["con_src64"] = (16 * L + 64, 16 * L)
cases["swz"] = (16 * L, 16 * (L ^ ((L // 8) % 8)))
entries = []
for name, (src, dst) in cases.items():
    def arr(tag, v):
        path = f"data/probe_lg_{name}_{tag}.npy"
        np.save(path, np.asarray(v, dtype=np.int32))
        return f"npy:{path}"
    args = ["zeros:8192", "npy:data/f32_red.npy", arr("src", src), arr("dst", dst), arr("size", np.full(32, 16))]
    for kern, form in (("cpa_cg16_plain", "plain LDGSTS.E.BYPASS.128"), ("cpa_cg16_pred", "LDGSTS.E.BYPASS.128 with a src-size predicate"),
                       ("cpa_cg16", "LDGSTS.E.BYPASS.128.ZFILL")):
        entries.append({"name": f"lg_{kern[4:]}_{name}", "origin": f"written here: LDGSTS form probe ({form}, pattern {name})",
                        "source": "src/probe_rules.cu", "ptx": "ptx/probe_rules.ptx", "kernel": kern, "grid": [1, 1, 1], "block": [32, 1, 1],
                        "smem": 0, "args": args, "problem": f"one warp, one cp.async.cg of 16 B a lane, every lane copying, pattern {name}"})
json.dump(entries, open("manifest_ldgsts.json", "w"), indent=1)
print(len(entries), "entries")
