"""``simsmem explain`` on the command line, and the shared progress bars (``simsmem.progress``).

Provenance: traces/ldsm_x4.json is H100 row LDSM4_seed_v2 (calibration/h100/instructions.json: 8
wavefronts, 4 bank conflicts); traces/seeds/* are the seed kernels of calibration/h100/seed_kernels.json.
"""

import os
import re

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

from conftest import ROOT  # noqa: E402
from simsmem import progress  # noqa: E402
from simsmem.cli import main  # noqa: E402

LDSM = str(ROOT / "traces" / "ldsm_x4.json")


def seed(name):
    return str(ROOT / "traces" / "seeds" / f"{name}.json")


def test_explains_the_worst_instruction(capsys):
    assert main(["explain", LDSM]) == 0
    out = capsys.readouterr().out
    assert "instruction 0 (warp 0): LDSM.16.M88.4: 8 wavefronts, ideal 4, 4 bank conflicts" in out
    assert "rows 0-3 and 4-7 use the same banks" in out and "tile[i ^ (((i >> 6) & 1) << 3)]" in out  # CuTe Swizzle<1,3,3>


def test_worst_k_and_index(capsys):
    assert main(["explain", seed("v2_wmma"), "--worst", "3"]) == 0
    out = capsys.readouterr().out
    assert [line.split(":")[0] for line in out.splitlines() if line.startswith("instruction ")] == [
        "instruction 2 (warp 0)", "instruction 3 (warp 0)", "instruction 4 (warp 0)"]
    assert main(["explain", seed("v2_wmma"), "--index", "8"]) == 0
    assert "instruction 8 (warp 0): LDS" in capsys.readouterr().out


def test_no_conflicts_says_so_and_draws_nothing(tmp_path, capsys):
    out = tmp_path / "x.png"
    assert main(["explain", seed("trans_pad"), "--png", str(out)]) == 0
    assert "No bank conflicts in the 64 instructions of trans_pad" in capsys.readouterr().out
    assert not out.exists()


def test_png_and_svg_with_the_tile_view(tmp_path, capsys):
    png, svg = tmp_path / "w.png", tmp_path / "w.svg"
    assert main(["explain", LDSM, "--png", str(png), "--tile", "--rows", "16", "--cols", "16"]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["explain", seed("v5_mma_swizzle"), "--index", "2", "--svg", str(svg), "--tile", "--swizzle", "1", "3", "3"]) == 0
    assert svg.read_text().lstrip().startswith("<?xml")
    assert f"wrote {svg}" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.png", "w.svg"]  # no temporary files left


@pytest.mark.parametrize(
    "args, message",
    [
        ([LDSM, "--tile"], "--tile: the tile view is a picture: give --png or --svg too"),
        ([LDSM, "--index", "1"], "--index: no instruction 1: the trace has 1 (0..0)"),
        ([LDSM, "--png", "OUT", "--tile", "--rows", "8"], "--tile: instruction 0 touches byte 256, outside tile"),
        ([LDSM, "--png", "no/such/dir/x.png"], "no/such/dir/x.png: cannot write"),
        (["missing.json"], "missing.json: cannot read trace"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message, capsys, tmp_path):
    out = tmp_path / "out.png"
    assert main(["explain", *(str(out) if a == "OUT" else a for a in args)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_quiet_and_non_terminal_stderr_stay_silent(capsys):
    assert main(["explain", seed("trans_shm1"), "--quiet"]) == 0
    assert main(["explain", seed("trans_shm1")]) == 0  # stderr is captured: not a terminal
    assert capsys.readouterr().err == ""


def test_progress_draws_on_a_terminal_after_the_delay(capsys, monkeypatch):
    """FORCE_COLOR makes rich treat stderr as a terminal; with no delay the bar is drawn, then cleared."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setattr(progress, "DELAY", 0.0)
    assert list(progress.track(range(3), "counting")) == [0, 1, 2]
    assert "counting" in capsys.readouterr().err
    for item in progress.track(range(3), "quiet please", quiet=True):
        pass
    monkeypatch.setattr(progress, "DELAY", 60.0)
    with progress.progress("too quick to show") as advance:
        advance()
    err = capsys.readouterr().err
    assert "quiet please" not in err and "too quick to show" not in err


def test_run_lists_the_arrays_that_region_takes(capsys):
    """``simsmem run`` names each shared array with its base, element and shape (a generated trace's tile: ``tile``)."""
    assert main(["run", seed("trans_shm1")]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("│ tile "))
    assert [c.strip() for c in row.strip("│").split("│")] == ["tile", "0x0", "4,096", "float (4 B)", "[32][32]", ""]


@pytest.mark.slow
def test_a_kernel_is_traced_timed_and_its_fix_stated(capsys):
    """A kernel as input (corpus entry transpose_smem_naive, one CTA): the fix in its own terms, with the cycles the
    timed SM predicts for the launch as written and with the fix (simsmem against itself: a regression guard)."""
    realk = ROOT / "calibration" / "realk"
    launch = [str(realk / "ptx" / "transpose.ptx"), "--kernel", "transpose_smem_naive", "--grid", "2,2", "--block", "32,8", "--cta", "0,0,0",
              "--arg=zeros:16384", f"--arg=npy:{realk / 'data' / 'f32_t64.npy'}", "--arg=64", "--arg=64", "--quiet"]
    assert main(["explain", *launch]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("diagnosis: "))
    assert re.search(r"-> tile\[32\]\[32\]: __shared__ float tile\[32\]\[33\] \(1,056 -> 64 wavefronts, ([\d,]+) -> ([\d,]+) cycles\)$", line)
    before, after = (int(x.replace(",", "")) for x in re.search(r"([\d,]+) -> ([\d,]+) cycles", line).groups())
    assert after < before
    assert main(["swizzle", "--search", "--trace", *launch, "--region", "tile", "--top", "2"]) == 0
    assert "best: tile[32][32]: write __shared__ float tile[32][33] (1,056 -> 64 wavefronts" in capsys.readouterr().out


def test_a_picture_without_matplotlib_is_one_line(tmp_path, capsys, monkeypatch):
    """Where matplotlib is not installed, --png says how to get it (one line, status 2) before any work."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    trace = tmp_path / "t.json"
    assert main(["gen", "tile", "--rows", "32", "--cols", "32", "--elem-bytes", "4", "--access", "LDS@col", "-o", str(trace)]) == 0
    capsys.readouterr()
    assert main(["explain", str(trace), "--png", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--png: drawing needs matplotlib: pip install 'simsmem[plots]'" in err and not (tmp_path / "x.png").exists()
