"""calibration/sass_model.py: timing.cu's loop instruction by instruction against the H100's LDS.32 1-way rows.

Provenance: H100 80GB HBM3 (sm_90): calibration/h100/timing.json (ncu 2025.3.1 session, clock64(); rows
LDS32 ways 1), runs/2026-11-25-counts/timing_n.txt (1 to 16 warps, medians of reps 1-3) and
runs/2026-11-25-half/timing_half.txt (two warps on each sub-partition of all 15 sets, medians of 9).
The model runs the loops' SASS (calibration/h100/sass/timing.sass, the half run's timing_half.sass.gz)
with sm_90's config numbers and its own three rules (``Rules``).

What it holds: with a round-robin issue port, IMAD on a pipe of one per 2 cycles and the data path
taking new instructions' first wavefronts first, the sub-partitions in turn, every LDS.32 1-way row of
the three runs but two of the half run's is within 5% (timing.json at 8 warps -1.1%, where the engine is
-7.2%), and four warps of multi-wavefront loads too; with any one rule taken back some are not
(``test_each_rule_is_needed``). Every row: ``python calibration/sass_model.py --all`` (minutes: timing.json
114 of 114, the counts run 92 of 112).
"""

import sys

import attrs
import numpy as np
import pytest

from conftest import ROOT
from simsmem.banks import count
from simsmem.config import load_arch
from simsmem.engine import simulate
from simsmem.trace import load_trace

sys.path.insert(0, str(ROOT / "calibration"))
import sass_model  # noqa: E402


def errors(arch, rules):
    json_rows = {k: sass_model.throughput(*k, arch, rules) / hw - 1 for k, hw in sass_model.measured("timing.json", "LDS32", 1).items()}
    counts = {k[2]: sass_model.throughput(*k, arch, rules) / hw - 1 for k, hw in sass_model.measured("counts", "LDS32", 1).items()}
    half = sass_model.half_run(arch, rules)
    return json_rows, counts, {loops: sim / hw - 1 for loops, (hw, sim) in half.items()}, half


@pytest.fixture(scope="module")
def model(sm90):
    return errors(sm90, sass_model.Rules())


def test_timing_json_lds32_one_way_within_5_percent(model):
    json_rows, *_ = model
    assert {k[2]: round(100 * e, 1) for k, e in json_rows.items()} == {1: -1.4, 2: -0.6, 4: -0.6, 8: -1.1, 16: -1.4, 32: -1.3}


def test_counts_run_lds32_one_way_within_5_percent(model):
    _, counts, *_ = model
    assert sorted(counts) == list(range(1, 17))
    assert max(abs(e) for e in counts.values()) <= 0.038  # 9 warps: +3.7%


def test_half_run_within_5_percent_but_two(model):
    *_, half, ends = model
    assert sorted(loops for loops, e in half.items() if abs(e) > 0.05) == [0xDD, 0xEE]  # -5.2% each
    assert max(abs(e) for e in half.values()) <= 0.053


def test_pairs_slow_with_the_sub_partitions_holding_one(model):
    """Measured +1.0%, +7.3%, +13.2% for 2, 3, 4 (the set 0x33, 0x77, 0xff over 0x11); modelled +0.0%, +4.8%, +10.7%."""
    *_, ends = model
    growth = [round(100 * (ends[loops][1] / ends[0x11][1] - 1), 1) for loops in (0x33, 0x77, 0xFF)]
    assert growth == [0.0, 4.8, 10.7]


def test_four_warps_of_multi_wavefront_loads_within_5_percent(sm90):
    """One warp a sub-partition, where taking the sub-partitions in turn for replays too (``round-robin``)
    keeps them in lock-step 10-27% slow: new instructions first lets them drift apart, as the H100's do."""
    rows = [(op, ways, 4) for op, ways in (("LDS32", 4), ("LDS32", 8), ("LDS64", 1), ("LDS64", 2), ("LDS128", 1), ("LDSM4", 1), ("LDSM4", 2))]
    hw = sass_model.measured("timing.json")
    for rules, most in ((sass_model.Rules(), 0.05), (sass_model.Rules(path="round-robin"), 0.30)):
        errs = [sass_model.throughput(*key, sm90, rules) / hw[key] - 1 for key in rows]
        assert max(abs(e) for e in errs) <= most, rules
    assert max(sass_model.throughput(*key, sm90, sass_model.Rules(path="round-robin")) / hw[key] - 1 for key in rows) > 0.10


@pytest.mark.parametrize("change", [dict(port="oldest"), dict(path="overtake"), dict(fma_interval=0)])
def test_each_rule_is_needed(sm90, change):
    json_rows, counts, half, _ = errors(sm90, attrs.evolve(sass_model.Rules(), **change))
    within = sum(abs(e) <= 0.05 for rows in (json_rows, counts, half) for e in rows.values())
    assert within < 6 + 16 + 13


def test_the_traces_lumped_form_keeps_the_eight_warps_under_a_round_robin_port(sm90):
    """timing.cu's LDS.32 1-way loop as the traces have it (``lumped``: stretches of others, their integer-ALU
    instructions spread through them), run instruction by instruction under a round-robin port: eight warps
    -1.0% (timing.json: 1.552), where the engine with the same port (``issue_priority: round-robin``), which
    books the integer-ALU instructions apart from the port's slots, is 14.6% fast. The pair of warps 0 and 4
    takes 5.570 cycles per warp-instruction as traced, 5.475 as compiled (SASS)."""
    traced = sass_model.Rules(fma_interval=0)
    hw = sass_model.measured("timing.json", "LDS32", 1)[("LDS32", 1, 8)]
    assert round(100 * (sass_model.throughput("LDS32", 1, 8, sm90, traced, traced=True) / hw - 1), 1) == -1.0
    assert round(sass_model.throughput("LDS32", 1, [0, 4], sm90, traced, traced=True), 3) == 5.570
    assert round(sass_model.throughput("LDS32", 1, [0, 4], sm90), 3) == 5.475
    turns = attrs.evolve(sm90, timing=attrs.evolve(sm90.timing, issue_priority="round-robin"))
    batch = load_trace(ROOT / "traces" / "timing" / "thr_LDS32_1.json.gz").instructions
    batch = batch.take(np.flatnonzero(batch.warp < 8))
    assert round(100 * (simulate(batch, count(batch, turns), turns).cycles / len(batch) / hw - 1), 1) == -14.6


def test_lumped_puts_the_stretches_in_order():
    """The first load of timing.cu's LDS.32 loop: 5 early others (all integer-ALU), then 20 others (10 ALU,
    every other one), the first holding the wait for every load; 13 cycles of delay on the last of them."""
    steps = sass_model.lumped(sass_model.thr_loop(0), load_arch("sm_90").timing)
    first = steps[: steps.index(next(s for s in steps if s.shared)) + 1]
    assert [s.text for s in first] == ["LOP3"] * 5 + ["MOV", "LOP3"] * 10 + ["LDS"]
    assert [s.wait for s in first] == [None] * 5 + [0] + [None] * 20
    assert [s.stall for s in first] == [1] * 24 + [14, 1]
