"""The timing engine against timing.cu's throughput loop at every warp count from 1 to 16.

Provenance: H100 80GB HBM3 (sm_90), clock64(), calibration/h100/src/timing_n.cu: timing.cu's kernels
unchanged (their SASS in the run's timing_n.sass.gz is timing.json's, instruction and control code for
instruction), launched with 1 to 16 warps, run calibration/h100/runs/2026-11-25-counts (timing_n.txt):
LDS32 1-, 2-, 4-way, LDS64 1-, 2-way, LDS128 and LDSM4 1-way; 4 repetitions, the median of the 3 timed
ones. Simulated: the first N warps of traces/timing/thr_<op>_<ways>.json.gz, as the timing.json rows.

Warp w runs on sub-partition w % 4, so 5 to 7 warps put a second warp on one to three sub-partitions
and 9 to 16 a third and fourth. What it holds: 93 of 112 rows within 5% (96 under the engine's earlier
youngest-first port and lumped other instructions). LDS32 1-way, which that engine missed with pairs on
three and four sub-partitions (7, 8 warps: 4.4% and 7.3% fast), is within 4% at every count (the H100's
warps of a pair take 11.5 cycles a load at 5 and 6 warps, 11.9 and 12.4 at 7 and 8). The rows outside
are mostly one-wavefront loads of other widths at 3 to 13 warps, 5% to 13% fast, and LDS32 2-way at 5
and 6 warps (-12.8%, +8.9%); they are listed with their errors when recorded, which bound them: every
other row is held to 5%.

``pytest -n 0 -s tests/test_timing_counts.py`` prints the table.
"""

import re
from collections import defaultdict
from statistics import median

import pytest

from calibration.timing_rows import print_table, simulate_rows, throughput_errors
from conftest import H100

pytestmark = pytest.mark.slow  # the timing engine over 112 measured rows

RUN = H100 / "runs" / "2026-11-25-counts" / "timing_n.txt"
LINE = re.compile(r"THR op=(\w+) deg=(\d+) warps=(\d+) rep=(\d) cyc_per_warp_inst=([\d.]+)$")
#: (op, ways, warps) -> the simulated error in percent, for the rows outside 5% (module docstring)
OUTSIDE_5_PERCENT = {
    ("LDS32", 2, 5): -12.8, ("LDS32", 2, 6): 8.9, ("LDS32", 2, 13): -9.6, ("LDS32", 4, 3): -7.8, ("LDS32", 4, 5): -6.4,
    ("LDS64", 1, 3): -8.1, ("LDS64", 1, 5): -10.0, ("LDS64", 1, 6): -11.1, ("LDS64", 1, 7): -8.7, ("LDS64", 1, 8): -7.1,
    ("LDS64", 1, 9): -5.3, ("LDS64", 2, 9): -6.7, ("LDS64", 2, 13): -6.7, ("LDS128", 1, 5): -7.7, ("LDS128", 1, 9): -6.9,
    ("LDS128", 1, 13): -7.3, ("LDSM4", 1, 6): -5.9, ("LDSM4", 1, 9): -8.6, ("LDSM4", 1, 13): -7.0,
}


def measured() -> dict:
    """timing.json's schema: no latency rows, a throughput row per (op, ways, warps), the median of the
    timed repetitions (rep 0 warms the instruction cache)."""
    reps = defaultdict(list)
    for line in RUN.read_text().splitlines():
        m = LINE.match(line)
        assert m, line
        if int(m[4]):
            reps[m[1], int(m[2]), int(m[3])].append(float(m[5]))
    rows = [{"op": op, "ways": ways, "warps": warps, "cycles_per_warp_instruction": median(v)} for (op, ways, warps), v in reps.items()]
    return {"latency": [], "throughput": rows}


ROWS = measured()


@pytest.fixture(scope="module")
def errors(sm90):
    out = simulate_rows(sm90, ROWS)
    print_table(out, ROWS, "calibration/h100/runs/2026-11-25-counts")
    return throughput_errors(out, ROWS)


def test_every_warp_count_of_seven_loops():
    assert len(ROWS["throughput"]) == 7 * 16


def test_no_row_further_off_than_recorded(errors):
    """Every row within 5%, or within its recorded error where listed (0.05 for the rounding)."""
    past = {key: round(100 * e, 1) for key, e in errors.items() if 100 * abs(e) > max(5, abs(OUTSIDE_5_PERCENT.get(key, 0)) + 0.05)}
    assert not past, f"rows past their bound: {past}"


def test_lds32_one_way_within_four_percent_at_every_warp_count(errors):
    """LDS32 1-way, 1 to 16 warps: every count within 4% (module docstring), 7 and 8 warps (pairs on three
    and four sub-partitions) among them."""
    assert all(abs(errors["LDS32", 1, w]) <= 0.04 for w in range(1, 17))
    assert abs(errors["LDS32", 1, 8]) <= 0.011
