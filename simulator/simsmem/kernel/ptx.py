"""What simsmem reads from PTX text: kernel signatures, shared variables, source files, and its own lines.

ptxas compiles; simsmem only needs the ``.entry`` parameter types (``--arg`` is read by them), the
``.shared`` variables (errors name them), the ``.file`` table (``.loc`` source lines), and a copy of
the PTX whose ``.loc`` directives point at the PTX's own lines (``with_ptx_lines``), so that ptxas's
line table maps every SASS instruction back to the PTX instruction it came from.
"""

from __future__ import annotations

import re

import attrs

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_ENTRY = re.compile(r"\.entry\s+([$\w.]+)\s*\(([^)]*)\)", re.S)
_PARAM = re.compile(r"\.param\s+(?P<decl>[^,]*?)\s*(?P<name>[$%\w]+)\s*(?:\[(?P<n>\d+)\])?\s*$", re.S)
_SHARED = re.compile(r"\.shared\s+(?:\.align\s+(\d+)\s+)?\.(\w+)\s+([$%\w]+)\s*(?:\[(\d*)\])?")
_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"', re.M)
#: PTX scalar types: (bytes, kind): i integer (pointers too), f floating point.
TYPES = {
    "b8": (1, "i"), "u8": (1, "i"), "s8": (1, "i"), "b16": (2, "i"), "u16": (2, "i"), "s16": (2, "i"), "f16": (2, "f"), "bf16": (2, "f"),
    "b32": (4, "i"), "u32": (4, "i"), "s32": (4, "i"), "f32": (4, "f"), "b64": (8, "i"), "u64": (8, "i"), "s64": (8, "i"), "f64": (8, "f"),
}


@attrs.frozen
class PtxParam:
    """One ``.entry`` parameter as declared: name, PTX type, size in bytes, whether it is an array (a struct by value),
    and its alignment (``.align``, else its type's size)."""

    name: str
    type: str
    size: int
    kind: str  # "i" integer or pointer, "f" floating point, "b" bytes (an array)
    align: int

    def __str__(self) -> str:
        """As declared: ``k_param_1 (.align 8 .b8[24])``."""
        array = self.kind == "b"
        return f"{self.name} ({f'.align {self.align} ' if array else ''}.{self.type}{f'[{self.size}]' if array else ''})"


@attrs.frozen
class SharedVar:
    """A ``.shared`` declaration: name, bytes (0 for an ``extern`` array: dynamic shared memory), alignment."""

    name: str
    size: int
    align: int


def strip_comments(ptx: str) -> str:
    """PTX without comments, line breaks kept (so line numbers stay)."""
    return _COMMENT.sub(lambda m: "\n" * m.group().count("\n"), ptx)


def entries(ptx: str) -> dict[str, tuple[PtxParam, ...]]:
    """Every ``.entry`` and its parameters, in order."""
    out: dict[str, tuple[PtxParam, ...]] = {}
    for m in _ENTRY.finditer(strip_comments(ptx)):
        params = []
        for item in filter(None, (p.strip() for p in m[2].split(","))):
            p = _PARAM.match(item)
            if not p:
                raise ValueError(f"parameter {item!r} of {m[1]} not understood")
            types = [t for t in re.findall(r"\.(\w+)", p["decl"]) if t in TYPES]
            if not types:
                raise ValueError(f"parameter {item!r} of {m[1]} has no type")
            size, kind = TYPES[types[-1]]
            align = re.search(r"\.align\s+(\d+)", p["decl"])
            align = int(align[1]) if align else size
            if p["n"] is not None:
                size, kind = size * int(p["n"]), "b"
            params.append(PtxParam(p["name"], types[-1], size, kind, align))
        out[m[1]] = tuple(params)
    return out


def shared_vars(ptx: str) -> tuple[SharedVar, ...]:
    """The ``.shared`` variables declared anywhere in the module."""
    out = []
    for m in _SHARED.finditer(strip_comments(ptx)):
        size = TYPES.get(m[2], (1, "i"))[0]
        count = m[4]
        out.append(SharedVar(m[3], 0 if count == "" else size * int(count) if count else size, int(m[1] or size)))
    return tuple(out)


def source_files(ptx: str) -> dict[int, str]:
    """The ``.file`` table: file number -> path."""
    return {int(n): path for n, path in _FILE.findall(ptx)}


def instruction_lines(ptx: str) -> list[int]:
    """The 1-based numbers of the lines where a PTX instruction (inside a function body) begins."""
    lines = strip_comments(ptx).split("\n")
    out = []
    depth, pending, inside = 0, False, False  # inside: a statement that began on an earlier line and has not ended
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if depth == 0:
            if re.search(r"\.(entry|func)\b", text):
                pending = True
            if pending and "{" in text:
                depth, pending = text.count("{") - text.count("}"), False
            continue
        body = re.sub(r"^[$\w]+:\s*", "", text).lstrip("{ \t")  # a label, or an opening brace, before the statement
        if not inside and body and (body[0] == "@" or body[0].isalpha()):
            out.append(number)
            inside = True
        if ";" in text:
            inside = False
        depth += text.count("{") - text.count("}")
    return out


def with_ptx_lines(ptx: str, name: str) -> str:
    """The PTX with its own ``.file``/``.loc`` directives replaced by ``.loc 1 LINE 0`` before each instruction,
    ``LINE`` being the instruction's line in ``ptx``, file 1 being ``name``: ptxas ``-lineinfo`` then maps SASS to PTX lines."""
    lines = ptx.split("\n")
    marked = set(instruction_lines(ptx))
    header = next((i for i, ln in enumerate(lines) if ln.strip().startswith(".address_size")), None)
    if header is None:
        header = next((i for i, ln in enumerate(lines) if ln.strip().startswith(".target")), -1)
    out = []
    section, depth = False, 0  # inside a DWARF .section (it names the old files: dropped)
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if text.startswith(".section"):
            section, depth = True, 0
        if section:
            depth += text.count("{") - text.count("}")
            if "}" in text and depth <= 0:
                section = False
            continue
        if re.match(r"\.(loc|file)\s", text):
            continue
        if number in marked:
            out.append(f"\t.loc 1 {number} 0")
        out.append(line)
        if number - 1 == header:
            out.append(f'.file 1 "{name}"')
    return "\n".join(out) + "\n"
