"""Write manifest_op_misc2.json: src/probe_op_misc2.cu's kernels (PTX ptx/probe_op_misc2.ptx; build: nvcc -arch=sm_90 -ptx
-o ptx/probe_op_misc2.ptx src/probe_op_misc2.cu), measured by measure_timing.sh
(TIMING_GROUPS='om2:manifest_op_misc2.json:all', METRICS=ncu_metrics.txt). Run from calibration/realk."""
import json
from pathlib import Path

#        kernel           warps grid  args    what
PLAN = [("om2_fence_gpu", 1, 1, [], "__threadfence(): MEMBAR.SC.GPU, ERRBAR, CGAERRBAR, CCTL.IVALL"),
        ("om2_fence_gpu", 4, 1, [], "the same, 4 warps"),
        ("om2_fence_sys", 1, 1, [], "__threadfence_system(): MEMBAR.SC.SYS, ERRBAR, CGAERRBAR, CCTL.IVALL"),
        ("om2_fence_cta", 1, 1, [], "__threadfence_block(): MEMBAR.SC.CTA"),
        ("om2_local", 1, 1, ["3"], "32 STL and 32 LDL a thread (a volatile local array)"),
        ("om2_local", 4, 1, ["3"], "the same, 4 warps"),
        ("om2_sreg", 1, 1, [], "%smid and %warpid: S2R SR_VIRTUALSMID, SR_VIRTID"),
        ("om2_sreg", 4, 1, [], "the same, 4 warps")]


def main() -> None:
    entries = []
    for kernel, warps, grid, args, what in PLAN:
        entries.append({"name": f"{kernel}_w{warps}", "origin": "written here: op_misc probe (src/probe_op_misc2.cu)",
                        "source": "src/probe_op_misc2.cu", "ptx": "ptx/probe_op_misc2.ptx", "kernel": kernel, "grid": [grid, 1, 1],
                        "block": [32 * warps, 1, 1], "smem": 0, "args": ["zeros:32768", *args],
                        "problem": f"{grid} CTA(s) of {warps} warp(s): {what}"})
    Path("manifest_op_misc2.json").write_text(json.dumps(entries, indent=1) + "\n")
    print(len(entries), "entries")


if __name__ == "__main__":
    main()
