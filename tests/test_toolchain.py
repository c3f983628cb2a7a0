"""The toolchain ``simsmem trace`` runs: which ptxas assembles a PTX, what the trace says of it, and the headers and
tools the ``[cuda]`` extra brings.

Regression guards of simsmem's own choices (no hardware numbers here): the pinned ptxas 13.0.88 is the measured
driver's (580, CUDA 13.0; docs/kernels.md); the PTX and CUDA sources are written here. The stand-in newer ptxas of
``test_newer_ptx_takes_the_oldest_newer_ptxas_at_hand`` is the pinned one behind a ``--version`` of 13.4.92, so that
the choice is tested without a download; ``test_a_real_newer_ptxas_from_pip`` (slow) fetches the real one.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import neighbour_ptx
from simsmem.cli import main
from simsmem.kernel import program, toolchain


def ptx(tmp_path: Path, version: str) -> Path:
    path = tmp_path / f"k{version.replace('.', '')}.ptx"
    path.write_text(neighbour_ptx(version))
    return path


@pytest.fixture(autouse=True)
def fresh(monkeypatch, tmp_path):
    """Each test with its own ptxas cache, no Triton's ptxas (were Triton installed), and none of the choices a test before it made."""
    monkeypatch.setenv("SIMSMEM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(toolchain, "triton_ptxases", lambda: [])
    toolchain.assembler.cache_clear()
    program.assemble.cache_clear()
    yield
    toolchain.assembler.cache_clear()
    program.assemble.cache_clear()


def trace(capsys, path: Path, out: Path) -> tuple[int, dict, str]:
    rc = main(["trace", str(path), "--kernel", "k", "--grid", "1", "--block", "32", "--arg=zeros:128", "-o", str(out), "-q"])
    err = capsys.readouterr().err
    return rc, (json.loads(out.read_text())["kernel"] if rc == 0 else {}), err


def test_newer_ptx_takes_the_oldest_newer_ptxas_at_hand(tmp_path, capsys):
    """PTX .version 9.4 (Triton 3.9's for sm_90): the pinned ptxas refuses it; a 13.4 in the cache takes it, a 13.5 beside it does
    not; .version 9.0 stays with the pinned one."""
    for v in ("13.4.92", "13.5.37"):
        stand_in = tmp_path / "cache" / f"ptxas-{v}" / "ptxas"
        stand_in.parent.mkdir(parents=True)
        stand_in.write_text(f'#!/bin/sh\n[ "$1" = "--version" ] && {{ echo "Cuda compilation tools, V{v}"; exit 0; }}\n'
                            "for a; do case $a in *.ptx) sed -i 's/^.version 9.4/.version 9.0/' \"$a\";; esac; done\n"
                            f'exec {toolchain.tool("ptxas")} "$@"\n')
        stand_in.chmod(0o755)
    rc, kernel, err = trace(capsys, ptx(tmp_path, "9.4"), tmp_path / "t.json")
    assert rc == 0, err
    assert kernel["ptxas"]["version"] == "13.4.92" and "ptxas-13.4.92" in kernel["ptxas"]["from"]
    assert "PTX .version 9.4" in kernel["ptxas"]["note"] and "CUDA 13.0" in kernel["ptxas"]["note"]
    assert "simsmem: note: PTX .version 9.4" in err
    rc, pinned, err = trace(capsys, ptx(tmp_path, "9.0"), tmp_path / "u.json")
    assert rc == 0 and pinned["ptxas"] == {"version": "13.0.88", "from": toolchain.tool("ptxas")}  # the measured driver's release: no note
    assert "note" not in err
    assert kernel["executed"] == pinned["executed"] == 13 and kernel["code"].keys() == pinned["code"].keys()  # the stand-in is the pinned ptxas


def test_no_newer_ptxas_to_be_had_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # pip download finds nothing, at once and offline
    out = tmp_path / "t.json"
    rc = main(["trace", str(ptx(tmp_path, "9.4")), "--kernel", "k", "--grid", "1", "--block", "32", "--arg=zeros:128", "-o", str(out), "-q"])
    err = capsys.readouterr().err.splitlines()
    assert rc == 2 and not out.exists()
    assert err[0].startswith("simsmem: fetching ptxas 13.4") and len(err) == 2, err
    assert "PTX ISA 9.4 needs ptxas 13.4 or newer" in err[1] and "SIMSMEM_CUDA_BIN" in err[1] and "Traceback" not in err[1]
    assert not list((tmp_path / "cache").glob("ptxas-*"))  # nothing half-unpacked left behind


def test_cuda_samples_headers_and_cuobjdump(tmp_path, capsys):
    """A .cu that includes cuda_profiler_api.h (as the CUDA samples' matrixMul does) traces; cuobjdump reads its cubin."""
    src = tmp_path / "k.cu"
    src.write_text("#include <cuda_profiler_api.h>\n#include <cuda_runtime.h>\n"
                   "__global__ void k(int *out) { __shared__ int s[33]; s[threadIdx.x] = threadIdx.x; __syncthreads();"
                   " out[threadIdx.x] = s[threadIdx.x + 1]; }\n")
    rc, kernel, err = trace(capsys, src, tmp_path / "t.json")
    assert rc == 0, err
    assert sorted(v["sass"].split()[0] for v in kernel["code"].values()) == ["LDS", "STS"]
    cubin = tmp_path / "k.cubin"
    cubin.write_bytes(toolchain.ptx_to_cubin(ptx(tmp_path, "9.0").read_text(), "k.ptx"))
    sass = subprocess.run([toolchain.tool("cuobjdump"), "-sass", str(cubin)], capture_output=True, text=True, check=True).stdout
    assert "Function : k" in sass and "LDS" in sass and "STS" in sass


@pytest.mark.slow
def test_a_real_newer_ptxas_from_pip(tmp_path, capsys):
    """The real thing: PTX .version 9.4 fetches CUDA 13.4's newest ptxas from pip (about 50 MB) into the cache, once."""
    rc, kernel, err = trace(capsys, ptx(tmp_path, "9.4"), tmp_path / "t.json")
    assert rc == 0, err
    assert kernel["ptxas"]["version"].startswith("13.4.") and "from pip" in kernel["ptxas"]["from"] and "fetching ptxas 13.4" in err
    assert sorted(v["sass"].split()[0] for v in kernel["code"].values()) == ["LDS", "STS"]
    toolchain.assembler.cache_clear()
    program.assemble.cache_clear()
    rc, again, err = trace(capsys, ptx(tmp_path, "9.4"), tmp_path / "u.json")
    assert rc == 0 and "fetching" not in err and again["ptxas"] == kernel["ptxas"]
