"""Replay ``h100/runs/2026-11-25-half`` (``h100/src/timing_half.cu``) through the timing engine.

    python3 calibration/half_replay.py

Each launch runs timing.cu's LDS.32 1-way loop (timing_pair.cu's ``spread`` kernel) on two warps of each
sub-partition of a set (warps s and s + 4 on sub-partition s; 8 warps launched): every non-empty set of
the four, three rounds of 4 repetitions. The loop is read from the run's SASS and projected as the
timing loops are (``timing_traces.project``). Compared, per set, with the median of the 9 timed
repetitions: the last loop warp's end cycle (the kernel computes its offsets before its first clock, so
the replay needs no correction), and its growth over a pair on one sub-partition alone (the four
one-element sets' mean): on the H100 +1% with two sub-partitions, whichever, +7.5% with three, +13% with
four; in the engine much less (README, "Timing model").
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from statistics import mean, median

from simsmem.banks import count
from simsmem.config import load_arch
from simsmem.engine import simulate
from calibration.timing_traces import FORMS, loop_batch, project, read_sass, load_loop

HERE = Path(__file__).resolve().parent
RUN = HERE / "h100" / "runs" / "2026-11-25-half"
LINE = re.compile(r"S mode=0 loops=0x([0-9a-f]+) comps=0x0 rep=(\d)((?: \d+,\d+){8})$")
LOADS = 512  # per warp
SUB_PARTITIONS = 4  # warp w runs on sub-partition w % 4


def measured(run: Path = RUN) -> dict[int, float]:
    """loops (the mask of loop warps) -> the last loop warp's end cycle from the earliest start, median of
    the timed repetitions (rep 0 of each round warms the instruction cache)."""
    reps = defaultdict(list)
    for line in (run / "timing_half.txt").read_text().splitlines():
        m = LINE.match(line)
        assert m, line
        loops, warps = int(m[1], 16), [tuple(map(int, w.split(","))) for w in m[3].split()]
        if int(m[2]):
            reps[loops].append(max(start + cycles for w, (start, cycles) in enumerate(warps) if loops >> w & 1))
    return {loops: median(ends) for loops, ends in reps.items()}


def simulated(arch=None, simulate=simulate, run: Path = RUN) -> dict[int, int]:
    """loops -> the simulated end cycle (the last loop warp's last load's data returned)."""
    arch = arch or load_arch("sm_90")
    steps = project(loop(run), arch.timing)
    out = {}
    for loops in sorted(measured(run)):
        b = loop_batch(steps, [w for w in range(2 * SUB_PARTITIONS) if loops >> w & 1], LOADS, FORMS["LDS32"], 1)
        out[loops] = int(simulate(b, count(b, arch), arch).complete.max())
    return out


def loop(run: Path = RUN) -> list:
    """The SASS of the run's loop (timing.cu's LDS.32 loop in the ``spread`` kernel)."""
    return load_loop(read_sass(run / "timing_half.sass.gz")["_Z6spreadILi0EEvPxPjijj"])


def pairs(loops: int) -> int:
    """The sub-partitions with a pair of loop warps."""
    return bin(loops).count("1") // 2


def agreement(sims: dict[int, int], run: Path = RUN) -> dict[int, tuple[float, int, float, float]]:
    """loops -> (measured, simulated end cycle; measured, simulated growth over one pair alone), the
    simulated of ``simulated``'s ``sims``."""
    hw = measured(run)
    alone_hw = mean(end for loops, end in hw.items() if pairs(loops) == 1)
    alone_sim = mean(end for loops, end in sims.items() if pairs(loops) == 1)
    return {loops: (end, sims[loops], end / alone_hw - 1, sims[loops] / alone_sim - 1) for loops, end in hw.items()}


def main() -> None:
    rows = agreement(simulated())
    print("pairs  loops  measured  simulated  error   growth measured  simulated")
    for loops, (hw, sim, g_hw, g_sim) in sorted(rows.items(), key=lambda kv: (pairs(kv[0]), kv[0])):
        print(f"{pairs(loops):5}  {loops:#04x}  {hw:8.0f}  {sim:9d}  {100 * (sim / hw - 1):+5.1f}%  {100 * g_hw:+14.1f}%  {100 * g_sim:+8.1f}%")


if __name__ == "__main__":
    main()
