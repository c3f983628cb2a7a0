"""The ops without lanes: a warpgroup's wgmma and the TMA's copies, counted from their size.

A wgmma reads its A and B operands from shared memory through matrix descriptors, a copy moves a TMA box or a bulk
run of bytes: none has lanes, and none has a bank conflict in any layout measured (calibration/realk/hopper.json:
every swizzle mode, K- and M/N-major, padded offsets, starts inside a swizzle atom). A wgmma takes one LSU data-path
wavefront per ``wavefront_bytes`` it reads; the copies take none (ncu's LSU wavefront counters do not see their
data). Every byte goes through the banks once: a word read per 4 bytes of a wgmma's operands or of a copy out of
shared memory, a word written per 4 bytes of a copy into it.
"""

from __future__ import annotations

import numpy as np

from ..config import ArchConfig
from ..traces.records import OPS, InstructionBatch, gmma_bytes


def block_bytes(batch: InstructionBatch, rows: np.ndarray) -> np.ndarray:
    """Bytes of shared memory each of ``rows`` (block ops) reads or writes: a wgmma's operands, a copy's ``size``."""
    gmma = batch.op[rows] == OPS.index("GMMA")
    return np.where(gmma, gmma_bytes(batch.n[rows], batch.desc_a[rows], batch.sparse[rows]), batch.size[rows]).astype(np.int64)


def reads_banks(batch: InstructionBatch, rows: np.ndarray, arch: ArchConfig) -> np.ndarray:
    """Whether each of ``rows`` reads the banks (False: writes them): a wgmma, a copy out of shared memory."""
    reads = np.array([arch.block_ops[name].reads for name in OPS if name in arch.block_ops])
    codes = np.array([OPS.index(name) for name in OPS if name in arch.block_ops])
    table = np.zeros(len(OPS), dtype=bool)
    table[codes] = reads
    return table[batch.op[rows]] ^ batch.store[rows]


def count_blocks(batch: InstructionBatch, rows: np.ndarray, arch: ArchConfig, out: np.ndarray) -> None:
    """Wavefronts and ideal wavefronts (out rows 0, 1), bank words read and written (6, 7) of block-op ``rows``."""
    size = block_bytes(batch, rows)
    per = np.zeros(len(OPS), dtype=np.int64)
    for name, spec in arch.block_ops.items():
        per[OPS.index(name)] = spec.wavefront_bytes
    wavefront = per[batch.op[rows]]
    out[0, rows] = out[1, rows] = np.where(wavefront > 0, -(-size // np.maximum(wavefront, 1)), 0)
    words = size // arch.bank_width
    reads = reads_banks(batch, rows, arch)
    out[6, rows] = np.where(reads, words, 0)
    out[7, rows] = np.where(reads, 0, words)
