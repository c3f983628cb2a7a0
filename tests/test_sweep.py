"""``simsmem sweep``: inputs x arch variants x changes of a shared array, one table, resumed by a rerun.

Evidence: ``test_the_padded_transpose_is_the_best_change`` holds two points of a sweep to the H100's counters of the
corpus rows transpose_smem_naive and transpose_smem_padded (calibration/realk/manifest.json, ncu 2025.3.1, measured
2026-11-27). The others are regression guards of simsmem's own output: a sweep's row is what ``simsmem run`` reports
for the same input and arch; a rerun resumes; a failed point is named and loses no other; points on a 2-worker Dask
cluster give the serial table byte for byte (slow: the cluster's start).
"""

from __future__ import annotations

import csv
import io
import json
import logging
from pathlib import Path

import pytest
from simsmem.cli import main
from simsmem.scale import sweep

ROOT = Path(__file__).resolve().parent.parent
LDSM = str(ROOT / "traces" / "ldsm_x4.json")
REALK = ROOT / "calibration" / "realk"


def table(path: Path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(path.read_text())))


def test_a_row_is_what_run_reports(tmp_path, capsys):
    out = tmp_path / "t.csv"
    assert main(["sweep", LDSM, "--vary", "banks=16,32", "-o", str(out), "-q"]) == 0
    rows = table(out)
    assert [(r["arch"], r["status"]) for r in rows] == [("sm_90+banks=16", "ok"), ("sm_90+banks=32", "ok")]
    capsys.readouterr()
    assert main(["run", LDSM, "--format", "csv"]) == 0
    run = {r["Metric Name"]: r["Metric Value"] for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert {k: rows[1][k] for k in run} == run  # the 32-bank variant is sm_90 itself
    assert int(rows[0][sweep.CONFLICTS]) > int(rows[1][sweep.CONFLICTS])  # 16 banks: more conflicts
    assert [r["best"] for r in rows] == ["0", "1"]


def test_a_rerun_runs_only_the_points_missing(tmp_path, monkeypatch):
    out = tmp_path / "t.csv"
    assert main(["sweep", LDSM, "--vary", "banks=16,32,64", "--engine", "analytic", "-o", str(out), "-q"]) == 0
    whole = out.read_text()
    lines = whole.splitlines(keepends=True)
    out.write_text("".join(lines[:2] + lines[3:]))  # the 32-bank row lost
    ran = []
    real = sweep.evaluate
    monkeypatch.setattr(sweep, "evaluate", lambda source, point, timed: ran.append(point.arch.name) or real(source, point, timed))
    assert main(["sweep", LDSM, "--vary", "banks=16,32,64", "--engine", "analytic", "-o", str(out), "-q"]) == 0
    assert ran == ["sm_90+banks=32"] and out.read_text() == whole


def test_a_failed_point_is_named_and_loses_no_other(tmp_path, capsys):
    """sm_70 has no LDSM: that point fails, sm_90's is counted, and the exit status says one failed."""
    out = tmp_path / "t.csv"
    assert main(["sweep", LDSM, "--arch", "sm_70", "--arch", "sm_90", "-o", str(out), "-q"]) == 1
    rows = {r["arch"]: r for r in table(out)}
    assert rows["sm_90"]["status"] == "ok" and rows["sm_90"]["best"] == "1"
    assert rows["sm_70"]["status"].startswith("error:") and "LDSM" in rows["sm_70"]["status"]
    err = capsys.readouterr().err
    assert "point " in err and "sm_70" in err and "Traceback" not in err


@pytest.mark.parametrize("bad, where", [(["--vary", "banks"], "--vary"), (["--vary", "banks=7"], "--vary sm_90+banks=7"),
                                        (["--arch", "sm_42"], "sm_42")])
def test_bad_variants_are_one_line(tmp_path, capsys, bad, where):
    out = tmp_path / "t.csv"
    assert main(["sweep", LDSM, *bad, "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and where in err[0] and not out.exists()


def test_a_table_that_is_not_a_sweeps_is_left_alone(tmp_path, capsys):
    out = tmp_path / "t.csv"
    out.write_text("x,y\n")
    assert main(["sweep", LDSM, "-o", str(out)]) == 2
    assert "not a sweep table" in capsys.readouterr().err and out.read_text() == "x,y\n"


def test_the_padded_transpose_is_the_best_change(tmp_path):
    """transpose_smem_naive with its tile re-declared tile[32][33] is transpose_smem_padded: the H100 counted 3,968 load
    bank conflicts for the first and none for the second (manifest rows of that name); the sweep's two points say the
    same."""
    manifest = {e["name"]: e for e in json.loads((REALK / "manifest.json").read_text())}
    naive, padded = manifest["transpose_smem_naive"], manifest["transpose_smem_padded"]
    trace = sweep.Source("naive", _trace(naive))
    arch = sweep.variants(["sm_90"], [])
    grid = sweep.points([trace], arch, "tile")
    chosen = {p.label: p for p in grid if p.label in ("as written", "__shared__ float tile[32][33]")}
    assert len(chosen) == 2
    rows = {label: sweep.evaluate(trace, p, timed=False) for label, p in chosen.items()}
    ld = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
    assert rows["as written"][ld] == naive["ncu"][ld] == 3968
    assert rows["__shared__ float tile[32][33]"][ld] == padded["ncu"][ld] == 0


def _trace(entry: dict):
    from simsmem.kernel.tracer import trace_kernel

    return trace_kernel(REALK / entry["ptx"], entry["kernel"], tuple(entry["grid"]), tuple(entry["block"]), entry["smem"], entry["args"],
                        base=REALK).read()


@pytest.mark.slow
def test_points_on_workers_give_the_serial_table(tmp_path):
    distributed = pytest.importorskip("distributed")
    common = ["sweep", LDSM, "--vary", "banks=16,32,64", "--vary", "bank_width=4,8", "-q"]
    assert main([*common, "--jobs", "1", "-o", str(tmp_path / "serial.csv")]) == 0
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.ERROR) as cluster:
        assert main([*common, "--scheduler", cluster.scheduler_address, "-o", str(tmp_path / "spread.csv")]) == 0
    assert (tmp_path / "spread.csv").read_text() == (tmp_path / "serial.csv").read_text()
    assert len(table(tmp_path / "serial.csv")) == 6
