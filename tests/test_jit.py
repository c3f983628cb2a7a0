"""simsmem.jit: a function run as plain Python (what a small input gets) gives what numba's compiled one does, for
every function marked ``plain`` (the counting model, the lane-list parser and checks, the pattern decoder); and a
small run imports no numba (a regression guard on start-up: docs/performance.md)."""

import subprocess
import sys
from pathlib import Path

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from simsmem import jit
from simsmem.banks import count
from simsmem.banks.model import _count_rows
from simsmem.traces import INACTIVE, LANES, InstructionBatch
from simsmem.traces.lanes import first_bad_lane, first_misplaced, parse_lists
from simsmem.traces.patterns import Patterns
from strategies import instructions

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module", autouse=True)
def loaded():
    """numba loaded, so that calls outside ``plain_calls`` run compiled."""
    _count_rows.dispatcher


def both(f, *args):
    """``f(*args)`` as plain Python, then compiled."""
    with jit.plain_calls():
        plain = f(*args)
    return plain, f(*args)


@settings(max_examples=40)
@given(st.lists(instructions(), min_size=1, max_size=16))
def test_count(sm90, batch):
    plain, compiled = both(count, InstructionBatch.from_instructions(batch), sm90)
    for name in attrs.fields_dict(type(plain)):
        assert np.array_equal(getattr(plain, name), getattr(compiled, name)), name


LANE = st.one_of(st.just("null"), st.integers(0, 2**40).map(str), st.sampled_from(["-1", "1.5", "01", '"7"', " 3 ", "nul"]))


@settings(max_examples=40)
@given(st.lists(st.lists(LANE, min_size=31, max_size=33), min_size=1, max_size=4), st.sampled_from([2**31 - 1, 2**63 - 1]))
def test_parse_lists(rows, limit):
    text = "\n".join("[" + ",".join(row) + "]" for row in rows).encode()
    plain, compiled = both(parse_lists, text, len(rows), limit)
    assert (plain is None) == (compiled is None)
    assert plain is None or np.array_equal(plain, compiled)


@given(st.integers(0, 2**32 - 1), st.integers(0, 4), st.booleans(), st.booleans(), st.integers(0, 2**31))
def test_lane_checks(mask, num, matrix, used, seed):
    rng = np.random.default_rng(seed)
    lanes = np.where(rng.random((3, LANES)) < 0.3, INACTIVE, rng.integers(0, 1 << 16, (3, LANES)))
    size = rng.choice([1, 2, 4, 8, 16], 3)
    plain, compiled = both(first_bad_lane, lanes, size, 1 << 15)
    assert plain == compiled
    args = lanes, np.full(3, used), np.full(3, matrix), np.full(3, num, np.uint8), np.full(3, mask, np.uint32)
    plain, compiled = both(first_misplaced, *args)
    assert plain == compiled


@given(st.integers(0, 2**31))
def test_patterns(seed):
    rng = np.random.default_rng(seed)
    column = np.where(rng.random((20, LANES)) < 0.2, INACTIVE, rng.integers(0, 4, (20, 1)) * 64 + rng.integers(0, 3, (1, LANES)) * 4)
    p = Patterns.of(column.astype(np.int32))
    plain, compiled = both(p.column)
    assert np.array_equal(plain, compiled) and np.array_equal(compiled, column)
    plain, compiled = both(Patterns.quick, column.astype(np.int32))
    assert all(np.array_equal(getattr(plain, k), getattr(compiled, k)) for k in ("base", "pattern", "table"))


def test_small_run_imports_no_numba():
    """``simsmem run`` of a 2-instruction trace, table and timing engine, runs without importing numba."""
    code = ("import sys; from simsmem.cli import main; main(['run', 'traces/ldsm_x4.json', '--quiet']); "
            "print('numba' in sys.modules, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stderr.strip() == "False"


def test_plain_calls_are_per_thread():
    """A thread inside ``plain_calls`` (a small input) leaves another thread's calls compiled (``--jobs`` reads a trace
    file's chunks on threads)."""
    import threading

    probe = jit.Compiled(lambda: "plain", {}, plain=True)
    probe._dispatcher = lambda: "compiled"  # (a stand-in for numba's: what the call path picks is under test)
    try:
        seen = []
        with jit.plain_calls():
            worker = threading.Thread(target=lambda: seen.append(probe()))
            worker.start()
            worker.join()
            seen.append(probe())
        assert seen == ["compiled", "plain"]
    finally:
        jit._ALL.remove(probe)
