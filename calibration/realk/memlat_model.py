"""The timed SM's numbers for the memory-latency probes (manifest_memlat.json), as the probes measure them on the device:
each warp's round trips, from the issue cycle of one round's clock read (CS2R SR_CLOCKLO) to the next, averaged over the
warps of the simulated SM (the average SM, not the launch's last, which meets DRAM's slow spells); long_scoreboard, lg_throttle, barrier and misc a warp and round; sm__cycles_active.max.

    python memlat_model.py [--arch sm_90_h200] [--json OUT.json] [NAME ...]

Run from calibration/realk (simsmem's venv). The SM model is not changed: its issue step is wrapped to note the clock reads.
"""
import argparse
import json
import sys
from pathlib import Path

import attrs
import numpy as np

from simsmem.config import load_arch
from simsmem.kernel.tracer import StreamSink, trace_kernel
from simsmem.results.analysis import analyse_stream, with_launch
import simsmem.sm.core as core

HERE = Path(__file__).resolve().parent
_CLOCKS: list[tuple[int, int, int, int]] = []  # (SM model, CTA, warp slot, cycle) of each clock read the timed SM issued
_issue = core.SMModel._issue


def _noting(self, sp, w, now):
    ins = self.streams.code[w.pcs[w.pos]]
    if ins.name == "CS2R" and any("CLOCK" in op.text for op in ins.operands):
        if not hasattr(self, "_run"):  # the models in the order they were made (ids can repeat once one is freed)
            self._run = len({c[0] for c in _CLOCKS})
        _CLOCKS.append((self._run, w.cta, w.slot, now))
    return _issue(self, sp, w, now)


def model(entry: dict, arch) -> dict:
    """The timed SM's run of one entry: round trips (round 0, the mean of the later ones), long_scoreboard, lg_throttle and
    barrier cycles a warp and round, sm__cycles_active.max."""
    core.SMModel._issue = _noting
    try:
        _CLOCKS.clear()
        sink = StreamSink(arch.sm.sms)
        stream = trace_kernel(HERE / entry["ptx"], entry["kernel"], tuple(entry["grid"]), tuple(entry["block"]), entry["smem"], entry["args"],
                              base=HERE, sink=sink)
        result = analyse_stream(stream, arch, keep="all")
        met = with_launch(attrs.evolve(result, arch=arch), sink.streams(), sink.resources).metrics
    finally:
        core.SMModel._issue = _issue
    per: dict[tuple[int, int], list[int]] = {}
    for model_id, cta, slot, t in _CLOCKS:  # the average SM's (the first model run; a launch's last SM may be timed apart)
        if model_id == 0:
            per.setdefault((cta, slot), []).append(t)
    trips = np.array([np.diff(v) for v in per.values()], float)  # warps x rounds
    scale = met["smsp__warps_launched.sum"] * int(entry["args"][5])  # warp-rounds
    return {"trips": [round(x, 1) for x in trips.mean(axis=0).tolist()], "trip0": round(float(trips[:, 0].mean()), 1),
            "trip": round(float(trips[:, 1:].mean()), 1),
            **{r: round(met[f"smsp__warps_issue_stalled_{r}.sum"] / scale, 1) for r in ("long_scoreboard", "lg_throttle", "barrier", "misc")},
            "active": int(met["sm__cycles_active.max"])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*")
    ap.add_argument("--arch", default="sm_90_h200")
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    arch = load_arch(a.arch)
    out = {}
    for e in json.loads((HERE / "manifest_memlat.json").read_text()):
        if a.names and e["name"] not in a.names:
            continue
        r = out[e["name"]] = model(e, arch)
        print(f"{e['name']:28s} trip0 {r['trip0']:7.0f} trips {r['trip']:7.0f}  long_scoreboard {r['long_scoreboard']:7.1f} "
              f"lg_throttle {r['lg_throttle']:5.1f} barrier {r['barrier']:5.1f} a warp and round  active {r['active']:7d}", flush=True)
    if a.json:
        Path(a.json).write_text("{\n" + ",\n".join(f"{json.dumps(n)}: {json.dumps(v)}" for n, v in out.items()) + "\n}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
