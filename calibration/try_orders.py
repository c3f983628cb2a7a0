"""Try other orders at the data path on the wavefront-by-wavefront reference path (README "Timing model").

The engine serves the oldest ready instruction first (``simsmem.engine.reference`` and the booking
path agree on it). This script swaps in another order and reports what the README quotes for it:

- ``overtake``: an instruction's first wavefront goes before the later wavefronts (replays, further
  phases) of instructions that reached the banks at most ``--within`` cycles before it (no limit
  without ``--within``); otherwise oldest first;
- ``replays-last``: wavefronts past an instruction's phases (replays) after every other ready one;
- ``round-robin``: the sub-partitions in turn, each its oldest ready instruction.

``python calibration/try_orders.py overtake --within 4 loops`` prints the timing.json, forms and
per-warp rows; ``... RUN`` (collide, aligned, replays, backlog) one replayed run's agreement. Slow (the
reference path: about 4 minutes for the loops).
"""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path

import numpy as np

from simsmem.config import load_arch
from simsmem.engine import reference

ROOT = Path(__file__).resolve().parents[1]


def ordered(order: str, within: int | None):
    """A reference data path whose ready wavefronts are served in ``order``."""

    class Ordered(reference.WavefrontByWavefront):
        last = -1  # the sub-partition served last (round-robin)

        def _serve_first(self, ready: list) -> list:
            cols = ready[0].sp.run.columns if ready else None
            if order == "overtake":
                first = next((p for p in ready if p.left == cols.wavefronts[p.i]), None)  # the older ones are past theirs
                older = ready[: ready.index(first)] if first else []
                if older and all(within is None or first.arrive - p.arrive <= within for p in older):
                    ready = [first, *(p for p in ready if p is not first)]
            elif order == "replays-last":
                ready = sorted(ready, key=lambda p: cols.wavefronts[p.i] - p.left >= cols.phases[p.i])
            elif order == "round-robin" and ready:
                ready = sorted(ready, key=lambda p: (p.sp.index - self.last - 1) % len(p.sp.run.sub_partitions))
                self.last = ready[0].sp.index
            return ready

    return Ordered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("order", choices=("oldest", "overtake", "replays-last", "round-robin"))
    parser.add_argument("what", help="loops, or a replayed run: collide, aligned, replays, backlog")
    parser.add_argument("--within", type=int, default=None, help="overtake: only instructions that arrived this many cycles before")
    args = parser.parse_args()
    arch = load_arch("sm_90")
    simulate = partial(reference.simulate_by_wavefront, path=ordered(args.order, args.within))
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "calibration")]
    if args.what == "loops":
        import test_timing_calibration as T
        import test_timing_forms as F
        import test_timing_warps as W

        for rows, kinds, name in ((T.ROWS, ("lat", "thr"), "timing.json"), (F.ROWS, ("latf", "thrf"), "forms")):
            errs = T.throughput_errors(T.simulate_rows(arch, rows, kinds, simulate), rows)
            out = {k: f"{100 * e:+.1f}%" for k, e in errs.items() if abs(e) > 0.05}
            print(f"{name}: {len(errs) - len(out)} of {len(errs)} within 5% (mean {100 * np.mean(np.abs(list(errs.values()))):.2f}%); out: {out}")
        errs = np.array([sim / meas - 1 for meas, sim in W.simulate_rows(arch, simulate).values()])
        print(f"per-warp run: {int((np.abs(errs) <= 0.05).sum())} of {len(errs)} within 5%")
    else:
        import collide_replay

        run, specs = collide_replay.RUNS[args.what]
        out = collide_replay.agreement(arch, run=run, specs=specs, simulate=simulate)
        print(f"{args.what}: {sum(v['within 5'] for v in out.values())} of {sum(v['warps'] for v in out.values())} warp timings within 5 cycles")
        for (fam, nl, probe), v in sorted(out.items()):
            print(f"  {fam} {nl}{' load by load' if probe else ''}: {v['within 5']} of {v['warps']}, mean {v['mean error']:+.1f}")


if __name__ == "__main__":
    main()
