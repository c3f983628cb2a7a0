"""Write manifest_memlat.json: global-memory round trips against the lines in flight, src/memlat_probes.cu (one PTX,
ptx/memlat_probes.ptx; build: nvcc -arch=sm_90 -ptx -o ptx/memlat_probes.ptx src/memlat_probes.cu), launched by launch.cu
and measured by measure_timing.sh (TIMING_GROUPS='mem:manifest_memlat.json:all:ncu_metrics_memlat.txt',
METRICS=ncu_metrics_timing.txt, DUMP=1 for the clock64 records). Run from calibration/realk: python make_memlat_probes.py
Kernels ml / ml8 (out, buf, n, wide, hot, rounds, bar): each warp does ROUNDS dependent round trips of n loads (whole
128-byte lines: 1 an LDG.E, 4 an LDG.E.128 when wide), cold (new lines each round: DRAM) or hot (the same lines each
round with ld.global.cg: L2 after round 0), a barrier ending each round when bar; the low word of clock64 at each
round's start into out, for the warps of the CTAs b with b % 132 < 8 (see the source). Names: ml_{c,h}_{lines in flight per SM}_{SMs}x{CTAs per SM}x{warps}w{loads per warp}[w: wide][_bar]."""
import json
from pathlib import Path

SMS = 132  # the H200's (and H100 SXM's) SMs: a grid of 132 k puts k CTAs on every SM (the source's SMS)
KEPT = 8  # the CTAs b with b % SMS < KEPT record their warps' clocks (the source's KEPT)
ROUNDS = 16
#        warps loads wide  SMs  CTAs/SM  bar  hot too
PLAN = [(1,    1,    0,    1,   1,       0,   1),  # one SM, one CTA: 1 line in flight
        (1,    4,    0,    1,   1,       0,   1),
        (8,    2,    0,    1,   1,       0,   1),  # 16 lines: 8 warps x 2
        (1,    16,   0,    1,   1,       0,   1),  # 16 lines: 1 warp x 16
        (8,    6,    0,    1,   1,       0,   1),  # 48
        (8,    8,    0,    1,   1,       0,   1),  # 64
        (1,    64,   0,    1,   1,       0,   1),  # 64 from one warp
        (8,    2,    1,    1,   1,       0,   1),  # 64 as LDG.E.128 (16 instructions)
        (8,    16,   0,    1,   1,       0,   1),  # 128
        (8,    32,   0,    1,   1,       0,   1),  # 256
        (8,    8,    1,    1,   1,       0,   1),  # 256 as LDG.E.128 (64 instructions)
        (8,    2,    0,    SMS, 1,       0,   0),  # every SM: 16 lines each
        (8,    8,    0,    SMS, 1,       0,   1),  # every SM: 64 lines each, 1 CTA
        (8,    32,   0,    SMS, 1,       0,   1),  # 256
        (8,    4,    0,    SMS, 2,       0,   1),  # 64 lines an SM as 2 CTAs
        (8,    16,   0,    SMS, 2,       0,   1),  # 256
        (8,    1,    0,    SMS, 8,       0,   1),  # 64 lines an SM as 8 CTAs (ml8)
        (8,    4,    0,    SMS, 8,       0,   1),  # 256
        (8,    32,   0,    8,   1,       0,   0),  # 256 lines on 8 SMs
        (8,    32,   0,    32,  1,       0,   0),  # 256 lines on 32 SMs
        (8,    8,    0,    1,   1,       1,   0),  # a barrier each round: 64 lines, one SM
        (8,    32,   0,    1,   1,       1,   0),  # 256
        (8,    32,   0,    SMS, 1,       1,   0)]  # 256 on every SM


def name(hot, warps, n, wide, sms, per_sm, bar):
    lines = warps * n * (4 if wide else 1) * per_sm
    return f"ml_{'h' if hot else 'c'}_{lines}_{sms}x{per_sm}x{warps}w{n}{'w' if wide else ''}{'_bar' if bar else ''}"


def main() -> None:
    entries = []
    for warps, n, wide, sms, per_sm, bar, hot_too in PLAN:
        for hot in (0, 1) if hot_too else (0,):
            grid = sms * per_sm
            g = grid * warps  # warps in the grid
            words = n * (128 if wide else 32)  # a warp's lines of one round, in 4-byte words
            buf = 4 * words * g * (1 if hot else ROUNDS)
            slots = max(b // SMS * KEPT + b % SMS for b in range(grid) if b % SMS < KEPT) + 1  # CTAs whose warps keep records
            out = 4 * slots * warps * (ROUNDS + 2)
            lines = warps * n * (4 if wide else 1) * per_sm
            where = "one SM" if sms == 1 else f"every SM ({sms})" if sms == SMS else f"{sms} SMs"
            what = (f"{where}, {per_sm} CTA(s) of {warps} warp(s) an SM, {lines} lines in flight an SM: each warp {ROUNDS} dependent rounds of "
                    f"{n} {'LDG.E.128 (4 lines each)' if wide else 'LDG.E (1 line each)'}, "
                    + ("the same lines each round, ld.global.cg (round 0 DRAM, then L2)" if hot else "new lines each round (DRAM)")
                    + (", a barrier ending each round" if bar else ""))
            entries.append({"name": name(hot, warps, n, wide, sms, per_sm, bar), "origin": "written here: memory-latency probe (src/memlat_probes.cu)",
                            "source": "src/memlat_probes.cu", "ptx": "ptx/memlat_probes.ptx", "kernel": "ml8" if per_sm == 8 else "ml",
                            "grid": [grid, 1, 1], "block": [32 * warps, 1, 1], "smem": 0,
                            "args": [f"zeros:{out}", f"zeros:{buf}", str(n), str(wide), str(hot), str(ROUNDS), str(bar)],
                            "problem": what})
    Path("manifest_memlat.json").write_text(json.dumps(entries, indent=1) + "\n")
    print(len(entries), "entries:", " ".join(e["name"] for e in entries))


if __name__ == "__main__":
    main()
