"""Fuzzing the readers through the CLI: random bytes and broken-but-close traces never end in a
traceback, and a run that reports a result read input that an independent, exact reading accepts
with the same result.

Provenance: the near-valid inputs are mutations (hypothesis, deterministic ``ci`` profile) of traces
made here from H100 corpus rows.
"""

import gzip
import io
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import orjson
from conftest import H100
from hypothesis import given, settings
from hypothesis import strategies as st
from simsmem.cli import main
from simsmem.config import load_arch
from simsmem.corpus import corpus_trace, load_corpus
from simsmem.errors import SimsmemError
from simsmem.results.analysis import analyse
from simsmem.results.report import to_csv
from simsmem.traces import Trace, write_trace
from simsmem.traces.decode import BatchBuilder
from simsmem.traces.v1 import parse_header

ROWS = load_corpus(H100 / "instructions.json")
SAMPLE = corpus_trace([ROWS[i] for i in range(0, 310, 31)], "sample")  # 10 rows: every op family
SUFFIXES = [".json", ".jsonl", ".jsonl.gz", ".json.gz", ".npz", ".traceg", ".traceg.xz", ".traceg.gz"]


def run_cli(path: Path, fmt: str = "csv") -> tuple[int, str, str]:
    """The CLI in this process: any exception but its own error would escape as a traceback here."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main(["run", str(path), "--format", fmt, "--quiet"])
    assert rc in (0, 2)
    if rc == 2:
        assert out.getvalue() == "" and err.getvalue().count("\n") == 1
    return rc, out.getvalue(), err.getvalue()


def exact_csv(text: bytes) -> str:
    """An independent reading of a JSON Lines trace: the exact check, line by line, nothing vectorised."""
    lines = text.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    head = parse_header(orjson.loads(lines[0]), "x.jsonl", with_instructions=False)
    count = head.pop("count")
    builder = BatchBuilder("x")
    for i, line in enumerate(lines[1:]):
        builder.add(orjson.loads(line), i)
    assert count is None or count == len(builder)
    trace = Trace(builder.build(), **head)
    return to_csv(analyse(trace, load_arch(trace.arch or "sm_90")))


def same_counters(cli: str, exact: str) -> bool:
    """Every counter row of the exact reading's CSV is in the CLI's (which may add timing rows)."""
    return set(exact.splitlines()) <= set(cli.splitlines())


@settings(max_examples=120)
@given(st.sampled_from(SUFFIXES), st.binary(max_size=600))
def test_random_bytes(suffix, data):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"kernel-1{suffix}"
        path.write_bytes(data)
        run_cli(path)


@st.composite
def mutations(draw, data: bytes):
    """``data`` with a few bytes flipped, dropped, inserted or the tail cut."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["flip", "drop", "insert", "cut", "digit"]))
        at = draw(st.integers(0, max(len(out) - 1, 0)))
        if kind == "flip" and out:
            out[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "drop" and out:
            del out[at : at + draw(st.integers(1, 8))]
        elif kind == "insert":
            out[at:at] = draw(st.sampled_from([b"null", b"true", b"-1", b"1e3", b"0.5", b'"x"', b",", b"]", b"\n", b"\\u0065", b"99999999999999999999"]))
        elif kind == "cut":
            del out[at:]
        elif kind == "digit" and out:
            out[at] = ord(draw(st.sampled_from("0123456789")))
    return bytes(out)


def _jsonl() -> bytes:
    buf = io.BytesIO()
    with tempfile.TemporaryDirectory() as tmp:
        write_trace(SAMPLE, Path(tmp) / "t.jsonl")
        buf.write((Path(tmp) / "t.jsonl").read_bytes())
    return buf.getvalue()


JSONL = _jsonl()
HEAD, BODY = JSONL.split(b"\n", 1)


@settings(max_examples=150)
@given(mutations(BODY))
def test_near_valid_jsonl(body):
    """A run that reports a result read exactly what the exact, line-by-line reading accepts."""
    data = HEAD + b"\n" + body
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.jsonl"
        path.write_bytes(data)
        rc, out, _ = run_cli(path)
        if rc == 0:
            assert same_counters(out, exact_csv(data))
        else:
            try:
                exact_csv(data)
            except (SimsmemError, orjson.JSONDecodeError, AssertionError, IndexError):
                return
            raise AssertionError("refused a trace the exact reading accepts")


@settings(max_examples=60)
@given(mutations(gzip.compress(JSONL, mtime=0)))
def test_near_valid_gzip(data):
    """A damaged gzip stream is either refused or decompresses (with Python's gzip) to what was read."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.jsonl.gz"
        path.write_bytes(data)
        rc, out, _ = run_cli(path)
        if rc == 0:
            assert same_counters(out, exact_csv(gzip.decompress(data)))


def _npz() -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        write_trace(SAMPLE, Path(tmp) / "t.npz")
        return (Path(tmp) / "t.npz").read_bytes()


@settings(max_examples=60)
@given(mutations(_npz()))
def test_near_valid_npz(data):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.npz"
        path.write_bytes(data)
        run_cli(path)


TRACEG = b"""-kernel name = k
-grid dim = (1,1,1)
-block dim = (64,1,1)
-binary version = 90
-shmem base_addr = 0x00007f2a00000000
-accelsim tracer version = 4
-enable lineinfo = 0

#BEGIN_TB
thread block = 0,0,0
warp = 1
insts = 4
0000 ffffffff 1 R4 LDS.64 1 R2 8 1 0x7f2a00000000 8 0
0010 0000ffff 1 R4 LDSM.16.MT88.2 1 R2 16 2 0x7f2a00000100 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 0
0020 ffffffff 0 ATOMS.POPC.INC 1 R2 4 0 """ + b" ".join(b"0x00007f2a00000040" for _ in range(32)) + b""" 0
0030 ffffffff 1 R8 FFMA 3 R4 R6 R8 0 0
#END_TB
"""


@settings(max_examples=100)
@given(mutations(TRACEG))
def test_near_valid_traceg(data):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kernel-1.traceg"
        path.write_bytes(data)
        run_cli(path, "table")
