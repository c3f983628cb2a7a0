"""calibration/try_orders.py: other orders at the data path, on the wavefront-by-wavefront reference.

Its ``oldest`` order is the engine's (issue and completion cycles identical); ``overtake`` within 4
cycles holds the LDS32 2-way warps of timing.json's 4-warp row together, the lead the README's
"Timing model" section quotes (H100, calibration/h100/timing.json row LDS32 2-way at 4 warps: 2.780
cycles per warp-instruction measured; the engine 2.233).
"""

import sys

import numpy as np

from conftest import ROOT
from simsmem.banks import count
from simsmem.engine import simulate
from simsmem.engine.reference import simulate_by_wavefront
from simsmem.trace import load_trace

sys.path.insert(0, str(ROOT / "calibration"))
import try_orders  # noqa: E402


def loop(sm90, warps=4):
    batch = load_trace(ROOT / "traces" / "timing" / "thr_LDS32_2.json.gz").instructions
    batch = batch.take(np.flatnonzero(batch.warp < warps))
    return batch, count(batch, sm90)


def test_the_oldest_order_is_the_engines(sm90):
    batch, counts = loop(sm90)
    tried = simulate_by_wavefront(batch, counts, sm90, path=try_orders.ordered("oldest", None))
    engine = simulate(batch, counts, sm90)
    assert (tried.issue == engine.issue).all() and (tried.complete == engine.complete).all()


def test_overtaking_within_4_cycles_holds_the_lds32_2way_warps_together(sm90):
    batch, counts = loop(sm90)
    per_load = {within: simulate_by_wavefront(batch, counts, sm90, path=try_orders.ordered("overtake", within)).cycles / len(batch)
                for within in (2, 4)}
    assert round(simulate(batch, counts, sm90).cycles / len(batch), 3) == 2.233  # README: -19.7% of 2.780
    assert round(per_load[4], 3) == 2.818  # +1.4%
    assert round(per_load[2], 3) == 2.316  # -16.7%: 2 cycles are too few
