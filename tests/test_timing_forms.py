"""The timing engine against the forms timing.json left out: LDS.U8, LDS.U16, LDSM.x1, LDSM.x2 and STS.32.

Provenance: H100 80GB HBM3 (sm_90), clock64() in calibration/h100/src/timing_forms.cu (CUDA 13.0, -O3;
timing.cu's two loops), run calibration/h100/runs/2026-11-24-forms (forms.json: 20 latency and 156
throughput rows; timing_forms.sass). Traces: traces/timing/latf_* and thrf_* (calibration/timing_traces.py).

These rows were predicted before they were looked at: the config's latencies for these forms were
copies of the measured LDS.32 and LDSM.x4 ones, and with them all 20 latency rows came out within 0.22
cycle and 145 of the 156 throughput rows within 5%. The one number fitted to them since is
``READ_RELEASE`` in timing_traces.py (the STS.32 loop waits on its stores' read scoreboards), fitted to
STS.32 1-way at 1 to 4 warps; it put 150 within. The rows outside 5% are held to their own bound, and
the test fails if that set changes either way.

``pytest -s tests/test_timing_forms.py`` prints the table.
"""

import orjson
import pytest

from conftest import ROOT
from test_timing_calibration import print_table, simulate_rows, throughput_errors

RUN = ROOT / "calibration" / "h100" / "runs" / "2026-11-24-forms" / "forms.json"
ROWS = orjson.loads(RUN.read_bytes())
#: (op, ways, warps) -> the largest relative error allowed, for the rows outside 5%: the byte loads run
#: LDS.32's loop and share its rows outside (tests/test_timing_calibration.py); two warps per
#: sub-partition overlap better in the model than measured (README "Timing model").
OUTSIDE_5_PERCENT: dict[tuple[str, int, int], float] = {
    ("LDS8", 1, 8): 0.10,  # -8.2%
    ("LDS8", 2, 4): 0.10,  # -8.7%
    ("LDS16", 1, 8): 0.10,  # -8.2%
    ("LDS16", 2, 4): 0.10,  # -8.7%
    ("LDSM2", 1, 8): 0.10,  # -9.0%
    ("STS32", 1, 8): 0.10,  # -6.9%
}


@pytest.fixture(scope="module")
def simulated(sm90):
    out = simulate_rows(sm90, ROWS, ("latf", "thrf"))
    print_table(out, ROWS, "calibration/h100/runs/2026-11-24-forms/forms.json")
    return out


def test_the_run_has_every_form():
    assert len(ROWS["latency"]) == 20 and len(ROWS["throughput"]) == 156
    assert {r["op"] for r in ROWS["throughput"]} == {"LDS8", "LDS16", "LDSM1", "LDSM2", "STS32"}


@pytest.mark.parametrize("row", ROWS["latency"], ids=lambda r: f"{r['op']}-ways{r['ways']}")
def test_latency_within_one_cycle(row, simulated):
    assert abs(simulated["lat", row["op"], row["ways"]] - row["cycles_per_dependent_load"]) <= 1


def test_throughput_within_five_percent_or_listed(simulated):
    errors = throughput_errors(simulated, ROWS)
    outside = {key for key, e in errors.items() if abs(e) > 0.05}
    assert outside == set(OUTSIDE_5_PERCENT), f"rows outside 5% changed: {sorted(outside ^ set(OUTSIDE_5_PERCENT))}"
    for key, bound in OUTSIDE_5_PERCENT.items():
        assert abs(errors[key]) <= bound, key

