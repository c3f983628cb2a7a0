"""Why simsmem executes SASS: the shared-memory instructions of each corpus kernel's PTX against the SASS ptxas made.

    python calibration/realk/ptx_vs_sass.py

For every kernel of manifest.json, the static counts of shared-memory accesses in its PTX function body (ld/st/atom/
red.shared, ldmatrix, stmatrix, cp.async; generic ld/st not counted) and in its SASS (the manifest's ``sass_shared``,
from ptxas 13.0.88 + cuobjdump), and whether they agree. Counting the PTX's accesses would count other instructions
than ncu does wherever they disagree.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from simsmem.kernel.program import load_program
from simsmem.kernel.ptx import strip_comments

HERE = Path(__file__).resolve().parent
PTX_OPS = re.compile(r"^\s*(?:@!?%\w+\s+)?((?:ld|st|atom|red)(?:\.\w+)*?\.shared(?:::cta)?[.\w]*|ldmatrix[.\w]*|stmatrix[.\w]*|cp\.async\.c[ag][.\w]*)", re.M)
SASS_OPS = ("LDS", "STS", "ATOMS", "LDSM", "STSM", "LDGSTS")


def body(ptx: str, entry: str) -> str:
    text = strip_comments(ptx)
    start = text.index(f".entry {entry}")
    open_ = text.index("{", text.index(")", start))
    depth, i = 0, open_
    while True:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[open_ : i + 1]
        i += 1


def ptx_form(op: str) -> str:
    parts = [p for p in op.split(".") if p not in ("volatile", "relaxed", "acquire", "release", "cta", "sync", "aligned", "m8n8", "b16")]
    if op.startswith(("ldmatrix", "stmatrix")):
        return f"{parts[0]}.{next(p for p in parts if p.startswith('x'))}" + (".trans" if "trans" in parts else "")
    if op.startswith("cp.async"):
        return ".".join(parts[:3])
    vec = next((p for p in parts if p in ("v2", "v4")), "")
    size = next((p for p in reversed(parts) if re.fullmatch(r"[bsuf](8|16|32|64)", p)), "")
    return ".".join(x for x in (parts[0] + ".shared", vec, size) if x)


def main() -> None:
    manifest = json.loads((HERE / "manifest.json").read_text())
    differ = 0
    seen = set()
    for e in manifest:
        key = (e["ptx"], e["kernel"])
        if key in seen:
            continue
        seen.add(key)
        ptx = Counter(ptx_form(m) for m in PTX_OPS.findall(body((HERE / e["ptx"]).read_text(), e["kernel"])))
        program = load_program(HERE / e["ptx"], e["kernel"])
        sass = Counter(ins.opcode.replace(".U.", ".") for ins in program.code if ins.name in SASS_OPS)
        same = sum(ptx.values()) == sum(sass.values()) and len(ptx) == len(sass)
        differ += not same
        print(f"{e['kernel'][:28]:28s} {'same' if same else 'DIFFER'}  PTX {sum(ptx.values()):3d} {dict(sorted(ptx.items()))}  SASS {sum(sass.values()):3d} {dict(sorted(sass.items()))}")
    print(f"{differ} of {len(seen)} kernels: the PTX's shared-memory accesses and the SASS's instructions differ in number or forms")


if __name__ == "__main__":
    main()
