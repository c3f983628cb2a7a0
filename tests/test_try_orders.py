"""calibration/try_orders.py: other orders at the data path, on the wavefront-by-wavefront reference.

Its ``overtake`` order is the engine's rule (issue and completion cycles identical); with ``--within``
it changes ``overtake.within``, whose 4 cycles hold the LDS32 2-way warps of timing.json's 4-warp row
together (H100, calibration/h100/timing.json row LDS32 2-way at 4 warps: 2.780 cycles per
warp-instruction measured), where first come, first served (``none``) lets them drift apart.
"""

import sys

import attrs
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


def within(sm90, cycles):
    rule = None if cycles is None else attrs.evolve(sm90.timing.overtake, within=cycles)
    return attrs.evolve(sm90, timing=attrs.evolve(sm90.timing, overtake=rule))


def test_the_overtake_order_is_the_engines(sm90):
    batch, counts = loop(sm90)
    tried = simulate_by_wavefront(batch, counts, sm90, passing=try_orders.ordered("overtake"))
    engine = simulate(batch, counts, sm90)
    assert (tried.issue == engine.issue).all() and (tried.complete == engine.complete).all()


def test_overtaking_within_4_cycles_holds_the_lds32_2way_warps_together(sm90):
    batch, counts = loop(sm90)
    assert (sm90.timing.overtake.within, sm90.timing.overtake.wavefronts) == (4, 2)
    per_load = {cycles: simulate_by_wavefront(batch, counts, within(sm90, cycles), passing=try_orders.ordered("overtake")).cycles / len(batch)
                for cycles in (None, 2, 4)}
    assert round(simulate(batch, counts, sm90).cycles / len(batch), 3) == round(per_load[4], 3) == 2.818  # README: +1.4% of 2.780
    assert round(per_load[None], 3) == 2.233  # -19.7%: first come, first served
    assert round(per_load[2], 3) == 2.316  # -16.7%: 2 cycles are too few


def test_other_orders_change_the_schedule(sm90):
    """``replays-last`` and ``round-robin`` replace the rule: they pass the same wavefronts, in other cycles."""
    batch, counts = loop(sm90)
    engine = simulate(batch, counts, sm90)
    for order in ("replays-last", "round-robin"):
        tried = simulate_by_wavefront(batch, counts, sm90, passing=try_orders.ordered(order))
        assert (tried.wavefronts == engine.wavefronts).all() and (tried.complete != engine.complete).any(), order


def test_the_command_line_sets_the_rule(monkeypatch, capsys):
    """``--within none`` is first come, first served and ``--wavefronts 32`` overtakes any replay: on the
    backlog run (H100, calibration/h100/runs/2026-11-24-backlog, 360 warp timings) 278 and 275 within 5
    cycles (README "Timing model"), sm_90's rule 278."""
    for args, within5 in ((["--within", "none"], 278), (["--wavefronts", "32"], 275), ([], 278)):
        monkeypatch.setattr(sys, "argv", ["try_orders.py", "overtake", *args, "backlog"])
        try_orders.main()
        assert capsys.readouterr().out.splitlines()[0] == f"backlog: {within5} of 360 warp timings within 5 cycles", args
