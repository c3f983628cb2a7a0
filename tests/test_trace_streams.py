"""A trace ``simsmem trace`` writes carries the warps' streams, so ``simsmem run`` and ``explain`` of the file time the
launch on the timed SM exactly as given the kernel; a trace without them gets the LSU engine, and says so.

Provenance: the PTX kernel below, written here (no measurement: every comparison is simsmem against itself, a
regression guard that the file and the kernel take one path), and the kernels of calibration/realk (their SASS).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import attrs
import numpy as np
import orjson
import pytest
from simsmem.cli import main
from simsmem.kernel.program import load_program
from simsmem.kernel.sass import Control, controls, parse_text
from simsmem.kernel.streams import WarpStreams
from simsmem.kernel.tracer import StreamSink, launch_kernel
from simsmem.traces import load_trace, write_trace
from simsmem.traces.records import STREAMS

REALK = Path(__file__).resolve().parent.parent / "calibration" / "realk"

#: Two warps a CTA: each loads a float, stores it down a column of ``tile`` (lane * 128 + warp * 4: 32-way bank
#: conflicts), waits at the barrier, reads a row back and stores it. 264 CTAs: the timed SM (one of sm_90's 132) runs two.
PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 k_out, .param .u64 k_in)
{
\t.reg .b32 %r<10>;
\t.reg .b64 %rd<8>;
\t.reg .f32 %f<3>;
\t.shared .align 4 .b8 tile[4096];
\tld.param.u64 %rd1, [k_out];
\tld.param.u64 %rd2, [k_in];
\tcvta.to.global.u64 %rd3, %rd1;
\tcvta.to.global.u64 %rd4, %rd2;
\tmov.u32 %r1, %tid.x;
\tmov.u32 %r2, %ctaid.x;
\tmov.u32 %r3, %ntid.x;
\tmad.lo.s32 %r4, %r2, %r3, %r1;
\tmul.wide.u32 %rd5, %r4, 4;
\tadd.s64 %rd6, %rd4, %rd5;
\tld.global.f32 %f1, [%rd6];
\tand.b32 %r5, %r1, 31;
\tshr.u32 %r6, %r1, 5;
\tshl.b32 %r7, %r5, 7;
\tshl.b32 %r8, %r6, 2;
\tadd.s32 %r7, %r7, %r8;
\tmov.u32 %r9, tile;
\tadd.s32 %r7, %r7, %r9;
\tst.shared.f32 [%r7], %f1;
\tbar.sync 0;
\tshl.b32 %r8, %r1, 2;
\tadd.s32 %r8, %r8, %r9;
\tld.shared.f32 %f2, [%r8];
\tadd.s64 %rd7, %rd3, %rd5;
\tst.global.f32 [%rd7], %f2;
\tret;
}
"""
LAUNCH = ["--kernel", "k", "--grid", "264", "--block", "64", "--arg=zeros:67584", "--arg=zeros:67584", "-q"]


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("streams") / "k.ptx"
    path.write_text(PTX)
    return path


@pytest.fixture(scope="module")
def traced(kernel) -> Path:
    """The kernel's trace as ``simsmem trace`` writes it (.npz)."""
    out = kernel.with_name("k.npz")
    assert main(["trace", str(kernel), *LAUNCH, "-o", str(out)]) == 0
    return out


def output(capsys, *argv) -> tuple[str, str]:
    assert main([str(a) for a in argv]) == 0
    return capsys.readouterr()


@pytest.mark.parametrize("form", ["npz", "jsonl.gz", "json"])
def test_a_trace_file_is_timed_as_its_kernel(kernel, traced, tmp_path, capsys, form):
    """``simsmem run`` of the trace prints what ``simsmem run`` of the kernel does: the table (cycles, stall reasons,
    stalls per SASS instruction, what a fix buys) and the JSON, in every form the trace may be written in."""
    path = traced if form == "npz" else tmp_path / f"k.{form}"
    if form != "npz":
        output(capsys, "convert", traced, path, "-q")
    for argv in ([], ["--format", "json", "--what-if", "2"]):
        of_kernel, _ = output(capsys, "run", kernel, *LAUNCH, *argv)
        of_file, _ = output(capsys, "run", path, "-q", *argv)
        assert of_file == of_kernel
    timing = json.loads(of_file)["timing"]
    assert timing["model"] == "timed SM" and timing["sm"]["ctas"] == 2  # CTAs 0 and 132 of the 264
    assert timing["stalls_by_sass"] and timing["what_if"][0]["bank_conflicts_removed"] == 264 * 2 * 31  # the STS's 31 a warp
    # ncu's sampler, one of the SM's active warps every 32 cycles: as many samples as the average SM's active cycles give,
    # each CTA of the launch counted as the simulated SM's (2 of 264); the launch's last SM, which sm__cycles_active.max
    # gives, meets DRAM's slow spells (264 CTAs on 132 SMs) and ends later
    samples = sum(v for row in timing["samples_by_sass"].values() for v in row.values())
    assert samples == pytest.approx(timing["sm"]["active"] / 32 * 264 / 2, rel=1e-3)
    assert json.loads(of_file)["metrics"]["sm__cycles_active.max"] > timing["sm"]["active"]
    assert "Warp states on the timed SM" in output(capsys, "run", path, "-q")[0]


@pytest.mark.parametrize("arch, why", [(None, "the trace holds no warp streams"), ("sm_80", "sm_80 has no timed SM")])
def test_otherwise_the_lsu_engine_times_it_and_says_so(traced, tmp_path, capsys, arch, why):
    """A trace without the streams (as hand-made, imported or older traces are), or on an arch without a timed SM."""
    path = traced
    if arch is None:
        path = tmp_path / "old.npz"
        write_trace(attrs.evolve(load_trace(traced), streams=None), path)
    out, err = output(capsys, "run", path, "-q", "--format", "json", *(["--arch", arch] if arch else []))
    assert json.loads(out)["timing"]["model"] == "LSU engine" and "stalls_by_sass" not in json.loads(out)["timing"]
    assert f"note: timed on the LSU engine, one CTA: {why}" in err
    out, _ = output(capsys, "run", path, "-q", *(["--arch", arch] if arch else []))
    assert "on the LSU engine" in out and "Warp states" not in out


def test_explain_shows_the_stall_reasons_of_the_sass_instruction(kernel, traced, capsys):
    """``explain`` of the kernel and of its trace: the explained instruction's stall cycles by reason, those ``run``
    gives for its SASS instruction (json ``stalls_by_sass``, less ``selected``, which is no stall)."""
    of_kernel, _ = output(capsys, "explain", kernel, *LAUNCH)
    of_file, _ = output(capsys, "explain", traced, "-q")
    assert of_file == of_kernel
    pc = int(re.search(r"^at: SASS (0x[0-9a-f]+) STS", of_file, re.MULTILINE).group(1), 16)
    line = re.search(r"^stalls: ([\d,]+) cycles of the launch's warps at this SASS instruction \(timed SM\): (.*)$", of_file, re.MULTILINE)
    shown = {r: int(v.replace(",", "")) for r, v in (part.rsplit(" ", 1) for part in line.group(2).split(", "))}
    run = json.loads(output(capsys, "run", traced, "-q", "--format", "json")[0])["timing"]["stalls_by_sass"][f"{pc:#06x}"]
    assert shown == {r: v for r, v in run.items() if r != "selected" and v} and int(line.group(1).replace(",", "")) == sum(shown.values())
    assert shown  # the store waits: for its global load's data (long_scoreboard)


@pytest.mark.parametrize("form", ["npz", "jsonl", "json"])
def test_streams_round_trip(traced, tmp_path, form):
    """Every field of the streams reads back as written, and the sink they make gives them back."""
    given = load_trace(traced).streams
    path = tmp_path / f"k.{form}"
    write_trace(load_trace(traced), path)
    back = load_trace(path).streams
    again = StreamSink.of(back, str(path)).record()
    for name, part in STREAMS.items():
        for other in (back, again):
            assert getattr(other, name).dtype.type is part.dtype and np.array_equal(getattr(other, name), getattr(given, name)), name


def test_the_sink_a_trace_holds_is_the_tracers(kernel, sm90):
    """Every field of the warp streams the timed SM gets from a trace's ``streams`` is the tracer's own (a field added
    to ``WarpStreams`` but not to the trace format fails here)."""
    sink = StreamSink(sm90.sm.sms)
    stream, _ = launch_kernel(kernel, "k", (264, 1, 1), (64, 1, 1), 0, ["zeros:67584", "zeros:67584"], sink=sink)
    for _ in stream.chunks:
        pass
    held = StreamSink.of(sink.record(), "k")
    given, back = sink.streams(), held.streams()
    for f in attrs.fields(WarpStreams):
        a, b = getattr(given, f.name), getattr(back, f.name)
        if f.name in ("code", "control", "ctas", "warps_per_cta"):
            assert a == b, f.name
        else:
            assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b)) and len(a), f.name
    assert (held.sms, held.ctas, held.resources, held.code) == (sink.sms, sink.ctas, sink.resources, sink.code)


def _round_trips(program) -> None:
    """Each SASS instruction's text parses back to it, and each control code's bits back to it."""
    for ins, control in zip(program.code, controls(program.kernel.text), strict=True):
        assert parse_text(ins.pc, ins.text) == ins, ins.text
        assert Control.of(control.bits << 41) == control


def test_sass_text_and_control_codes_round_trip(kernel):
    _round_trips(load_program(kernel, "k"))


@pytest.mark.slow
def test_sass_text_of_the_corpus_round_trips():
    """Every kernel of calibration/realk/manifest.json (91 kernels, 23,536 instructions when written)."""
    entries = {(e["ptx"], e["kernel"]) for e in json.loads((REALK / "manifest.json").read_text())}
    for ptx, name in sorted(entries):
        _round_trips(load_program(REALK / ptx, name))


def _edit(doc: dict, field: str, change) -> None:
    doc["streams"][field] = change(doc["streams"][field])


BAD = [
    ("sms", lambda v: [v], "streams.sms", "expected one number"),
    ("warps", lambda v: True, "streams.warps", "expected integers"),
    ("pc", lambda v: v[:-1], "streams.pc", "shape"),
    ("pc", lambda v: [v[0] + 4] + v[1:], "streams.pc", "multiple of 16"),
    ("row", lambda v: [10**6] + v[1:], "streams.row", "past the trace's instructions"),
    ("row", lambda v: [-2] + v[1:], "streams.row", "at least -1"),
    ("row", lambda v: [2 if r >= 0 else r for r in v], "streams.row", "row 2 is not one of the rows of the streams' CTAs"),  # CTA 1's
    ("sass", lambda v: ["IADD3 R1, R2, %%"] + v[1:], "streams.sass", "instruction 0 (0x0000)"),
    ("sass", lambda v: [1] * len(v), "streams.sass", "expected text"),
    ("control", lambda v: [1 << 21] + v[1:], "streams.control", "21 bits"),
    ("size", lambda v: [v[0] + 1] + v[1:], "streams.sector", "shape"),
]


@pytest.mark.parametrize("field, change, where, what", BAD, ids=[f"{b[0]}-{b[3]}" for b in BAD])
def test_bad_streams_are_one_line(traced, tmp_path, capsys, field, change, where, what):
    path = tmp_path / "k.json"
    write_trace(load_trace(traced), path)
    doc = orjson.loads(path.read_bytes())
    _edit(doc, field, change)
    path.write_bytes(orjson.dumps(doc))
    assert main(["run", str(path), "-q"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert f"{path}: {where}" in err and what in err, err


@pytest.mark.parametrize("doc, what", [({"extra": 1}, "unknown field 'extra'"), ({}, "missing field 'sms'")])
def test_the_streams_object_has_every_field_and_no_other(traced, tmp_path, capsys, doc, what):
    path = tmp_path / "k.json"
    write_trace(load_trace(traced), path)
    whole = orjson.loads(path.read_bytes())
    whole["streams"] = {**whole["streams"], **doc} if doc else {k: v for k, v in whole["streams"].items() if k != "sms"}
    path.write_bytes(orjson.dumps(whole))
    assert main(["run", str(path), "-q"]) == 2
    assert what in capsys.readouterr().err
