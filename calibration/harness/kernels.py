"""Whole kernels (the seed kernels, or any program's): ncu's kernel totals and their SASS, in the layout of
``h100/seed_kernels.json``.

One entry per profiled launch: the kernel as ncu names it, block and grid, every collected counter
(``ncu.METRICS``) as an integer, and the SASS lines of that kernel that touch shared memory or make
op_misc wavefronts (shared and generic loads/stores, matrix loads, shuffles, barriers, exits).
"""

from __future__ import annotations

import re
from pathlib import Path

import orjson
from simsmem.results.ncu_csv import parse_report
from simsmem.traces.files import write_atomically

from .corpus import counters, provenance, read_text
from .forms import SHARED_ROOTS
from .sass import Instr, functions

LISTED = SHARED_ROOTS | {"LD", "ST", "SHFL", "BAR", "EXIT", "MEMBAR"}


def short_name(symbol: str) -> str:
    """The function name in a (possibly mangled) symbol: ``_Z7v2_wmmaP6__half...`` -> ``v2_wmma``."""
    m = re.match(r"_Z(\d+)", symbol)
    return symbol[m.end() : m.end() + int(m[1])] if m else symbol


def listed(instrs: list[Instr]) -> list[str]:
    return [f"/*{i.address}*/ {i.text}" for i in instrs if i.opcode.split(".")[0] in LISTED]


def write_kernels(csv_path: Path, sass_path: Path, env_path: Path, source: str, out: Path) -> int:
    """The ``kernels`` command."""
    sass = {short_name(name): instrs for name, instrs in functions(read_text(sass_path)).items()}
    entries = []
    for k in parse_report(read_text(csv_path), str(csv_path)):
        entries.append({"kernel": k.name, "block": k.block, "grid": k.grid, "ncu": counters(k, str(csv_path)),
                        "sass": listed(sass.get(k.short_name, []))})
    doc = {**provenance(read_text(env_path)), "source": source, "kernels": entries}
    write_atomically(out, orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    print(f"{out}: {len(entries)} kernels")
    return 0
