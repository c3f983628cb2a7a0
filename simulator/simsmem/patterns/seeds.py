"""The seed documents' kernels (``calibration/h100/src/seeds.cu``) as access patterns over tiles.

GEMM variants (seed 004; one warp, 16x16x16 half): A and B are copied in with 128-bit stores (thread
``t`` stores halves ``8t .. 8t+7``, the ``row`` walk), loaded with ``LDSM.16.M88.4`` (A) and
``LDSM.16.MT88.4`` (B), C is stored as the mma accumulator fragment (``wmma::store_matrix_sync``'s
four ``STS``; v4/v5's shuffle-based stmatrix emulation stores the same elements with generic
``ST.E``) and read back with 128-bit loads. ``wmma::load_matrix_sync`` picks its own lane order
for the LDSM rows; every order that gives each 8-lane group one 8x8 block has the same addresses
per matrix, and we use ldmatrix's x4 order (lane ``l``: row ``l % 16``, column ``(l // 16) * 8``),
which v4/v5 write out. ``smem_a, smem_b, smem_c`` lie one after another from address 0 (their
real bases are multiples of 256 bytes, which moves no bank and no ``Sw<1,3,3>`` bit).

Transposes (seed 002; 32x32 ints, block 32x32, grid 8x8 = 64 CTAs): one STS and one LDS per
thread; warp ``w`` is ``threadIdx.y == w``. ``s_data[ty][tx]`` is the ``row`` walk, ``s_data[tx][ty]``
the ``col`` walk; the padded tile is ``s_data[32][33]`` and the xor-swizzled one stores at
``[x][x ^ y]``: ``Sw<5,0,5>`` over the logical ``[x][y]``.
"""

from __future__ import annotations

from ..tiles.layout import Tile, tile
from ..tiles.swizzle import IDENTITY, Swizzle, from_sbm, xor_rows
from ..traces import Trace
from .access import Access, steps_trace

G2S = Access("STS", width=128)  # LDST128BITS(smem[tx * 8]) = ...
S2G = Access("LDS", width=128)  # ... = LDST128BITS(smem_c[tx * 8])
LDSM_A = Access("LDSM", num=4)
LDSM_B = Access("LDSM", num=4, trans=True)
TRANSPOSE_CTAS = 64  # M = N = 256, 32x32 blocks


def gemm(pad: int, swizzle: Swizzle, generic: bool) -> list[tuple[Access, Tile]]:
    """v2..v5: A and B ``16 x (16 + pad)`` halves, C 16x16, all swizzled by ``swizzle``."""
    ab = 16 * (16 + pad) * 2
    a = tile(16, 16, 2, pad, swizzle, base=0)
    b = tile(16, 16, 2, pad, swizzle, base=ab)
    c = tile(16, 16, 2, 0, swizzle, base=2 * ab)
    store_c = Access("STS", width=32, walk="acc", generic=generic)
    return [(G2S, a), (G2S, b), (LDSM_A, a), (LDSM_B, b), (store_c, c), (S2G, c)]


def transpose(store: str, load: str, pad: int = 0, swizzle: Swizzle = IDENTITY) -> list[tuple[Access, Tile]]:
    """``s_data`` written with walk ``store``, read with walk ``load`` (``row``: ``[ty][tx]``, ``col``: ``[tx][ty]``)."""
    s_data = tile(32, 32, 4, pad, swizzle)
    return [(Access("STS", width=32, walk=store), s_data), (Access("LDS", width=32, walk=load), s_data)]


#: Kernel name (as in ``seed_kernels.json``, before the parameter list) -> (steps, CTAs).
SEED_KERNELS: dict[str, tuple[list[tuple[Access, Tile]], int]] = {
    "v2_wmma": (gemm(0, IDENTITY, generic=False), 1),
    "v3_wmma_padding": (gemm(8, IDENTITY, generic=False), 1),
    "v4_mma": (gemm(0, IDENTITY, generic=True), 1),
    "v5_mma_swizzle": (gemm(0, from_sbm(3, 1, 3), generic=True), 1),
    "trans_direct1": (transpose("row", "row"), TRANSPOSE_CTAS),
    "trans_direct2": (transpose("col", "col"), TRANSPOSE_CTAS),
    "trans_shm1": (transpose("row", "col"), TRANSPOSE_CTAS),
    "trans_shm2": (transpose("col", "row"), TRANSPOSE_CTAS),
    "trans_pad": (transpose("row", "col", pad=1), TRANSPOSE_CTAS),
    "trans_swizzle": (transpose("col", "row", swizzle=xor_rows(32)), TRANSPOSE_CTAS),
}


def seed_trace(name: str) -> Trace:
    """The trace of seed kernel ``name`` (a key of ``SEED_KERNELS``)."""
    steps, ctas = SEED_KERNELS[name]
    return steps_trace(steps, name, ctas=ctas, arch="sm_90")
