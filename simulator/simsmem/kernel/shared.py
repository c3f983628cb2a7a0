"""A kernel's shared arrays as the PTX names them, and the PTX type of each shared-memory access.

sm_90 keeps the CTA's first 1 KiB of shared memory for the system. ptxas places the ``.shared`` variables a kernel
uses after it, in the PTX's declaration order, each at a multiple of its ``.align``; unused ones get no space. The
``extern`` buffer (dynamic shared memory) starts where they end, at its own alignment, and that end is the size of
``.nv.shared.KERNEL``. An optimised cubin keeps no symbol for these variables (a ``-g`` build does, but places them
by alignment instead), so the layout is that rule, kept only where it ends exactly at the section's size.
"""

from __future__ import annotations

import re

from .ptx import TYPES, shared_vars, strip_comments

#: Where user shared memory starts on sm_90 (the system's 1 KiB before it).
RESERVED = 0x400
_FUNCTION = re.compile(r"\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([$\w.]+)")
_LOCAL = re.compile(r"_ZZ.*?E(\d+)(\w+?)(?:_\d+)?$")
#: A PTX memory instruction: its opcode's dotted parts.
_MEMORY = re.compile(r"^\s*(?:@!?%?\w+\s+)?((?:ld|st|atom|red|ldmatrix|stmatrix|cp)\.[\w.]+)")


def demangle(symbol: str) -> str:
    """The name a CUDA author gave a function-scope ``__shared__`` variable (``_ZZ4kernE2As`` -> ``As``)."""
    m = _LOCAL.match(symbol)
    return m[2] if m and len(m[2]) == int(m[1]) else symbol


def bodies(ptx: str, names: set[str]) -> str:
    """The text of the PTX functions called ``names`` (their bodies, braces matched)."""
    text = strip_comments(ptx)
    out = []
    for m in _FUNCTION.finditer(text):
        if m[1] not in names:
            continue
        start = text.find("{", m.end())
        depth, i = 0, start
        while start >= 0 and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                break
        out.append(text[start:i])
    return "\n".join(out)


def layout(ptx: str, entry: str, functions: set[str], static_shared: int, dynamic: int) -> list[dict]:
    """The shared arrays of kernel ``entry`` (which calls ``functions``), as placed in the CTA's window: name, PTX
    symbol, base, bytes, and ``extern`` for the dynamic buffer (``dynamic`` bytes at launch); none where the
    placement rule does not end at ``static_shared`` (the size ptxas gave the section)."""
    used = re.sub(r"\.shared\s[^;]*;", "", bodies(ptx, {entry, *functions}))  # uses, not declarations
    out, end = [], RESERVED
    extern = None
    for var in shared_vars(ptx):
        if not re.search(rf"(?<![$\w.]){re.escape(var.name)}(?![$\w])", used):
            continue
        at = -(-end // var.align) * var.align
        if var.size == 0:
            extern = (var, at)
            continue
        out.append({"name": demangle(var.name), "symbol": var.name, "base": at, "bytes": var.size})
        end = at + var.size
    if not out and static_shared < RESERVED:
        end = static_shared
    if extern is not None:
        end = -(-end // extern[0].align) * extern[0].align
    if end != static_shared:
        return []
    if extern is not None:
        out.append({"name": extern[0].name, "symbol": extern[0].name, "base": end, "bytes": dynamic, "extern": True})
    return out


def access_types(ptx: str, ptx_lines: dict[int, int], pcs: list[int]) -> dict[str, str]:
    """The PTX type (``f32``, ``b16``...) of the memory instruction each SASS instruction at ``pcs`` came from, where
    its PTX line is one and names a type (a cp.async names none)."""
    lines = ptx.split("\n")
    out = {}
    for pc in pcs:
        number = ptx_lines.get(pc)
        m = _MEMORY.match(lines[number - 1]) if number and number <= len(lines) else None
        kinds = [part for part in m[1].split(".") if part in TYPES] if m else []
        if kinds:
            out[f"{pc:#06x}"] = kinds[-1]
    return out


def header(program, dynamic: int, pcs: list[int]) -> dict:
    """The trace header's ``shared`` object: the arrays (``layout``) and the PTX type of the accesses at ``pcs``."""
    if program.ptx is None:
        return {"arrays": [], "types": {}}
    arrays = layout(program.ptx, program.entry, set(program.kernel.functions), program.kernel.static_shared, dynamic)
    return {"arrays": arrays, "types": access_types(program.ptx, program.ptx_lines, pcs)}
