"""Write manifest_inval_stsm.json: src/probe_inval_stsm.cu's kernel ist (PTX ptx/probe_inval_stsm.ptx; build: nvcc
-arch=sm_90 -ptx -o ptx/probe_inval_stsm.ptx src/probe_inval_stsm.cu), measured by measure_timing.sh
(TIMING_GROUPS='ist:manifest_inval_stsm.json:all:ncu_metrics_hopper.txt', METRICS=ncu_metrics.txt). Run from calibration/realk."""
import json
from pathlib import Path

#        name                 mode n   grid
PLAN = [("ist_stsm",           0,  16, 1),
        ("ist_stsm_inval",     1,  16, 1),
        ("ist_stsm_inval_bar", 3,  16, 1),
        ("ist_sts_inval",      5,  16, 1),
        ("ist_sts",            4,  16, 1),
        ("ist_stsm_inval_g8",  1,  16, 8),
        ("ist_stsm_inval_n1",  1,  1,  1)]
WHAT = {0: "stmatrix.x4 after an mbarrier wait", 1: "stmatrix.x4 right after mbarrier.inval", 3: "stmatrix.x4 after mbarrier.inval and a barrier",
        4: "STS.128 after an mbarrier wait", 5: "STS.128 right after mbarrier.inval"}


def main() -> None:
    entries = [{"name": name, "origin": "written here: mbarrier invalidation probe (src/probe_inval_stsm.cu)", "source": "src/probe_inval_stsm.cu",
                "ptx": "ptx/probe_inval_stsm.ptx", "kernel": "ist", "grid": [grid, 1, 1], "block": [128, 1, 1], "smem": 0,
                "args": [f"zeros:{16384 * grid}", str(mode), str(n)],
                "problem": f"{grid} CTA(s) of 4 warps: an mbarrier waited on, then {n} x {WHAT[mode]} a warp"}
               for name, mode, n, grid in PLAN]
    Path("manifest_inval_stsm.json").write_text(json.dumps(entries, indent=1) + "\n")
    print(len(entries), "entries")


if __name__ == "__main__":
    main()
