"""The timing engine against timing.cu's loop on chosen warps (calibration/burst_replay.py).

Provenance: H100 80GB HBM3 (sm_90), clock64() per warp in calibration/h100/src/timing_burst.cu (CUDA
13.0, -O3), run calibration/h100/runs/2026-11-25-burst (timing_burst.txt, its SASS timing_burst.sass.gz):
one CTA of 16 warps, timing.cu's throughput loop as rounds of 16 LDS.32 (1-way or 2-way) on the warps of
19 masks, without clocks in the loop (clk 0) and with a clock read around each round's loads (clk 1,
whose 16 loads ptxas puts back to back); 4 repetitions, the 3 timed ones' medians compared.

What it holds: each launch's end cycle, the simulated one plus what the lone warp took more on the H100,
within 5% in 62 of 72 launches, the ten outside as recorded. They show what the engine lacks (README,
"Timing model"; the run's README): two warps on each of four sub-partitions take 9.4% longer than two on
one on the H100 (clk 0, 1-way: 6,709 and 6,135 cycles) where the engine gives them the same (-5.2%,
+4.4%); four warps of four sub-partitions issuing their 16 2-way loads back to back at once take 204
cycles a round on the H100, 237 in the engine (+16.4%), which serves the four in lock-step, oldest
instruction first, so that all four finish each round together. And how evenly the warps that share
a sub-partition end: on the H100 together (62 of the 64 launches with such warps within 2% of each
other), in the engine one after another (its issue port gives every slot to the youngest warp that
wants it, so the oldest runs its last loads alone).

``pytest -s tests/test_timing_burst.py`` prints the table.
"""

import sys

import numpy as np
import pytest
from rich.console import Console
from rich.table import Table

from conftest import ROOT

sys.path.insert(0, str(ROOT / "calibration"))
import burst_replay  # noqa: E402

ENDS_WITHIN_5_PERCENT = 62  # of 72 launches (the lone warp's four are matched by construction)
#: (clk, deg, loops) of the ends outside 5%, with the simulated error in percent, as recorded
ENDS_OUT = {(0, 1, 0xFF): -5.2, (0, 1, 0x111): 5.2, (0, 1, 0x777): 5.0, (0, 2, 0x77): 5.1, (0, 2, 0x111): 5.9,
            (1, 1, 0xFFFF): 6.3, (1, 2, 0xF): 16.4, (1, 2, 0x77): 5.4, (1, 2, 0x707): 9.4, (1, 2, 0x777): 5.2}


#: the engine's shares (earliest end over latest of warps sharing a sub-partition) below the H100's least, as recorded
SHARES_APART = 60  # of 64 launches


@pytest.fixture(scope="module")
def sims(sm90):
    return burst_replay.simulated(sm90)


@pytest.fixture(scope="module")
def ends(sims):
    out = burst_replay.agreement(sims)
    table = Table(title="H100 burst run vs simsmem (end cycle; clk 1: a clock read around each round's loads)")
    for col in ("clk", "ways", "loops", "measured", "simulated", "error"):
        table.add_column(col, justify="right")
    for (clk, deg, loops), (hw, sim) in out.items():
        table.add_row(str(clk), str(deg), f"{loops:#06x}", f"{hw:.0f}", f"{sim:.0f}", f"{100 * (sim / hw - 1):+.1f}%")
    Console(width=120).print(table)
    return out


def test_every_launch_is_replayed(ends):
    assert len(ends) == 2 * 2 * 19


def test_the_ends_are_as_recorded(ends):
    errors = {key: 100 * (sim / hw - 1) for key, (hw, sim) in ends.items() if key[2] != burst_replay.ALONE}
    assert sum(abs(e) <= 5 for e in errors.values()) == ENDS_WITHIN_5_PERCENT
    assert {key: round(e, 1) for key, e in errors.items() if abs(e) > 5} == ENDS_OUT


def test_one_pair_is_measured_as_fast_as_the_engine_gives_every_pair(ends):
    """The H100's two warps on one sub-partition (0x11) against two on each of four (0xff), clk 0, 1-way:
    6,135 and 6,709 cycles (+9.4%); the engine 6,403 and 6,360: what timing.json's LDS32 1-way row at 8
    warps (-7.2%) lacks, here as a cross-sub-partition loss the engine does not have."""
    (hw1, sim1), (hw4, sim4) = ends[0, 1, 0x11], ends[0, 1, 0xFF]
    assert hw4 / hw1 - 1 == pytest.approx(0.094, abs=0.002)
    assert abs(sim4 / sim1 - 1) < 0.01
    assert np.sign(sim1 - hw1) != np.sign(sim4 - hw4)


def test_warps_sharing_a_sub_partition_end_together_on_the_h100_and_apart_in_the_engine(sims):
    """Each warp's end cycle (medians of the timed repetitions): on the H100 the warps of one
    sub-partition end within 7.1% of each other in every launch (0.929 earliest over latest at clk 0,
    1-way, 0xffff; 62 of 64 within 2%), and two warps on one sub-partition within 0.3% (0x11, clk 0,
    1-way: 6,139 and 6,123 cycles in rep 1). The engine runs the youngest warp as if alone and the older
    ones in what slots are left, then alone: its four warps on one sub-partition (0x1111, clk 0, 1-way)
    end at 0.355 of the last one's cycles. Its totals agree (``test_the_ends_are_as_recorded``) while
    its warps do not: a port that hands slots to the warp with the fewest loads issued keeps them
    together, but leaves every pair 8-12% fast (README, "Timing model")."""
    shares = burst_replay.spreads(sims)
    assert len(shares) == 64
    hw = np.array([h for h, _ in shares.values()])
    sim = np.array([s for _, s in shares.values()])
    assert hw.min() == pytest.approx(0.929, abs=0.0005) and (hw >= 0.98).sum() == 62
    assert (sim < hw.min()).sum() == SHARES_APART
    assert sim.min() == pytest.approx(0.355, abs=0.0005)
