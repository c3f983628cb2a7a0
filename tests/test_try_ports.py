"""calibration/try_ports.py: a port that goes to the warp with the fewest loads issued, and the round-robin port.

Provenance: H100 80GB HBM3 (sm_90), calibration/h100/runs/2026-11-25-counts/timing_n.txt, LDS32 1-way
at 5 warps (two on sub-partition 0): 2.291 cycles per warp-instruction (median of 3 timed repetitions);
runs/2026-11-25-burst: two warps of one sub-partition end within 0.3% of each other (0x11).
"""

import sys

import attrs
import numpy as np
import pytest

from conftest import ROOT
from simsmem.banks import count
from simsmem.engine import simulate
from simsmem.trace import load_trace

sys.path.insert(0, str(ROOT / "calibration"))
import try_ports  # noqa: E402

MEASURED = 2.291  # cycles per warp-instruction, LDS32 1-way, 5 warps


@pytest.fixture(scope="module")
def five(sm90):
    batch = load_trace(ROOT / "traces" / "timing" / "thr_LDS32_1.json.gz").instructions
    batch = batch.take(np.flatnonzero(batch.warp < 5))
    return batch, count(batch, sm90)


def ends(timeline, batch):
    return [int(timeline.complete[batch.warp == w].max()) for w in (0, 4)]  # the pair on sub-partition 0


def test_the_fewest_issued_port_keeps_a_pair_together_and_leaves_it_fast(sm90, five):
    batch, counts = five
    tried = try_ports.simulate_fewest_issued(batch, counts, sm90)
    first, last = sorted(ends(tried, batch))
    assert first / last > 0.995
    assert tried.cycles / len(batch) / MEASURED - 1 == pytest.approx(-0.085, abs=0.001)


def test_the_engines_port_runs_the_younger_warp_of_a_pair_ahead(sm90, five):
    batch, counts = five
    timeline = simulate(batch, counts, sm90)
    older, younger = ends(timeline, batch)
    assert younger / older < 0.75
    assert timeline.cycles / len(batch) / MEASURED - 1 == pytest.approx(0.009, abs=0.001)


def test_the_round_robin_port_keeps_a_pair_together_and_leaves_it_faster_still(sm90, five):
    """``issue_priority: round-robin``: the pair takes turns and ends together, as measured, but the loop
    runs 11.4% fast: the lumped stretches' integer-ALU instructions, booked on their pipe apart from the
    port's slots, no longer wait for each other's (README "Timing model")."""
    batch, counts = five
    turns = attrs.evolve(sm90, timing=attrs.evolve(sm90.timing, issue_priority="round-robin"))
    timeline = simulate(batch, counts, turns)
    first, last = sorted(ends(timeline, batch))
    assert first / last > 0.97
    assert timeline.cycles / len(batch) / MEASURED - 1 == pytest.approx(-0.114, abs=0.001)
