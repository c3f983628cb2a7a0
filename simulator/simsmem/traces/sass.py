"""SASS shared-memory opcodes as trace v1 fields: ``LDS.64`` -> op LDS, width 64.

Used by the measured corpora (``simsmem.corpus``), the access-pattern language and the Accel-Sim
importer, so that every place reads an opcode the same way.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import TraceError
from .records import ATOM_KINDS, BLOCK_OPS, OPS

#: The trace's per-lane ops are SASS opcodes themselves (its block ops, GMMA and the copies, are not read from SASS text).
_SASS = re.compile(rf"^(?P<op>{'|'.join(op for op in OPS if op not in BLOCK_OPS)})(?P<rest>(\.[A-Z0-9]+)*)$")
_WIDTHS = {"U8": 8, "S8": 8, "U16": 16, "S16": 16, "64": 64, "128": 128}


def sass_form(sass: str) -> dict[str, Any]:
    """Trace-v1 fields of a SASS opcode: ``LDS.64`` -> op LDS width 64; ``LDSM.16.MT88.4`` -> num 4 trans;
    ``ATOMS.CAS.64`` -> atom cas width 64; ``ATOMS.POPC.INC.32`` -> atom popc_inc; ``LDGSTS.E.BYPASS.128`` -> width 128 bypass."""
    m = _SASS.match(sass)
    if not m:
        raise TraceError(sass, "not a shared-memory SASS opcode simsmem models")
    op, parts = m["op"], [p for p in m["rest"].split(".") if p]
    if op in ("LDSM", "STSM"):
        shape = next((p for p in parts if p in ("M88", "MT88")), None)
        if shape is None:
            raise TraceError(sass, "matrix op without .M88 or .MT88")
        return {"op": op, "num": int(parts[-1]) if parts[-1] in ("2", "4") else 1, "trans": shape == "MT88"}
    if op == "ATOMS":
        kind = "popc_inc" if parts[:2] == ["POPC", "INC"] else "cast" if parts[:2] == ["CAST", "SPIN"] else parts[0].lower() if parts else "add"
        if kind not in ATOM_KINDS:
            raise TraceError(sass, f"ATOMS.{parts[0]} is not an atomic operation simsmem models")
        return {"op": op, "width": 64 if "64" in parts else 32, "atom": kind}
    widths = [_WIDTHS[p] for p in parts if p in _WIDTHS]
    form = {"op": op, "width": widths[0] if widths else 32}
    if op == "LDGSTS" and "BYPASS" in parts:  # cp.async .cg
        form["bypass"] = True
    return form
