"""Try another rule at the sub-partitions' issue ports (README "Timing model").

The engine's port (``simsmem.engine.subpartition``) gives each slot to the youngest warp that wants it
(sm_90's ``issue_priority``), so that of two warps on a sub-partition the younger runs as if alone and
the older takes the slots left, then runs alone: the H100's warps of one sub-partition end together
(``runs/2026-11-25-burst``: within 2% in 62 of its 64 launches with such warps). This script runs the
calibration rows under a port that hands each slot to the warp with the fewest shared-memory
instructions issued so far (ties: ``issue_priority``) and under the engine's round-robin port (each slot
to the wanting warp after the one served last), and prints what the README quotes for them:

    python calibration/try_ports.py

timing.json's and the counts run's throughput rows, the burst run's ends and how evenly its warps
sharing a sub-partition end (``burst_replay.shares``), each beside the engine's own port.
"""

from __future__ import annotations

import sys
from pathlib import Path

import attrs
import numpy as np

from simsmem.config import load_arch
from simsmem.engine.datapath import DataPath
from simsmem.engine.program import program
from simsmem.engine.simulate import Run
from simsmem.engine.subpartition import SubPartition

ROOT = Path(__file__).resolve().parents[1]


class FewestIssued(SubPartition):
    """A port that goes to the warp with the fewest shared-memory instructions issued (ties: ``issue_priority``)."""

    TIE = 1 << 34  # more than any warp number's rank

    def issue(self, i: int, now: int) -> None:
        warp = self.run.columns.warp[i]
        self.port.rank[warp] += self.TIE
        super().issue(i, now)


def simulate_fewest_issued(batch, counts, arch):
    """``simsmem.engine.simulate`` with the ``FewestIssued`` port."""
    return Run(program(batch, counts, arch), arch.timing, arch.sub_partitions, DataPath, None, FewestIssued).run(None)


def main() -> None:
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "calibration")]
    import burst_replay
    import test_timing_calibration as T
    import test_timing_counts as C
    from simsmem.engine import simulate

    arch = load_arch("sm_90")
    turns = attrs.evolve(arch, timing=attrs.evolve(arch.timing, issue_priority="round-robin"))
    for name, on, sim in (("engine (youngest first)", arch, simulate), ("fewest issued first", arch, simulate_fewest_issued),
                          ("round-robin (issue_priority: round-robin)", turns, simulate)):
        print(name)
        for rows, label in ((T.ROWS, "timing.json"), (C.ROWS, "counts run")):
            errs = T.throughput_errors(T.simulate_rows(on, rows, ("lat", "thr"), sim), rows)
            e = np.abs(list(errs.values()))
            print(f"  {label}: {int((e <= 0.05).sum())} of {len(e)} throughput rows within 5% (mean {100 * e.mean():.2f}%)")
            if label == "counts run":
                pairs = [f"{w}: {100 * errs['LDS32', 1, w]:+.1f}%" for w in range(4, 17)]
                print("    LDS32 1-way by warps:", ", ".join(pairs))
        sims = burst_replay.simulated(on, sim)
        ends = burst_replay.agreement(sims)
        e = np.abs([s / h - 1 for (*_, loops), (h, s) in ends.items() if loops != burst_replay.ALONE])
        shares = np.array([s for _, s in burst_replay.spreads(sims).values()])
        print(f"  burst run: {int((e <= 0.05).sum())} of {len(e)} ends within 5% (mean {100 * e.mean():.2f}%);"
              f" warps sharing a sub-partition end at {shares.min():.3f} to {shares.max():.3f} of the latest")


if __name__ == "__main__":
    main()
