"""Write manifest_generic_st.json: which generic stores to shared memory add store wavefronts, src/probe_generic_st.cu
(PTX ptx/probe_generic_st.ptx; build: nvcc -arch=sm_90 -ptx -o ptx/probe_generic_st.ptx src/probe_generic_st.cu),
measured by measure_timing.sh (TIMING_GROUPS='gst:manifest_generic_st.json:all:ncu_metrics_variance.txt',
METRICS=ncu_metrics.txt). Run from calibration/realk: python make_probe_generic_st.py"""
import json
from pathlib import Path

MODES = {0: "generic store", 1: "generic load then store of the same word", 2: "generic axpy (two loads, a store)",
         3: "axpy through the shared window (control)", 4: "generic 16-byte store"}
#        name               mode wmask n   grid
PLAN = [("gsp_st_w1",        0,  0x01, 16, 1),
        ("gsp_st_w8",        0,  0xFF, 16, 1),
        ("gsp_rmw_w1",       1,  0x01, 16, 1),
        ("gsp_rmw_w8",       1,  0xFF, 16, 1),
        ("gsp_axpy_w1",      2,  0x01, 16, 1),
        ("gsp_axpy_w8",      2,  0xFF, 16, 1),
        ("gsp_axpy_w8_n1",   2,  0xFF, 1,  1),
        ("gsp_axpy_w8_n1_g4", 2, 0xFF, 1,  4),
        ("gsp_sts_w8",       3,  0xFF, 16, 1),
        ("gsp_st128_w1",     4,  0x01, 16, 1),
        ("gsp_st128_w8",     4,  0xFF, 16, 1)]


#: round 2 (manifest_generic_st2.json): plain generic stores (mode 0) of 2, 4 or 8 warps, on one or two sub-partitions
#: (warps w and w + 4 share one), over 1 to 64 rounds
PLAN2 = [("gsp2_st_w2_sp2", 0, 0x03, 16, 1), ("gsp2_st_w2_sp1", 0, 0x11, 16, 1), ("gsp2_st_w4_sp4", 0, 0x0F, 16, 1),
         ("gsp2_st_w4_sp2", 0, 0x33, 16, 1), ("gsp2_st_w8_n1", 0, 0xFF, 1, 1), ("gsp2_st_w8_n4", 0, 0xFF, 4, 1),
         ("gsp2_st_w8_n64", 0, 0xFF, 64, 1), ("gsp2_st128_w2_sp2", 4, 0x03, 16, 1)]


def _entries(plan) -> list[dict]:
    return [{"name": name, "origin": "written here: generic-store probe (src/probe_generic_st.cu)", "source": "src/probe_generic_st.cu",
             "ptx": "ptx/probe_generic_st.ptx", "kernel": "gsp", "grid": [grid, 1, 1], "block": [256, 1, 1], "smem": 0,
             "args": [f"zeros:{1024 * grid}", "npy:data/f32_red.npy", str(mode), str(wmask), str(n)],
             "problem": f"{grid} CTA(s) of 8 warps: warps {wmask:#x} make {n} rounds of {MODES[mode]}, a barrier after each"}
            for name, mode, wmask, n, grid in plan]


def main() -> None:
    Path("manifest_generic_st.json").write_text(json.dumps(_entries(PLAN), indent=1) + "\n")
    Path("manifest_generic_st2.json").write_text(json.dumps(_entries(PLAN2), indent=1) + "\n")
    print(len(PLAN), "+", len(PLAN2), "entries")


if __name__ == "__main__":
    main()
