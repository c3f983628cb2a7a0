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


def main() -> None:
    entries = [{"name": name, "origin": "written here: generic-store probe (src/probe_generic_st.cu)", "source": "src/probe_generic_st.cu",
                "ptx": "ptx/probe_generic_st.ptx", "kernel": "gsp", "grid": [grid, 1, 1], "block": [256, 1, 1], "smem": 0,
                "args": [f"zeros:{1024 * grid}", "npy:data/f32_red.npy", str(mode), str(wmask), str(n)],
                "problem": f"{grid} CTA(s) of 8 warps: warps {wmask:#x} make {n} rounds of {MODES[mode]}, a barrier after each"}
               for name, mode, wmask, n, grid in PLAN]
    Path("manifest_generic_st.json").write_text(json.dumps(entries, indent=1) + "\n")
    print(len(entries), "entries")


if __name__ == "__main__":
    main()
