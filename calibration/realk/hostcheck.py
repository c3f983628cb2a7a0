"""Run the plain-CUDA-C++ realk kernels on the CPU (g++ and ucontext fibers, hostcheck_shim.h) and compare their
outputs with ref.py: a check of the kernels and of the references before any GPU time is spent.

    python3 hostcheck.py [NAME ...]

Kernels with inline PTX, tensor-core or warp-level intrinsics (src/hgemm.cu, src/cpasync.cu, src/isa.cu) are
skipped. Expected mismatches (the shim runs the threads of a block one after another, not a warp in lockstep):
reduce4_warpsync and reduce6_gridstride_f4 (their barrier-free last-warp steps) and div_ifelse_order (its output
records the order in which the GPU runs the two arms). Every other kernel must match.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import ref  # noqa: E402

SKIP = {"src/hgemm.cu", "src/cpasync.cu", "src/isa.cu"}
LOCKSTEP = {"reduce4_warpsync", "reduce6_gridstride_f4", "div_ifelse_order"}


def main(argv: list[str]) -> int:
    man = json.loads((HERE / "manifest_new.json").read_text())
    ents = [e for e in man if e["source"] not in SKIP and (not argv or e["name"] in argv)]
    tmp = Path(tempfile.mkdtemp(prefix="realk_hostcheck_"))
    code = [f'#include "{HERE / "hostcheck_shim.h"}"', "alignas(16) float sdata[65536];"]
    for s in sorted({e["source"] for e in ents}):
        t = (HERE / s).read_text().replace("extern __shared__", "extern").replace("__shared__", "static")
        t = re.sub(r"#include <cuda[^>]*>", "", t)
        code.append(f"namespace ns_{Path(s).stem} {{\n{t}\n}}")
    code.append('static std::vector<char> rd(const char* fn) { FILE* f = fopen(fn, "rb"); std::vector<char> v; '
                'if (!f) return v; fseek(f, 0, 2); long n = ftell(f); fseek(f, 0, 0); v.resize(n); '
                'if (fread(v.data(), 1, n, f)) {} fclose(f); return v; }')
    code.append("int main(int argc, char** argv) { std::string which = argv[1];")
    for e in ents:
        ns = "ns_" + Path(e["source"]).stem
        code.append(f'if (which == "{e["name"]}") {{')
        names = []
        for i, a in enumerate(e["args"]):
            if a.startswith("npy:"):
                (tmp / f'{e["name"]}.in{i}').write_bytes(np.ascontiguousarray(np.load(HERE / a[4:])).tobytes())
                code.append(f'  static std::vector<char> b{i} = rd("{tmp}/{e["name"]}.in{i}"); '
                            f'b{i}.resize(b{i}.size() + 64); Arg a{i}; a{i}.p = b{i}.data();')
            elif a.startswith("zeros:"):
                code.append(f"  static std::vector<char> b{i}({int(a[6:])} + 64, 0); Arg a{i}; a{i}.p = b{i}.data();")
            elif re.search(r"[.eE]", a):
                code.append(f"  Arg a{i}; a{i}.f = {a};")
            else:
                code.append(f"  Arg a{i}; a{i}.i = {a};")
            names.append(f"a{i}")
        g, b = e["grid"], e["block"]
        code.append(f'  launch({{{g[0]},{g[1]},{g[2]}}}, {{{b[0]},{b[1]},{b[2]}}}, '
                    f'[&] {{ {ns}::{e["kernel"]}({", ".join(names)}); }});')
        for i, a in enumerate(e["args"]):
            if a.startswith("zeros:"):
                code.append(f'  {{ FILE* f = fopen("{tmp}/{e["name"]}.out{i}", "wb"); '
                            f"fwrite(b{i}.data(), 1, {int(a[6:])}, f); fclose(f); }}")
        code.append("  return 0; }")
    code.append("return 1; }")
    (tmp / "run.cpp").write_text("\n".join(code))
    r = subprocess.run(["g++", "-O1", "-std=c++17", "-w", "-o", str(tmp / "run"), str(tmp / "run.cpp")],
                       capture_output=True, text=True)
    if r.returncode:
        print(r.stderr[:8000])
        return 2
    bad = 0
    for e in ents:
        r = subprocess.run([str(tmp / "run"), e["name"]], capture_output=True, text=True)
        if r.returncode:
            print(f'{e["name"]:30s} RUN FAILED rc={r.returncode} {r.stderr[:300]}')
            bad += 1
            continue
        inp, got = {}, {}
        for i, a in enumerate(e["args"]):
            if a.startswith("npy:"):
                inp[i] = np.ascontiguousarray(np.load(HERE / a[4:])).tobytes()
            elif a.startswith("zeros:"):
                inp[i] = bytes(int(a[6:]))
                got[i] = (tmp / f'{e["name"]}.out{i}').read_bytes()
        f = ref.REFS.get(e["name"])
        if not f:
            print(f'{e["name"]:30s} no reference')
            continue
        for arg, (w, tol) in f(e, inp).items():
            err, ok, _ = ref.compare(np.frombuffer(got[arg], np.uint8), w, tol)
            note = " (expected: no lockstep in the shim)" if not ok and e["name"] in LOCKSTEP else ""
            bad += (not ok) and e["name"] not in LOCKSTEP
            print(f'{e["name"]:30s} arg{arg} {"ok" if ok else "MISMATCH"} err={err}{note}')
    print(f"{len(ents)} kernels, {bad} unexpected mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
