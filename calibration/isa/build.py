"""Compile the calibration/isa kernels and cache what ptxas makes of them (no GPU needed).

    python3 build.py [--check]

For each source in src/: ``nvcc -arch=sm_90 -ptx src/X.cu -o ptx/X.ptx`` (the PTX the launcher loads), then
``ptxas -arch=sm_90 ptx/X.ptx -o cubin/X.cubin`` (sources named ``*_sm90a.cu``: the sm_90a target) (what simsmem executes in tests/test_isa.py, so that the quick suite
runs no ptxas; the same ptxas 13.0.88 as the H100/H200 drivers' JIT). The realk ISA kernels' PTX
(../realk/ptx/isa.ptx) gets its cubin here too: tests/test_isa.py traces those entries against their H100 outputs.
``manifest.json``'s entries get ``sass_opcodes``: every opcode (with its modifiers) in the kernel's SASS, with
counts: the prediction of what each kernel makes ptxas emit. ``--check`` rebuilds in a temporary folder and fails if
any PTX, cubin or ``sass_opcodes`` differs from what is committed.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "simulator"))
from simsmem.kernel import toolchain  # noqa: E402

BORROWED = [HERE.parent / "realk" / "ptx" / "isa.ptx"]  # other corpora's PTX whose cubins the quick test needs
_OPCODE = re.compile(r"^(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9_]+)*)")


def run(args: list[str]) -> None:
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"build: {' '.join(args)} failed:\n{done.stdout}{done.stderr}")


def opcodes(cubin: Path) -> dict[str, dict[str, int]]:
    """Per kernel, each opcode as nvdisasm prints it (modifiers kept) and how many times it appears."""
    listing = toolchain.disassemble(cubin.read_bytes(), str(cubin))
    return {name: dict(sorted(Counter(e["opcode"] for e in f["sass-instructions"]).items())) for name, f in listing.items()}


def build(out: Path) -> dict[str, dict[str, int]]:
    (out / "ptx").mkdir(parents=True, exist_ok=True)
    (out / "cubin").mkdir(exist_ok=True)
    emitted: dict[str, dict[str, int]] = {}
    for src in sorted((HERE / "src").glob("*.cu")):
        ptx = out / "ptx" / f"{src.stem}.ptx"
        hopper = src.stem.endswith("_sm90a")  # Hopper-only instructions: the sm_90a target
        target = ["-gencode=arch=compute_90a,code=compute_90a"] if hopper else ["-arch=sm_90"]
        run([toolchain.tool("nvcc"), *target, "-ptx", "-I", str(HERE / "src"), str(src), "-o", str(ptx)])
        run([toolchain.tool("ptxas"), f"-arch=sm_90{'a' if hopper else ''}", str(ptx), "-o", str(out / "cubin" / f"{src.stem}.cubin")])
        emitted.update(opcodes(out / "cubin" / f"{src.stem}.cubin"))
    for ptx in BORROWED:
        run([toolchain.tool("ptxas"), "-arch=sm_90", str(ptx), "-o", str(out / "cubin" / f"realk_{ptx.stem}.cubin")])
    return emitted


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="rebuild elsewhere and compare with what is committed")
    args = ap.parse_args()
    manifest = json.loads((HERE / "manifest.json").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) if args.check else HERE
        emitted = build(out)
        for e in manifest:
            e["sass_opcodes"] = emitted[e["kernel"]]
        text = json.dumps(manifest, indent=1) + "\n"
        if not args.check:
            (HERE / "manifest.json").write_text(text)
            return 0
        bad = [p.relative_to(out) for d in ("ptx", "cubin") for p in sorted((out / d).iterdir())
               if (HERE / p.relative_to(out)).read_bytes() != p.read_bytes()]
        if text != (HERE / "manifest.json").read_text():
            bad.append("manifest.json (sass_opcodes)")
        for b in bad:
            print(f"{b}: differs from what build.py makes")
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
