"""Core counting speed: ``simsmem.banks.count`` on 1M random mixed shared-memory instructions.

    python benchmarks/bench_count.py [N]

Every op form sm_90 has (LDS/STS at 8..128 bits, ATOMS, LDSM/STSM x1/x2/x4), uniformly mixed;
addresses uniform over 48 KiB, aligned to the access; a fifth of LDS/STS/ATOMS with a partial
mask (one of ``MASKS``, the shapes divergence and tails give). Prints warp-instructions per second, counted whole and in 64Ki-instruction chunks
(as ``simsmem run`` does), after one warm-up call (numba's compile or cache load).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from simsmem.banks import count
from simsmem.config import load_arch
from simsmem.traces import CHUNK, INACTIVE, LANES, NO_WAIT, OPS, InstructionBatch

#: (op, width, num) of every form: LDS/STS at each width, ATOMS, LDSM/STSM x1/x2/x4.
MASKS = np.array([0x0000FFFF, 0xFFFF0000, 0x000000FF, 0x55555555, 0x00FFFFFF, 0x0000000F, 0x7FFFFFFF, 0x00000001], dtype=np.uint32)
FORMS = [(o, w, 0) for o in ("LDS", "STS") for w in (8, 16, 32, 64, 128)] + [("ATOMS", 32, 0)] + [(o, 0, n) for o in ("LDSM", "STSM") for n in (1, 2, 4)]


def random_batch(n: int, seed: int = 0, span: int = 48 * 1024) -> InstructionBatch:
    """``n`` random instructions of every form, as described above."""
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, len(FORMS), n)
    op = np.array([OPS.index(f[0]) for f in FORMS], dtype=np.uint8)[pick]
    width = np.array([f[1] for f in FORMS], dtype=np.uint8)[pick]
    num = np.array([f[2] for f in FORMS], dtype=np.uint8)[pick]
    size = np.where(width > 0, width // 8, 16).astype(np.int64)
    addrs = rng.integers(0, span, (n, LANES)) // size[:, None] * size[:, None]
    partial = (num == 0) & (rng.random(n) < 0.2)
    mask = np.where(partial, MASKS[rng.integers(0, len(MASKS), n)], 2**32 - 1).astype(np.uint32)
    lanes = np.arange(LANES)
    active = np.where(num[:, None] > 0, lanes < 8 * num[:, None].astype(np.int64), (mask[:, None] >> lanes.astype(np.uint32)) & 1 == 1)
    return InstructionBatch(
        op=op, width=np.where(num > 0, 0, width).astype(np.uint8), num=num, trans=(num > 0) & (rng.random(n) < 0.5),
        mask=mask, warp=rng.integers(0, 32, n).astype(np.int32), wait=np.full(n, NO_WAIT, np.int32), delay=np.zeros(n, np.int64),
        issue=np.zeros(n, np.int32),
        generic=np.zeros(n, bool), atom=np.zeros(n, np.uint8), addrs=np.where(active, addrs, INACTIVE).astype(np.int32),
    )


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    arch = load_arch("sm_90")
    batch = random_batch(n)
    count(batch.take(slice(0, 1000)), arch)  # warm-up: numba compiles or loads its cache
    start = time.perf_counter()
    count(batch, arch)
    whole = time.perf_counter() - start
    start = time.perf_counter()
    for s in range(0, n, CHUNK):
        count(batch.take(slice(s, s + CHUNK)), arch)
    chunked = time.perf_counter() - start
    print(f"count, {n:,} random mixed instructions at once: {n / whole:,.0f} warp-instructions/s ({whole:.2f} s)")
    print(f"count, in chunks of {CHUNK:,}:                  {n / chunked:,.0f} warp-instructions/s ({chunked:.2f} s)")


if __name__ == "__main__":
    main()
