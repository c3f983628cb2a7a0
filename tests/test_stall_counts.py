"""calibration/stall_counts.py on its run: where the pairs of timing.cu's loop lose their time.

Provenance: H100 80GB HBM3 (sm_90), Nsight Compute 2025.3.1, calibration/h100/runs/2026-11-25-stall
raw_a.csv.gz (timing.cu's ``thr`` kernel, LDS.32 1-way, 4 to 16 warps, one CTA on each of 132 SMs, two
profiled launches each): warp-state counters turned into warp-cycles per warp, the 4-warp launch's
share taken off for the warps alone on their sub-partition. The README of that run quotes these.
"""


import pytest

from calibration import stall_counts


@pytest.fixture(scope="module")
def share():
    return stall_counts.pair_share(stall_counts.launches())


def test_every_launch_is_read():
    assert sorted(w for w, _ in stall_counts.launches()) == [4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 12, 12, 16, 16]


def test_pairs_wait_longer_for_their_loads_the_more_sub_partitions_hold_one(share):
    assert [round(share[n]["short_scoreboard"]) for n in (1, 2, 3, 4)] == [605, 656, 811, 1060]


def test_their_port_and_integer_pipe_stay_as_they_are(share):
    for reason in ("not_selected", "math_pipe_throttle"):
        cycles = [share[n][reason] for n in (1, 2, 3, 4)]
        assert max(cycles) / min(cycles) - 1 < 0.035, reason  # (short_scoreboard: +75%)
    assert all(share[n]["mio_throttle"] == 0 for n in (1, 2, 3, 4))
