"""Write manifest_op_misc.json and manifest_op_misc2.json: the kernels of src/probe_op_misc.cu (round 1) and
src/probe_op_misc2.cu (round 2), PTX ptx/probe_op_misc{,2}.ptx (build: nvcc -arch=sm_90 -ptx -o ptx/probe_op_misc.ptx
src/probe_op_misc.cu, likewise for 2), measured by measure_timing.sh (TIMING_GROUPS='om:manifest_op_misc.json:all
om2:manifest_op_misc2.json:all', METRICS=ncu_metrics.txt). Run from calibration/realk."""
import json
from pathlib import Path

#        kernel      warps grid  args         what
ROUND1 = [("om_sr2",   1, 1, [], "2 S2R (tid.x, ctaid.x)"),
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
ROUND2 = [("om2_fence_gpu", 1, 1, [], "__threadfence(): MEMBAR.SC.GPU, ERRBAR, CGAERRBAR, CCTL.IVALL"),
          ("om2_fence_gpu", 4, 1, [], "the same, 4 warps"),
          ("om2_fence_sys", 1, 1, [], "__threadfence_system(): MEMBAR.SC.SYS, ERRBAR, CGAERRBAR, CCTL.IVALL"),
          ("om2_fence_cta", 1, 1, [], "__threadfence_block(): MEMBAR.SC.CTA"),
          ("om2_local", 1, 1, ["3"], "32 STL and 32 LDL a thread (a volatile local array)"),
          ("om2_local", 4, 1, ["3"], "the same, 4 warps"),
          ("om2_sreg", 1, 1, [], "%smid and %warpid: S2R SR_VIRTUALSMID, SR_VIRTID"),
          ("om2_sreg", 4, 1, [], "the same, 4 warps")]


def entry(source: str, kernel: str, warps: int, grid: int, args: list[str], what: str, words: int) -> dict:
    return {"name": f"{kernel}_w{warps}" + (f"_g{grid}" if grid > 1 else ""), "origin": f"written here: op_misc probe ({source})",
            "source": source, "ptx": f"ptx/{Path(source).stem}.ptx", "kernel": kernel, "grid": [grid, 1, 1], "block": [32 * warps, 1, 1],
            "smem": 0, "args": [f"zeros:{4 * words}", *args], "problem": f"{grid} CTA(s) of {warps} warp(s): {what}"}


def main() -> None:
    # round 1: a word a thread (and the barrier kernels' global store and load 1 and 2 MiB further); round 2: 8192 words
    one = [entry("src/probe_op_misc.cu", k, w, g, a, what, 32 * w * g + (1 << 22 if k.startswith("om_bar") else 0)) for k, w, g, a, what in ROUND1]
    two = [entry("src/probe_op_misc2.cu", k, w, g, a, what, 8192) for k, w, g, a, what in ROUND2]
    for name, entries in (("manifest_op_misc.json", one), ("manifest_op_misc2.json", two)):
        Path(name).write_text(json.dumps(entries, indent=1) + "\n")
        print(name, len(entries), "entries")


if __name__ == "__main__":
    main()
