"""The README's quick start and its Python examples run as written, in a new process, as a new user would run them.

Regression guards on what the README promises (its printed counts are the H100's for the transpose: 3,968 load bank
conflicts, calibration/realk's transpose_smem_naive); the examples' own asserts check the outputs.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def _blocks(section: str, language: str) -> list[str]:
    body = README.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{language}\n(.*?)```", body, re.S)


def test_the_quick_start_runs(tmp_path):
    command = _blocks("Install", "bash")[0].split("&& ")[-1].split()
    assert command[:2] == ["simsmem", "run"]
    proc = subprocess.run([sys.executable, "-m", "simsmem", *command[1:]], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "LDSM.16.M88.4" in proc.stdout


@pytest.mark.slow  # compiles a CUDA kernel and a Triton one, and traces and times both (about 20 s)
def test_the_python_examples_run_as_written(tmp_path):
    pytest.importorskip("triton")  # the [test] extra brings it
    script = tmp_path / "examples.py"
    script.write_text("\n".join(_blocks("Your kernel", "python")))
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert lines[0] == "3968" and lines[1] == "__shared__ float tile[32][33]", proc.stdout[:500]
