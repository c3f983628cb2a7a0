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
Then, for the launches with warps sharing a sub-partition, how evenly those warps end (``shares``):
on the H100 together, in the engine one after another (README, "Timing model").
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
from calibration.timing_traces import FORMS, loop_batch, project, read_sass, load_loop

HERE = Path(__file__).resolve().parent
RUN = HERE / "h100" / "runs" / "2026-11-25-burst"
LINE = re.compile(r"B clk=(\d) deg=(\d) loops=0x([0-9a-f]+) rep=(\d)((?: \d+:\d+,\d+,\d+)+)$")
LOADS = 512  # per warp
ALONE = 0x1  # the lone warp
SUB_PARTITIONS = 4  # warp w runs on sub-partition w % 4


def repetitions(run: Path = RUN) -> dict[tuple[int, int, int], list[dict[int, int]]]:
    """(clk, deg, loops) -> per timed repetition (rep 0 warms the instruction cache), each loop warp's
    end cycle (from the earliest start)."""
    reps = defaultdict(list)
    for line in (run / "timing_burst.txt").read_text().splitlines():
        m = LINE.match(line)
        assert m, line
        if int(m[4]):
            warps = (w.split(":") for w in m[5].split())
            reps[int(m[1]), int(m[2]), int(m[3], 16)].append({int(w): sum(map(int, v.split(",")[:2])) for w, v in warps})
    return dict(reps)


def measured(run: Path = RUN) -> dict[tuple[int, int, int], float]:
    """(clk, deg, loops) -> the last warp's end cycle, median of the timed repetitions."""
    return {key: median(max(ends.values()) for ends in reps) for key, reps in repetitions(run).items()}


def steps(run: Path, arch) -> dict[int, list]:
    """clk -> the projected steps of the kernel's load loop (its branch is on a negated predicate)."""
    sass = read_sass(run / "timing_burst.sass.gz")
    return {clk: project(load_loop(sass[f"_Z5burstILi{clk}EEviPxPjij"], negated=True), arch.timing) for clk in (0, 1)}


def simulated(arch=None, simulate=simulate, run: Path = RUN) -> dict[tuple[int, int, int], dict[int, int]]:
    """(clk, deg, loops) -> each loop warp's simulated end cycle (its last load's data returned)."""
    arch = arch or load_arch("sm_90")
    projected = steps(run, arch)
    out = {}
    for clk, deg, loops in sorted(repetitions(run)):
        warps = [w for w in range(16) if loops >> w & 1]
        b = loop_batch(projected[clk], warps, LOADS, FORMS["LDS32"], deg)
        complete = simulate(b, count(b, arch), arch).complete
        out[clk, deg, loops] = {w: int(complete[b.warp == w].max()) for w in warps}
    return out


def agreement(sims: dict, run: Path = RUN) -> dict[tuple[int, int, int], tuple[float, float]]:
    """(clk, deg, loops) -> (measured, simulated end cycle), the simulated one (of ``simulated``'s ``sims``)
    plus the lone warp's difference (ALONE's own rows: equal by construction)."""
    ends = {key: (end, max(sims[key].values())) for key, end in measured(run).items()}
    return {(clk, deg, loops): (end, sim + ends[clk, deg, ALONE][0] - ends[clk, deg, ALONE][1])
            for (clk, deg, loops), (end, sim) in ends.items()}


def shares(ends: dict[int, float]) -> float | None:
    """How evenly the warps sharing a sub-partition end: the least, over the sub-partitions with more
    than one warp, of its earliest warp's end over its latest's (1: together); None if no warps share one."""
    by_sp = defaultdict(list)
    for w, end in ends.items():
        by_sp[w % SUB_PARTITIONS].append(end)
    ratios = [min(v) / max(v) for v in by_sp.values() if len(v) > 1]
    return min(ratios) if ratios else None


def spreads(sims: dict, run: Path = RUN) -> dict[tuple[int, int, int], tuple[float, float]]:
    """(clk, deg, loops) -> (measured, simulated) ``shares`` of the launches with warps sharing a
    sub-partition (measured: from each warp's median end; simulated: of ``simulated``'s ``sims``)."""
    out = {}
    for key, reps in repetitions(run).items():
        hw = shares({w: median(ends[w] for ends in reps) for w in reps[0]})
        if hw is not None:
            out[key] = hw, shares(sims[key])
    return out


def main() -> None:
    sims = simulated()
    rows = agreement(sims)
    print("end cycle (simulated + the lone warp's difference), measured vs simulated:")
    for (clk, deg, loops), (hw, sim) in rows.items():
        print(f"  clk {clk} deg {deg} loops {loops:#06x}: {hw:6.0f} {sim:6.0f} ({100 * (sim / hw - 1):+5.1f}%)")
    e = np.array([sim / hw - 1 for (*_, loops), (hw, sim) in rows.items() if loops != ALONE])
    print(f"ends within 5%: {int((np.abs(e) <= 0.05).sum())} of {len(e)} (mean {100 * np.abs(e).mean():.2f}%)")
    print("warps sharing a sub-partition: earliest end over latest, measured vs simulated:")
    for (clk, deg, loops), (hw, sim) in spreads(sims).items():
        print(f"  clk {clk} deg {deg} loops {loops:#06x}: {hw:.3f} {sim:.3f}")


if __name__ == "__main__":
    main()
