"""The timing engine against warps meeting at the data path, launch by launch (calibration/collide_replay.py).

Provenance: H100 80GB HBM3 (sm_90), clock64() per warp in calibration/h100/src/timing_collide.cu
(CUDA 13.0, -O3), run calibration/h100/runs/2026-11-24-collide (timing_collide.txt, its SASS
timing_collide.sass): 1895 launches of calibration/patterns/collide.txt (committed before the run),
each made 3 times, the 2 timed repetitions compared. In a launch each warp starts at its own cycle
(measured), issues 1, 4 or 16 independent loads of one form and reads a clock once the last has
issued (mid) and once it has its data (end). Each warp's SASS between its clocks is replayed, started
as measured, and the simulated mid - start and end - start are compared with the measured ones.

What it holds, family by family (``calibration/collide_specs.py``; each warp's SASS replayed one
instruction at a time, trace v1 ``others``): a lone warp's loads of every form and conflict degree
(``alone``: every end within 2 cycles, every mid exact; merged LDS.64/.128 loads come out 1 and 2 cycles
late: their latency is the table's, for separate phases); a load of any form meeting another warp's
32-way load (``meet``: every end within 5 cycles, 78% exact); three warps' 32-way loads, the third
waiting for one of the first two to finish (``triple``: 1330 of 1344 within 5 cycles); bursts of 16 on
two or four sub-partitions (``pair``, ``quad``), where the data path serves only the oldest 16 phases
(``window_phases``), new instructions' first wavefronts first: within 5 cycles, 1377 of 1600 warps with
4 loads and 542 of 608 with 16 (1383 and 547 under the engine's earlier oldest-first path with
``overtake`` and youngest-first port). Where warps share a sub-partition (``pair-same``, ``one``,
``eight``) the replay leaves out the other warps' spin and pad before their start clocks, which take
issue slots, so those rows are recorded, not judged. The test holds every family to its recorded counts
as a floor: a model that agrees with more warps passes, one that agrees with fewer fails.

The second run of the same kernel, calibration/h100/runs/2026-11-24-aligned (155 launches of
calibration/patterns/collide_aligned.txt, committed before it), starts every warp of a burst together:
two warps on one sub-partition (``pair-same``) end within 5 cycles, four on four (``quad``) 406 of 408,
every quad mid exact. Four warps of one sub-partition (``one``) issue 64 loads in 100 to 112 cycles,
which set ``accept_interval`` (the LSU takes a sub-partition's instructions one per 2 cycles); they still
end 25 cycles early on average, recorded here. Eight and sixteen warps (two and four a sub-partition)
issue later on the H100 than the engine has them, which an SM-wide limit of loads in flight fitted under
the old issue model (``in_flight``: 60, freed 20 cycles after the last wavefront) no longer fits: sm_90
has none now (README, Timing model).

The third run, calibration/h100/runs/2026-11-24-replays (1127 launches of
calibration/patterns/collide_replays.txt), has conflicted loads of two warps of one sub-partition meet
(``meet-same``, ``meet`` on two as the control) and two to four warps' 32-way loads start together
(``one``): every end within 5 cycles, so a sub-partition's warps interleave their replays as the
engine has them. The fourth, calibration/h100/runs/2026-11-24-backlog (71 launches of
calibration/patterns/collide_backlog.txt), runs bursts of 16 LDS.32 32-way loads from two to four
warps: on two sub-partitions (``pair``) every end within 5 cycles, on three and four 89 of 114 and 6 of 8
(the H100 serves these first come, first served); on one (``pair-same``) the hardware queues all 32 loads
of two warps within 85 cycles, which set ``queue_depth`` 32 (60 of 64 load-by-load ends within 5 cycles).
Across the four runs 14,791 of the 17,166 warp timings are within 5 cycles (14,911 under the earlier
engine).

``pytest -n 0 -s tests/test_timing_collide.py`` prints the table.
"""


import pytest
from rich.console import Console
from rich.table import Table

from calibration import collide_replay

pytestmark = pytest.mark.slow  # the timing engine over four runs' 17,166 warp timings

#: (family, loads per warp, load by load) -> (warps, end exact, within 2, within 5, mid exact), as recorded: the warps
#: replayed, and the least agreement the replay may show
RECORDED = {
    ('alone', 1, False): (58, 54, 58, 58, 58),
    ('alone', 4, False): (42, 32, 42, 42, 42),
    ('alone', 16, False): (42, 38, 42, 42, 42),
    ('alone', 16, True): (160, 154, 160, 160, 160),
    ('eight', 16, False): (640, 35, 134, 238, 241),
    ('meet', 1, False): (1792, 1394, 1790, 1792, 1792),
    ('one', 16, False): (336, 5, 22, 40, 52),
    ('one', 16, True): (896, 77, 294, 619, 137),
    ('pair', 16, False): (160, 112, 153, 160, 160),
    ('pair-same', 16, False): (368, 85, 181, 251, 194),
    ('pair-same', 16, True): (768, 322, 716, 736, 426),
    ('quad', 4, False): (1600, 400, 1040, 1377, 1600),
    ('quad', 16, False): (608, 141, 341, 542, 572),
    ('quad', 16, True): (2048, 1009, 1507, 1823, 1884),
    ('triple', 1, False): (1344, 790, 1313, 1330, 1344),
}

#: the same for runs/2026-11-24-aligned
RECORDED_ALIGNED = {
    ('eight', 16, False): (32, 0, 1, 11, 0),
    ('eight', 16, True): (512, 20, 83, 183, 0),
    ('one', 16, False): (16, 0, 0, 2, 0),
    ('one', 16, True): (256, 6, 37, 63, 0),
    ('pair-same', 16, False): (8, 2, 6, 8, 8),
    ('pair-same', 16, True): (128, 62, 126, 128, 86),
    ('quad', 16, False): (24, 6, 13, 22, 24),
    ('quad', 16, True): (384, 120, 269, 384, 384),
    ('sixteen', 16, False): (64, 0, 4, 12, 0),
}


#: the same for runs/2026-11-24-replays
RECORDED_REPLAYS = {
    ('meet', 1, False): (896, 741, 896, 896, 896),
    ('meet-same', 1, False): (3592, 2469, 3509, 3592, 3592),
    ('one', 1, False): (28, 7, 23, 28, 28),
    ('pair-same', 4, False): (4, 0, 4, 4, 4),
}

#: the same for runs/2026-11-24-backlog
RECORDED_BACKLOG = {
    ('one', 16, False): (6, 0, 2, 2, 0),
    ('one', 16, True): (96, 0, 16, 19, 0),
    ('pair', 16, False): (4, 0, 4, 4, 4),
    ('pair', 16, True): (64, 0, 64, 64, 64),
    ('pair-same', 16, False): (4, 2, 4, 4, 2),
    ('pair-same', 16, True): (64, 60, 60, 60, 32),
    ('quad', 16, False): (8, 2, 4, 6, 2),
    ('triple', 16, False): (18, 0, 17, 17, 18),
    ('triple', 16, True): (96, 12, 56, 72, 96),
}


def replayed(arch, run, specs) -> dict:
    """The replay's agreement with one run, printed as a table."""
    out = collide_replay.agreement(arch, run=run, specs=specs)
    table = Table(title=f"H100 runs/{run.name} vs simsmem: warps whose cycles the replay gives")
    for col in ("family", "loads", "load by load", "warps", "exact", "within 2", "within 5", "mean error", "mid exact"):
        table.add_column(col, justify="right")
    for (fam, nl, probe), r in out.items():
        n = r["warps"]
        table.add_row(fam, str(nl), "yes" if probe else "", str(n), *(f"{r[k] / n:.0%}" for k in ("exact", "within 2", "within 5")),
                      f"{r['mean error']:+.2f}", f"{r['mid exact'] / n:.0%}")
    Console(width=120).print(table)
    return out


#: run name (calibration/collide_replay.py RUNS) -> its recorded agreement
RECORDED_BY_RUN = {"collide": RECORDED, "aligned": RECORDED_ALIGNED, "replays": RECORDED_REPLAYS, "backlog": RECORDED_BACKLOG}


@pytest.fixture(scope="module")
def runs(sm90):
    """Run name -> the replay's agreement with it."""
    return {name: replayed(sm90, *collide_replay.RUNS[name]) for name in RECORDED_BY_RUN}


def test_every_family_of_every_run_is_replayed(runs):
    assert set(RECORDED_BY_RUN) == set(collide_replay.RUNS)
    for name, out in runs.items():
        assert set(out) == set(RECORDED_BY_RUN[name]), name


def test_the_data_path_stays_busy_with_more_queued_than_it_serves(runs):
    """Bursts of 32-way loads from two sub-partitions: every end within 5 cycles (from three and four, 89
    of 114 and 6 of 8: new instructions' first wavefronts, the sub-partitions in turn, go before replays,
    where the H100 serves these first come, first served)."""
    backlog = runs["backlog"]
    for key in [k for k in RECORDED_BACKLOG if k[0] == "pair"]:
        assert backlog[key]["within 5"] == backlog[key]["warps"], key


def test_conflicted_loads_of_one_sub_partition_interleave(runs):
    """Every warp of the replays run within 5 cycles and every mid clock exact."""
    for key, r in runs["replays"].items():
        assert r["within 5"] == r["warps"] and r["mid exact"] == r["warps"], key


def test_a_lone_warp_and_warps_of_different_sub_partitions_meeting(runs):
    """Every end within 5 cycles and every mid clock exact, for a lone warp, a load meeting a 32-way one
    and bursts on two sub-partitions; a third 32-way load arriving while two are served: every mid exact,
    1330 of 1344 ends within 5 cycles."""
    for key in [k for k in RECORDED if k[0] in ("alone", "meet", "triple", "pair")]:
        r = runs["collide"][key]
        assert r["mid exact"] == r["warps"], key
        assert key[0] == "triple" or r["within 5"] == r["warps"], key


def test_warps_started_together_on_four_sub_partitions_or_two_on_one(runs):
    """Every quad mid exact (a common start), every pair-same end within 5 cycles and 406 of 408 quad ends."""
    aligned = runs["aligned"]
    for key in [k for k in RECORDED_ALIGNED if k[0] in ("quad", "pair-same")]:
        assert key[0] != "quad" or aligned[key]["mid exact"] == aligned[key]["warps"], key
        assert key[0] != "pair-same" or aligned[key]["within 5"] == aligned[key]["warps"], key


def test_eight_or_sixteen_warps_issue_too_early_without_a_limit_in_flight(runs):
    """Two or four warps on each sub-partition, started together, issue their 16 loads later on the H100
    than one warp would (eight: 68 to 92 cycles for LDS.32 1-way, not 62). sm_90 sets no ``in_flight``
    limit now (its 60 places, fitted to these launches under the old issue model, put timing.json's
    LDSM.x4 4- and 8-way rows at 16 warps 6% and 9% slow under the new one), so their mid clocks come out
    47 to 124 cycles early on average (when recorded): what the model lacks, held to no more than that."""
    aligned = runs["aligned"]
    for key, recorded in ((("eight", 16, False), -47), (("eight", 16, True), -50), (("sixteen", 16, False), -124)):
        assert abs(aligned[key]["mean mid error"]) <= abs(recorded) + 0.5, key


@pytest.mark.parametrize("name", RECORDED_BY_RUN)
def test_agreement_at_least_as_recorded(name, runs):
    """Every family replays the warps recorded, and as many of them agree as recorded, or more."""
    out = runs[name]
    for key, (warps, *agree) in RECORDED_BY_RUN[name].items():
        r = out[key]
        assert r["warps"] == warps, key
        got = (r["exact"], r["within 2"], r["within 5"], r["mid exact"])
        assert all(g >= a for g, a in zip(got, agree)), (key, got, tuple(agree))
