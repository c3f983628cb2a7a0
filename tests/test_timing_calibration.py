"""The timing engine against the H100 microbenchmarks: every row of calibration/h100/timing.json.

Provenance: H100 80GB HBM3 (sm_90), clock64() in calibration/h100/src/timing.cu (CUDA 13.0, -O3),
SASS in calibration/h100/sass/timing.sass; the traces in traces/timing/ are that SASS written as
trace v1 by calibration/timing_traces.py (512 loads per warp, as measured).

- latency rows: one warp's chain of dependent loads; cycles per load = the chain's issue-to-issue
  time per link in the simulation; must be within 1 cycle;
- throughput rows: the first ``warps`` warps of the 32-warp loop; cycles per warp-instruction = all
  loads' completion over (512 * warps); every row within 5% (``OUTSIDE_5_PERCENT`` is empty; a row
  listed there would be held to its own bound, and the test fails if the set changes either way).

``pytest -n 0 -s tests/test_timing_calibration.py`` prints the measured-vs-simulated table.
"""

import orjson
import pytest
from rich.console import Console
from rich.table import Table

from conftest import ROOT, H100
from simsmem.banks import count
from simsmem.engine import simulate
from simsmem.trace import load_trace

TRACES = ROOT / "traces" / "timing"
ROWS = orjson.loads((H100 / "timing.json").read_bytes())
#: (op, ways, warps) -> the largest relative error allowed, for rows outside 5% (none since the traces carry
#: the loops' other instructions one by one and the engine issues them slot by slot: round-robin port, the
#: alu and imad pipes, new instructions first at the data path; README "Timing model"). The last row out
#: before, LDS32 1-way at 8 warps (two warps on each sub-partition), was -7.2% under lumped runs of others
#: and a youngest-first port; -7.3% with the old rules on these traces.
OUTSIDE_5_PERCENT: dict[tuple[str, int, int], float] = {}


@pytest.fixture(scope="module")
def simulated(sm90):
    out = simulate_rows(sm90)
    print_table(out, ROWS, "calibration/h100/timing.json")
    return out


def simulate_rows(arch, rows=ROWS, kinds=("lat", "thr"), simulate=simulate):
    """Simulated cycles of every latency and throughput row of ``rows`` on ``arch``, keyed like the rows;
    ``kinds``: the trace names' prefixes of the latency and throughput loops; ``simulate``: the engine's,
    or the wavefront-by-wavefront reference's."""
    out = {}
    for row in rows["latency"]:
        batch = load_trace(TRACES / f"{kinds[0]}_{row['op']}_{row['ways']}.json.gz").instructions
        issue = simulate(batch, count(batch, arch), arch).issue
        out["lat", row["op"], row["ways"]] = (issue[-1] - issue[0]) / (len(batch) - 1)
    loops = {}
    for row in rows["throughput"]:
        key = row["op"], row["ways"]
        if key not in loops:
            loops[key] = load_trace(TRACES / f"{kinds[1]}_{row['op']}_{row['ways']}.json.gz").instructions
        batch = loops[key].take(loops[key].warp < row["warps"])
        out["thr", *key, row["warps"]] = simulate(batch, count(batch, arch), arch).cycles / len(batch)
    return out


def throughput_errors(out, rows=ROWS):
    """(op, ways, warps) -> relative error of the simulated cycles per warp-instruction."""
    return {(r["op"], r["ways"], r["warps"]): out["thr", r["op"], r["ways"], r["warps"]] / r["cycles_per_warp_instruction"] - 1
            for r in rows["throughput"]}


def print_table(out, rows, source):
    """The measured-vs-simulated tables of ``rows`` (from ``source``), for ``pytest -n 0 -s``."""
    console = Console(width=120)
    if rows["latency"]:
        table = Table(title=f"H100 ({source}) vs simsmem: cycles per dependent load")
        for col in ("op", "ways", "measured", "simulated", "difference"):
            table.add_column(col, justify="right")
        for row in rows["latency"]:
            sim, meas = out["lat", row["op"], row["ways"]], row["cycles_per_dependent_load"]
            table.add_row(row["op"], str(row["ways"]), f"{meas:.2f}", f"{sim:.2f}", f"{sim - meas:+.2f}")
        console.print(table)
    table = Table(title=f"H100 ({source}) vs simsmem: cycles per warp-instruction (throughput)")
    for col in ("op", "ways", "warps", "measured", "simulated", "error"):
        table.add_column(col, justify="right")
    for row in rows["throughput"]:
        sim, meas = out["thr", row["op"], row["ways"], row["warps"]], row["cycles_per_warp_instruction"]
        table.add_row(row["op"], str(row["ways"]), str(row["warps"]), f"{meas:.3f}", f"{sim:.3f}", f"{100 * (sim - meas) / meas:+.1f}%")
    console.print(table)


def test_traces_cover_every_row():
    assert len(ROWS["latency"]) == 19 and len(ROWS["throughput"]) == 114
    for row in ROWS["latency"] + ROWS["throughput"]:
        assert (TRACES / f"lat_{row['op']}_{row['ways']}.json.gz").exists()
        assert (TRACES / f"thr_{row['op']}_{row['ways']}.json.gz").exists()


@pytest.mark.parametrize("row", ROWS["latency"], ids=lambda r: f"{r['op']}-ways{r['ways']}")
def test_latency_within_one_cycle(row, simulated):
    assert abs(simulated["lat", row["op"], row["ways"]] - row["cycles_per_dependent_load"]) <= 1


def test_throughput_within_five_percent_or_listed(simulated):
    errors = throughput_errors(simulated)
    outside = {key for key, e in errors.items() if abs(e) > 0.05}
    assert outside == set(OUTSIDE_5_PERCENT), f"rows outside 5% changed: {sorted(outside ^ set(OUTSIDE_5_PERCENT))}"
    for key, bound in OUTSIDE_5_PERCENT.items():
        assert abs(errors[key]) <= bound, key
