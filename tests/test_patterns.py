"""``.npz`` per-lane columns as lane patterns (``trace.patterns``): every trace comes back column for column.

Regression guards on the format: the oracle is the trace as read from its own file (or made by hypothesis) before
it is written; nothing here is measured on hardware. The corpora: every trace file under traces/, every row file of
calibration/h100 (the H100 instruction corpus), and (slow) one CTA of every distinct kernel of
calibration/realk/manifest.json and manifest_hopper.json traced with ptxas 13.0.88's SASS.
"""

import io
import json
import zipfile
from pathlib import Path

import attrs
import numpy as np
import pytest
from conftest import H100, REALK, ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from simsmem.corpus import corpus_trace, load_corpus
from simsmem.errors import TraceError
from simsmem.kernel.tracer import trace_kernel
from simsmem.traces import InstructionBatch, Trace, load_trace, open_trace, write_trace
from simsmem.traces.lanes import INACTIVE, LANES
from simsmem.traces.patterns import Patterns
from simsmem.traces.records import COLUMNS
from strategies import instructions

TRACES = sorted(p for p in (ROOT / "traces").rglob("*") if p.name.endswith((".json", ".json.gz", ".jsonl", ".jsonl.gz")))
CORPORA = sorted(p for p in H100.glob("*.json") if "patterns" in json.loads(p.read_text()) and p.stem not in ("seed_kernels", "timing")
                 and not p.stem.startswith(("op_misc", "seed_kernels_", "timing_")))


def same(a: InstructionBatch, b: InstructionBatch) -> None:
    for name, f in COLUMNS.items():
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name


def round_trip(trace: Trace, path: Path) -> Trace:
    write_trace(trace, path)
    back = load_trace(path)
    same(back.instructions, trace.instructions)
    assert (back.name, back.ctas, back.kernel) == (trace.name, trace.ctas, trace.kernel)
    return back


@pytest.mark.parametrize("made", [Patterns.of, Patterns.quick])
@given(st.integers(0, 300), st.integers(1, 8), st.sampled_from([np.int32, np.int64]), st.integers(0, 2**32 - 1),
       st.sampled_from([0.0, 0.3, 1.0]))
def test_any_lane_column_decodes_to_itself(made, n, shapes, dtype, seed, inactive):
    """Any column of valid lane values (a few lane shapes at random bases, values up to the dtype's largest, inactive
    lanes, rows without any) is its patterns decoded, made by sorting (``of``: the table holds each distinct pattern
    once) or by hashing (``quick``, a worker's batch on its way back)."""
    rng = np.random.default_rng(seed)
    top = np.iinfo(dtype).max
    shape = rng.integers(0, [4096, top // 2][rng.integers(2)], size=(shapes, LANES), dtype=np.int64)
    column = (shape[rng.integers(shapes, size=n)] + rng.integers(0, top // 2, size=(n, 1), dtype=np.int64)).astype(dtype)
    column[rng.random((n, LANES)) < inactive] = INACTIVE
    column[:1, :] = [top] * (LANES // 2) + [0] * (LANES // 2) if n else column[:1]
    p = made(column)
    assert p.problem() is None
    assert p.pattern.dtype == np.int32 and p.base.dtype == p.table.dtype == dtype
    assert np.array_equal(p.column(), column)
    assert made is Patterns.quick or len(np.unique(p.table, axis=0)) == len(p.table)


def test_a_warp_walking_rows_is_one_pattern():
    """``tid * 4 + k * 512`` for 64 steps of k: 64 bases, one pattern."""
    column = np.arange(0, 128, 4, dtype=np.int32)[None, :] + 512 * np.arange(64, dtype=np.int32)[:, None]
    p = Patterns.of(column)
    assert len(p.table) == 1 and p.base.tolist() == list(range(0, 64 * 512, 512))


@settings(max_examples=20)
@given(st.lists(instructions(), min_size=1, max_size=60))
def test_random_traces_round_trip(tmp_path_factory, instrs):
    round_trip(Trace(InstructionBatch.from_instructions(instrs), name="random", ctas=3), tmp_path_factory.mktemp("npz") / "r.npz")


@pytest.mark.slow
def test_every_committed_trace_round_trips(tmp_path):
    """The 147 trace files under traces/ (1.3M instructions, 20-40 s)."""
    for path in TRACES:
        round_trip(load_trace(path), tmp_path / "t.npz")


@pytest.mark.parametrize("path", CORPORA, ids=[p.name for p in CORPORA])
def test_every_corpus_file_round_trips(tmp_path, path):
    round_trip(corpus_trace(load_corpus(path), path.stem), tmp_path / "t.npz")


def _entries(*names: str) -> list[dict]:
    out = {}
    for name in names:
        for e in json.loads((REALK / name).read_text()):
            out.setdefault((e["ptx"], e["kernel"]), e)
    return list(out.values())


ENTRIES = _entries("manifest.json", "manifest_hopper.json")


@pytest.mark.slow
@pytest.mark.parametrize("e", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_every_realk_kernel_round_trips(tmp_path, e):
    """One CTA of each distinct kernel (LDS/STS, LDSM, atomics, cp.async sources, wgmma and TMA rows)."""
    stream = trace_kernel(REALK / e["ptx"], e["kernel"], tuple(e["grid"]), tuple(e["block"]), e["smem"], e["args"], ctas=[(0, 0, 0)],
                          base=REALK, symbols=e.get("globals"))
    round_trip(stream.read(), tmp_path / "t.npz")


def _rewritten(good: Path, bad: Path, member: str, array: np.ndarray | None) -> Path:
    """``good`` with ``member`` replaced by ``array`` (None: left out)."""
    with zipfile.ZipFile(good) as z, zipfile.ZipFile(bad, "w") as out:
        for name in z.namelist():
            if name != f"{member}.npy":
                out.writestr(name, z.read(name))
        if array is not None:
            buffer = io.BytesIO()
            np.save(buffer, array)
            out.writestr(f"{member}.npy", buffer.getvalue())
    return bad


@pytest.fixture
def good(tmp_path):
    path = tmp_path / "good.npz"
    write_trace(corpus_trace(load_corpus(H100 / "instructions.json"), "corpus"), path)
    return path


def test_older_files_with_whole_lane_columns_still_read(good, tmp_path):
    """A file as simsmem wrote them before lane patterns: ``c0.addrs`` of shape (n, 32), members stored."""
    trace = load_trace(good)
    old = tmp_path / "old.npz"
    with zipfile.ZipFile(good) as z, zipfile.ZipFile(old, "w", compression=zipfile.ZIP_STORED) as out:
        for name in z.namelist():
            if not name.startswith("c0.addrs."):
                out.writestr(name, z.read(name))
        buffer = io.BytesIO()
        np.save(buffer, trace.instructions.addrs)
        out.writestr("c0.addrs.npy", buffer.getvalue())
    same(load_trace(old).instructions, trace.instructions)


@pytest.mark.parametrize(("member", "change", "what"), [
    ("c0.addrs.pattern", lambda a: a + 10_000, "a pattern id outside the table's"),
    ("c0.addrs.pattern", lambda a: a.astype(np.int64), "expected int32, got int64"),
    ("c0.addrs.table", lambda a: a.astype(np.int32) + INACTIVE - 2, "an offset below -1"),  # (as int32 offsets, 2 lower)
    ("c0.addrs.table", lambda a: a.astype(np.int16), "expected int32 or a narrower unsigned dtype, got int16"),
    ("c0.addrs.table", lambda a: a.astype(np.uint32), "expected int32 or a narrower unsigned dtype, got uint32"),
    ("c0.addrs.table", lambda a: a[:, :31], "expected bases (n,), pattern ids (n,) and a table (p, 32)"),
    ("c0.addrs.base", lambda a: a + (2**31 - 1 - int(a.max())), "a base and an offset beyond int32"),
    ("c0.addrs.base", None, "missing member 'c0.addrs.base'"),
])
def test_bad_patterns_are_one_line(good, tmp_path, refused, member, change, what):
    array = None if change is None else change(np.load(io.BytesIO(zipfile.ZipFile(good).read(f"{member}.npy"))))
    bad = _rewritten(good, tmp_path / "bad.npz", member, array)
    refused("run", bad, where=("bad.npz",), what=what)


def test_whole_and_patterned_members_together_are_refused(good, tmp_path, refused):
    bad = _rewritten(good, tmp_path / "bad.npz", "c0.addrs", load_trace(good).instructions.addrs)
    refused("run", bad, where=("bad.npz",), what="unexpected member 'c0.addrs.base'")


def test_members_are_deflated(good):
    """The corpus's columns repeat: every chunk member deflates to less than half (the header's 175 bytes need not)."""
    with zipfile.ZipFile(good) as z:
        assert {i.compress_type for i in z.infolist() if i.filename.startswith("c0.")} == {zipfile.ZIP_DEFLATED}
        assert np.load(io.BytesIO(z.read("c0.addrs.table.npy"))).dtype == np.uint16  # (the corpus's offsets: up to 7,937)
    assert sum(1 for c in open_trace(good).chunks for _ in [c]) == 1


def test_a_random_lane_table_is_narrow_and_stored(tmp_path):
    """Offsets spread over 48 KiB: the table as uint16 (each offset plus one), stored, for deflating saves less than half
    of it; the column's repeating fields deflated; the trace reads back column for column."""
    rng = np.random.default_rng(1)
    n = 4096
    addrs = rng.integers(0, 48 * 1024 // 4, (n, LANES)).astype(np.int32) * 4
    active = rng.random((n, LANES)) >= 0.2
    addrs[~active] = INACTIVE
    mask = (active.astype(np.uint32) << np.arange(LANES, dtype=np.uint32)).sum(axis=1, dtype=np.uint32)
    columns = {name: f.filled(n) for name, f in COLUMNS.items()} | {"width": np.full(n, 32, np.uint8), "mask": mask,
                                                                    "warp": np.arange(n, dtype=np.int32) % 32, "addrs": addrs}
    trace = Trace(InstructionBatch(**columns), name="random")
    path = tmp_path / "r.npz"
    round_trip(trace, path)
    with zipfile.ZipFile(path) as z:
        table = np.load(io.BytesIO(z.read("c0.addrs.table.npy")))
        kinds = {i.filename: i.compress_type for i in z.infolist()}
    assert table.dtype == np.uint16 and table.min() == 0
    assert kinds["c0.addrs.table.npy"] == zipfile.ZIP_STORED and kinds["c0.op.npy"] == kinds["c0.warp.npy"] == zipfile.ZIP_DEFLATED


def test_int32_lane_tables_still_read(good, tmp_path):
    """A file as simsmem wrote them before narrow tables: the table as int32 offsets, -1 where a lane gives none."""
    wide = np.load(io.BytesIO(zipfile.ZipFile(good).read("c0.addrs.table.npy"))).astype(np.int32) + INACTIVE
    same(load_trace(_rewritten(good, tmp_path / "old.npz", "c0.addrs.table", wide)).instructions, load_trace(good).instructions)
