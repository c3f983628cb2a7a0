"""CUDA's compilers and disassembler, found and run: ``.cu`` -> PTX -> cubin -> SASS.

The tools come from NVIDIA's pip packages (``pip install 'simsmem[cuda]'``: nvcc and ptxas 13.0.88,
the version of the H100 driver the measured corpus ran on, and nvdisasm), from the folder in
``SIMSMEM_CUDA_BIN``, or from ``PATH``, in that order. None needs a GPU. A tool that is missing or
fails is a ``SimsmemError`` naming the input and the tool's first line of complaint.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import orjson

from ..errors import SimsmemError

INSTALL = "pip install 'simsmem[cuda]' (NVIDIA's nvcc, ptxas and nvdisasm), or set SIMSMEM_CUDA_BIN to a folder holding them"


@functools.cache
def tool(name: str) -> str:
    """The path of CUDA tool ``name`` (nvcc, ptxas, nvdisasm)."""
    folders: list[Path] = []
    if os.environ.get("SIMSMEM_CUDA_BIN"):
        folders.append(Path(os.environ["SIMSMEM_CUDA_BIN"]))
    try:
        import nvidia  # the namespace package of NVIDIA's CUDA wheels

        for root in getattr(nvidia, "__path__", []):
            folders += sorted(Path(root).glob("*/bin"))
    except ImportError:
        pass
    for folder in folders:
        if (folder / name).is_file() and os.access(folder / name, os.X_OK):
            return str(folder / name)
    found = shutil.which(name)
    if found:
        return found
    raise SimsmemError(name, f"not found; {INSTALL}")


def _run(args: list[str], where: str, what: str) -> bytes:
    try:
        done = subprocess.run(args, capture_output=True, timeout=600)
    except OSError as exc:
        raise SimsmemError(where, f"{what}: cannot run {args[0]} ({exc.strerror})") from None
    if done.returncode != 0:
        lines = [ln.strip() for ln in done.stderr.decode(errors="replace").splitlines() if ln.strip()]
        first = next((ln for ln in lines if "error" in ln.lower() or "fatal" in ln.lower()), lines[0] if lines else f"exit status {done.returncode}")
        raise SimsmemError(where, f"{what} failed: {first}")
    return done.stdout


def cu_to_ptx(source: Path, arch: str = "sm_90", lineinfo: bool = True) -> str:
    """``nvcc -ptx`` of a CUDA source file (with ``.loc`` line info unless ``lineinfo`` is off)."""
    with tempfile.TemporaryDirectory(prefix="simsmem-") as tmp:
        out = Path(tmp) / "kernel.ptx"
        _run([tool("nvcc"), f"-arch={arch}", "-ptx", *(["-lineinfo"] if lineinfo else []), str(source), "-o", str(out)], str(source), "nvcc -ptx")
        return out.read_text()


def ptx_to_cubin(ptx: str, where: str, arch: str = "sm_90", lineinfo: bool = False) -> bytes:
    """``ptxas -arch=ARCH`` of PTX text: the cubin the driver's JIT would make of it."""
    with tempfile.TemporaryDirectory(prefix="simsmem-") as tmp:
        src, out = Path(tmp) / "kernel.ptx", Path(tmp) / "kernel.cubin"
        src.write_text(ptx)
        _run([tool("ptxas"), f"-arch={arch}", *(["-lineinfo"] if lineinfo else []), str(src), "-o", str(out)], where, "ptxas")
        return out.read_bytes()


def disassemble(cubin: bytes, where: str) -> dict[str, dict]:
    """``nvdisasm -json -g``: per function section, ``{"start", "length", "sass-instructions"}``."""
    with tempfile.TemporaryDirectory(prefix="simsmem-") as tmp:
        path = Path(tmp) / "kernel.cubin"
        path.write_bytes(cubin)
        raw = _run([tool("nvdisasm"), "-json", "-g", "-c", str(path)], where, "nvdisasm")
    try:
        doc = orjson.loads(raw)
        return {f["function-name"]: f for f in doc[1]}
    except (orjson.JSONDecodeError, IndexError, KeyError, TypeError) as exc:
        raise SimsmemError(where, f"nvdisasm's output not understood ({exc})") from None


def version(name: str) -> str:
    """The last line of ``TOOL --version`` (e.g. ptxas's ``Build cuda_13.0.r13.0/...``)."""
    out = _run([tool(name), "--version"], name, "--version").decode(errors="replace").strip().splitlines()
    return out[-1] if out else ""
