"""Compile the new realk kernels and write manifest_new.json (run here, no GPU needed).

For every source named in entries.py:  nvcc -arch=sm_90 -ptx src/X.cu -o ptx/X.ptx  (CUDA 13.0.88's nvcc: the
same release the H100 machine has), then  ptxas -arch=sm_90 ptx/X.ptx  and  cuobjdump -sass / -res-usage  of
that cubin. Each entry's kernel goes to sass/NAME.sass (encodings stripped, as in ../shared/realk/sass), its
static shared-memory SASS forms to `sass_shared`, and ptxas's resource usage to `jit` (the driver's numbers are
added by collect.py from the launcher's ATTR lines).

    python3 build.py [--nvcc PATH] [--ptxas PATH] [--cuobjdump PATH] [--no-compile]

--no-compile keeps ptx/ as it is (only re-derives sass/, sass_shared, jit, manifest_new.json).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from entries import ENTRIES  # noqa: E402

SHARED_ROOTS = ("LDS", "STS", "ATOMS", "LDSM", "STSM", "LDGSTS")
GENERIC_ROOTS = ("LD", "ST", "ATOM", "RED")  # generic-address forms (global ones are LDG/STG/ATOMG/REDG)
_FUNC = re.compile(r"^\s*Function : (\S+)")
_INSTR = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(?:(@!?U?P\w+)\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")


def find_tool(name: str, given: str | None, candidates: list[str]) -> str:
    if given:
        return given
    for c in candidates:
        if Path(c).is_file():
            return c
    w = shutil.which(name)
    if not w:
        sys.exit(f"build: {name} not found")
    return w


def run(cmd: list[str]) -> str:
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"build: {' '.join(cmd)} failed:\n{p.stdout}{p.stderr}")
    return p.stdout + p.stderr


def tool_version(tool: str) -> str:
    out = run([tool, "--version"])
    m = re.search(r"V(\d+\.\d+\.\d+)", out)
    return m[1] if m else "?"


def split_sass(dump: str) -> dict[str, list[str]]:
    """Each function's lines from cuobjdump -sass, encodings stripped (the form of ../shared/realk/sass)."""
    funcs: dict[str, list[str]] = {}
    cur: list[str] | None = None
    for line in dump.splitlines():
        if m := _FUNC.match(line):
            cur = funcs.setdefault(m[1], [])
            continue
        if cur is None:
            continue
        if line.strip().startswith("/* 0x"):
            continue  # the second encoding line
        if line.strip().startswith(".........."):
            cur = None
            continue
        if ".headerflags" in line or re.match(r"^\s*/\*[0-9a-f]{4,}\*/", line):
            cur.append(re.sub(r"\s*/\* 0x[0-9a-f]+ \*/\s*$", "", line).rstrip())
    return funcs


def shared_forms(lines: list[str]) -> dict[str, int]:
    """Static counts of shared-memory SASS opcodes (full opcode with modifiers), guarded or not: ptxas's
    `@!PT LDS RZ, [RZ]` pads next to LDGSTS count under LDS, as in ../shared/realk and manifest_triton.json (ncu
    counts them as executed shared loads with no wavefront). Generic LD/ST/ATOM/RED count too (in these kernels
    they are the generic accesses that may land in shared memory)."""
    c: Counter[str] = Counter()
    for line in lines:
        m = _INSTR.match(line)
        if not m:
            continue
        op = m[3]
        root = op.split(".")[0]
        if root in SHARED_ROOTS or root in GENERIC_ROOTS:
            c[op] += 1
    return dict(sorted(c.items()))


def res_usage(text: str) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    cur = None
    for line in text.splitlines():
        m = re.match(r"\s*Function (\S+):", line)
        if m:
            cur = m[1]
            continue
        if cur and "REG:" in line:
            out[cur] = {k: int(v) for k, v in re.findall(r"(\w+(?:\[\d+\])?):(\d+)", line)}
            cur = None
    return out


def shared_sections(cubin: Path) -> dict[str, int]:
    """Sizes of the .nv.shared.<kernel> sections (readelf)."""
    txt = run(["readelf", "-S", "-W", str(cubin)])
    out = {}
    for m in re.finditer(r"\]\s+\.nv\.shared\.(\S+)\s+NOBITS\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)", txt):
        if not m[1].startswith("reserved"):
            out[m[1]] = int(m[2], 16)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nvcc")
    ap.add_argument("--ptxas")
    ap.add_argument("--cuobjdump")
    ap.add_argument("--no-compile", action="store_true")
    a = ap.parse_args(argv)
    pip = "/work/main/.venv/lib/python3.11/site-packages/nvidia/cu13/bin"
    nvcc = find_tool("nvcc", a.nvcc, ["/usr/local/cuda-13.0/bin/nvcc"])
    ptxas = find_tool("ptxas", a.ptxas, ["/usr/local/cuda-13.0/bin/ptxas"])
    cuobjdump = find_tool("cuobjdump", a.cuobjdump, ["/usr/local/cuda-13.0/bin/cuobjdump", f"{pip}/cuobjdump"])
    vn, vp, vc = tool_version(nvcc), tool_version(ptxas), tool_version(cuobjdump)
    print(f"nvcc {vn} ({nvcc}), ptxas {vp} ({ptxas}), cuobjdump {vc} ({cuobjdump})")

    names = [e["name"] for e in ENTRIES]
    dup = [n for n, k in Counter(names).items() if k > 1]
    if dup:
        sys.exit(f"build: duplicate entry names {dup}")
    sources = sorted({e["source"] for e in ENTRIES})
    info: dict[str, tuple[dict, dict, dict]] = {}
    with tempfile.TemporaryDirectory() as td:
        for src in sources:
            stem = Path(src).stem
            ptx = HERE / "ptx" / f"{stem}.ptx"
            if not a.no_compile:
                run([nvcc, "-arch=sm_90", "-ptx", str(HERE / src), "-o", str(ptx)])
            cubin = Path(td) / f"{stem}.cubin"
            run([ptxas, "-arch=sm_90", str(ptx), "-o", str(cubin)])
            funcs = split_sass(run([cuobjdump, "-sass", str(cubin)]))
            res = res_usage(run([cuobjdump, "-res-usage", str(cubin)]))
            sec = shared_sections(cubin)
            info[f"ptx/{stem}.ptx"] = (funcs, res, sec)
            print(f"{src}: {len(funcs)} functions")

    manifest = []
    for e in ENTRIES:
        funcs, res, sec = info[e["ptx"]]
        k = e["kernel"]
        if k not in funcs:
            sys.exit(f"build: {k} not in the SASS of {e['ptx']}")
        lines = funcs[k]
        header = [f"// {e['name']}: {k}",
                  f"// ptxas -arch=sm_90 {e['ptx']} (CUDA {vp}, here, before measurement) ; cuobjdump -sass "
                  f"({vc}) ; encodings stripped"]
        (HERE / "sass" / f"{e['name']}.sass").write_text("\n".join(header + lines) + "\n")
        r = res[k]
        ent = dict(e)
        ent["jit"] = {"ptxas_regs": r["REG"], "ptxas_shared_section": r["SHARED"], "ptxas_local": r["LOCAL"],
                      "ptxas_stack": r["STACK"], "nv_shared_section_bytes": sec.get(k, 0)}
        ent["sass_shared"] = shared_forms(lines)
        ent["sass_instructions"] = sum(1 for ln in lines if _INSTR.match(ln) and " NOP" not in ln)
        manifest.append(ent)
    (HERE / "manifest_new.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"manifest_new.json: {len(manifest)} entries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
