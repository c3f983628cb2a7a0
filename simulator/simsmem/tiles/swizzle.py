"""Swizzles: CuTe's ``Swizzle<BBits, MBase, SShift>``, the seeds' spellings of it, and TMA's modes.

A swizzle xors one run of an offset's bits (YYY) into another (ZZZ) so that elements a warp reads
together land in different banks. Same definition and parameter order as CuTe
(``cute/swizzle.hpp``, ``python/pycute/swizzle.py``); it works on any integer offsets (element
or byte offsets: the units are the caller's, see ``recast``) and on numpy arrays.
"""

from __future__ import annotations

import attrs

from ..errors import SimsmemError


@attrs.frozen
class Swizzle:
    """CuTe's ``Swizzle<B, M, S>``: xor the ``B`` bits found ``S`` above bit ``M`` into bits ``[M, M+B)``.

    ::

        0bxxxxxxxxxxxxxxxYYYxxxxxxxZZZxxxx
                                      ^--^  M (base): the least significant bits kept as they are
                         ^-^       ^-^      B (bits): the width of the YYY and ZZZ masks
                           ^---------^      S (shift): how far YYY lies above ZZZ
                                            (S > 0: YYY above ZZZ; S < 0: YYY below ZZZ)

        result: 0bxxxxxxxxxxxxxxxYYYxxxxxxxAAAxxxx   where AAA = ZZZ xor YYY

    With ``S > 0``: ZZZ = bits ``[M, M+B)``, YYY = bits ``[M+S, M+S+B)``. With ``S < 0`` the roles
    swap places: YYY = bits ``[M, M+B)``, ZZZ = bits ``[M-S, M-S+B)``. ``|S| >= B`` keeps the masks
    apart, which makes every swizzle its own inverse (``f(f(x)) == x``), hence a bijection.
    ``Swizzle(0, M, S)`` is the identity.
    """

    bits: int
    base: int
    shift: int

    def __attrs_post_init__(self) -> None:
        if self.bits < 0 or self.base < 0:
            raise SimsmemError(str(self), "B (bits) and M (base) must be >= 0")
        if abs(self.shift) < self.bits:
            raise SimsmemError(str(self), f"|S| must be >= B: the YYY and ZZZ masks would overlap (|{self.shift}| < {self.bits})")

    @property
    def yyy_mask(self) -> int:
        """The bits that are read (and left alone)."""
        return ((1 << self.bits) - 1) << (self.base + max(0, self.shift))

    @property
    def zzz_mask(self) -> int:
        """The bits that are flipped."""
        return ((1 << self.bits) - 1) << (self.base - min(0, self.shift))

    @property
    def size(self) -> int:
        """The period: offsets ``[k*size, (k+1)*size)`` map onto themselves."""
        return 1 << (self.bits + self.base + abs(self.shift))

    @property
    def is_identity(self) -> bool:
        return self.bits == 0

    def __call__(self, offset):
        """The swizzled offset (an int, or elementwise over a numpy integer array)."""
        yyy = offset & self.yyy_mask
        moved = yyy >> self.shift if self.shift >= 0 else yyy << -self.shift
        return offset ^ moved

    def __str__(self) -> str:
        return f"Sw<{self.bits},{self.base},{self.shift}>"

    def describe(self) -> str:
        """One line in words: which bits are xor'd into which."""
        if self.is_identity:
            return f"{self}: the identity (B = 0)"
        keep = f", bits 0..{self.base - 1} kept" if self.base else ""
        return f"{self}: {_bits(self.yyy_mask)} xor'd into {_bits(self.zzz_mask)}{keep}; repeats every {self.size} offsets"


IDENTITY = Swizzle(0, 0, 0)

#: TMA's shared-memory swizzle modes (``CU_TENSOR_MAP_SWIZZLE_*``) on **byte** offsets: the 16-byte
#: chunk index within each 32/64/128-byte span is xor'd with the 128-byte row index (seed 000,
#: "TMA中的swizzling"). CuTe maps them the same way (``get_tma_swizzle_bits``: M == 4, B = 1/2/3).
TMA_MODES: dict[str, Swizzle] = {
    "none": IDENTITY,
    "32B": Swizzle(1, 4, 3),
    "64B": Swizzle(2, 4, 3),
    "128B": Swizzle(3, 4, 3),
}


def from_sbm(s: int, b: int, m: int) -> Swizzle:
    """Seed 004's ``swizzle<S, B, M>(addr) = ((addr >> S) & (((1 << B) - 1) << M)) ^ addr`` as CuTe's.

    Its ``<3, 1, 3>`` on half offsets is CuTe ``Swizzle<1, 3, 3>`` (bit 6 flips bit 3).
    """
    return Swizzle(b, m, s)


def xor_rows(cols: int) -> Swizzle:
    """The seeds' row xor ``physical col = col ^ row`` of a row-major tile of ``cols`` (a power of 2).

    On element offsets ``row * cols + col`` it is ``Swizzle<log2 cols, 0, log2 cols>`` (seed 000's
    8x8 ``SMS=(3,0,3)`` table; seed 002's ``s_data[x][x ^ y]`` is ``Sw<5,0,5>``).
    """
    k = _log2(cols, "cols")
    return Swizzle(k, 0, k)


def recast(sw: Swizzle, from_bytes: int, to_bytes: int) -> Swizzle:
    """The same swizzle on offsets counted in units of ``to_bytes`` instead of ``from_bytes``.

    TMA's 128B mode ``Sw<3,4,3>`` on bytes is ``Sw<3,3,3>`` on half offsets and ``Sw<3,2,3>`` on
    float offsets (CuTe's ``recast_layout``). A swizzle that would move parts of one unit apart
    has no such form and is an error.
    """
    m = sw.base + _log2(from_bytes, "element size") - _log2(to_bytes, "element size")
    if sw.is_identity:
        return IDENTITY
    if m < 0:
        raise SimsmemError(str(sw), f"moves bits inside a {to_bytes}-byte element; it has no form on {to_bytes}-byte offsets")
    return Swizzle(sw.bits, m, sw.shift)


def keeps_vectors(sw: Swizzle, vector: int) -> bool:
    """True when every aligned run of ``vector`` offsets stays whole and in order (``2**M >= vector``)."""
    return sw.is_identity or (1 << sw.base) >= vector


def _bits(mask: int) -> str:
    lo, hi = (mask & -mask).bit_length() - 1, mask.bit_length() - 1
    return f"bit {lo}" if lo == hi else f"bits {lo}..{hi}"


def _log2(n: int, what: str) -> int:
    if n < 1 or n & (n - 1):
        raise SimsmemError(what, f"{n} is not a power of 2")
    return n.bit_length() - 1
