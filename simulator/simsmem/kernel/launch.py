"""A launch: grid, block, dynamic shared memory and arguments, turned into constant bank 0 and global memory.

Arguments are strings, one per kernel parameter, as the measured corpus's launcher reads them:

* an integer literal (decimal or ``0x`` hex, maybe negative) for an integer parameter;
* a float literal (with ``.``, an exponent, ``inf`` or ``nan``) for an ``.f32``/``.f64`` parameter;
* ``zeros:BYTES``: a pointer to a new zero-filled global buffer (``zeros:0`` is a null pointer);
* ``npy:PATH``: a pointer to a buffer holding that numpy file's raw data (paths from ``base``);
* ``tmap:...``: a TMA tensor map for a 128-byte ``CUtensorMap`` parameter (``tensormap`` says how);
* ``bytes:HEX`` or ``struct:FIELD,...``: a struct passed by value (``structs`` says how), a CuTe TMA atom among them.

Module symbols take data by name (``--global NAME=npy:PATH`` or ``NAME=zeros:BYTES``, a manifest's ``globals``):
a ``__constant__`` variable in constant bank 3, a ``__device__`` one in its global buffer, from the first byte on.

Constant bank 0 holds what sm_90 kernels read there: the block and grid sizes (0x0..0x14), the
initial stack pointer (0x28), the thread-block cluster's shape (``CLUSTER_FIELDS``), the parameters' generic
address (0x198), and the parameters (from 0x210).
"""

from __future__ import annotations

import math
import re
import struct
from pathlib import Path

import attrs
import numpy as np

from ..errors import SimsmemError
from . import structs, tensormap
from .machine import Geometry
from .memory import GlobalMemory
from .program import Program

#: Where sm_90 kernels find the generic address of their parameters in constant bank 0.
PARAMS_ADDRESS = 0x198
#: Largest launch sm_90 allows.
MAX_THREADS = 1024
MAX_GRID = (2**31 - 1, 65535, 65535)
#: The most shared memory sm_90 gives a CTA: 227 KiB of user memory and the 1 KiB reserved.
MAX_SHARED = 233472
#: The most CTAs of a cluster (8 portable, 16 where the kernel opts in to non-portable sizes).
MAX_CLUSTER = 16
#: Where ptxas 13.0 reads the cluster's shape in constant bank 0 (``mov`` of each special register, compiled): whether
#: the launch has clusters (%is_explicit_cluster: 1), CTAs per cluster by axis (%cluster_nctaid), their reciprocals as
#: float32 (%clusterid = ctaid times it, truncated), clusters by axis (%nclusterid), CTAs per cluster (%cluster_nctarank).
CLUSTER_FIELDS = {"explicit": 0x140, "nctaid": 0x144, "reciprocal": 0x150, "nclusterid": 0x15C, "nctarank": 0x188}


@attrs.frozen
class Launch:
    """Everything a ``Machine`` needs besides the program."""

    geometry: Geometry
    constants: dict[int, np.ndarray]
    memory: GlobalMemory
    shared_bytes: int  # the CTA's shared window: reserved + static + dynamic
    local_bytes: int
    described: str  # for errors about the shared window


def parse_dims(text: str, what: str) -> tuple[int, int, int]:
    """``X[,Y[,Z]]`` as three positive integers."""
    try:
        parts = [int(p, 0) for p in text.split(",")]
    except ValueError:
        raise SimsmemError(f"--{what}", f"expected X[,Y[,Z]] positive integers, got {text!r}") from None
    if not 1 <= len(parts) <= 3 or min(parts) < 1:
        raise SimsmemError(f"--{what}", f"expected X[,Y[,Z]] positive integers, got {text!r}")
    return tuple(parts + [1] * (3 - len(parts)))  # type: ignore[return-value]


_FLOAT = re.compile(r"^[-+]?((\d+\.\d*|\.\d+)([eE][-+]?\d+)?|\d+[eE][-+]?\d+|inf|infinity|nan)$", re.I)


def _looks_float(text: str) -> bool:
    """A float literal: with '.' or an exponent, or inf/nan."""
    return bool(_FLOAT.match(text.strip()))


def parse_cta(text: str) -> tuple[int, int, int]:
    """``X,Y,Z``: a CTA's coordinates (from 0)."""
    try:
        parts = [int(p, 0) for p in text.split(",")]
    except ValueError:
        parts = []
    if len(parts) != 3 or min(parts) < 0:
        raise SimsmemError("--cta", f"expected X,Y,Z (a CTA's coordinates, from 0), got {text!r}")
    return tuple(parts)  # type: ignore[return-value]


def parse_globals(texts: list[str]) -> dict[str, str]:
    """``--global NAME=VALUE`` options as {NAME: VALUE}."""
    out: dict[str, str] = {}
    for text in texts:
        name, eq, value = text.partition("=")
        if not eq or not name:
            raise SimsmemError("--global", f"expected NAME=npy:PATH or NAME=zeros:BYTES, got {text!r}")
        if name in out:
            raise SimsmemError(f"--global {name}", "given twice")
        out[name] = value
    return out


def make_launch(program: Program, grid: tuple[int, int, int], block: tuple[int, int, int], smem: int, args: list[str], base: Path,
                max_shared: int = MAX_SHARED, symbols: dict[str, str] | None = None, cluster: tuple[int, int, int] | None = None) -> Launch:
    """Check the launch against the kernel and build its memories (``symbols``: data for module symbols by name, as
    ``parse_globals`` gives them; ``cluster``: the launch's cluster shape, where the kernel has none of its own); errors
    name the parameter or symbol."""
    threads = block[0] * block[1] * block[2]
    if threads > MAX_THREADS:
        raise SimsmemError("--block", f"{threads} threads per CTA; sm_90 allows at most {MAX_THREADS}")
    for n, (g, top) in enumerate(zip(grid, MAX_GRID)):
        if g > top:
            raise SimsmemError("--grid", f"grid {'xyz'[n]} = {g} is past sm_90's {top}")
    if smem < 0:
        raise SimsmemError("--smem", "expected a non-negative byte count")
    kernel = program.kernel
    shape = _cluster(kernel.cluster, cluster, grid)
    shared_bytes = kernel.static_shared + smem
    if shared_bytes > max_shared:
        raise SimsmemError("--smem", f"the CTA's shared memory ({kernel.static_shared} reserved and static + {smem} dynamic bytes) is past "
                                     f"the {max_shared} bytes sm_90 gives a CTA")
    params = kernel.params
    declared = program.params
    if len(args) != len(params):
        names = ", ".join(p.name for p in declared) if declared else f"{len(params)} parameters"
        raise SimsmemError("--arg", f"{program.entry} takes {len(params)} arguments ({names}), {len(args)} given")
    memory = GlobalMemory()
    buffers: dict[int, tuple[int, int]] = {}  # argument index (from 0, as arg:I counts) -> its buffer's (address, bytes)
    block_bytes = bytearray(max((p.offset + p.size for p in params), default=0))
    for k, (p, text) in enumerate(zip(params, args)):
        decl = declared[k] if declared else None
        name = f"argument {k + 1} " + (str(decl) if decl else f"({p.size} bytes)")
        if text.startswith("tmap:"):
            value = _tensor_map(text, p.size, decl.kind if decl else None, name, base, memory, buffers)
        elif text.startswith(("bytes:", "struct:")):
            value = _struct(text, p.size, decl.align if decl else None, name, base, memory, buffers)
        else:
            value = _argument(text, p.size, decl.kind if decl else None, name, base, memory)
            if text.startswith(("zeros:", "npy:")):
                address = struct.unpack("<Q", value)[0]
                buffers[k] = (address, memory.buffers[-1].data.size if address else 0)
        block_bytes[p.offset : p.offset + p.size] = value
    bank0 = np.zeros(kernel.param_base + len(block_bytes), dtype=np.uint8)
    head = struct.pack("<6I", *block, *grid)
    bank0[: len(head)] = np.frombuffer(head, dtype=np.uint8)
    local = max(kernel.frame, 0)
    bank0[0x28:0x2C] = np.frombuffer(struct.pack("<I", local), dtype=np.uint8)
    for field, values in _cluster_fields(shape, grid, kernel.cluster is not None or cluster is not None).items():
        at = CLUSTER_FIELDS[field]
        bank0[at : at + len(values)] = np.frombuffer(values, dtype=np.uint8)
    bank0[kernel.param_base :] = np.frombuffer(bytes(block_bytes), dtype=np.uint8)
    # the parameters' generic address (a __grid_constant__ parameter's, as TMA reads a CUtensorMap): a read-only buffer
    params = memory.add("the kernel's parameters", np.frombuffer(bytes(block_bytes), dtype=np.uint8).copy())
    bank0[PARAMS_ADDRESS : PARAMS_ADDRESS + 8] = np.frombuffer(struct.pack("<Q", params), dtype=np.uint8)
    bank3 = np.frombuffer(program.module.constants, dtype=np.uint8).copy()
    variables = {v.name: np.frombuffer(v.data, dtype=np.uint8).copy() for v in program.module.variables}
    for symbol, text in (symbols or {}).items():
        _fill_symbol(program, symbol, text, base, bank3, variables)
    constants = {0: bank0, 3: bank3}
    if kernel.bank2:
        constants[2] = np.frombuffer(kernel.bank2, dtype=np.uint8)
    if variables:
        bases = {v: memory.add(f"__device__ variable {v}", data) for v, data in variables.items()}
        bank4 = np.zeros(max((off + 8 for off, _, _ in program.module.bank4), default=0), dtype=np.uint8)
        for off, v, addend in program.module.bank4:
            bank4[off : off + 8] = np.frombuffer(struct.pack("<Q", bases.get(v, 0) + addend), dtype=np.uint8)
        constants[4] = bank4
    described = f"{0x400 if kernel.static_shared >= 0x400 else 0:#x} reserved, {max(kernel.static_shared - 0x400, 0)} static, {smem} dynamic bytes"
    return Launch(Geometry(grid, block, shape), constants, memory, shared_bytes, local, described)


def _cluster(own: tuple[int, int, int] | None, given: tuple[int, int, int] | None, grid: tuple[int, int, int]) -> tuple[int, int, int]:
    """The launch's cluster shape: the kernel's own (``__cluster_dims__``), or ``--cluster``'s, which must agree with it."""
    if own is not None and given is not None and tuple(own) != tuple(given):
        raise SimsmemError("--cluster", f"the kernel's own cluster shape is {','.join(map(str, own))} (__cluster_dims__); a launch "
                                        f"cannot change it")
    shape = tuple(own or given or (1, 1, 1))
    if math.prod(shape) > MAX_CLUSTER:
        raise SimsmemError("--cluster", f"{math.prod(shape)} CTAs per cluster; sm_90 allows at most {MAX_CLUSTER} (8 portably)")
    if any(g % c for g, c in zip(grid, shape)):
        raise SimsmemError("--cluster", f"the grid {','.join(map(str, grid))} is not a whole number of clusters of {','.join(map(str, shape))}")
    return shape  # type: ignore[return-value]


def _cluster_fields(shape: tuple[int, int, int], grid: tuple[int, int, int], explicit: bool) -> dict[str, bytes]:
    """Constant bank 0's cluster fields (``CLUSTER_FIELDS``) for a launch of ``grid`` in clusters of ``shape``."""
    return {"explicit": struct.pack("<I", int(explicit)), "nctaid": struct.pack("<3I", *shape), "reciprocal": struct.pack("<3f", *(1 / c for c in shape)),
            "nclusterid": struct.pack("<3I", *(g // c for g, c in zip(grid, shape))), "nctarank": struct.pack("<I", math.prod(shape))}


def _data(text: str, where: str, base: Path) -> np.ndarray:
    """The bytes ``zeros:BYTES`` or ``npy:PATH`` (paths from ``base``) stand for."""
    if text.startswith("zeros:"):
        try:
            n = int(text[6:], 0)
        except ValueError:
            raise SimsmemError(where, f"expected zeros:BYTES, got {text!r}") from None
        if not 0 <= n <= 1 << 32:
            raise SimsmemError(where, f"zeros:{n}: expected 0 to 4 GiB")
        return np.zeros(n, dtype=np.uint8)
    path = Path(text[4:])
    path = path if path.is_absolute() else base / path
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        raise SimsmemError(where, f"{text}: cannot read a .npy file ({exc})") from None
    return np.ascontiguousarray(data).reshape(-1).view(np.uint8).copy()


def _buffer(text: str, name: str, base: Path, memory: GlobalMemory) -> tuple[int, int]:
    """``zeros:BYTES`` or ``npy:PATH`` placed in global memory: (address, bytes)."""
    data = _data(text, f"--arg {name}", base)
    return memory.add(f"{name} ({text})", data), data.size


def _earlier(buffer: str, name: str, buffers: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """``arg:I``: the (address, bytes) of argument I's buffer (I from 0, as the corpus's launcher counts)."""
    try:
        return buffers[int(buffer[4:])]
    except (ValueError, KeyError):
        raise SimsmemError(f"--arg {name}", f"{buffer}: not an earlier zeros: or npy: argument (counted from 0)") from None


def _struct(text: str, size: int, align: int | None, name: str, base: Path, memory: GlobalMemory, buffers: dict[int, tuple[int, int]]) -> bytes:
    """A ``bytes:`` or ``struct:`` argument's bytes (see ``structs``); a ``ptr`` field's buffer placed in global memory, a
    ``tmap`` field's map made as a ``tmap:`` argument's is."""

    def place(f: structs.Field) -> bytes:
        if f.type == "tmap":
            return _tensor_map(f"tmap:{f.value}", 128, "b", f"{name}, field {f.label} (tmap)", base, memory, buffers)
        if f.value.startswith("arg:"):
            return struct.pack("<Q", _earlier(f.value, name, buffers)[0])
        if not f.value.startswith(("zeros:", "npy:")):
            raise structs.StructError(f"field {f.label} (ptr): expected zeros:BYTES, npy:PATH or arg:I, got {f.value!r}")
        return struct.pack("<Q", _buffer(f.value, f"field {f.label} of {name}", base, memory)[0])

    try:
        return structs.from_hex(text, size) if text.startswith("bytes:") else structs.encode(text, size, align, place)
    except structs.StructError as exc:
        raise SimsmemError(f"--arg {name}", str(exc)) from None


def _fill_symbol(program: Program, symbol: str, text: str, base: Path, bank3: np.ndarray, variables: dict[str, np.ndarray]) -> None:
    """Write ``zeros:``/``npy:`` data over the first bytes of a ``__constant__`` (in ``bank3``) or ``__device__`` variable."""
    where = f"--global {symbol}"
    constant = {c.name: c for c in program.module.constant_vars}.get(symbol)
    if constant is None and symbol not in variables:
        known = [f"{c.name} (__constant__, {c.size} bytes)" for c in program.module.constant_vars]
        known += [f"{v.name} (__device__, {v.size} bytes)" for v in program.module.variables]
        raise SimsmemError(where, f"no __constant__ or __device__ variable of that name in {Path(program.where).name} "
                                  f"(its variables: {', '.join(known) or 'none'})")
    if not text.startswith(("zeros:", "npy:")):
        raise SimsmemError(where, f"expected npy:PATH or zeros:BYTES, got {text!r}")
    data = _data(text, where, base)
    target = bank3[constant.offset : constant.offset + constant.size] if constant is not None else variables[symbol]
    if data.size > target.size:
        kind = "__constant__" if constant is not None else "__device__"
        raise SimsmemError(where, f"{text} holds {data.size} bytes; the {kind} variable {symbol} holds {target.size}")
    target[: data.size] = data


def _tensor_map(text: str, size: int, kind: str | None, name: str, base: Path, memory: GlobalMemory, buffers: dict[int, tuple[int, int]]) -> bytes:
    """A ``tmap:`` argument: the 128 bytes of its ``CUtensorMap`` (see ``tensormap``) for a parameter of 128 bytes (a map
    passed by value), or for a pointer parameter the address of a new global buffer holding them (a map in global memory)."""
    if size == 8 and kind in ("i", None):
        value = _tensor_map(text, 128, None, name, base, memory, buffers)
        return struct.pack("<Q", memory.add(f"{name} (the tensor map of {text})", np.frombuffer(value, dtype=np.uint8).copy()))
    if size != 128 or kind not in ("b", None):
        raise SimsmemError(f"--arg {name}", "a tensor map is a 128-byte parameter (a CUtensorMap passed by value) or a pointer to one")
    try:
        dtype, dims, strides, box, span, buffer = tensormap.parse(text)
    except tensormap.TensorMapError as exc:
        raise SimsmemError(f"--arg {name}", str(exc)) from None
    if buffer.startswith("arg:"):
        address, nbytes = _earlier(buffer, name, buffers)
    elif buffer.startswith(("zeros:", "npy:")):
        address, nbytes = _buffer(buffer, name, base, memory)
    else:
        raise SimsmemError(f"--arg {name}", f"the tensor's buffer is zeros:BYTES, npy:PATH or arg:N, not {buffer!r}")
    tmap = tensormap.TensorMap(dtype, address, dims, strides or tensormap.packed(dtype, dims), box, span)
    try:
        tmap.check()
    except tensormap.TensorMapError as exc:
        raise SimsmemError(f"--arg {name}", str(exc)) from None
    if tmap.extent > nbytes:
        raise SimsmemError(f"--arg {name}", f"the tensor spans {tmap.extent} bytes, its buffer holds {nbytes}")
    return tmap.encode()


def _argument(text: str, size: int, kind: str | None, name: str, base: Path, memory: GlobalMemory) -> bytes:
    if text.startswith(("zeros:", "npy:")):
        if size != 8 or kind == "f":
            raise SimsmemError(f"--arg {name}", f"{text.split(':')[0]}: gives a pointer, but the parameter is not a 64-bit integer")
        return struct.pack("<Q", _buffer(text, name, base, memory)[0])
    if kind == "b":
        raise SimsmemError(f"--arg {name}", f"a struct passed by value takes bytes:HEX ({2 * size} hex digits) or struct:TYPE=VALUE,..., "
                                            f"not {text!r}")
    if _looks_float(text):
        if kind == "i":
            raise SimsmemError(f"--arg {name}", f"the parameter is an integer, got {text!r}")
        try:
            v = float(text)
        except ValueError:
            raise SimsmemError(f"--arg {name}", f"expected a number, got {text!r}") from None
        if size == 4:
            if math.isfinite(v) and abs(v) > 3.4028234663852886e38:
                raise SimsmemError(f"--arg {name}", f"{text} does not fit a float32")
            return struct.pack("<f", v)
        if size == 8:
            return struct.pack("<d", v)
        raise SimsmemError(f"--arg {name}", f"a float for a {size}-byte parameter")
    if kind == "f":
        raise SimsmemError(f"--arg {name}", f"the parameter is floating point, got {text!r} (write it with a '.')")
    try:
        v = int(text, 0)
    except ValueError:
        raise SimsmemError(f"--arg {name}", f"expected an integer, zeros:BYTES or npy:PATH, got {text!r}") from None
    if not -(1 << (8 * size - 1)) <= v < 1 << (8 * size):
        raise SimsmemError(f"--arg {name}", f"{v} does not fit {size} bytes")
    return (v & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
