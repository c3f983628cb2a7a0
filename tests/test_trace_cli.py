"""``simsmem trace`` and ``simsmem run KERNEL`` through the CLI: what a user gets, and one line for every bad input.

Provenance: kernels of calibration/realk (the PTX the H100 ran) and small PTX written here; expected counts are the
H100's (calibration/realk/manifest.json, entries named), error texts the CLI's own (regression guards).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from simsmem.cli import main
from simsmem.traces import load_trace

REALK = Path(__file__).resolve().parent.parent / "calibration" / "realk"
MANIFEST = {e["name"]: e for e in json.loads((REALK / "manifest.json").read_text())}


def launch(name: str) -> list[str]:
    """The launch options of a corpus entry."""
    e = MANIFEST[name]
    return [str(REALK / e["ptx"]), "--kernel", e["kernel"], "--grid", ",".join(map(str, e["grid"])), "--block", ",".join(map(str, e["block"])),
            "--smem", str(e["smem"])] + [f"--arg={a if not a.startswith('npy:') else 'npy:' + str(REALK / a[4:])}" for a in e["args"]]


def refused(capsys, argv, *parts, out: Path | None = None):
    """The CLI exits 2 with one line naming every part, prints nothing on stdout, and writes no ``out``."""
    rc = main([str(a) for a in argv])
    stdout, err = capsys.readouterr()
    assert rc == 2, err
    assert stdout == "" and err.count("\n") == 1 and err.startswith("simsmem: ") and "Traceback" not in err, err
    for part in parts:
        assert part in err, err
    if out is not None:
        assert not out.exists() and not list(out.parent.glob(f".{out.name}.*"))
    return err


def test_trace_writes_what_run_counts(tmp_path, capsys):
    """reduce1_strided (../shared/realk, H100): ld 1520 wavefronts? no: the entry's own counters, 13440 executed."""
    out = tmp_path / "r.jsonl.gz"
    assert main(["trace", *launch("reduce1_strided"), "-o", str(out), "-q"]) == 0
    assert "17,408 executed" in capsys.readouterr().err  # smsp__inst_executed.sum of reduce1_strided
    trace = load_trace(out)
    assert trace.kernel["entry"] == "reduce1_strided" and trace.kernel["executed"] == 17408
    assert {i.pc for i in trace.instructions} == {int(pc, 16) for pc in trace.kernel["code"]}
    assert main(["run", str(out), "--engine", "analytic", "--format", "json"]) == 0
    metrics = json.loads(capsys.readouterr().out)["metrics"]
    for k in ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
              "smsp__inst_executed_op_shared_st.sum", "smsp__inst_executed.sum"):
        assert metrics[k] == MANIFEST["reduce1_strided"]["ncu"][k], k


def test_run_takes_a_kernel(capsys):
    assert main(["run", *launch("transpose_smem_padded"), "--engine", "analytic", "--format", "json", "-q"]) == 0
    metrics = json.loads(capsys.readouterr().out)["metrics"]
    assert metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == MANIFEST["transpose_smem_padded"]["ncu"]["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]


def test_one_cta(tmp_path, capsys):
    out = tmp_path / "one.npz"
    assert main(["trace", *launch("reduce2_sequential"), "--cta", "3,0,0", "-o", str(out), "-q"]) == 0
    trace = load_trace(out)
    assert trace.kernel["ctas"] == [[3, 0, 0]] and trace.kernel["executed"] == 13440 // 16
    assert set(trace.instructions.warp.tolist()) == set(range(3 * 8, 4 * 8))  # CTA 3's warps keep their grid-wide numbers


def test_explain_names_the_ptx_line(tmp_path, capsys):
    out = tmp_path / "t.npz"
    assert main(["trace", *launch("transpose_smem_naive"), "-o", str(out), "-q"]) == 0
    capsys.readouterr()
    assert main(["explain", str(out), "-q"]) == 0
    text = capsys.readouterr().out
    assert "at: SASS 0x" in text and "transpose.ptx:" in text and "LDS" in text


@pytest.mark.parametrize("argv, parts", [
    (["--kernel", "nosuch"], ["--kernel", "no kernel named 'nosuch'", "reduce0_modulo"]),
    (["--kernel", "reduce"], ["--kernel", "matches several kernels"]),
])
def test_kernel_names(capsys, argv, parts):
    refused(capsys, ["trace", REALK / "ptx/reduce.ptx", *argv, "--grid", "1", "--block", "32", "-o", "x.npz"], *parts)


def _reduce(*args: str, smem: str = "1024", extra: tuple[str, ...] = ()) -> list[str]:
    return ["trace", str(REALK / "ptx/reduce.ptx"), "--kernel", "reduce0_modulo", "--grid", "16", "--block", "256", "--smem", smem,
            *[f"--arg={a}" for a in args], *extra]


@pytest.mark.parametrize("args, parts", [
    (("zeros:64", "4096"), ["--arg", "takes 3 arguments", "2 given"]),
    (("zeros:64", "zeros:64", "1.5"), ["argument 3", "reduce0_modulo_param_2", "integer"]),
    (("zeros:64", "zeros:64", "zeros:4"), ["argument 3", "pointer", "not a 64-bit integer"]),
    (("npy:/nonexistent.npy", "zeros:64", "4096"), ["argument 1", "cannot read a .npy file"]),
    (("zeros:64", "zeros:64", "4294967296"), ["argument 3", "does not fit 4 bytes"]),
    (("zeros:64", "zeros:64", "twelve"), ["argument 3", "expected an integer"]),
])
def test_bad_arguments(tmp_path, capsys, args, parts):
    out = tmp_path / "o.npz"
    refused(capsys, [*_reduce(*args), "-o", out], *parts, out=out)


def test_out_of_bounds_global_access_names_the_buffer_lane_and_line(tmp_path, capsys):
    out = tmp_path / "o.jsonl"
    err = refused(capsys, [*_reduce("zeros:1024", "zeros:64", "4096"), "-o", out], "argument 1", "out of bounds", "reduce.ptx:", "lane", out=out)
    assert "(warp " in err


def test_out_of_bounds_shared_access(tmp_path, capsys):
    out = tmp_path / "o.npz"
    refused(capsys, [*_reduce(f"npy:{REALK}/data/f32_red.npy", "zeros:64", "4096", smem="512"), "-o", out], "shared address", "past the CTA's shared window",
            "512 dynamic", out=out)


def test_a_loop_past_max_instructions(tmp_path, capsys):
    out = tmp_path / "o.npz"
    refused(capsys, [*_reduce(f"npy:{REALK}/data/f32_red.npy", "zeros:64", "4096", extra=("--max-instructions", "100")), "-o", out],
            "still running after 100 steps", "the loop from reduce.ptx:", out=out)


#: A loop that never ends (written here): every lane spins on a flag nobody sets.
SPIN = Path(__file__).resolve().parent.parent / "benchmarks" / "spin.cu"


def test_sigterm_leaves_no_file_behind(tmp_path):
    """A trace killed while it writes (SIGTERM, as ``kill`` and CI timeouts send) exits 130 and leaves neither its
    output nor the hidden temporary file."""
    out = tmp_path / "o.npz"
    proc = subprocess.Popen([sys.executable, "-m", "simsmem", "trace", str(SPIN), "--kernel", "spin", "--grid", "1", "--block", "32",
                             "--arg", "zeros:4", "--arg", "zeros:128", "-o", str(out), "-q"], stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".o.npz.*")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list(tmp_path.glob(".o.npz.*")), "the trace never began writing"
    proc.send_signal(signal.SIGTERM)
    status, err = proc.wait(timeout=60), proc.stderr.read()
    assert status == 130, err
    assert not list(tmp_path.iterdir()), err


def test_a_loop_that_never_ends_is_named_by_its_source_lines(tmp_path, capsys):
    """The step limit stops it and names the loop's PTX and CUDA lines (a regression guard on the message; how long the
    default limit takes is benchmarks/bench_runaway.py's)."""
    out = tmp_path / "o.npz"
    refused(capsys, ["trace", SPIN, "--kernel", "spin", "--grid", "2", "--block", "64", "--arg", "zeros:4", "--arg", "zeros:256",
                     "--max-instructions", "3000", "-o", out], "still running after 3,000 steps", "the loop from spin.cu:5 to spin.cu:5", out=out)


@pytest.mark.parametrize("opts, parts", [
    (["--grid", "1,0"], ["--grid", "positive integers"]),
    (["--block", "2048"], ["--block", "1024"]),
    (["--grid", "2", "--cta", "5,0,0"], ["--cta", "outside the grid"]),
    (["--grid", "2", "--cta", "1,0"], ["--cta", "X,Y,Z"]),
])
def test_bad_launch(tmp_path, capsys, opts, parts):
    argv = ["trace", REALK / "ptx/reduce.ptx", "--kernel", "reduce0_modulo", "--grid", "1", "--block", "256", "--smem", "1024",
            f"--arg=npy:{REALK}/data/f32_red.npy", "--arg=zeros:64", "--arg=256", *opts, "-o", tmp_path / "o.npz"]
    refused(capsys, argv, *parts, out=tmp_path / "o.npz")


PTX_HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def _ptx(tmp_path, body: str, params: str = "") -> Path:
    path = tmp_path / "k.ptx"
    path.write_text(PTX_HEAD + f".visible .entry k({params})\n{{\n{body}\n}}\n")
    return path


def test_bad_ptx_names_the_file_and_ptxas_complaint(tmp_path, capsys):
    path = _ptx(tmp_path, "\tnot_an_instruction %r1;\n\tret;")
    refused(capsys, ["trace", path, "--kernel", "k", "--grid", "1", "--block", "32", "-o", tmp_path / "o.npz"], "k.ptx", "ptxas failed")


def test_a_trap(tmp_path, capsys):
    path = _ptx(tmp_path, "\ttrap;\n\tret;")
    refused(capsys, ["trace", path, "--kernel", "k", "--grid", "1", "--block", "32", "-o", tmp_path / "o.npz"], "k.ptx:", "traps")


def test_an_instruction_simsmem_does_not_execute(tmp_path, capsys):
    """A surface load (suld, SASS SULD) is a refusal the registry names: the error gives the PTX line, the SASS and why."""
    body = ("\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [k_param_0];\n\tmov.u32 %r1, 0;\n"
            "\tsuld.b.1d.b32.trap {%r2}, [%rd1, {%r1}];\n\tst.global.u32 [%rd1], %r2;\n\tret;")
    path = _ptx(tmp_path, body, ".param .u64 k_param_0")
    refused(capsys, ["trace", path, "--kernel", "k", "--grid", "1", "--block", "32", "--arg=zeros:64", "-o", tmp_path / "o.npz"], "k.ptx:", "SULD",
            "surfaces are not modelled")


def test_hopper_instructions_are_named_not_dropped(tmp_path, capsys):
    """A single-bit wgmma (BGMMA), which simsmem does not model: named before anything runs."""
    body = ("\t.reg .b64 %rd<4>;\n\t.reg .b32 %r<5>;\n\tld.param.u64 %rd1, [out];\n\twgmma.fence.sync.aligned;\n"
            "\twgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc {%r1, %r2, %r3, %r4}, %rd1, %rd1, 1;\n"
            "\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n\tst.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};\n\tret;")
    path = tmp_path / "w.ptx"
    path.write_text(".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n" + body + "\n}\n")
    refused(capsys, ["trace", path, "--kernel", "k", "--grid", "1", "--block", "128", "--arg", "zeros:64", "-o", tmp_path / "o.npz"],
            "Hopper-only", "wgmma (BGMMA)")


def test_not_a_kernel_file(tmp_path, capsys):
    path = tmp_path / "k.txt"
    path.write_text("hello")
    refused(capsys, ["trace", path, "--kernel", "k", "--grid", "1", "--block", "32", "-o", tmp_path / "o.npz"], "k.txt", "expected a kernel")
