"""Time ``simsmem swizzle --search``: every Swizzle(B<=3, M<=4, |S|<=4) x row padding 0..128 bytes.

Prints, per access set, the candidates scored, instructions counted, and the best of several runs
(after one warm-up run that pays any one-time JIT compile). Target: well under a second each.
Run: ``python benchmarks/bench_swizzle_search.py``.
"""

from __future__ import annotations

import platform
import time

from simsmem.config import load_arch
from simsmem.patterns import parse_access
from simsmem.patterns.search import search

CASES = [
    ("64x64 half: STS.128 + LDSM.16.M88.4", 64, 64, 2, ["STS.128", "LDSM.16.M88.4"], None),
    ("64x64 half, byte swizzles: STS.128 + LDSM.16.M88.4", 64, 64, 2, ["STS.128", "LDSM.16.M88.4"], 1),
    ("64x64 half: STS.128 + LDSM.16.M88.4 + LDSM.16.MT88.4 + STS@acc", 64, 64, 2, ["STS.128", "LDSM.16.M88.4", "LDSM.16.MT88.4", "STS@acc"], None),
    ("128x64 float: STS.128 + LDS@col", 128, 64, 4, ["STS.128", "LDS@col"], None),
]


def main() -> None:
    arch = load_arch("sm_90")
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}")
    for title, rows, cols, elem, specs, unit in CASES:
        accesses = [parse_access(s) for s in specs]
        search(accesses, rows, cols, elem, arch, unit_bytes=unit)  # warm-up (JIT compile, caches)
        times = []
        for _ in range(5):
            start = time.perf_counter()
            result = search(accesses, rows, cols, elem, arch, unit_bytes=unit)
            times.append(time.perf_counter() - start)
        best = result.scores[0]
        print(f"{title}: {len(result.scores)} candidates, best {best.swizzle} pad {best.pad_bytes} B "
              f"({best.wavefronts} wavefronts), {min(times) * 1000:.0f} ms (best of 5)")


if __name__ == "__main__":
    main()
