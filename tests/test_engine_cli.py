"""``simsmem run --engine``: cycles, latency and per-instruction issue/completion in every format.

Expected cycles: the tiny trace of tests/test_engine.py (sm_90 config: LDS.32 latency 23, LDS.64 24,
to_banks 3, feed_interval 2, one wavefront per cycle, new instructions first, shared_issue_interval 1,
accept_interval 2, a round-robin port), worked out by hand there.
"""

import csv
import io
import json

import pytest
from conftest import ROW, TWO_WAY, WIDE
from simsmem.cli import main
from simsmem.traces import Instruction, InstructionBatch, Trace, write_trace


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.json"
    write_trace(Trace(InstructionBatch.from_instructions([
        Instruction("LDS", ROW, warp=0),
        Instruction("LDS", TWO_WAY, warp=1),
        Instruction("LDS", WIDE, width=64, warp=0, wait=True, delay=2),
        Instruction("LDS", ROW, warp=4),
    ]), name="tiny", ctas=3), path)
    return path


def test_json_has_cycles_latency_and_each_instruction_s_cycles(tiny, capsys):
    assert main(["run", str(tiny), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    timing = out["timing"]
    assert timing["sm__cycles_elapsed.max"] == 51  # one CTA: ctas multiplies counters only
    assert timing["data_path_wavefronts_per_cycle"] == 6 / 51
    assert timing["latency"] == {"LDS": {"avg": 73 / 3, "min": 23, "max": 26}, "LDS.64": {"avg": 26.0, "min": 26, "max": 26}}
    assert [(i["issue"], i["complete"]) for i in out["instructions"]] == [(0, 23), (0, 26), (25, 51), (1, 25)]
    assert out["metrics"]["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 6 * 3


def test_csv_adds_the_cycles_row(tiny, capsys):
    assert main(["run", str(tiny), "--format", "csv"]) == 0
    rows = {r["Metric Name"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert (rows["sm__cycles_elapsed.max"]["Metric Unit"], rows["sm__cycles_elapsed.max"]["Metric Value"]) == ("cycle", "51")


def test_table_shows_timing(tiny, capsys):
    assert main(["run", str(tiny)]) == 0
    out = capsys.readouterr().out
    assert "Timing (one CTA)" in out and "LDS.64" in out
    assert "51 cycles (sm__cycles_elapsed.max); data path 0.12 wavefronts/cycle" in out


@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
def test_analytic_engine_skips_timing(tiny, capsys, fmt):
    assert main(["run", str(tiny), "--format", fmt, "--engine", "analytic"]) == 0
    out = capsys.readouterr().out
    assert "cycles" not in out and "Timing" not in out and '"issue"' not in out
    assert "18" in out  # the counters are still there: 6 wavefronts x 3 CTAs
