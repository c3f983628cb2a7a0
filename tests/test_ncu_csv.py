"""Reading ncu --csv reports (details and raw pages, old and new headers) and writing simsmem's own.

Provenance of the fixtures: calibration/h100/ncu_csv/seed_kernels_details.csv and seed_kernels_raw.csv,
real reports of the seed kernels (H100 80GB HBM3, Nsight Compute 2025.3.1, CUDA 13.0), exactly as the
profiler wrote them, including the ==PROF== lines and the program's output before the CSV.
"""

import csv
import io

import pytest
from conftest import H100, ROOT
from simsmem.cli import main
from simsmem.config import BANK_CONFLICTS, WAVEFRONTS
from simsmem.errors import SimsmemError
from simsmem.results.analysis import analyse
from simsmem.results.metrics import NOT_MODELLED_MARK, reported
from simsmem.results.ncu_csv import (
    Kernel,
    details_csv,
    number,
    parse_report,
    pick,
    read_report,
)
from simsmem.traces import load_trace

TRACES = ROOT / "traces"
DETAILS = H100 / "ncu_csv" / "seed_kernels_details.csv"
RAW = H100 / "ncu_csv" / "seed_kernels_raw.csv"
SEED_NAMES = ["v2_wmma", "v3_wmma_padding", "v4_mma", "v5_mma_swizzle", "trans_direct1", "trans_direct2",
              "trans_shm1", "trans_shm2", "trans_pad", "trans_swizzle"]


@pytest.mark.parametrize("path", [DETAILS, RAW], ids=["details", "raw"])
def test_reads_every_kernel_of_both_pages(path):
    kernels = read_report(path)
    assert [k.id for k in kernels] == [str(i) for i in range(10)]
    assert [k.short_name for k in kernels] == SEED_NAMES
    v2, shm1 = kernels[0], kernels[6]
    assert v2.name == "v2_wmma(__half *, __half *, __half *)" and v2.block == "(32, 1, 1)" and v2.grid == "(1, 1, 1)"
    # Measured values (the report's own text): v2_wmma 8 op_ld / 4 op_st conflicts, 20 op_ld wavefronts;
    # trans_shm1 63,488 op_ld conflicts over its 8x8 grid.
    assert number(v2.metrics[BANK_CONFLICTS.format("ld")], "") == 8
    assert number(v2.metrics[BANK_CONFLICTS.format("st")], "") == 4
    assert number(v2.metrics[WAVEFRONTS.format("ld")], "") == 20
    assert shm1.metrics[BANK_CONFLICTS.format("ld")] == "63,488" and shm1.grid == "(8, 8, 1)"
    assert v2.units["smsp__inst_executed_op_ldsm.sum"] == "inst"


def test_both_pages_agree_on_every_shared_counter():
    """The details and raw pages were two profiling runs of the same kernels: every .sum counter both list is equal."""
    details, raw = read_report(DETAILS), read_report(RAW)
    for d, r in zip(details, raw):
        common = {m for m in set(d.metrics) & set(r.metrics) if m.endswith(".sum")}
        assert len(common) >= 9, d.short_name
        for m in common:
            assert number(d.metrics[m], m) == number(r.metrics[m], m), (d.short_name, m)


def test_old_details_layout_with_kernel_time_and_no_launch_shape():
    """Older ncu: a "Kernel Time" column, no "Block Size"/"Grid Size"; same metrics come out."""
    text = DETAILS.read_text()
    start = text.index('"ID",')
    rows = list(csv.reader(io.StringIO(text[start:])))
    header = rows[0]
    drop = {header.index("Block Size"), header.index("Grid Size")}
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    for i, row in enumerate(rows):
        kept = [v for j, v in enumerate(row) if j not in drop]
        kept.insert(5, "Kernel Time" if i == 0 else "2024-Jan-01 00:00:00")
        w.writerow(kept)
    old = parse_report("==PROF== Connected to process 1\nprogram output, \"quoted\"\n" + out.getvalue(), "old.csv")
    new = read_report(DETAILS)
    assert [k.metrics for k in old] == [k.metrics for k in new]
    assert old[0].block == "" and old[0].grid == ""


def test_numbers_with_thousands_separators():
    assert number("3,072", "x") == 3072 and number("8,914,768", "x") == 8914768
    assert number("0.06", "x") == 0.06 and number("12", "x") == 12
    with pytest.raises(SimsmemError, match="expected a number"):
        number("n/a", "x")


@pytest.mark.parametrize(
    "text, message",
    [
        ("==PROF== nothing profiled\n", "no ncu CSV header"),
        ('"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n"0","k","m","","1","extra"\n', "line 2: expected 5 fields"),
        ('"ID","Process ID","Kernel Name","a__b.sum"\n"0","1","k","5"\n', "row of units"),
        ('"ID","Kernel Name","Metric Name","Metric Unit"\n"0","k","m",""\n', "lacks column 'Metric Value'"),
        ('"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n', "no kernels"),
        ('"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n"0","k","m","","1"\n"0","k","m","","2"\n', "given twice"),
    ],
)
def test_malformed_reports_are_errors(text, message):
    with pytest.raises(SimsmemError, match=message):
        parse_report(text, "r.csv")


def test_pick_by_id_function_name_or_full_name():
    kernels = read_report(DETAILS)
    assert pick(kernels, "6", "r").short_name == "trans_shm1"
    assert pick(kernels, "trans_shm1", "r").id == "6"
    assert pick(kernels, "v3_wmma_padding(__half *, __half *, __half *)", "r").id == "1"
    with pytest.raises(SimsmemError, match="no kernel 'trans'.*6: trans_shm1"):
        pick(kernels, "trans", "r")
    with pytest.raises(SimsmemError, match="holds 10 kernels, pick one with --kernel"):
        pick(kernels, None, "r")
    twice = [Kernel("0", "k(int)", "", "", {}, {}), Kernel("1", "k(int)", "", "", {}, {})]
    with pytest.raises(SimsmemError, match="2 kernels match 'k', pick one by ID"):
        pick(twice, "k", "r")


@pytest.mark.parametrize("name, short", [("void gemm<128, 64>(float *)", "gemm"), ("ns::inner::k(int)", "k"), ("plain", "plain")])
def test_short_names(name, short):
    assert Kernel("0", name, "", "", {}, {}).short_name == short


def _value(text: str, metric: str) -> int | float | str:
    """A written value read back: a number, or the mark of a counter simsmem does not model for the trace."""
    return text if text == NOT_MODELLED_MARK else number(text, metric)


def test_written_details_page_reads_back(tmp_path, sm90):
    """simsmem's details page through the reader: every metric, its unit and the launch shape come back."""
    trace = load_trace(ROOT / "traces" / "seeds" / "trans_shm1.json")
    result = analyse(trace, sm90)
    (k,) = parse_report(details_csv(result), "simsmem.csv")
    assert {m: _value(v, m) for m, v in k.metrics.items()} == reported(result.metrics, result.unmodelled)
    assert k.name == "trans_shm1" and k.block == "(1024, 1, 1)" and k.grid == "(64, 1, 1)"
    assert k.units["smsp__sass_data_bytes_mem_shared.sum"] == "byte"
    assert k.metrics[BANK_CONFLICTS.format("ld")] == "63,488"  # as ncu writes it


def test_run_format_ncu_csv_round_trips(capsys):
    assert main(["run", str(TRACES / "seeds" / "v2_wmma.json"), "--format", "ncu-csv"]) == 0
    out = capsys.readouterr().out
    assert out.startswith('"ID","Process ID","Process Name"')
    assert main(["run", str(TRACES / "seeds" / "v2_wmma.json"), "--format", "json"]) == 0
    import json

    metrics = json.loads(capsys.readouterr().out)["metrics"]
    (k,) = parse_report(out, "stdout")
    assert {m: _value(v, m) for m, v in k.metrics.items()} == metrics
