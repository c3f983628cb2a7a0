"""Accel-Sim import rate: reading a synthetic ``kernel-1.traceg`` (tracer version 4) into trace v1 chunks.

    python benchmarks/bench_import.py [LINES]

A quarter of the instruction lines are shared-memory instructions (LDS, STS.128, LDSM.16.M88.4,
ATOMS.ADD, in all three address encodings), the rest arithmetic, branches and global loads, as in
a real kernel. Prints trace lines and shared-memory instructions imported per second.
"""

from __future__ import annotations

import platform
import sys
import tempfile
import time
from pathlib import Path

from simsmem.traces import open_trace

BASE = 0x00007F2A00000000
HEADER = """-kernel name = _Z4gemmPfS_S_
-kernel id = 1
-grid dim = ({ctas},1,1)
-block dim = (128,1,1)
-shmem = 49152
-binary version = 90
-shmem base_addr = 0x{base:016x}
-local mem base_addr = 0x00007f2a02000000
-accelsim tracer version = 4
-enable lineinfo = 0

#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate

"""


def shared_line(k: int) -> str:
    """One shared-memory instruction (from the mask on), cycling through ops and address encodings."""
    start = BASE + 512 * (k % 64)
    if k % 4 == 0:
        return f"ffffffff 1 R4 LDS 1 R2 4 1 0x{start:x} 4 0"
    if k % 4 == 1:
        return "ffffffff 0 STS.128 2 R2 R8 16 0 " + " ".join(f"0x{start + 16 * lane:016x}" for lane in range(32)) + " 0"
    if k % 4 == 2:
        return f"ffffffff 1 R12 LDSM.16.M88.4 1 R3 16 2 0x{start:x} " + " ".join(["16"] * 7 + ["400"] + ["16"] * 7 + ["400"] + ["16"] * 7 + ["400"] + ["16"] * 7) + " 0"
    return f"0000ffff 1 R5 ATOMS.ADD 2 R2 R6 4 1 0x{start:x} 8 0"


OTHER = ["ffffffff 1 R8 FFMA 3 R4 R6 R8 0 0", "ffffffff 0 BRA 0 0 0", "ffffffff 1 R9 LDG.E 1 R2 4 1 0x7f0000001000 4 0", "ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0 0"]


def write(path: Path, lines: int) -> int:
    """A trace of about ``lines`` instruction lines (4 warps per CTA, 256 per warp); the shared ones it holds."""
    per_warp, shared = 256, 0
    ctas = max(1, lines // (4 * per_warp))
    out = [HEADER.format(ctas=ctas, base=BASE)]
    for cta in range(ctas):
        out += ["#BEGIN_TB", f"thread block = {cta},0,0"]
        for warp in range(4):
            out += [f"warp = {warp}", f"insts = {per_warp}"]
            for i in range(per_warp):
                text = shared_line(i // 4) if i % 4 == 0 else OTHER[i % 4]
                shared += i % 4 == 0
                out.append(f"{16 * i:04x} {text}")
        out.append("#END_TB")
    path.write_text("\n".join(out) + "\n")
    return shared


def main() -> None:
    lines = int(sys.argv[1]) if len(sys.argv) > 1 else 400_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kernel-1.traceg"
        shared = write(path, lines)
        total = sum(1 for _ in path.open())
        start = time.perf_counter()
        got = sum(len(c.instructions) for c in open_trace(path).chunks)
        seconds = time.perf_counter() - start
    assert got == shared
    print(f"{platform.machine()}, Python {platform.python_version()}")
    print(f"import {total:,} trace lines ({got:,} shared-memory instructions): {total / seconds:,.0f} lines/s, {got / seconds:,.0f} shared instructions/s")


if __name__ == "__main__":
    main()
