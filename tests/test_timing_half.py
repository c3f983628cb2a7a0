"""The timing engine against pairs of loop warps on 1 to 4 sub-partitions (calibration/half_replay.py).

Provenance: H100 80GB HBM3 (sm_90), clock64() per warp in calibration/h100/src/timing_half.cu (CUDA
13.0, -O3), run calibration/h100/runs/2026-11-25-half (timing_half.txt, its SASS timing_half.sass.gz):
one CTA of 8 warps, timing.cu's LDS.32 1-way loop on warps s and s + 4 of each sub-partition s of a set,
all 15 non-empty sets, 9 timed repetitions each; the last loop warp's end compared.

What it holds: on the H100 the sets of one size end within 0.5% of each other (which sub-partitions hold
the pairs does not matter), and the end grows +1.0% from one pair to two, +7.3-7.8% to three, +13.2% to
four. The engine grows +0.0%, +4.8%, +10.7% (2.5% fast on a lone pair, 4.6% with four; its round-robin
port and new-first data path, on the loop's SASS one instruction at a time): held here to no end further
off than recorded, and each growth within 3.5 points of the H100's. Its
predecessor (a youngest-first port, the oldest instruction first, the loop's other instructions lumped)
grew +0.0%, +1.0%, +4.2% (10.4% fast with four).

``pytest -n 0 -s tests/test_timing_half.py`` prints the table.
"""


import pytest
from rich.console import Console
from rich.table import Table

from calibration import half_replay

#: loops -> the simulated end's error in percent when recorded (sm_90): its bound
ERRORS = {0x11: -2.5, 0x22: -2.5, 0x44: -2.5, 0x88: -2.5, 0x33: -3.5, 0x55: -3.4, 0x66: -3.5, 0x99: -3.4,
          0xAA: -3.5, 0xCC: -3.4, 0x77: -4.8, 0xBB: -4.8, 0xDD: -5.2, 0xEE: -5.2, 0xFF: -4.6}


@pytest.fixture(scope="module")
def rows(sm90):
    out = half_replay.agreement(half_replay.simulated(sm90))
    table = Table(title="H100 half run vs simsmem: timing.cu's LDS.32 1-way loop, two warps on each sub-partition of a set")
    for col in ("pairs", "loops", "end measured", "end simulated", "error", "growth measured", "growth simulated"):
        table.add_column(col, justify="right")
    for loops, (hw, sim, g_hw, g_sim) in sorted(out.items(), key=lambda kv: (half_replay.pairs(kv[0]), kv[0])):
        table.add_row(str(half_replay.pairs(loops)), f"{loops:#04x}", f"{hw:.0f}", str(sim), f"{100 * (sim / hw - 1):+.1f}%",
                      f"{100 * g_hw:+.1f}%", f"{100 * g_sim:+.1f}%")
    Console(width=140).print(table)
    return out


def by_pairs(rows, k: int):
    return [row for loops, row in rows.items() if half_replay.pairs(loops) == k]


def test_every_set_is_replayed(rows):
    assert sorted(rows) == sorted(s | s << 4 for s in range(1, 16))


def test_on_the_h100_only_the_number_of_pairs_counts(rows):
    """Every set of one size ends within 0.5% of the others (timing_half.txt)."""
    for k in range(1, 5):
        ends = [hw for hw, *_ in by_pairs(rows, k)]
        assert max(ends) / min(ends) - 1 <= 0.005, k


def test_on_the_h100_the_third_and_fourth_pair_cost_most(rows):
    growth = [max(g for _, _, g, _ in by_pairs(rows, k)) for k in (2, 3, 4)]
    assert round(100 * growth[0], 1) == 1.0
    assert 7.0 <= 100 * growth[1] <= 8.0
    assert round(100 * growth[2], 1) == 13.2


def test_no_end_further_off_than_recorded(rows):
    past = {loops: round(100 * (sim / hw - 1), 1) for loops, (hw, sim, _, _) in rows.items() if 100 * abs(sim / hw - 1) > abs(ERRORS[loops]) + 0.05}
    assert not past, f"ends past their bound: {past}"


def test_the_engine_grows_nearly_as_the_h100(rows):
    """Every set's growth over one pair within 3.5 points of the H100's, for 2, 3, 4 pairs (the H100 +1.0%,
    +7.3-7.8%, +13.2%; recorded: the engine +0.0%, +4.8%, +10.7%)."""
    for k in (2, 3, 4):
        for _, _, g_hw, g_sim in by_pairs(rows, k):
            assert abs(g_sim - g_hw) <= 0.035, k
