"""What a kernel's cubin (CUDA ELF) says about it, read with pyelftools.

``read_cubin`` gives a ``Module``: per kernel its parameters (``EIATTR_KPARAM_INFO``: offset and
size in constant bank 0), its static shared memory (the size of ``.nv.shared.NAME``, which on sm_90
begins with the CTA's 1 KiB reserved for the system), its stack frame (``EIATTR_FRAME_SIZE`` of it and
the functions it calls), and the functions placed in its code section (a ``CALL`` names them);
for the module, the ``__constant__`` bank (``.nv.constant3``) and its variables (their symbols), and the
``__device__`` variables whose addresses constant bank 4 holds (``.rela.nv.constant4``).
"""

from __future__ import annotations

import io
import struct
from typing import TYPE_CHECKING

import attrs

from ..errors import SimsmemError

if TYPE_CHECKING:
    from elftools.elf.elffile import ELFFile

# .nv.info attribute codes (each entry: u8 format, u8 attribute, then a u16 value or a u16 size and data)
EIATTR_FRAME_SIZE = 0x11
EIATTR_KPARAM_INFO = 0x17
EIATTR_PARAM_CBANK = 0x0A
EIATTR_REGCOUNT = 0x2F
EIATTR_CTA_PER_CLUSTER = 0x3D  # ``.reqnctapercluster`` / ``__cluster_dims__``: three u32
EIFMT_SVAL = 0x04
#: Where sm_90 puts a kernel's first parameter in constant bank 0 (EIATTR_PARAM_CBANK says so too).
PARAM_BASE = 0x210


@attrs.frozen
class Param:
    """One kernel parameter: its place in the parameter block (bytes from its start) and size."""

    ordinal: int
    offset: int
    size: int


@attrs.frozen
class Variable:
    """A module-scope ``__device__`` variable: its size and initial bytes (zeros when uninitialised)."""

    name: str
    size: int
    data: bytes


@attrs.frozen
class Constant:
    """A module-scope ``__constant__`` variable: where it lies in constant bank 3."""

    name: str
    offset: int
    size: int


@attrs.frozen
class Kernel:
    """One ``.entry`` of the module."""

    name: str
    params: tuple[Param, ...]
    param_base: int  # offset of the parameter block in constant bank 0
    static_shared: int  # bytes of the shared window laid out by ptxas (the reserved 1 KiB included)
    frame: int  # bytes of stack (local memory) per thread, callees included
    registers: int
    functions: dict[str, int]  # code offset of every function symbol in the kernel's section (itself at 0)
    text: bytes = b""  # the kernel's code section: 16 bytes an instruction, its control code in the high bits
    bank2: bytes = b""  # its constant bank 2 (``.nv.constant2.NAME``): the jump tables of its ``switch`` es (BRX)
    cluster: tuple[int, int, int] | None = None  # its own cluster shape (``__cluster_dims__``); None: the launch's


@attrs.frozen
class Module:
    """A cubin's kernels and module-scope data."""

    arch: int  # 90 for sm_90
    kernels: dict[str, Kernel]
    constants: bytes  # constant bank 3 (__constant__ variables), initialised
    constant_vars: tuple[Constant, ...]  # the __constant__ variables of bank 3
    variables: tuple[Variable, ...]  # __device__ variables
    bank4: tuple[tuple[int, str, int], ...]  # constant bank 4: (offset, variable, addend) relocations to variables' addresses


def read_cubin(data: bytes, where: str) -> Module:
    """Parse a cubin; errors name ``where``."""
    from elftools.common.exceptions import ELFError  # (imported here: a command that reads no cubin never pays for it)
    from elftools.elf.elffile import ELFFile

    try:
        elf = ELFFile(io.BytesIO(data))
        return _module(elf, where)
    except (ELFError, struct.error, ValueError, KeyError, IndexError) as exc:
        raise SimsmemError(where, f"not a CUDA cubin that can be read ({exc})") from None


def _attributes(data: bytes) -> list[tuple[int, bytes | int]]:
    """The (attribute, value) entries of a ``.nv.info`` section."""
    out: list[tuple[int, bytes | int]] = []
    i = 0
    while i + 4 <= len(data):
        fmt, attr, half = data[i], data[i + 1], int.from_bytes(data[i + 2 : i + 4], "little")
        if fmt == EIFMT_SVAL:
            out.append((attr, data[i + 4 : i + 4 + half]))
            i += 4 + half
        else:
            out.append((attr, half))
            i += 4
    return out


def _module(elf: ELFFile, where: str) -> Module:
    from elftools.elf.relocation import RelocationSection

    arch = elf.header["e_flags"] >> 8 & 0xFF  # EF_CUDA_SM: bits 8..15 hold the SM version
    sections = {s.name: s for s in elf.iter_sections()}
    symtab = elf.get_section_by_name(".symtab")
    symbols = list(symtab.iter_symbols()) if symtab else []
    by_index = {i: s for i, s in enumerate(symbols)}
    frames: dict[str, int] = {}
    registers: dict[str, int] = {}
    if ".nv.info" in sections:
        for attr, value in _attributes(sections[".nv.info"].data()):
            if attr in (EIATTR_FRAME_SIZE, EIATTR_REGCOUNT) and isinstance(value, bytes):
                sym, n = struct.unpack_from("<II", value)
                (frames if attr == EIATTR_FRAME_SIZE else registers)[by_index[sym].name] = n
    kernels: dict[str, Kernel] = {}
    for s in symbols:
        if s["st_info"]["type"] != "STT_FUNC":
            continue
        text = f".text.{s.name}"
        info = sections.get(f".nv.info.{s.name}")
        if text not in sections or info is None:
            continue  # a device function, not an entry
        params: list[Param] = []
        base = PARAM_BASE
        cluster = None
        for attr, value in _attributes(info.data()):
            if attr == EIATTR_KPARAM_INFO and isinstance(value, bytes):
                _index, ordinal, offset, flags = struct.unpack_from("<IHHI", value)
                params.append(Param(ordinal, offset, flags >> 18 & 0x3FFF))
            elif attr == EIATTR_PARAM_CBANK and isinstance(value, bytes):
                base = struct.unpack_from("<II", value)[1] & 0xFFFF
            elif attr == EIATTR_CTA_PER_CLUSTER and isinstance(value, bytes):
                cluster = struct.unpack_from("<III", value)
        code_index = elf.get_section_index(text)
        functions = {f.name: f["st_value"] for f in symbols if f["st_info"]["type"] == "STT_FUNC" and f["st_shndx"] == code_index}
        shared = sections.get(f".nv.shared.{s.name}")
        frame = max([frames.get(name, 0) for name in functions] or [0])
        kernels[s.name] = Kernel(s.name, tuple(sorted(params, key=lambda p: p.ordinal)), base, shared["sh_size"] if shared else 0, frame,
                                 registers.get(s.name, 0), functions, sections[text].data(),
                                 sections[f".nv.constant2.{s.name}"].data() if f".nv.constant2.{s.name}" in sections else b"", cluster)
    constants = sections[".nv.constant3"].data() if ".nv.constant3" in sections else b""
    variables: list[Variable] = []
    constant_vars: list[Constant] = []
    for s in symbols:
        if s["st_info"]["type"] == "STT_OBJECT" and s["st_shndx"] not in ("SHN_UNDEF", "SHN_ABS") and isinstance(s["st_shndx"], int):
            sec = elf.get_section(s["st_shndx"])
            if sec.name == ".nv.constant3":
                constant_vars.append(Constant(s.name, s["st_value"], s["st_size"]))
            if sec.name in (".nv.global", ".nv.global.init"):
                raw = sec.data()[s["st_value"] : s["st_value"] + s["st_size"]] if sec.name == ".nv.global.init" else b""
                variables.append(Variable(s.name, s["st_size"], raw.ljust(s["st_size"], b"\0")))
    bank4: list[tuple[int, str, int]] = []
    rela = sections.get(".rela.nv.constant4")
    if isinstance(rela, RelocationSection):
        for r in rela.iter_relocations():
            bank4.append((r["r_offset"], by_index[r["r_info_sym"]].name, r["r_addend"]))
    if not kernels:
        raise SimsmemError(where, "the cubin holds no kernel")
    return Module(arch, kernels, constants, tuple(constant_vars), tuple(variables), tuple(bank4))
