"""What the tests share: the hypothesis profiles (deterministic in CI), the repository's paths, a few lane
patterns (names a module needs when it is imported), the tracing of a real-kernel corpus entry, and fixtures. Hypothesis strategies are in
``strategies.py``; no test module imports another."""

import os
import sys
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, settings
from simsmem.cli import main
from simsmem.config import load_arch
from simsmem.corpus import entry_launch
from simsmem.kernel.launch import Launch
from simsmem.kernel.tracer import Execution, describe, select_ctas, trace_stream
from simsmem.traces import Trace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the calibration scripts (calibration.harness, ...): the repository's, not the wheel's

settings.register_profile("ci", max_examples=200, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

H100 = ROOT / "calibration" / "h100"
REALK = ROOT / "calibration" / "realk"


def neighbour_ptx(version: str = "8.0") -> str:
    """A PTX kernel written here, ``k(out)``: one warp stores its lane to shared memory and reads its neighbour's back
    (1 STS, 1 LDS), under the PTX ``version`` given."""
    return f""".version {version}
.target sm_90
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{{
\t.reg .b32 %r<4>;
\t.reg .b64 %rd<4>;
\t.shared .align 4 .b8 buf[132];
\tld.param.u64 %rd1, [k_param_0];
\tcvta.to.global.u64 %rd2, %rd1;
\tmov.u32 %r1, %tid.x;
\tshl.b32 %r2, %r1, 2;
\tmov.u32 %r3, buf;
\tadd.s32 %r3, %r3, %r2;
\tst.shared.u32 [%r3], %r1;
\tbar.sync 0;
\tld.shared.u32 %r1, [%r3+4];
\tst.global.u32 [%rd2], %r1;
\tret;
}}
"""


def launch_entry(entry: dict) -> tuple:
    """A calibration/realk manifest entry's program, launch and CTAs (all of the grid), as its ``args`` and ``globals`` say."""
    program, launch = entry_launch(entry, REALK)
    return program, launch, select_ctas(launch, None)


def trace_entry(entry: dict, execution: Execution | None = None) -> tuple[Launch, dict, Trace]:
    """A calibration/realk manifest entry traced on the CPU for its whole grid: its launch (the global memory after the
    run), the trace's kernel header (``executed`` set) and the trace; ``execution`` gets the run's counts."""
    program, launch, ctas = launch_entry(entry)
    header = describe(program, launch, ctas, entry["args"], entry["smem"], entry.get("globals"))
    return launch, header, trace_stream(program, launch, ctas, header, execution=execution).read()

#: LDS.32 lanes: one word from every bank (1 wavefront), two words per bank (2 wavefronts), and LDS.64 lanes over
#: 256 bytes whose half-warps clash (2 wavefronts).
ROW = tuple(range(0, 128, 4))
TWO_WAY = tuple(lane % 16 * 4 + lane // 16 * 128 for lane in range(32))
WIDE = tuple(range(0, 256, 8))


@pytest.fixture(scope="session")
def sm90():
    """The built-in sm_90 config."""
    return load_arch("sm_90")


@pytest.fixture
def jsonl():
    """``jsonl(path, *instructions, header=None)``: write a JSON Lines trace (instructions as objects, or raw bytes
    for a line) and return its path."""

    def write(path, *instructions, header=None):
        lines = [orjson.dumps(header or {"simsmem_trace": 1})] + [i if isinstance(i, bytes) else orjson.dumps(i) for i in instructions]
        path.write_bytes(b"\n".join(lines) + b"\n")
        return path

    return write


@pytest.fixture
def refused(capsys):
    """``refused(*argv, where=(), what="")``: run the CLI; it must exit 2 with one line on stderr naming every part of
    ``where`` and saying ``what``, and write nothing on stdout. Returns the line."""

    def run(*argv, where=(), what=""):
        rc = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        assert rc == 2, err
        assert out == ""
        assert err.count("\n") == 1 and err.startswith("simsmem: ") and "Traceback" not in err, err
        for part in where:
            assert part in err, err
        assert what in err, err
        return err

    return run
