"""Write the spin-loop probes: ptx/spin_probes.ptx (nvcc -gencode=arch=compute_90a,code=sm_90a of src/spin_probes.cu)
and manifest_spin.json, then (--predict) simsmem's predictions of them, runs/2026-11-29-spin/predicted_simsmem.json.
Run from calibration/realk:

    python make_spin_probes.py [--nvcc PATH] [--predict]

What they measure (runs/2026-11-29-spin/PREDICTED.md says what is expected and why):
- tw_plain_*: 4 warps wait with the corpus's try_wait loop for an arrive that warp 0 makes after a delay (a dependent
  chain of n trips, each sleeping ns nanoseconds); smsp__inst_executed.sum less the trace's count is the loop's further
  trips (4 a warp at the first time-out, 3 at each after), and the dump has each warp's wait in cycles;
- tw_stamp_*: the same waits in a loop written here that counts its trips and keeps the clock at each return: the
  try_wait's time-out in cycles, directly; _hint*: with a suspendTimeHint (ptxas: TRYWAIT, then NANOSLEEP.SYNCS and a
  plain PHASECHK); _partial: the barrier takes two arrivals, one halfway: whether an arrive that does not complete the
  phase ends a suspended try_wait;
- sr_*: warpgroup 0 runs n chain trips before setmaxnreg.dec (168 to 40), warpgroups 1 and 2 m trips before
  setmaxnreg.inc (168 to 232): the TRY_ALLOC loop's trips (4 instructions each) against the delay, and the dumped clocks.
"""
from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
PTX = "ptx/spin_probes.ptx"
ORIGIN = "written here: spin-loop probe (src/spin_probes.cu)"
RUN = HERE / "runs" / "2026-11-29-spin"


def entry(name: str, kernel: str, block: int, args: list[str], problem: str) -> dict:
    return {"name": name, "origin": ORIGIN, "source": "src/spin_probes.cu", "ptx": PTX, "kernel": kernel, "grid": [1, 1, 1],
            "block": [block, 1, 1], "smem": 0, "args": args, "problem": problem}


def entries() -> list[dict]:
    out = []
    for n, ns in [(0, 0), (64, 0), (256, 0), (1024, 0), (4096, 0), (16384, 0), (16, 1000), (64, 1000), (256, 1000), (1, 1000000),
                  (4, 1000000), (16, 1000000)]:
        name = f"tw_plain_n{n}" + (f"_s{ns}" if ns else "")
        out.append(entry(name, "tw_plain", 160, [str(n), str(ns), "1", "zeros:1280"],
                         f"4 warps wait (the corpus's try_wait loop) for an arrive after {n} chain trips" + (f" of {ns} ns sleeps" if ns else "")))
    for n, ns, count, hint in [(0, 0, 1, 0), (1024, 0, 1, 0), (16384, 0, 1, 0), (64, 1000, 1, 0), (256, 1000, 1, 0), (4, 1000000, 1, 0),
                               (256, 1000, 1, 1000), (256, 1000, 1, 100000), (1024, 0, 2, 0), (16384, 0, 2, 0), (256, 1000, 2, 0)]:
        name = "tw_stamp" + ("_partial" if count > 1 else "") + (f"_hint{hint}" if hint else "") + f"_n{n}" + (f"_s{ns}" if ns else "")
        out.append(entry(name, "tw_stamp", 160, [str(n), str(ns), str(count), str(hint), "zeros:1280"],
                         f"4 warps wait in a stamped try_wait loop{f' (suspendTimeHint {hint} ns)' if hint else ''} for "
                         f"{'the second of two arrives' if count > 1 else 'an arrive'} after {n} chain trips" + (f" of {ns} ns sleeps" if ns else "")))
    for n, m in [(0, 0), (8, 0), (32, 0), (128, 0), (512, 0), (2048, 0), (0, 256)]:
        out.append(entry(f"sr_n{n}_m{m}", "sr_delay", 384, [str(n), str(m), "zeros:384"],
                         f"setmaxnreg: warpgroup 0 gives back 128 registers a thread after {n} chain trips, warpgroups 1 and 2 ask "
                         f"for 64 more after {m}"))
    return out


def predict(manifest: list[dict]) -> dict:
    """simsmem's counts of each probe: the trace's smsp__inst_executed.sum, and the timed SM's (sm_90_h200) with its spin
    loops' trips, and the waits' cycles as the timed SM has them."""
    import attrs
    from simsmem.config import load_arch
    from simsmem.kernel.tracer import StreamSink, trace_kernel
    from simsmem.results.analysis import analyse_stream, with_launch

    h100, h200 = load_arch("sm_90"), load_arch("sm_90_h200")
    out = {}
    for e in manifest:
        sink = StreamSink(h100.sm.sms)
        stream = trace_kernel(HERE / e["ptx"], e["kernel"], tuple(e["grid"]), tuple(e["block"]), e["smem"], e["args"], base=HERE, sink=sink)
        result = analyse_stream(stream, h100, keep="all")
        timed = with_launch(attrs.evolve(result, arch=h200), sink.streams(), sink.resources)
        out[e["name"]] = {"trace": int(result.metrics["smsp__inst_executed.sum"]), "timed": int(timed.metrics["smsp__inst_executed.sum"]),
                          "spins": timed.launch.run.spins, "sm__cycles_active.max": int(timed.metrics["sm__cycles_active.max"])}
        print(e["name"], out[e["name"]], flush=True)
    return out


def main() -> None:
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("--nvcc", default="nvcc")
    a.add_argument("--predict", action="store_true", help="also write simsmem's predictions (traces every probe)")
    args = a.parse_args()
    subprocess.run([args.nvcc, "-gencode=arch=compute_90a,code=sm_90a", "-ptx", str(HERE / "src" / "spin_probes.cu"), "-o", str(HERE / PTX)],
                   check=True)
    manifest = entries()
    (HERE / "manifest_spin.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(len(manifest), "entries")
    if args.predict:
        RUN.mkdir(parents=True, exist_ok=True)
        (RUN / "predicted_simsmem.json").write_text(json.dumps(predict(manifest), indent=1) + "\n")


if __name__ == "__main__":
    main()
