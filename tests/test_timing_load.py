"""The timing engine against loads from other sub-partitions (calibration/load_replay.py).

Provenance: H100 80GB HBM3 (sm_90), clock64() per warp in calibration/h100/src/timing_load.cu (CUDA
13.0, -O3), run calibration/h100/runs/2026-11-25-load (timing_load.txt, its SASS timing_load.sass.gz):
one CTA of 16 warps, generator loops (timing.cu's throughput loop, or bursts of 16 loads) on the warps
of a mask, LDS.32 1-way or 2-way, and in some launches a dependent chain of 256 LDS.32 1-way loads (the
probe) on warp 3; 6 repetitions, the 5 timed ones' medians compared.

What it holds (bounds from what was recorded: at least as many within, none further off; README "Timing model"):

- the probe's gain (its cycles per link over its own alone, what the other warps' loads add to a load's
  latency) within 1.5 cycles in 19 of 32 launches (24 under the engine's earlier youngest-first port):
  nothing from 1-way loads of other sub-partitions at moderate rates (0x77: +0.08 measured, +0.31
  simulated). A generator on the probe's own sub-partition (0x80) costs the probe +5.88 cycles a link
  on the H100 and +0.15 in the engine, whose round-robin port gives the chain's next load a slot at once
  (the youngest-first port gave +4.98): the H100's port is not plain round robin for a warp that has
  waited. 2-way loads of six warps on three other sub-partitions (0x77) queue the probe's load +8.15
  measured, +4.87 simulated (+8.71 before); where three sub-partitions load heavily (2-way loads from
  twelve warps, 0x7777) the engine makes it wait too long (+22.9 measured, +36.9 simulated);
- the generators' end cycle, the simulated one plus what the lone generator warp took more on the H100
  (the kernel's offset arithmetic after its first clock, about 400 cycles, has no place in the replay),
  within 5% in 24 of 44 (mask, mode, degree) (37 before), the twenty outside as recorded.

``pytest -n 0 -s tests/test_timing_load.py`` prints the table.
"""


import numpy as np
import pytest
from rich.console import Console
from rich.table import Table

from calibration import load_replay

pytestmark = pytest.mark.slow  # the timing engine over 76 launches

GAINS_WITHIN_1_5 = 19  # at least, of 32 probe launches
ENDS_WITHIN_5_PERCENT = 24  # at least, of 44 generator launches
#: (mode, deg, loops) of the ends outside 5%, with the simulated error in percent when recorded: their bound
ENDS_OUT = {(1, 1, 0x11): -6.0, (0, 1, 0x1111): -5.6, (1, 1, 0x1111): 6.3, (1, 1, 0x33): -5.7, (0, 1, 0x77): -5.2, (1, 1, 0xFF): 9.0,
            (0, 1, 0x3333): -5.8, (1, 1, 0x3333): 5.5, (0, 1, 0x7777): -6.8, (1, 1, 0x7777): 8.8, (0, 1, 0xFFFF): -5.1,
            (1, 2, 0x11): -5.6, (0, 2, 0x1111): -5.2, (1, 2, 0x1111): 11.1, (0, 2, 0xF): 14.0, (1, 2, 0xF): 20.3, (0, 2, 0x33): -5.8,
            (1, 2, 0x33): 24.8, (0, 2, 0x77): -5.1, (0, 2, 0x3333): -5.6}


@pytest.fixture(scope="module")
def rows(sm90):
    out = load_replay.agreement(sm90)
    table = Table(title="H100 load run vs simsmem (mode 0: timing.cu's loop, 1: bursts; probe: warp 3's dependent chain)")
    for col in ("mode", "ways", "loops", "end measured", "end simulated", "probe gain measured", "probe gain simulated"):
        table.add_column(col, justify="right")
    gains, ends = load_replay.gains(out), load_replay.ends(out)
    for key in sorted(set(gains) | set(ends)):
        end = [f"{x:.0f}" for x in ends[key]] if key in ends else ["", ""]
        gain = [f"{x:+.2f}" for x in gains[key]] if key in gains else ["", ""]
        table.add_row(str(key[0]), str(key[1]), f"{key[2]:#06x}", *end, *gain)
    Console(width=140).print(table)
    return out


def test_every_launch_is_replayed(rows):
    assert len(load_replay.gains(rows)) == 32
    assert len(load_replay.ends(rows)) == 44


def test_the_probe_gains_at_least_as_recorded(rows):
    errors = np.array([sim - hw for hw, sim in load_replay.gains(rows).values()])
    assert (np.abs(errors) <= 1.5).sum() >= GAINS_WITHIN_1_5


def test_what_the_probe_gains_as_recorded(rows):
    """(measured, simulated) cycles per link over the probe alone: 2-way loads of six warps on three other
    sub-partitions (0x77) and with warp 7 beside the probe (0xf7), timing.cu's loop (mode 0); bursts of 16
    (mode 1) of four warps on two other sub-partitions (0x33); and a 1-way generator on the probe's own
    sub-partition (0x80), which the round-robin port lets cost the probe nothing. The measured gains as read; the
    simulated ones no further from them than recorded."""
    gains = load_replay.gains(rows)
    recorded = {(0, 2, 0x77): (8.15, 4.87), (0, 2, 0xF7): (16.72, 12.47), (1, 2, 0x33): (5.04, 4.60), (0, 1, 0x80): (5.88, 0.15)}
    for key, (hw, sim) in recorded.items():
        assert round(gains[key][0], 2) == hw, key
        assert abs(gains[key][1] - gains[key][0]) <= abs(sim - hw) + 0.01, key


def test_the_ends_are_no_further_off_than_recorded(rows):
    ends = load_replay.ends(rows)
    errors = {key: round(100 * (sim / hw - 1), 1) for key, (hw, sim) in ends.items()}
    assert sum(abs(e) <= 5 for e in errors.values()) >= ENDS_WITHIN_5_PERCENT
    past = {key: e for key, e in errors.items() if abs(e) > max(5, abs(ENDS_OUT.get(key, 0)))}
    assert not past, f"ends past their bound: {past}"
