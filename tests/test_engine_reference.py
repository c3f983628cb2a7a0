"""The engine's compiled data path against the wavefront-by-wavefront one on the calibration traces.

traces/timing/ (calibration/timing_traces.py: the H100 microbenchmarks of calibration/h100/timing.json):
every dependent chain, and the throughput loops at 4 warps (one per sub-partition, all contending for
the data path) and at 8 warps for the widest conflicts. Issue and completion cycles must be identical.
"""

import pytest

from conftest import ROOT
from simsmem.banks import count
from simsmem.engine import simulate
from simsmem.engine.reference import simulate_by_wavefront
from simsmem.trace import load_trace

pytestmark = pytest.mark.slow  # the wavefront-by-wavefront reference engine over every timing trace

TRACES = sorted((ROOT / "traces" / "timing").glob("*.json.gz"))


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.name.split(".")[0])
def test_engine_equals_wavefront_by_wavefront(path, sm90):
    batch = load_trace(path).instructions
    warps = 8 if path.name.endswith(("_16.json.gz", "_32.json.gz")) else 4
    batch = batch.take(batch.warp < warps)
    counts = count(batch, sm90)
    compiled, by_wavefront = simulate(batch, counts, sm90), simulate_by_wavefront(batch, counts, sm90)
    assert (compiled.issue == by_wavefront.issue).all()
    assert (compiled.complete == by_wavefront.complete).all()
