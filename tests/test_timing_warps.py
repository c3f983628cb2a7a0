"""The timing engine against the per-warp H100 run: 1 to 4 warps on one sub-partition, and mixes.

Provenance: H100 80GB HBM3 (sm_90), clock64() per warp in calibration/h100/src/timing_warps.cu (CUDA
13.0, -O3), run calibration/h100/runs/2026-11-23-warps/timing_warps_same.txt: 16 warps launched, the
warps of a mask run timing.cu's throughput loop (512 independent loads each), every (op, ways) under 12
masks, 3 timed repetitions. Measured: cycles from the earliest warp start to the last active warp's
loads done (median of the repetitions). Simulated: ``Timeline.cycles`` of those warps of
traces/timing/warps_<op>_<ways>.json.gz (that run's SASS, written by calibration/timing_traces.py).

What it holds: with several warps on one sub-partition at high conflict degrees the data path is no
longer fed one wavefront per 2 cycles per sub-partition (LDS.64 16-way, warps 0 and 4: measured 0.92
wavefronts a cycle); the engine feeds per warp. Where few wavefronts per load leave the loop's issue
rate in charge, the simulation is too fast (most rows off by more than 5%; 121 of 228 within, 163 under
the engine's earlier youngest-first port with the loops' others lumped, 140 with issue_priority youngest
now: these warps share one sub-partition, whose port the H100 does not hand out plainly in turn); the
README's "Timing model" says more. The test bounds the agreement: at least ``WITHIN_5_PERCENT`` rows
within 5%, none off by more than ``WORST``.

``pytest -n 0 -s tests/test_timing_warps.py`` prints the table.
"""

import re
from collections import defaultdict
from statistics import median

import numpy as np
import pytest
from conftest import H100, ROOT
from rich.console import Console
from rich.table import Table
from simsmem.banks import count
from simsmem.engine import simulate
from simsmem.traces import load_trace

pytestmark = pytest.mark.slow  # the timing engine over 228 measured rows

RUN = H100 / "runs" / "2026-11-23-warps" / "timing_warps_same.txt"
LINE = re.compile(r"W op=(\w+) deg=(\d+) warps=16 active=0x([0-9a-f]+) rep=(\d) ((?:\d+,\d+,\d+ ?){16})$")
WITHIN_5_PERCENT = 121  # at least, of 228 rows (121 when recorded; 163 under the engine's earlier youngest-first port with the others lumped; 140 with issue_priority youngest now)
WORST = 0.31  # the largest |error| allowed (when recorded: LDS.32 32-way, warps 0 and 4: -30%; measured 0.66 wavefronts a cycle)


def measured() -> dict[tuple[str, int, int], float]:
    """(op, ways, mask) -> median cycles of the timed repetitions (rep 0 warms the instruction cache)."""
    reps = defaultdict(list)
    for line in RUN.read_text().splitlines():
        m = LINE.match(line)
        assert m, line
        op, ways, mask, rep, warps = m[1], int(m[2]), int(m[3], 16), int(m[4]), m[5].split()
        if rep:
            done = [int(w.split(",")[1]) for k, w in enumerate(warps) if mask >> k & 1]
            reps[op, ways, mask].append(max(done))
    return {key: median(v) for key, v in reps.items()}


def simulate_rows(arch, simulate=simulate) -> dict[tuple[str, int, int], tuple[float, int]]:
    """(op, ways, mask) -> (measured, simulated cycles); ``simulate``: the engine's, or another data
    path's (the wavefront-by-wavefront reference)."""
    out = {}
    for (op, ways, mask), cycles in measured().items():
        batch = load_trace(ROOT / "traces" / "timing" / f"warps_{op}_{ways}.json.gz").instructions
        batch = batch.take(np.isin(batch.warp, [w for w in range(16) if mask >> w & 1]))
        out[op, ways, mask] = cycles, simulate(batch, count(batch, arch), arch).cycles
    return out


@pytest.fixture(scope="module")
def rows(sm90):
    out = simulate_rows(sm90)
    _print(out)
    return out


def _print(out):
    masks = sorted({m for _, _, m in out}, key=lambda m: (bin(m).count("1"), m))
    table = Table(title="H100 per-warp run vs simsmem: error of simulated cycles (mask: active warps; warp w on sub-partition w % 4)")
    table.add_column("op, ways")
    for m in masks:
        table.add_column(f"{m:#x}", justify="right")
    for op, ways in dict.fromkeys((op, ways) for op, ways, _ in out):
        table.add_row(f"{op} {ways}", *(f"{100 * (out[op, ways, m][1] / out[op, ways, m][0] - 1):+.0f}%" for m in masks))
    Console(width=160).print(table)


def test_every_op_and_degree_under_every_mask(rows):
    assert len(rows) == 19 * 12


def test_agreement_at_least_as_recorded(rows):
    errors = np.array([sim / meas - 1 for meas, sim in rows.values()])
    assert (np.abs(errors) <= 0.05).sum() >= WITHIN_5_PERCENT
    assert np.abs(errors).max() <= WORST


def test_warps_sharing_a_sub_partition_interleave(rows):
    """Two warps on sub-partition 0 at 16 ways (LDS.64) or 8 ways (LDS.128, LDSM.x4): measured 0.90 to
    0.92 wavefronts a cycle, not one warp's 0.47; simulated within 3% (a feed per sub-partition, the
    engine's model before this run, was 80% to 83% slow on them)."""
    for op, ways in (("LDS64", 16), ("LDS128", 8), ("LDSM4", 8)):
        meas, sim = rows[op, ways, 0x11]
        assert abs(sim / meas - 1) <= 0.03, (op, ways)
