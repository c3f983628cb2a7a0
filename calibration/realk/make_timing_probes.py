"""Write data/tp_ring4k.npy and manifest_timing.json: the timing microbenchmarks of src/timing_probes.cu (one PTX,
ptx/timing_probes.ptx), launched by launch.cu and measured by measure_timing.sh. Run from calibration/realk:
python make_timing_probes.py"""
import json

import numpy as np

# a ring of 32 lines of 128 bytes (4 KiB): the chase adds 128 + the 8-byte word at the line's start, so every word is
# 0 but the last line's, which is -4096 (back to line 0). Over zeros:BYTES instead, the chase never comes back.
ring = np.zeros(512, dtype=np.uint64)
ring[31 * 16] = np.uint64(2**64 - 4096)
np.save("data/tp_ring4k.npy", ring)

entries = []


def entry(name, kernel, args, what, grid=1, block=32):
    entries.append({"name": name, "origin": f"written here: timing probe ({what})", "source": "src/timing_probes.cu",
                    "ptx": "ptx/timing_probes.ptx", "kernel": kernel, "grid": [grid, 1, 1], "block": [block, 1, 1],
                    "smem": 0, "args": args, "problem": what})


for g in (1, 8, 128):
    entry(f"tp_empty_{g}cta", "tp_empty", [], f"empty kernel, {g} CTA(s) of 32 threads: launch overhead", grid=g)
for n in (1, 8, 64, 256):
    entry(f"tp_chase_cold_{n}", "tp_chase", [f"zeros:{128 * n + 128}", str(n), "zeros:128"],
          f"one warp, {n} dependent 8-byte loads, each a new 128-byte line of a zero buffer (cold: DRAM)")
for k in (0, 8, 64, 256):
    entry(f"tp_chase_l1_{k}", "tp_chase", ["npy:data/tp_ring4k.npy", str(32 + k), "zeros:128"],
          f"one warp, {32 + k} dependent loads over a 4 KiB ring: one cold lap of 32 lines, then {k} L1 hits")
for k in (0, 8, 64, 256):
    entry(f"tp_chase_l2_{k}", "tp_chase_cg", ["npy:data/tp_ring4k.npy", str(32 + k), "zeros:128"],
          f"one warp, {32 + k} dependent ld.global.cg loads over a 4 KiB ring: one cold lap, then {k} L2 hits")
entry("tp_stg1", "tp_stg1", ["zeros:128"], "one warp stores one 128-byte line, then exits")
entry("tp_stg64", "tp_stg64", ["zeros:8192"], "one warp stores 64 128-byte lines, then exits")
entry("tp_ldg64", "tp_ldg64", ["zeros:8192", "zeros:128"], "one warp loads 64 128-byte lines (independent), then exits without storing")
for iters in (64, 256):
    entry(f"tp_bar_8w_{iters}", "tp_bar", ["zeros:1024", str(iters), "3"], f"8 warps of one CTA, {iters} x (BAR.SYNC + 3 dependent ALU ops)", block=256)
entry("tp_nobar_8w_64", "tp_nobar", ["zeros:1024", "64", "3"], "8 warps of one CTA, 64 x (3 dependent ALU ops), no barrier", block=256)
entry("tp_nobar_8w_256", "tp_nobar", ["zeros:1024", "256", "3"], "8 warps of one CTA, 256 x (3 dependent ALU ops), no barrier", block=256)
entry("tp_bar_1w_64", "tp_bar", ["zeros:128", "64", "3"], "1 warp, 64 x (BAR.SYNC + 3 dependent ALU ops): a barrier no other warp waits at")

with open("manifest_timing.json", "w") as f:
    json.dump(entries, f, indent=1)
    f.write("\n")
print(len(entries), "entries")
