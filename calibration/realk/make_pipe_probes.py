"""Write manifest_pipes.json: the pipe probes of src/pipe_probes.cu (ptx/pipe_probes.ptx), and the timed SM's
prediction of each, before the H200 measures them (measure_timing.sh with TIMING_GROUPS=pipes:manifest_pipes.json:all).
Run from calibration/realk: python make_pipe_probes.py

Each probe runs ITERS[0] and ITERS[1] iterations; the cycles of one instruction are the slope of
sm__cycles_elapsed.max between them over the instructions of the difference (16 an iteration; f2f counts its two
conversions as one step). ``predicted`` holds that slope as the timed SM (configs/sm_90_h200.yaml) gives it now.
"""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
OPS = ("ex2", "shfl", "dfma", "f2f", "hmma", "popc")
ITERS = (64, 320)
PER_ITER = 16
ARG = {"ex2": "1.0", "shfl": "7", "dfma": "1.0", "f2f": "1.0", "hmma": "15360", "popc": "7"}  # the seed: f32, u32, f64


def entries() -> list[dict]:
    out = []
    for op in OPS:
        for kind, warps in (("lat", 1), ("tp", 1), ("tp", 4)):
            for iters in ITERS:
                threads = 32 * warps
                out.append({"name": f"pp_{kind}_{op}_{warps}w_{iters}", "origin": "written here: pipe probe (issue 33)",
                            "source": "src/pipe_probes.cu", "ptx": "ptx/pipe_probes.ptx", "kernel": f"pp_{kind}_{op}", "grid": [1, 1, 1],
                            "block": [threads, 1, 1], "smem": 0, "args": [f"zeros:{8 * threads}", str(iters), ARG[op]],
                            "problem": f"{warps} warp(s), {iters} x {PER_ITER} {op}: {'one dependent chain' if kind == 'lat' else 'eight chains'}"})
    return out


def predicted(manifest: list[dict]) -> dict[str, float]:
    """The timed SM's cycles per instruction of each probe (the slope between the two iteration counts)."""
    from simsmem.api import trace

    cycles = {e["name"]: trace(HERE / e["ptx"], entry=e["kernel"], grid=e["grid"], block=e["block"], args=e["args"], arch="sm_90_h200").cycles
              for e in manifest}
    slopes = {}
    for e in manifest:
        if e["name"].endswith(f"_{ITERS[1]}"):
            stem = e["name"].rsplit("_", 1)[0]
            slopes[stem] = round((cycles[e["name"]] - cycles[f"{stem}_{ITERS[0]}"]) / ((ITERS[1] - ITERS[0]) * PER_ITER), 2)
    return slopes


if __name__ == "__main__":
    manifest = entries()
    (HERE / "manifest_pipes.json").write_text(json.dumps(manifest, indent=1) + "\n")
    (HERE / "pipe_predictions.json").write_text(json.dumps(predicted(manifest), indent=1) + "\n")
    print(len(manifest), "entries")
