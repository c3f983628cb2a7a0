"""A kernel's shared arrays as the PTX names them, and the PTX type of each shared-memory access.

sm_90 keeps the CTA's first 1 KiB of shared memory for the system. ptxas places the ``.shared`` variables a kernel
uses after it: those declared in the kernel's own body first, then the module's, each in declaration order at a
multiple of its ``.align``; unused ones get no space. Where the module declares an ``extern`` buffer (dynamic shared
memory, used by this kernel or not), the end is rounded up to its alignment, and the buffer starts there; that end
is the size of ``.nv.shared.KERNEL``. An optimised cubin keeps no symbol for these variables (a ``-g`` build does,
but places them by alignment instead), so the layout is that rule, kept only where it ends exactly at the section's
size (measured with ptxas 13.0.88 on hand-written PTX: tests/test_fixes.py).
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
    own = {var.name for var in shared_vars(bodies(ptx, {entry}))}
    every = shared_vars(ptx)
    out, end = [], RESERVED if static_shared >= RESERVED else 0
    for var in [v for v in every if v.name in own] + [v for v in every if v.name not in own]:
        if var.size and re.search(rf"(?<![$\w.]){re.escape(var.name)}(?![$\w])", used):
            at = -(-end // var.align) * var.align
            out.append({"name": demangle(var.name), "symbol": var.name, "base": at, "bytes": var.size})
            end = at + var.size
    externs = [var for var in every if var.size == 0]
    align = max((var.align for var in externs), default=1)
    end = -(-end // align) * align
    if end != static_shared:
        return []
    out += [{"name": var.name, "symbol": var.name, "base": end, "bytes": dynamic, "extern": True} for var in externs
            if re.search(rf"(?<![$\w.]){re.escape(var.name)}(?![$\w])", used)]
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
