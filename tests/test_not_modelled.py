"""A counter simsmem does not model for a trace is printed as "not modelled" by every output, never as a number (a
regression guard on the outputs: the rules behind it are evidence in test_counters.py). An LDGSTS makes ncu's total of
the bank conflicts unknown (its l1tex LDGSTS part varies run to run); an LDGSTS with an immediate offset in a kernel
whose warps share sub-partitions makes the shared bytes unknown (calibration/realk/runs/2026-11-29-counters)."""

from __future__ import annotations

import csv
import io
import json
import re

from simsmem.cli import main
from simsmem.config import load_arch
from simsmem.results.analysis import analyse
from simsmem.results.metrics import DATA_BYTES, NOT_MODELLED_MARK, TOTAL_BANK_CONFLICTS
from simsmem.traces import Trace
from simsmem.traces.records import Instruction, InstructionBatch

LANES = range(32)
COPY = {"op": "LDGSTS", "width": 32, "addrs": [4 * i for i in LANES], "src": [4 * i for i in LANES]}
LOAD = {"op": "LDS", "width": 32, "addrs": [4 * i for i in LANES]}


def test_an_ldgsts_makes_the_total_unknown_in_every_output(jsonl, tmp_path, capsys):
    path = jsonl(tmp_path / "copy.jsonl", COPY, LOAD)
    assert main(["run", str(path), "--format", "json", "--engine", "analytic"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"][TOTAL_BANK_CONFLICTS] == NOT_MODELLED_MARK and TOTAL_BANK_CONFLICTS in out["not_modelled"]
    assert out["metrics"]["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 0  # the others stay numbers
    for fmt, value in (("csv", "Metric Value"), ("ncu-csv", "Metric Value")):
        assert main(["run", str(path), "--format", fmt, "--engine", "analytic"]) == 0
        rows = {r["Metric Name"]: r[value] for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
        assert rows[TOTAL_BANK_CONFLICTS] == NOT_MODELLED_MARK and rows["smsp__inst_executed_op_ldgsts.sum"] == "1"
    assert main(["run", str(path)]) == 0
    text = " ".join(capsys.readouterr().out.split())  # the console wraps: one reason, its counters listed before it
    assert re.search(re.escape(TOTAL_BANK_CONFLICTS) + r"(, \S+)*: not modelled for this trace", text), text


def test_compare_calls_it_not_modelled_not_a_mismatch(jsonl, tmp_path, capsys):
    path = jsonl(tmp_path / "copy.jsonl", COPY, LOAD)
    report = tmp_path / "ncu.csv"
    names = [TOTAL_BANK_CONFLICTS, "smsp__inst_executed_op_ldgsts.sum"]
    report.write_text('"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'
                      + "".join(f'"0","copy","{n}","","{v}"\n' for n, v in zip(names, ("24", "1"))))
    assert main(["compare", str(path), str(report)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if TOTAL_BANK_CONFLICTS in line and "not modelled" in line)
    assert "24" in row and "MISMATCH" not in out


def test_an_offset_copy_in_a_crowded_kernel_makes_the_bytes_unknown(sm90):
    """One lane's bytes where the warp has its sub-partition alone (4 warps a CTA, one CTA); unknown with 8 warps."""
    copy = Instruction(**{**COPY, "addrs": tuple(COPY["addrs"]), "src": tuple(COPY["src"])}, imm=True)
    batch = InstructionBatch.from_instructions([copy])
    alone = analyse(Trace(batch, "k", kernel={"block": [128, 1, 1], "grid": [1, 1, 1]}), sm90)
    assert alone.metrics["smsp__sass_data_bytes_mem_shared_op_ldgsts.sum"] == 4 and DATA_BYTES not in alone.unmodelled
    crowded = analyse(Trace(batch, "k", kernel={"block": [256, 1, 1], "grid": [1, 1, 1]}), sm90)
    assert DATA_BYTES in crowded.unmodelled and DATA_BYTES not in crowded.metrics
