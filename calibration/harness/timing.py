"""The timing microbenchmark's output (``h100/src/timing.cu``) as JSON in the layout of ``h100/timing.json``.

The program prints one line per measurement: ``LAT op=LDS64 deg=2 cyc_per_dependent_load=41.20`` and
``THR op=LDS64 deg=2 warps=8 cyc_per_warp_inst=2.001``. Nothing is rounded or dropped.
"""

from __future__ import annotations

import re
from pathlib import Path

import orjson
from simsmem.traces.files import write_atomically

from .corpus import provenance

_LINE = re.compile(r"^(LAT|THR) op=(\w+) deg=(\d+)(?: warps=(\d+))? cyc_per_\w+=([\d.]+)$")
METHOD = {
    "latency": "one warp, one CTA; a chain of dependent loads (each address adds the value loaded, 0); clock64() "
               "around the chain divided by its length. 'ways': conflict degree inside each phase.",
    "throughput": "one CTA of `warps` warps on one SM, each issuing independent loads of the same pattern; clock64() "
                  "between two barriers divided by (loads * warps).",
    "source": "calibration/h100/src/timing.cu",
}


def parse(text: str) -> dict[str, list[dict]]:
    """Latency and throughput records from the program's output (other lines are an error)."""
    out: dict[str, list[dict]] = {"latency": [], "throughput": []}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        m = _LINE.match(line.strip())
        if not m:
            raise ValueError(f"line {n}: not a timing record: {line!r}")
        if m[1] == "LAT":
            out["latency"].append({"op": m[2], "ways": int(m[3]), "cycles_per_dependent_load": float(m[5])})
        else:
            out["throughput"].append({"op": m[2], "ways": int(m[3]), "warps": int(m[4]), "cycles_per_warp_instruction": float(m[5])})
    return out


def write_timing(text_path: Path, env_path: Path, out: Path, source: str = METHOD["source"]) -> int:
    """The ``timing`` command."""
    doc = {**provenance(env_path.read_text()), "method": {**METHOD, "source": source}, **parse(text_path.read_text())}
    write_atomically(out, orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    print(f"{out}: {len(doc['latency'])} latency, {len(doc['throughput'])} throughput records")
    return 0
