"""`simsmem run`: the three formats, arch selection, and one-line errors with exit status 2."""

import csv
import io
import json
import os
import subprocess
import sys

import pytest
from conftest import H100
from simsmem.cli import main
from simsmem.corpus import corpus_trace, load_corpus
from simsmem.results.metrics import NOT_MODELLED_MARK
from simsmem.traces import write_trace

ROWS = {r["name"]: r for r in load_corpus(H100 / "instructions.json")}


@pytest.fixture
def ldsm_trace(tmp_path):
    """H100 row LDSM4_seed_v2: the seed's unswizzled ldmatrix.x4 (ncu: 8 wavefronts, 4 bank conflicts)."""
    path = tmp_path / "ldsm.json"
    write_trace(corpus_trace([ROWS["LDSM4_seed_v2"], ROWS["STS32_stride2"]], "ldsm"), path)
    return path


def test_json_format(ldsm_trace, capsys):
    assert main(["run", str(ldsm_trace), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    m = out["metrics"]
    assert out["arch"] == "sm_90" and out["trace"] == "ldsm"
    assert m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 8
    assert m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 4
    assert m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"] == 2  # STS32_stride2: 2 wavefronts
    assert m["smsp__inst_executed_op_ldsm.sum"] == 1 and m["smsp__inst_executed_op_shared_st.sum"] == 1
    first = out["instructions"][0]
    assert (first["sass"], first["wavefronts"], first["ideal_wavefronts"], first["bank_conflicts"]) == ("LDSM.16.M88.4", 8, 4, 4)


def test_csv_format_has_ncu_columns(ldsm_trace, capsys):
    assert main(["run", str(ldsm_trace), "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert set(rows[0]) >= {"Metric Name", "Metric Unit", "Metric Value"}
    values = {r["Metric Name"]: r for r in rows}
    assert values["smsp__inst_executed_op_ldsm.sum"]["Metric Unit"] == "inst"
    assert values["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"]["Metric Value"] == "4"


@pytest.mark.parametrize("engine", ["full", "analytic"])
def test_every_format_renders_one_result(ldsm_trace, capsys, engine):
    """The trace is counted once, whatever renders it: JSON, CSV and ncu's details page carry the same counters
    (and, timed, the same cycles)."""
    out = {}
    for fmt in ("json", "csv", "ncu-csv"):
        assert main(["run", str(ldsm_trace), "--format", fmt, "--engine", engine, "--quiet"]) == 0
        out[fmt] = capsys.readouterr().out
    doc = json.loads(out["json"])
    value = lambda text: text if text == NOT_MODELLED_MARK else int(text.replace(",", ""))  # noqa: E731
    from_csv = {r["Metric Name"]: value(r["Metric Value"]) for r in csv.DictReader(io.StringIO(out["csv"]))}
    from_page = {r["Metric Name"]: value(r["Metric Value"]) for r in csv.DictReader(io.StringIO(out["ncu-csv"]))}
    cycles = {"sm__cycles_elapsed.max": doc["timing"]["sm__cycles_elapsed.max"]} if engine == "full" else {}
    assert from_csv == {**doc["metrics"], **cycles} and from_page == doc["metrics"]
    m = doc["metrics"]
    assert sum(row["wavefronts"] for row in doc["instructions"]) == sum(m[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{c}.sum"] for c in ("ld", "st"))
    assert m["l1tex__data_bank_reads.sum"] == NOT_MODELLED_MARK  # a trace with no kernel header says nothing of global memory


def test_table_names_the_worst_instruction(ldsm_trace, capsys):
    assert main(["run", str(ldsm_trace)]) == 0
    out = capsys.readouterr().out
    assert "LDSM.16.M88.4" in out and "Worst instructions" in out


def test_arch_flag_wins_and_rejects_missing_ops(ldsm_trace, capsys):
    """sm_70 has no LDSM: an error naming the instruction, exit 2."""
    assert main(["run", str(ldsm_trace), "--arch", "sm_70"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "instruction 0: op" in err and "LDSM does not exist on sm_70" in err


@pytest.mark.parametrize(
    "doc, message",
    [
        ("{", "invalid JSON"),
        ('{"instructions": []}', "missing field 'simsmem_trace'"),
        ('{"simsmem_trace": 1, "instructions": [{"op": "LDX", "addrs": []}]}', "instruction 0: op: unknown op 'LDX'"),
        ('{"simsmem_trace": 1, "instructions": [{"op": "LDS", "width": 32, "addrs": [0]}]}', "expected 32 entries, got 1"),
        ('{"simsmem_trace": 1, "instructions": [{"op": "LDS", "width": 64, "addrs": [4' + ", 0" * 31 + "]}]}", "addrs[0]: address 4 is not aligned"),
        ('{"simsmem_trace": 1, "instructions": [{"op": "LDS", "width": 32, "addrs": [232448' + ", 0" * 31 + "]}]}", "past sm_90's 232448 bytes"),
        ('{"simsmem_trace": 1, "instructions": [{"op": "LDS", "width": 32, "addrs": [null' + ", 0" * 31 + "]}]}", "addrs[0]: null address in an active lane"),
        ('{"simsmem_trace": 1, "instructions": [{"op": "LDSM", "num": 3, "addrs": []}]}', "num: expected 1, 2 or 4"),
        ('{"simsmem_trace": 1, "instructions": [{"op": "LDSM", "num": 1, "mask": 1, "addrs": []}]}', "field 'mask' is not valid for LDSM"),
    ],
)
def test_bad_trace_is_one_line_exit_2(tmp_path, capsys, doc, message):
    path = tmp_path / "bad.json"
    path.write_text(doc)
    assert main(["run", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip()
    assert err.count("\n") == 0 and message in err and "bad.json" in err


def test_console_script_runs(ldsm_trace):
    proc = subprocess.run([sys.executable, "-m", "simsmem", "run", str(ldsm_trace), "--format", "csv"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum" in proc.stdout


@pytest.mark.parametrize("fmt", ["table", pytest.param("csv", marks=pytest.mark.slow), pytest.param("json", marks=pytest.mark.slow)])
def test_a_reader_that_goes_away_ends_the_command_quietly(ldsm_trace, fmt):
    """``simsmem run ... | head -1``: status 0 and nothing on stderr, whichever writer met the closed pipe."""
    proc = subprocess.Popen([sys.executable, "-m", "simsmem", "run", str(ldsm_trace), "--format", fmt], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.read(10)
    proc.stdout.close()
    assert proc.wait(timeout=60) == 0
    assert proc.stderr.read() == b""



def test_atomic_operations_through_the_reader(tmp_path, capsys):
    """ATOMS with `atom` read from a file. The CAS line is H100 row `atom_cas_stride0`
    (calibration/h100/instructions_v2.json: 64 wavefronts, 31 bank conflicts); EXCH.64 on consecutive
    8-byte words is two half-warp phases; POPC.INC broadcasts one word (RULES_v2.md, atomics)."""
    doc = {"simsmem_trace": 1, "instructions": [
        {"op": "ATOMS", "width": 32, "atom": "cas", "addrs": [0] * 32},
        {"op": "ATOMS", "width": 64, "atom": "exch", "addrs": [8 * i for i in range(32)]},
        {"op": "ATOMS", "width": 32, "atom": "popc_inc", "addrs": [0] * 32},
    ]}
    path = tmp_path / "atoms.json"
    path.write_text(json.dumps(doc))
    assert main(["run", str(path), "--format", "json", "--engine", "analytic"]) == 0
    rows = json.loads(capsys.readouterr().out)["instructions"]
    assert [(r["sass"], r["wavefronts"], r["bank_conflicts"]) for r in rows] == [
        ("ATOMS.CAS", 64, 31), ("ATOMS.EXCH.64", 2, 0), ("ATOMS.POPC.INC", 1, 0)]
    doc["instructions"][0]["atom"] = "nand"
    path.write_text(json.dumps(doc))
    assert main(["run", str(path)]) == 2
    assert "instruction 0: atom: expected one of add" in capsys.readouterr().err
    doc["instructions"][0]["atom"] = "add"
    doc["instructions"][0]["width"] = 64
    path.write_text(json.dumps(doc))
    assert main(["run", str(path)]) == 2
    assert "ATOMS add on sm_90 has no 64-bit form" in capsys.readouterr().err


def test_trace_arch_errors_name_the_trace(ldsm_trace, tmp_path, capsys):
    doc = json.loads(ldsm_trace.read_text())
    doc["arch"] = "sm_99"
    path = tmp_path / "archfield.json"
    path.write_text(json.dumps(doc))
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert "archfield.json: arch: unknown arch 'sm_99'" in err and "--arch" not in err.split(":")[1]


def test_ldgsts_ca_and_cg_of_one_width_are_two_forms(tmp_path, capsys):
    """A chunk holding cp.async .ca and .cg copies of 16 bytes lists LDGSTS.E.128 and LDGSTS.E.BYPASS.128 apart
    (the per-form key once left ``bypass`` out and summed them under one label). Counts: the model's own (regression guard)."""
    lanes = [16 * lane for lane in range(32)]
    rows = [{"op": "LDGSTS", "width": 128, "addrs": lanes, "src": lanes}, {"op": "LDGSTS", "width": 128, "bypass": True, "addrs": lanes, "src": lanes}]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"simsmem_trace": 1, "instructions": rows}))
    assert main(["run", str(path), "--engine", "analytic", "--format", "csv"]) == 0
    capsys.readouterr()
    assert main(["run", str(path), "--engine", "analytic"]) == 0
    out = capsys.readouterr().out
    assert "LDGSTS.E.128" in out and "LDGSTS.E.BYPASS.128" in out


@pytest.mark.parametrize("command", ["run", "explain"])
@pytest.mark.parametrize("worst", ["0", "-3"])
def test_worst_below_one_gets_one_message(ldsm_trace, capsys, command, worst):
    """``--worst 0`` and ``--worst -3`` are refused alike by every command that takes it (a regression guard on the text)."""
    assert main([command, str(ldsm_trace), f"--worst={worst}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--worst: expected an integer >= 1, got {worst}" in err, err


def test_outputs_follow_the_umask(tmp_path, ldsm_trace):
    """A written trace gets the mode open() would give it (0644 under umask 022), not mkstemp's 0600."""
    out = tmp_path / "copy.npz"
    old = os.umask(0o022)
    try:
        assert main(["convert", str(ldsm_trace), str(out)]) == 0
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o644


def test_a_traced_kernel_keeps_its_launch_shape(capsys):
    """reduce1_strided of calibration/realk on 16 CTAs of 256 threads: ncu's CSV page and the JSON say that launch,
    not the trace's one CTA of rows (a regression guard on the output's fields)."""
    realk = H100.parent / "realk"
    argv = ["run", str(realk / "ptx/reduce.ptx"), "--kernel", "reduce1_strided", "--grid", "16", "--block", "256", "--smem", "1024",
            f"--arg=npy:{realk / 'data/f32_red.npy'}", "--arg=zeros:64", "--arg=4096", "-q"]
    assert main([*argv, "--format", "ncu-csv"]) == 0
    row = next(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert (row["Block Size"], row["Grid Size"]) == ("(256, 1, 1)", "(16, 1, 1)")
    assert main([*argv, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["ctas"], out["grid"], out["block"]) == (16, [16, 1, 1], [256, 1, 1])
