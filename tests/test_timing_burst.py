"""The timing engine against timing.cu's loop on chosen warps (calibration/burst_replay.py).

Provenance: H100 80GB HBM3 (sm_90), clock64() per warp in calibration/h100/src/timing_burst.cu (CUDA
13.0, -O3), run calibration/h100/runs/2026-11-25-burst (timing_burst.txt, its SASS timing_burst.sass.gz):
one CTA of 16 warps, timing.cu's throughput loop as rounds of 16 LDS.32 (1-way or 2-way) on the warps of
19 masks, without clocks in the loop (clk 0) and with a clock read around each round's loads (clk 1,
whose 16 loads ptxas puts back to back); 4 repetitions, the 3 timed ones' medians compared.

What it holds: each launch's end cycle, the simulated one plus what the lone warp took more on the H100,
within 5% in at least 53 of 72 launches (53 when recorded), the nineteen outside no further off than
recorded (mostly clk 1, whose loads issue back to back: the engine's bursts from several warps run 5-19%
slow or fast there; README, "Timing model").
Two warps on each of four sub-partitions take 9.4% longer than two on one on the H100 (clk 0, 1-way:
6,709 and 6,135 cycles), 11.8% in the engine (6,726 and 6,017: its round-robin port and new-first data
path; the engine before them gave the same for both). And the warps that share a sub-partition end
together, on the H100 (62 of the 64 launches with such warps within 2% of each other) as in the engine
(60; before, with a youngest-first port, one after another).

``pytest -n 0 -s tests/test_timing_burst.py`` prints the table.
"""


import numpy as np
import pytest
from rich.console import Console
from rich.table import Table

from calibration import burst_replay

pytestmark = pytest.mark.slow  # the timing engine over 76 launches

ENDS_WITHIN_5_PERCENT = 53  # at least, of 72 launches (the lone warp's four are matched by construction)
#: (clk, deg, loops) of the ends outside 5%, with the simulated error in percent when recorded: their bound
ENDS_OUT = {(1, 1, 0xFF): 14.3, (1, 1, 0x7F): 8.1, (1, 1, 0x777): -5.3, (1, 1, 0xFFF): -10.8, (1, 1, 0xFFFF): -6.5, (1, 1, 0xF0F): 14.4,
            (1, 2, 0xF): 16.4, (0, 2, 0x33): 6.0, (1, 2, 0x33): 18.7, (0, 2, 0x77): 5.1, (1, 2, 0xFF): 6.4, (0, 2, 0x1F): -7.5,
            (1, 2, 0x1F): -6.6, (0, 2, 0x3F): 8.7, (1, 2, 0x3F): -6.4, (1, 2, 0x1111): -8.5, (1, 2, 0x303): 17.2, (1, 2, 0x707): 8.0,
            (1, 2, 0xF0F): 6.2}


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


def test_the_ends_are_no_further_off_than_recorded(ends):
    errors = {key: 100 * (sim / hw - 1) for key, (hw, sim) in ends.items() if key[2] != burst_replay.ALONE}
    assert sum(abs(e) <= 5 for e in errors.values()) >= ENDS_WITHIN_5_PERCENT
    past = {key: round(e, 1) for key, e in errors.items() if abs(e) > max(5, abs(ENDS_OUT.get(key, 0)) + 0.05)}
    assert not past, f"ends past their bound: {past}"


def test_pairs_on_more_sub_partitions_lose_time_as_on_the_h100(ends):
    """The H100's two warps on one sub-partition (0x11) against two on each of four (0xff), clk 0, 1-way:
    6,135 and 6,709 cycles (+9.4%); the engine's loss within 3 points of that (recorded: 6,017 and 6,726,
    +11.8%): the loss timing.json's LDS32 1-way row at 8 warps shows, which the engine of a youngest-first
    port and oldest-first data path lacked (+0%)."""
    (hw1, sim1), (hw4, sim4) = ends[0, 1, 0x11], ends[0, 1, 0xFF]
    assert hw4 / hw1 - 1 == pytest.approx(0.094, abs=0.002)
    assert sim4 / sim1 - 1 == pytest.approx(hw4 / hw1 - 1, abs=0.03)


def test_warps_sharing_a_sub_partition_end_together(sims):
    """Each warp's end cycle (medians of the timed repetitions): on the H100 the warps of one
    sub-partition end within 7.1% of each other in every launch (0.929 earliest over latest at clk 0,
    1-way, 0xffff; 62 of 64 within 2%), and two warps on one sub-partition within 0.3% (0x11, clk 0,
    1-way: 6,139 and 6,123 cycles in rep 1). So do the engine's, its port handing the slots round robin: at
    least as close as the H100's farthest, and within 2% in at least 60 of 64 (recorded: the least 0.976, 60);
    with a youngest-first port they ended one after another (four warps on one sub-partition at 0.355 of
    the last one's cycles)."""
    shares = burst_replay.spreads(sims)
    assert len(shares) == 64
    hw = np.array([h for h, _ in shares.values()])
    sim = np.array([s for _, s in shares.values()])
    assert hw.min() == pytest.approx(0.929, abs=0.0005) and (hw >= 0.98).sum() == 62
    assert sim.min() >= hw.min() and (sim >= 0.98).sum() >= 60
