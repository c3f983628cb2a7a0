"""CUDA's compilers and disassembler, found and run: ``.cu`` -> PTX -> cubin -> SASS.

A tool is taken from the folder in ``SIMSMEM_CUDA_BIN``, then from NVIDIA's pip packages (``pip install
'simsmem[cuda]'``: nvcc and ptxas 13.0.88, the version of the driver the measured corpus ran on, nvdisasm and
cuobjdump), then from ``PATH``. None needs a GPU. PTX newer than that ptxas reads (PTX ISA 9.m is CUDA 13.m's)
goes through a newer ptxas (``assembler``), named in the trace. A tool that is missing or fails is a
``SimsmemError`` naming the input and the tool's first line of complaint.

What ptxas and nvdisasm make of an input is kept on disk (``cached``), keyed by a hash of the input, the arguments and
the tool's file, so that tracing an unchanged kernel again runs neither. nvcc is always run: its output depends on
headers that the hash would not see.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import attrs
import orjson

from ..errors import SimsmemError

INSTALL = "pip install 'simsmem[cuda]' (NVIDIA's nvcc, ptxas, nvdisasm and cuobjdump), or set SIMSMEM_CUDA_BIN to a folder holding them"
#: The CUDA release of the driver (580) whose JIT made the SASS the corpus was measured with.
MEASURED = (13, 0)


@functools.cache
def tool(name: str) -> str:
    """The path of CUDA tool ``name`` (nvcc, ptxas, nvdisasm, cuobjdump)."""
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


@attrs.frozen
class Ptxas:
    """A ptxas: where it is, its version (``13.0.88``) and where it came from."""

    path: str
    version: str
    origin: str

    @property
    def release(self) -> tuple[int, int]:
        major, minor = self.version.split(".")[:2]
        return int(major), int(minor)

    def header(self, isa: tuple[int, int] | None) -> dict:
        """The trace header's ``ptxas`` object: the version, where it came from, and a note unless it is the measured driver's."""
        out = {"version": self.version, "from": self.origin}
        if self.release != MEASURED:
            why = f"PTX .version {isa[0]}.{isa[1]}, newer than the pinned ptxas reads; " if isa and release_for(isa) > MEASURED else ""
            out["note"] = (f"{why}ptxas {self.version} made this SASS, which may differ from what the measured driver's "
                           f"(580, CUDA {MEASURED[0]}.{MEASURED[1]}) JIT makes of the same PTX")
        return out


@functools.cache
def _ptxas(path: str, origin: str) -> Ptxas:
    out = cached("version", (), b"", lambda: _run([path, "--version"], path, "ptxas --version"), path).decode(errors="replace")
    m = re.search(r"\bV(\d+\.\d+\.\d+)", out)
    if not m:
        raise SimsmemError(path, f"ptxas --version not understood: {out.strip().splitlines()[-1] if out.strip() else 'nothing'}")
    return Ptxas(path, m.group(1), origin)


def ptx_isa(ptx: str) -> tuple[int, int] | None:
    """The PTX's ``.version`` (the PTX ISA it is written in), if it states one."""
    m = re.search(r"^\s*\.version\s+(\d+)\.(\d+)", ptx, re.M)
    return (int(m.group(1)), int(m.group(2))) if m else None


def release_for(isa: tuple[int, int]) -> tuple[int, int]:
    """The CUDA release whose ptxas first reads PTX ISA ``isa`` (from 9.0 on: 9.m is 13.m, 10.m 14.m)."""
    return isa[0] + 4, isa[1]


def cache_dir() -> Path:
    """Where simsmem keeps the ptxases it fetched: ``$SIMSMEM_CACHE``, else ``$XDG_CACHE_HOME/simsmem`` (``~/.cache/simsmem``)."""
    if os.environ.get("SIMSMEM_CACHE"):
        return Path(os.environ["SIMSMEM_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "simsmem"


#: The first line of a result file: the form, then the SHA-256 of the bytes after the second line.
_MAGIC = b"simsmem-result 1"


def cached(kind: str, key: tuple[str, ...], data: bytes, make, tool_path: str) -> bytes:
    """``make()``'s bytes, kept in ``cache_dir()/results/KIND`` under the SHA-256 of ``key``, ``data`` and the tool's file
    (path, size and modification time, so that a reinstalled tool starts afresh). An entry that is unreadable, cut short
    or altered is made again and rewritten; entries are written whole (a temporary file, then a rename)."""
    try:
        stat = os.stat(tool_path)
        tool_id = f"{tool_path}\0{stat.st_size}\0{stat.st_mtime_ns}"
    except OSError:
        return make()
    digest = hashlib.sha256("\0".join((kind, tool_id, *key)).encode() + b"\0" + data).hexdigest()
    path = cache_dir() / "results" / kind / digest[:2] / digest
    try:
        magic, check, body = path.read_bytes().split(b"\n", 2)
        if magic == _MAGIC and check.decode() == hashlib.sha256(body).hexdigest():
            return body
    except (OSError, ValueError, UnicodeDecodeError):
        pass
    out = make()
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(_MAGIC + b"\n" + hashlib.sha256(out).hexdigest().encode() + b"\n" + out)
        os.replace(tmp, path)
    except OSError:  # a read-only or full cache: the result stands, unkept
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
    return out


def triton_ptxases() -> list[Ptxas]:
    """The ptxases the installed Triton bundles (``ptxas``, and ``ptxas-blackwell``, which 3.9 uses for sm_90 too)."""
    spec = importlib.util.find_spec("triton")
    if not spec or not spec.origin:
        return []
    bin_ = Path(spec.origin).parent / "backends" / "nvidia" / "bin"
    from importlib.metadata import version  # (here: 30 ms that a command tracing nothing never pays)

    return [_ptxas(str(bin_ / name), f"Triton {version('triton')}'s {name}")
            for name in ("ptxas", "ptxas-blackwell") if os.access(bin_ / name, os.X_OK)]


def _local() -> list[Ptxas]:
    """The newer ptxases at hand: the installed Triton's (what made the SASS of its kernels) and those fetched before."""
    found = triton_ptxases()
    for path in sorted(cache_dir().glob("ptxas-*/ptxas")):
        found.append(_ptxas(str(path), f"nvidia-cuda-nvcc {path.parent.name[6:]} from pip, in {path.parent}"))
    return found


def _fetch(release: tuple[int, int], where: str) -> Ptxas:
    """The newest ptxas of CUDA ``release`` from pip's ``nvidia-cuda-nvcc`` wheel, unpacked into the cache (once)."""
    spec = f"nvidia-cuda-nvcc>={release[0]}.{release[1]},<{release[0]}.{release[1] + 1}"
    print(f"simsmem: fetching ptxas {release[0]}.{release[1]} ({spec}, about 50 MB) with pip into {cache_dir()}", file=sys.stderr)
    cache_dir().mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="simsmem-", dir=cache_dir()) as tmp:
        try:
            done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--disable-pip-version-check",
                                   "-q", "-d", tmp, spec], capture_output=True, timeout=900)
            why = (done.stderr.decode(errors="replace").strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        except (OSError, subprocess.TimeoutExpired) as exc:
            why = str(exc)
        wheels = sorted(Path(tmp).glob("nvidia_cuda_nvcc-*.whl"))
        if not wheels:
            raise SimsmemError(where, f"PTX ISA {release[0] - 4}.{release[1]} needs ptxas {release[0]}.{release[1]} or newer, and "
                                      f"'pip download {spec}' failed ({why}); set SIMSMEM_CUDA_BIN to a CUDA {release[0]}.{release[1]} bin folder")
        version = wheels[0].name.split("-")[1]
        with zipfile.ZipFile(wheels[0]) as whl:
            member = next((n for n in whl.namelist() if n.endswith("/bin/ptxas")), None)
            if member is None:
                raise SimsmemError(where, f"{wheels[0].name} holds no bin/ptxas")
            staged = Path(whl.extract(member, tmp))
        staged.chmod(0o755)
        final = cache_dir() / f"ptxas-{version}"
        if not (final / "ptxas").exists():
            (Path(tmp) / "unpacked").mkdir()
            os.replace(staged, Path(tmp) / "unpacked" / "ptxas")
            os.replace(Path(tmp) / "unpacked", final)  # whole or not at all
    return _ptxas(str(final / "ptxas"), f"nvidia-cuda-nvcc {version} from pip, in {final}")


@functools.cache
def assembler(isa: tuple[int, int] | None, where: str = "ptxas") -> Ptxas:
    """The ptxas for PTX of ISA ``isa``: the one ``tool`` finds (the pinned 13.0.88) if it reads it, else the oldest newer
    one at hand that does, else CUDA ``release_for(isa)``'s newest from pip, fetched once into ``cache_dir()``."""
    first = _ptxas(tool("ptxas"), tool("ptxas"))
    if isa is None or isa < (9, 0) or first.release >= release_for(isa):
        return first
    newer = sorted((p for p in _local() if p.release >= release_for(isa)), key=lambda p: tuple(map(int, p.version.split("."))))
    return newer[0] if newer else _fetch(release_for(isa), where)


def cutlass_flags() -> list[str]:
    """nvcc's flags for CUTLASS's and CuTe's headers where ``pip install 'simsmem[cute]'`` (``nvidia-cutlass``) put them:
    their folder, and ``--expt-relaxed-constexpr``, which CuTe's host-device code needs; none without that package."""
    spec = importlib.util.find_spec("cutlass_library")
    include = Path(next(iter(spec.submodule_search_locations or ())), "source", "include") if spec else None
    return ["-I", str(include), "--expt-relaxed-constexpr"] if include and include.is_dir() else []


def cu_to_ptx(source: Path, arch: str = "sm_90", lineinfo: bool = True) -> str:
    """``nvcc -ptx`` of a CUDA source file (with ``.loc`` line info unless ``lineinfo`` is off), CUTLASS's headers at
    hand (``cutlass_flags``); nvcc's own ``NVCC_APPEND_FLAGS`` adds include folders (``-I``) and defines."""
    with tempfile.TemporaryDirectory(prefix="simsmem-") as tmp:
        out = Path(tmp) / "kernel.ptx"
        _run([tool("nvcc"), f"-arch={arch}", "-ptx", *(["-lineinfo"] if lineinfo else []), *cutlass_flags(), str(source), "-o", str(out)],
             str(source), "nvcc -ptx")
        return out.read_text()


def ptx_to_cubin(ptx: str, where: str, arch: str = "sm_90", lineinfo: bool = False) -> bytes:
    """``ptxas -arch=ARCH`` of PTX text (through ``assembler``): the cubin the driver's JIT would make of it (``cached``)."""
    ptxas = assembler(ptx_isa(ptx), where).path
    flags = [f"-arch={arch}", *(["-lineinfo"] if lineinfo else [])]

    def make() -> bytes:
        with tempfile.TemporaryDirectory(prefix="simsmem-") as tmp:
            src, out = Path(tmp) / "kernel.ptx", Path(tmp) / "kernel.cubin"
            src.write_text(ptx)
            _run([ptxas, *flags, str(src), "-o", str(out)], where, "ptxas")
            return out.read_bytes()
    return cached("ptxas", tuple(flags), ptx.encode(), make, ptxas)


def disassemble(cubin: bytes, where: str) -> dict[str, dict]:
    """``nvdisasm -json -g``: per function section, ``{"start", "length", "sass-instructions"}`` (``cached``)."""
    nvdisasm = tool("nvdisasm")

    def make() -> bytes:
        with tempfile.TemporaryDirectory(prefix="simsmem-") as tmp:
            path = Path(tmp) / "kernel.cubin"
            path.write_bytes(cubin)
            return _run([nvdisasm, "-json", "-g", "-c", str(path)], where, "nvdisasm")
    raw = cached("nvdisasm", ("-json", "-g", "-c"), cubin, make, nvdisasm)
    try:
        doc = orjson.loads(raw)
        return {f["function-name"]: f for f in doc[1]}
    except (orjson.JSONDecodeError, IndexError, KeyError, TypeError) as exc:
        raise SimsmemError(where, f"nvdisasm's output not understood ({exc})") from None


def version(name: str) -> str:
    """The last line of ``TOOL --version`` (e.g. ptxas's ``Build cuda_13.0.r13.0/...``)."""
    out = _run([tool(name), "--version"], name, "--version").decode(errors="replace").strip().splitlines()
    return out[-1] if out else ""
