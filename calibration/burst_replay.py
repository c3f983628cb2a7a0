"""Replay ``h100/runs/2026-11-25-burst`` (``h100/src/timing_burst.cu``) through the timing engine.

    python3 calibration/burst_replay.py

Each launch runs timing.cu's throughput loop, written as rounds of 16 LDS.32 summed after the 16th, on
the warps of ``loops`` (16 warps launched, warp w on sub-partition w % 4), LDS.32 1-way or 2-way;
``clk`` 1 adds a clock read before each round and after its 16th load has issued (ptxas then puts the
round's address arithmetic first and its 16 loads back to back). Both loops are read from the run's SASS
and projected as the timing loops are (``timing_traces.project``). Compared, per (clk, deg, loops), with
the medians of the 3 timed repetitions: the last warp's end cycle, the simulated one plus what the lone
warp (mask 0x1, same clk and degree) took more on the H100 than simulated (the kernel's offset
arithmetic after its first clock has no place in the replay; each warp does its own, in parallel).
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from statistics import median

import numpy as np

from simsmem.banks import count
from simsmem.config import load_arch
from simsmem.engine import simulate
from timing_traces import FORMS, loop_batch, loops_of, project, read_sass

HERE = Path(__file__).resolve().parent
RUN = HERE / "h100" / "runs" / "2026-11-25-burst"
LINE = re.compile(r"B clk=(\d) deg=(\d) loops=0x([0-9a-f]+) rep=(\d)((?: \d+:\d+,\d+,\d+)+)$")
LOADS = 512  # per warp
ALONE = 0x1  # the lone warp


def measured(run: Path = RUN) -> dict[tuple[int, int, int], float]:
    """(clk, deg, loops) -> the last warp's end cycle (from the earliest start), median of the timed
    repetitions (rep 0 warms the instruction cache)."""
    reps = defaultdict(list)
    for line in (run / "timing_burst.txt").read_text().splitlines():
        m = LINE.match(line)
        assert m, line
        if int(m[4]):
            warps = [tuple(map(int, w.split(":")[1].split(","))) for w in m[5].split()]
            reps[int(m[1]), int(m[2]), int(m[3], 16)].append(max(start + cycles for start, cycles, _ in warps))
    return {key: median(v) for key, v in reps.items()}


def steps(run: Path, arch) -> dict[int, list]:
    """clk -> the projected steps of the kernel's load loop (its branch is on a negated predicate)."""
    sass = read_sass(run / "timing_burst.sass.gz")
    return {clk: project(next(body for body in loops_of(sass[f"_Z5burstILi{clk}EEviPxPjij"], negated=True)
                              if any(ins.text.startswith("LDS") for ins in body)), arch.timing) for clk in (0, 1)}


def agreement(arch=None, simulate=simulate, run: Path = RUN) -> dict[tuple[int, int, int], tuple[float, float]]:
    """(clk, deg, loops) -> (measured, simulated end cycle), the simulated one plus the lone warp's
    difference (ALONE's own rows: equal by construction)."""
    arch = arch or load_arch("sm_90")
    projected = steps(run, arch)
    ends = {}
    for (clk, deg, loops), end in sorted(measured(run).items()):
        b = loop_batch(projected[clk], [w for w in range(16) if loops >> w & 1], LOADS, FORMS["LDS32"], deg)
        ends[clk, deg, loops] = end, int(simulate(b, count(b, arch), arch).complete.max())
    return {(clk, deg, loops): (end, sim + ends[clk, deg, ALONE][0] - ends[clk, deg, ALONE][1])
            for (clk, deg, loops), (end, sim) in ends.items()}


def main() -> None:
    rows = agreement()
    print("end cycle (simulated + the lone warp's difference), measured vs simulated:")
    for (clk, deg, loops), (hw, sim) in rows.items():
        print(f"  clk {clk} deg {deg} loops {loops:#06x}: {hw:6.0f} {sim:6.0f} ({100 * (sim / hw - 1):+5.1f}%)")
    e = np.array([sim / hw - 1 for (*_, loops), (hw, sim) in rows.items() if loops != ALONE])
    print(f"ends within 5%: {int((np.abs(e) <= 0.05).sum())} of {len(e)} (mean {100 * np.abs(e).mean():.2f}%)")


if __name__ == "__main__":
    main()
