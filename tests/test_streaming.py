"""Counting a trace chunk by chunk gives what counting it whole gives.

Provenance: the whole-trace numbers come from ``analyse`` (held to the H100 corpus by
test_calibration.py); the traces are the 310 corpus rows, repeated and shuffled.
"""

import numpy as np
import pytest
from conftest import H100
from simsmem.cli import main
from simsmem.corpus import corpus_trace, load_corpus
from simsmem.results.analysis import analyse, analyse_stream
from simsmem.results.metrics import labels
from simsmem.traces import Trace, write_trace
from simsmem.traces.jsonl import read_jsonl
from simsmem.traces.stream import stream_of

ROWS = load_corpus(H100 / "instructions.json")


@pytest.fixture(scope="module")
def trace():
    """The corpus three times over, shuffled, warps 0..7, 5 CTAs: 930 instructions."""
    b = corpus_trace(ROWS * 3).instructions
    order = np.random.default_rng(7).permutation(len(b))
    b = b.take(order)
    b.warp[:] = np.arange(len(b)) % 8
    return Trace(b, name="shuffled", ctas=5)


@pytest.mark.parametrize("chunk", [1, 7, 128, 10_000])
def test_summary_equals_whole_trace(trace, sm90, chunk):
    whole = analyse(trace, sm90)
    s = analyse_stream(stream_of(trace, chunk=chunk), sm90, worst=25)
    assert s.metrics == whole.metrics
    assert s.instructions == 930 and s.ctas == 5 and s.name == "shuffled"
    names = labels(trace.instructions)
    c = whole.counts
    assert s.forms == {
        n: (int((names == n).sum()), int(c.wavefronts[names == n].sum()), int(c.ideal[names == n].sum()), int(c.bank_conflicts[names == n].sum()))
        for n in sorted(set(names))
    }
    order = np.argsort(-c.bank_conflicts, kind="stable")[:25]
    assert [w.index for w in s.worst] == list(order)
    assert [(w.warp, w.sass, w.bank_conflicts) for w in s.worst] == [(int(trace.instructions.warp[i]), names[i], int(c.bank_conflicts[i])) for i in order]


def test_streamed_file_in_small_chunks(tmp_path, trace, sm90):
    path = tmp_path / "t.jsonl.gz"
    write_trace(trace, path)
    steps = []
    s = analyse_stream(read_jsonl(path, chunk=64), sm90, advance=steps.append)
    assert s.metrics == analyse(trace, sm90).metrics
    assert sum(steps) == path.stat().st_size  # the progress bar ends full


def test_every_form_prints_the_same_report(tmp_path, trace, capsys):
    outputs = set()
    for form in ("json", "jsonl", "jsonl.gz", "npz"):
        path = tmp_path / f"t.{form}"
        write_trace(trace, path)
        for fmt in ("table", "csv"):
            assert main(["run", str(path), "--format", fmt, "--quiet"]) == 0
            outputs.add((fmt, capsys.readouterr().out))
    assert len(outputs) == 2
