"""Try other orders at the data path on the wavefront-by-wavefront reference path (README "Timing model").

The engine's rule (``simsmem.engine.passing``) serves the oldest ready instruction first, except that
the oldest one not yet started overtakes the started ones that reached the banks at most
``overtake.within`` cycles before it and have at most ``overtake.wavefronts`` (sm_90: 4 and 2). This
script runs the calibration rows under that rule with other numbers (``--within none``: never
overtake, first come first served), or under another order in its place, and reports what the README
quotes for it:

- ``overtake``: the engine's rule, with ``--within`` and ``--wavefronts`` (default: sm_90's);
- ``replays-last``: wavefronts past an instruction's phases (replays) after every other ready one;
- ``round-robin``: the sub-partitions in turn, each its oldest ready instruction;
- ``new-round-robin``: the first wavefronts of instructions not yet started, the sub-partitions in turn,
  before the replays (oldest first): what ``sass_model.py`` runs the loops' SASS with.

``python calibration/try_orders.py overtake --within none loops`` prints the timing.json, forms and
per-warp rows; ``... RUN`` (collide, aligned, replays, backlog) one replayed run's agreement. Slow (the
reference path: about 4 minutes for the loops).
"""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path

import attrs
import numpy as np

from simsmem.config import Overtake, load_arch
from simsmem.engine import passing, reference

ROOT = Path(__file__).resolve().parents[1]


def ordered(order: str):
    """The data path's rule with the ready wavefronts served in ``order`` (``overtake``: the engine's own,
    with ``--within`` and ``--wavefronts``)."""

    class Ordered(passing.Passing):
        last = -1  # the sub-partition served last (round-robin)

        def _serve_first(self, ready: list) -> list:
            if order == "overtake":
                return super()._serve_first(ready)
            if order == "replays-last":
                return sorted(ready, key=lambda p: len(p.cycles) >= p.phases)
            if order in ("round-robin", "new-round-robin") and ready:
                def turn(p):  # the sub-partitions after the one served last, in turn
                    return (p.sp.index - self.last - 1) % len(p.sp.run.sub_partitions)

                def new_first(p):  # replays after new instructions, in their own (age) order
                    return (True, 0) if p.cycles else (False, turn(p))

                ready = sorted(ready, key=turn if order == "round-robin" else new_first)
                self.last = ready[0].sp.index
            return ready

    return Ordered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("order", choices=("overtake", "replays-last", "round-robin", "new-round-robin"))
    parser.add_argument("what", help="loops, or a replayed run: collide, aligned, replays, backlog")
    parser.add_argument("--within", help="overtake: the started ones that reached the banks at most this many cycles before (none: never)")
    parser.add_argument("--wavefronts", type=int, help="overtake: the started ones of at most this many wavefronts")
    args = parser.parse_args()
    arch = load_arch("sm_90")
    rule = arch.timing.overtake
    if args.within == "none":
        rule = None
    elif args.within is not None or args.wavefronts is not None:
        rule = Overtake(rule.within if args.within is None else int(args.within), args.wavefronts or rule.wavefronts)
    arch = attrs.evolve(arch, timing=attrs.evolve(arch.timing, overtake=rule))
    simulate = partial(reference.simulate_by_wavefront, passing=ordered(args.order))
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
