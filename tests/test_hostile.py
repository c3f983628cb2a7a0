"""Bad input through the CLI: one line on stderr naming file, line or instruction and field; exit 2;
no traceback; no result on stdout; no file written.

Provenance: every input is built here by breaking a valid trace (an H100 corpus row) in one place.
"""

import gzip
import io
import tracemalloc
import zipfile

import numpy as np
import orjson
import pytest
from conftest import H100
from simsmem.banks import count
from simsmem.cli import main
from simsmem.corpus import corpus_trace, load_corpus
from simsmem.engine import simulate
from simsmem.traces import Instruction, InstructionBatch, write_trace
from simsmem.traces.records import FIELDS

ROWS = {r["name"]: r for r in load_corpus(H100 / "instructions.json")}
GOOD = {"op": "LDS", "width": 32, "addrs": [4 * lane for lane in range(32)]}


def test_truncated_json_document(tmp_path, refused):
    path = tmp_path / "t.json"
    write_trace(corpus_trace([ROWS["LDS32_stride1"]] * 3), path)
    path.write_bytes(path.read_bytes()[:-40])
    refused("run", path, where=("t.json", "line 5 column"), what="invalid JSON")


def test_invalid_json_line(tmp_path, jsonl, refused):
    path = jsonl(tmp_path / "t.jsonl", GOOD, b'{"op": "LDS", "width": 32, "addrs": [0, 4,', GOOD)
    refused("run", path, where=("t.jsonl", "line 3 column"), what="invalid JSON")


def test_blank_line(tmp_path, jsonl, refused):
    path = jsonl(tmp_path / "t.jsonl", GOOD, b"", GOOD)
    refused("run", path, where=("t.jsonl", "line 3"), what="blank line")


def test_truncated_gzip(tmp_path, refused):
    path = tmp_path / "t.jsonl.gz"
    write_trace(corpus_trace(list(ROWS.values())), path)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    refused("run", path, where=("t.jsonl.gz",), what="corrupt or truncated gzip data")


def test_not_gzip(tmp_path, refused):
    path = tmp_path / "t.jsonl.gz"
    path.write_bytes(b'{"simsmem_trace": 1}\n')
    refused("run", path, where=("t.jsonl.gz",), what="gzip")


def test_cut_at_a_line_boundary(tmp_path, refused):
    """JSON Lines written by simsmem carry ``count``: a file cut between lines is caught."""
    path = tmp_path / "t.jsonl"
    write_trace(corpus_trace([ROWS["LDS32_stride1"]] * 5), path)
    path.write_bytes(b"\n".join(path.read_bytes().splitlines()[:4]) + b"\n")
    refused("run", path, where=("t.jsonl", "count"), what="the header says 5 instructions, the file holds 3")


@pytest.mark.parametrize(
    ("field", "value", "where", "what"),
    [
        ("width", "32", "width", "expected 8, 16, 32, 64 or 128, got '32'"),
        ("width", 1e30, "width", "got 1e+30"),
        ("warp", -3, "warp", "expected a non-negative integer, got -3"),
        ("warp", 2**40, "warp", "got 1099511627776"),
        ("mask", "0xZZ", "mask", "expected an integer or hex string"),
        ("wait", "yes", "wait", "expected true, false or a non-negative integer"),
        ("wait", -1, "wait", "expected true, false or a non-negative integer (earlier instructions that may stay in flight), got -1"),
        ("wait", 2**31, "wait", "got 2147483648"),
        ("wait", 1.5, "wait", "got 1.5"),
        ("issue", -1, "issue", "expected a non-negative integer, got -1"),
        ("issue", True, "issue", "expected a non-negative integer, got True"),
        ("issue", 2**31, "issue", "got 2147483648"),
        ("early", -1, "early", "expected a non-negative integer, got -1"),
        ("early", "3", "early", "expected a non-negative integer, got '3'"),
        ("issue_alu", 1, "issue_alu", "expected at most issue (0): these are some of those other instructions, got 1"),
        ("early_alu", -1, "early_alu", "expected a non-negative integer, got -1"),
        ("others", "alu:0", "others", "token 1 'alu:0': the stall must be a positive count of cycles"),
        ("others", "alu ALU", "others", "token 2 'ALU': expected PIPE[:STALL][@WAIT]"),
        ("others", "alu@-1", "others", "token 1 'alu@-1': expected PIPE[:STALL][@WAIT]"),
        ("others", 3, "others", "expected a string of other instructions such as 'alu - imad:2 alu@0', got 3"),
        ("others", "fma", "others", "pipe 'fma' does not exist on sm_90 (its pipes: alu, imad; '-' for none)"),
        ("stall", 0, "stall", "expected a positive integer, got 0"),
        ("stall", True, "stall", "expected a positive integer, got True"),
        ("op", "LDX", "op", "unknown op 'LDX'"),
        ("num", 4, "line 2 (instruction 0)", "field 'num' is not valid for LDS"),
        ("addrs", [0] * 31, "addrs", "expected 32 entries, got 31"),
        ("addrs", [0] * 33, "addrs", "expected 32 entries, got 33"),
        ("addrs", [0.5] + [0] * 31, "addrs[0]", "expected an integer byte offset"),
        ("addrs", [2**33] + [0] * 31, "addrs[0]", "out of range"),
        ("addrs", [None] + [0] * 31, "addrs[0]", "null address in an active lane"),
    ],
)
def test_bad_field(tmp_path, field, value, where, what, jsonl, refused):
    path = jsonl(tmp_path / "t.jsonl", {**GOOD, field: value})
    refused("run", path, where=("t.jsonl", "line 2", where), what=what)


def test_others_and_counts_of_others_are_not_both_given(tmp_path, jsonl, refused):
    path = jsonl(tmp_path / "t.jsonl", {**GOOD, "others": "alu -", "issue": 2})
    refused("run", path, where=("t.jsonl", "line 2", "others"), what="give the other instructions one by one (others) or as counts (early, issue), not both")


@pytest.mark.parametrize(("field", "value"), [("issue", 10**9), ("early", 10**8)])
def test_a_huge_count_of_other_instructions_is_one_slot(tmp_path, capsys, jsonl, sm90, field, value):
    """``issue`` and ``early`` count other instructions; the engine keeps each run as one slot, so a count of any
    size answers at once in the memory of any run (the engine used to lay out every one: 13 GB, no answer after
    100 s). The first load issues after them, the second a cycle later and completes 25 cycles after it. (The
    compiled engine is loaded first: numba's compiling, the first time on a machine, is no part of it.)"""
    path = jsonl(tmp_path / "t.jsonl", {**GOOD, field: value}, GOOD)
    one = InstructionBatch.from_instructions([Instruction("LDS", tuple(GOOD["addrs"]))])
    simulate(one, count(one, sm90), sm90, compiled=True)
    tracemalloc.start()
    try:
        assert main(["run", str(path), "--format", "json"]) == 0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert orjson.loads(capsys.readouterr().out)["timing"]["sm__cycles_elapsed.max"] == value + 25
    assert peak < 100 << 20, peak


def test_bad_field_in_a_json_document(tmp_path, refused):
    path = tmp_path / "t.json"
    path.write_bytes(orjson.dumps({"simsmem_trace": 1, "instructions": [GOOD, {**GOOD, "width": 12}]}))
    refused("run", path, where=("t.json", "instruction 1", "width"), what="got 12")


@pytest.mark.parametrize("argv", [("run",), ("run", "--engine", "analytic"), ("convert",), ("explain",)])
def test_address_past_shared_memory(tmp_path, argv, jsonl, refused):
    """The arch check names the JSON Lines file line (header: line 1), whichever command reads the trace."""
    path = jsonl(tmp_path / "t.jsonl", GOOD, {**GOOD, "addrs": [232448] + [0] * 31})
    extra = (tmp_path / "out.npz",) if argv == ("convert",) else ()
    refused(*argv, path, *extra, where=("t.jsonl", "line 3", "addrs[0]"), what="past sm_90's 232448 bytes of shared memory per CTA")
    assert not (tmp_path / "out.npz").exists()


def test_misaligned_wide_access(tmp_path, jsonl, refused):
    path = jsonl(tmp_path / "t.jsonl", {**GOOD, "width": 128, "addrs": [16 * lane + 8 for lane in range(32)]})
    refused("run", path, where=("t.jsonl", "line 2", "addrs[0]"), what="not aligned to the 16-byte access")


def test_header_problems(tmp_path, jsonl, refused):
    refused("run", jsonl(tmp_path / "a.jsonl", GOOD, header={"simsmem_trace": 2}), where=("a.jsonl", "simsmem_trace"), what="unsupported format version 2")
    refused("run", jsonl(tmp_path / "b.jsonl", GOOD, header={"simsmem_trace": 1, "ctas": 0}), where=("b.jsonl", "ctas"), what="positive integer")
    refused("run", jsonl(tmp_path / "c.jsonl", GOOD, header={"simsmem_trace": 1, "instructions": []}), where=("c.jsonl", "line 1"), what="holds no instructions")
    (tmp_path / "d.jsonl").write_bytes(b"")
    refused("run", tmp_path / "d.jsonl", where=("d.jsonl", "line 1"), what="expected the header object")


def test_empty_trace_is_a_valid_empty_result(tmp_path, capsys, jsonl):
    path = jsonl(tmp_path / "empty.jsonl")
    assert main(["run", str(path), "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert '"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum","","0"' in out


def test_missing_file(tmp_path, refused):
    refused("run", tmp_path / "nope.jsonl", where=("nope.jsonl",), what="cannot read trace")


def test_broken_npz(tmp_path, refused):
    good = tmp_path / "good.npz"
    write_trace(corpus_trace(list(ROWS.values())), good)
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good.read_bytes()[:-100])
    refused("run", cut, where=("cut.npz",), what="not a readable .npz trace")
    odd = tmp_path / "odd.npz"
    with zipfile.ZipFile(good) as z, zipfile.ZipFile(odd, "w") as out:
        for name in z.namelist():
            if name != "c0.mask.npy":
                out.writestr(name, z.read(name))
    refused("run", odd, where=("odd.npz",), what="missing member 'c0.mask'")
    pickled = tmp_path / "pickled.npz"  # an object array: numpy's own error would advise allow_pickle
    with zipfile.ZipFile(good) as z, zipfile.ZipFile(pickled, "w") as out:
        for name in z.namelist():
            if name == "c0.warp.npy":
                buf = io.BytesIO()
                np.save(buf, np.array([{"warp": 0}] * len(np.load(io.BytesIO(z.read(name)))), dtype=object), allow_pickle=True)
                out.writestr(name, buf.getvalue())
            else:
                out.writestr(name, z.read(name))
    assert "allow_pickle" not in refused("run", pickled, where=("pickled.npz", "c0.warp"), what="holds Python objects, not numbers")


@pytest.mark.parametrize(("column", "value", "what"), [
    ("wait", -2, "expected -1 (no wait) or a non-negative integer, got -2"),
    ("issue", -1, "expected a non-negative integer, got -1"),
    ("early", -5, "expected a non-negative integer, got -5"),
    ("issue_alu", 1, "expected at most issue (0): these are some of those other instructions, got 1"),
    ("stall", 0, "expected a positive integer, got 0"),
])
def test_bad_timing_column_in_npz(tmp_path, column, value, what, refused):
    """.npz columns hold ``wait``, ``issue``, ``early``, ``issue_alu`` and ``stall`` to the JSON rules
    (``v1.column_problem``); ``early``, ``issue_alu`` and ``stall``, all at their defaults in the good file
    and so left out of it, are added."""
    good = tmp_path / "good.npz"
    write_trace(corpus_trace(list(ROWS.values())), good)
    bad = tmp_path / "bad.npz"
    member = f"c0.{column}.npy"
    with zipfile.ZipFile(good) as z, zipfile.ZipFile(bad, "w") as out:
        names = z.namelist()
        n = len(np.load(io.BytesIO(z.read("c0.op.npy"))))
        array = np.load(io.BytesIO(z.read(member))) if member in names else FIELDS[column].filled(n)
        array[3] = value
        buffer = io.BytesIO()
        np.save(buffer, array)
        out.writestr(member, buffer.getvalue())
        for name in names:
            if name != member:
                out.writestr(name, z.read(name))
    refused("run", bad, where=("bad.npz", "instruction 3", column), what=what)


def test_arch_yaml_missing_and_mistyped(tmp_path, jsonl, refused):
    path = jsonl(tmp_path / "t.jsonl", GOOD)
    text = (H100.parent.parent / "configs" / "sm_90.yaml").read_text()
    (tmp_path / "missing.yaml").write_text(text.replace("bank_width: 4\n", ""))
    refused("run", path, "--arch", tmp_path / "missing.yaml", where=("missing.yaml",), what="missing field 'bank_width'")
    (tmp_path / "mistyped.yaml").write_text(text.replace("banks: 32", "banks: thirty-two"))
    refused("run", path, "--arch", tmp_path / "mistyped.yaml", where=("mistyped.yaml", "banks"), what="expected a non-negative integer")


def test_convert_leaves_nothing_behind(tmp_path, jsonl, refused):
    """A conversion that fails part-way writes no output and leaves no temporary file."""
    src = tmp_path / "in.jsonl"
    jsonl(src, *([GOOD] * 100_000), {**GOOD, "width": 3})
    refused("convert", src, tmp_path / "out.npz", "--quiet", where=("in.jsonl", "line 100002"), what="got 3")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


def test_gzip_member_with_bad_crc(tmp_path, refused):
    raw = bytearray(gzip.compress(b'{"simsmem_trace": 1}\n' + orjson.dumps(GOOD) + b"\n"))
    raw[-8] ^= 1  # the CRC-32 in the gzip trailer
    path = tmp_path / "t.jsonl.gz"
    path.write_bytes(bytes(raw))
    refused("run", path, where=("t.jsonl.gz",), what="CRC check failed")
