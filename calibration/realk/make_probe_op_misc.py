"""Write manifest_op_misc.json: src/probe_op_misc.cu's kernels (PTX ptx/probe_op_misc.ptx; build: nvcc -arch=sm_90 -ptx
-o ptx/probe_op_misc.ptx src/probe_op_misc.cu), measured by measure_timing.sh
(TIMING_GROUPS='om:manifest_op_misc.json:all', METRICS=ncu_metrics.txt). Run from calibration/realk."""
import json
from pathlib import Path

#        kernel      warps grid  args         what
PLAN = [("om_sr2",   1, 1, [], "2 S2R (tid.x, ctaid.x)"),
        ("om_sr3",   1, 1, [], "3 S2R (+tid.y)"),
        ("om_sr4",   1, 1, [], "4 S2R (+ctaid.y)"),
        ("om_sr6",   1, 1, [], "6 S2R (+tid.z, ctaid.z)"),
        ("om_sr8",   1, 1, [], "7 S2R (+laneid; %nsmid folded by ptxas)"),
        ("om_sr2",   4, 1, [], "2 S2R, 4 warps"),
        ("om_sr4",   4, 1, [], "4 S2R, 4 warps"),
        ("om_sr4",   8, 4, [], "4 S2R, 4 CTAs of 8 warps"),
        ("om_sr6",   8, 1, [], "6 S2R, 8 warps"),
        ("om_clk",   1, 1, [], "2 S2R and four %clock reads (S2UR, CS2R.32 SR_CLOCKLO)"),
        ("om_again", 1, 1, ["64"], "2 S2R, 64 dependent IMADs (ptxas keeps the first reads)"),
        ("om_bar0",  8, 1, [], "STS, BAR, ALU, BAR, LDS"),
        ("om_bar1",  8, 1, [], "STS, BAR, LDS, BAR, LDS"),
        ("om_bar2",  8, 1, [], "STS, BAR, STG, BAR, LDS"),
        ("om_bar3",  8, 1, [], "STS, BAR, LDG, BAR, LDS"),
        ("om_bar1",  8, 4, [], "STS, BAR, LDS, BAR, LDS; 4 CTAs")]


def main() -> None:
    entries = []
    for kernel, warps, grid, args, what in PLAN:
        name = f"{kernel}_w{warps}" + (f"_g{grid}" if grid > 1 else "")
        words = 32 * warps * grid + (1 << 22 if kernel.startswith("om_bar") else 0)
        entries.append({"name": name, "origin": "written here: op_misc probe (src/probe_op_misc.cu)", "source": "src/probe_op_misc.cu",
                        "ptx": "ptx/probe_op_misc.ptx", "kernel": kernel, "grid": [grid, 1, 1], "block": [32 * warps, 1, 1], "smem": 0,
                        "args": [f"zeros:{4 * words}", *args], "problem": f"{grid} CTA(s) of {warps} warp(s): {what}"})
    Path("manifest_op_misc.json").write_text(json.dumps(entries, indent=1) + "\n")
    print(len(entries), "entries")


if __name__ == "__main__":
    main()
