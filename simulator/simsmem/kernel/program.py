"""A kernel made ready to execute: its SASS, the PTX line of each instruction, and the module around it.

``load_program(path, kernel)`` accepts a ``.cu`` (nvcc -ptx first), a ``.ptx`` or a ``.cubin``. PTX
is assembled by ptxas for sm_90, as the driver does when it loads PTX; a second assembly of the PTX
with ``.loc`` directives pointing at its own lines (``ptx.with_ptx_lines``) gives each SASS
instruction its PTX line, and, where the PTX carries ``.loc`` of its own (``nvcc -lineinfo``,
Triton), a third gives the source line. Both are kept only if ptxas made the very same instructions.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import attrs

from ..errors import SimsmemError
from . import ptx as ptxtext
from . import toolchain
from .cubin import Kernel, Module, read_cubin
from .isa import refused_hopper, registry
from .sass import Instruction, SassError, parse_instruction

#: The files ``load_program`` takes (a trace is anything else).
KERNEL_SUFFIXES = (".ptx", ".cubin", ".cu")

@attrs.frozen
class Program:
    """One kernel of a module, ready for ``Machine``."""

    where: str  # the file given
    entry: str  # the kernel's .entry name
    code: tuple[Instruction, ...]  # instruction k sits at byte offset 16*k
    kernel: Kernel
    module: Module
    params: tuple[ptxtext.PtxParam, ...] | None  # the PTX signature (None for a cubin)
    shared_vars: tuple[ptxtext.SharedVar, ...]
    ptx_lines: dict[int, int]  # SASS byte offset -> PTX line
    sources: dict[int, str]  # SASS byte offset -> "file:line" of the PTX's own .loc
    ptx_path: str | None  # the PTX the lines refer to
    ptxas: dict | None  # which ptxas assembled the PTX (``toolchain.Ptxas.header``); None for a cubin
    ptx: str | None = None  # the PTX text (None for a cubin)

    def line_of(self, pc: int) -> str:
        """Where the instruction at ``pc`` came from: ``kernel.ptx:123`` (and the source line), or its SASS offset."""
        parts = []
        if pc in self.ptx_lines and self.ptx_path:
            parts.append(f"{self.ptx_path}:{self.ptx_lines[pc]}")
        if pc in self.sources:
            parts.append(self.sources[pc])
        return " ".join(parts) if parts else f"SASS {pc:#06x}"

    def hopper_only(self) -> dict[str, int]:
        """Counts of the Hopper-only instructions in the code that simsmem does not execute, by what they are."""
        refused = refused_hopper()
        seen: dict[str, int] = {}
        for ins in self.code:
            what = refused.get(ins.name)
            if what:
                seen[f"{what} ({ins.name})"] = seen.get(f"{what} ({ins.name})", 0) + 1
        return seen


def find_entry(names: list[str], wanted: str, where: str) -> str:
    """The entry named ``wanted``, or the one entry whose (mangled) name contains it."""
    if wanted in names:
        return wanted
    matches = [n for n in names if wanted in n]
    if len(matches) == 1:
        return matches[0]
    known = ", ".join(names) or "none"
    if not matches:
        raise SimsmemError(f"{where}: --kernel", f"no kernel named {wanted!r} (its kernels: {known})")
    raise SimsmemError(f"{where}: --kernel", f"{wanted!r} matches several kernels ({', '.join(matches)}): give more of the name")


@attrs.frozen(eq=False)
class Assembled:
    """A module assembled and disassembled once: every kernel's SASS and line tables."""

    module: Module
    listing: dict[str, dict]
    ptx_lines: dict[str, dict]  # kernel -> its line table ({} where ptxas's -lineinfo code differed)
    sources: dict[str, dict]
    ptxas: dict | None  # which ptxas made the cubin (None: given as a cubin)


@functools.lru_cache(maxsize=16)
def assemble(ptx: str | None, cubin: bytes | None, name: str, where: str, arch: str) -> Assembled:
    """ptxas (for PTX) and nvdisasm, with the line tables; cached, since one module often holds the kernels of several runs."""
    ptxas = None
    if ptx is not None:
        cubin = toolchain.ptx_to_cubin(ptx, where, arch)
        ptxas = toolchain.assembler(toolchain.ptx_isa(ptx), where).header(toolchain.ptx_isa(ptx))
    module = read_cubin(cubin, where)
    listing = toolchain.disassemble(cubin, where)
    lines: dict[str, dict] = {}
    sources: dict[str, dict] = {}
    if ptx is not None:
        annotated = toolchain.disassemble(toolchain.ptx_to_cubin(ptxtext.with_ptx_lines(ptx, name), where, arch, lineinfo=True), where)
        files = ptxtext.source_files(ptx)
        own = toolchain.disassemble(toolchain.ptx_to_cubin(ptx, where, arch, lineinfo=True), where) if files else {}
        for entry, code in listing.items():
            lines[entry] = _line_table(annotated.get(entry), code)
            table = _line_table(own.get(entry), code, with_file=True)
            sources[entry] = {pc: f"{Path(files.get(f, '?')).name}:{ln}" for pc, (f, ln) in table.items() if ln}
    return Assembled(module, listing, lines, sources, ptxas)


def load_program(path: str | Path, kernel: str, arch: str = "sm_90") -> Program:
    """Compile (if need be), assemble and disassemble ``path``, and take kernel ``kernel`` from it."""
    path = Path(path)
    where = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SimsmemError(where, f"cannot read ({exc.strerror})") from None
    suffix = path.suffix.lower()
    ptx: str | None = None
    if suffix == ".cu":  # for sm_90a, as Hopper kernels are built (wgmma, setmaxnreg): the same SASS for the rest
        ptx = toolchain.cu_to_ptx(path, "sm_90a" if arch == "sm_90" else arch)
    elif suffix == ".ptx":
        try:
            ptx = raw.decode()
        except UnicodeDecodeError:
            raise SimsmemError(where, "not PTX text (it is not UTF-8)") from None
    elif suffix != ".cubin":
        raise SimsmemError(where, "expected a .ptx, .cubin or .cu file")
    signatures = None
    if ptx is not None:
        try:
            signatures = ptxtext.entries(ptx)
        except ValueError as exc:
            raise SimsmemError(where, str(exc)) from None
        if not signatures:
            raise SimsmemError(where, "no .entry in the PTX")
        entry = find_entry(list(signatures), kernel, where)
    if ptx is not None and re.search(r"^\s*\.target\s+sm_90a\b", ptx, re.M):
        arch = "sm_90a"  # PTX that uses Hopper-only instructions; ptxas makes sm_90 code of it
    done = assemble(ptx, None if ptx is not None else raw, path.name, where, arch)
    module = done.module
    if ptx is None:
        entry = find_entry(list(module.kernels), kernel, where)
    if module.arch != 90:
        raise SimsmemError(where, f"the cubin is for sm_{module.arch}; simsmem executes sm_90 SASS")
    if entry not in module.kernels or entry not in done.listing:
        raise SimsmemError(where, f"ptxas made no code for kernel {entry}")
    code = _instructions(done.listing[entry], where)
    return Program(where, entry, tuple(code), module.kernels[entry], module, signatures[entry] if signatures else None,
                   ptxtext.shared_vars(ptx) if ptx is not None else (), done.ptx_lines.get(entry, {}), done.sources.get(entry, {}),
                   path.name if suffix == ".ptx" else None, done.ptxas, ptx)


def _instructions(listing: dict, where: str) -> list[Instruction]:
    code = []
    for k, entry in enumerate(listing["sass-instructions"]):
        try:
            code.append(parse_instruction(16 * k, entry))
        except SassError as exc:
            known = registry().get(entry.get("opcode", "").split(".", 1)[0])
            if known is not None and known.runs == "refused":  # a refusal the registry names: its step says why, if it runs
                code.append(Instruction(16 * k, entry["opcode"], (), None, f"{entry['opcode']} {entry.get('operands', '')}"))
                continue
            raise SimsmemError(where, f"SASS at {16 * k:#06x} ({entry.get('opcode')} {entry.get('operands', '')}): {exc}") from None
    return code


def _line_table(listing: dict | None, code: dict, with_file: bool = False) -> dict:
    """SASS offset -> line (or (file, line)) from a ``-lineinfo`` listing, if its instructions are ``code``'s (another listing)."""
    if listing is None:
        return {}
    entries = listing["sass-instructions"]
    plain = code["sass-instructions"]
    same = len(entries) == len(plain) and all(_text(e) == _text(c) and e.get("operands") == c.get("operands") for e, c in zip(entries, plain))
    if not same:
        return {}
    out = {}
    current = None
    for k, e in enumerate(entries):
        if "source-line" in e:
            current = (e.get("source-file-id", 0) + 1, e["source-line"]) if with_file else e["source-line"]
        if current is not None:
            out[16 * k] = current
    return out


def _text(entry: dict) -> tuple[str, str]:
    return entry["opcode"].strip(), re.sub(r"^@", "", entry.get("predicate", "") or "")
