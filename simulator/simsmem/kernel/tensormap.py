"""TMA tensor maps (``CUtensorMap``): the ``tmap:`` launch argument, its 128 bytes, and where a box's bytes go.

``tmap:DTYPE:DIMS[@STRIDES]:BOX:SWIZZLE:BUFFER`` describes what ``cuTensorMapEncodeTiled`` would be given:
DTYPE one of ``DTYPES``, DIMS the tensor's sizes innermost first (``256x64``), STRIDES the byte strides of the
dimensions after the first (packed when left out), BOX the box's sizes, SWIZZLE ``none``, ``32B``, ``64B`` or
``128B``, BUFFER ``zeros:BYTES``, ``npy:PATH`` (a new global buffer, as for pointer arguments) or ``arg:I`` (the
buffer of argument I, counted from 0). Element strides are 1, there is no interleave, and out-of-bound elements
load as zeros (and are not stored).

The driver's 128-byte encoding is not public; the machine writes its own (``encode``), which the copy instructions
read back from the parameter (``decode``). A box lands in shared memory row by row (a row: the box's first
dimension), each row at ``pitch`` bytes (the row's bytes, or the swizzle span if that is wider), then the swizzle
``Swizzle<b,4,3>`` (b = 1, 2, 3 for 32B, 64B, 128B) on the absolute shared address: bits 4.. of the address are
XORed with bits 7.., as TMA and wgmma both do.
"""

from __future__ import annotations

import math
import re
import struct

import attrs
import numpy as np

from ..hopper import box_addresses, box_rows

#: element types and their bytes
DTYPES = {"u8": 1, "u16": 2, "u32": 4, "s32": 4, "u64": 8, "s64": 8, "f16": 2, "f32": 4, "f64": 8, "bf16": 2, "f32ftz": 4, "tf32": 4}
#: swizzle modes: bytes of the span (0: none)
SWIZZLES = {"none": 0, "32B": 32, "64B": 64, "128B": 128}
MAX_RANK = 5
MAX_BOX = 256
MAGIC = b"simsmemT"
_LAYOUT = struct.Struct("<8sQBBBx5Q4Q5H")  # magic, address, rank, dtype, swizzle span / 16, dims, strides, box


class TensorMapError(ValueError):
    """A tensor map the driver would refuse."""


@attrs.frozen
class TensorMap:
    """A tiled tensor map: a ``rank``-dimensional tensor at ``address`` and the box TMA copies of it."""

    dtype: str
    address: int
    dims: tuple[int, ...]  # elements, innermost first
    strides: tuple[int, ...]  # bytes between consecutive indices of dimensions 1..rank-1
    box: tuple[int, ...]
    swizzle: int  # span in bytes; 0: none

    @property
    def elem(self) -> int:
        return DTYPES[self.dtype]

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def row_bytes(self) -> int:
        """Bytes of one row of the box (its first dimension)."""
        return self.box[0] * self.elem

    @property
    def pitch(self) -> int:
        """Bytes from one row of the box to the next in shared memory."""
        return max(self.row_bytes, self.swizzle)

    @property
    def rows(self) -> int:
        return math.prod(self.box[1:])

    @property
    def box_bytes(self) -> int:
        """Bytes a load of the box delivers (an mbarrier's transaction count): the whole box, out-of-bound zeros too."""
        return self.rows * self.row_bytes

    @property
    def extent(self) -> int:
        """Bytes from the tensor's first byte to past its last."""
        return self.elem + (self.dims[0] - 1) * self.elem + sum((d - 1) * s for d, s in zip(self.dims[1:], self.strides))

    def check(self) -> None:
        """The driver's constraints (cuTensorMapEncodeTiled); a ``TensorMapError`` names the first one broken."""
        if not 1 <= self.rank <= MAX_RANK or len(self.box) != self.rank or len(self.strides) != self.rank - 1:
            raise TensorMapError(f"DIMS and BOX need 1 to {MAX_RANK} sizes each, as many")
        if min(self.dims) < 1 or max(self.dims) > 1 << 32:
            raise TensorMapError("every size must be 1 to 2**32")
        if min(self.box) < 1 or max(self.box) > MAX_BOX:
            raise TensorMapError(f"every box size must be 1 to {MAX_BOX}")
        if self.row_bytes % 16:
            raise TensorMapError(f"the box's rows must be a multiple of 16 bytes, not {self.row_bytes}")
        if any(s % 16 or not 0 < s < 1 << 40 for s in self.strides):
            raise TensorMapError("strides must be positive multiples of 16 bytes")
        if self.swizzle and self.row_bytes > self.swizzle:
            raise TensorMapError(f"a {self.swizzle}B swizzle takes rows of at most {self.swizzle} bytes, not {self.row_bytes}")
        if self.address % 16:
            raise TensorMapError("the tensor's address must be 16-byte aligned")

    def encode(self) -> bytes:
        """The 128 bytes of the parameter (simsmem's own layout)."""
        pad = (MAX_RANK - self.rank)
        data = _LAYOUT.pack(MAGIC, self.address, self.rank, list(DTYPES).index(self.dtype), self.swizzle // 16,
                            *self.dims, *[0] * pad, *self.strides, *[0] * pad, *self.box, *[0] * pad)
        return data.ljust(128, b"\0")

    @classmethod
    def decode(cls, data: bytes) -> TensorMap | None:
        """The tensor map ``encode`` wrote, or None for other bytes."""
        if len(data) < _LAYOUT.size or data[:8] != MAGIC:
            return None
        f = _LAYOUT.unpack(data[: _LAYOUT.size])
        rank = f[2]
        dims, strides, box = f[5 : 5 + MAX_RANK], f[10 : 10 + MAX_RANK - 1], f[14 : 14 + MAX_RANK]
        return cls(list(DTYPES)[f[3]], f[1], tuple(dims[:rank]), tuple(strides[: rank - 1]), tuple(box[:rank]), f[4] * 16)

    def box_layout(self, coords: tuple[int, ...], smem: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For the box at ``coords`` landing at shared address ``smem``, per element: (global byte offset from
        ``address``, whether it is inside the tensor, shared address), in row order."""
        pos = box_rows(self.box) + np.array(coords, dtype=np.int64)[:, None]
        inside = ((pos >= 0) & (pos < np.array(self.dims, dtype=np.int64)[:, None])).all(axis=0)
        steps = np.array((self.elem, *self.strides), dtype=np.int64)
        return (pos * steps[:, None]).sum(axis=0), inside, box_addresses(smem, self.box, self.elem, self.swizzle)


_SPEC = re.compile(r"^tmap:(?P<dtype>[a-z0-9]+):(?P<dims>[0-9x]+)(@(?P<strides>[0-9,]+))?:(?P<box>[0-9x]+):(?P<swizzle>[A-Za-z0-9]+):(?P<buffer>.+)$")


def parse(text: str) -> tuple[str, tuple[int, ...], tuple[int, ...] | None, tuple[int, ...], int, str]:
    """``tmap:...`` -> (dtype, dims, strides or None for packed, box, swizzle span, buffer text); ``TensorMapError``."""
    m = _SPEC.match(text)
    if not m:
        raise TensorMapError(f"expected tmap:DTYPE:DIMS[@STRIDES]:BOX:SWIZZLE:BUFFER, got {text!r}")
    if m["dtype"] not in DTYPES:
        raise TensorMapError(f"unknown type {m['dtype']!r} (one of {', '.join(DTYPES)})")
    if m["swizzle"] not in SWIZZLES:
        raise TensorMapError(f"swizzle is none, 32B, 64B or 128B, not {m['swizzle']!r}")
    try:
        dims = tuple(int(x) for x in m["dims"].split("x"))
        box = tuple(int(x) for x in m["box"].split("x"))
        strides = tuple(int(x) for x in m["strides"].split(",")) if m["strides"] else None
    except ValueError:
        raise TensorMapError(f"sizes are numbers separated by x, strides by commas: {text!r}") from None
    return m["dtype"], dims, strides, box, SWIZZLES[m["swizzle"]], m["buffer"]


def packed(dtype: str, dims: tuple[int, ...]) -> tuple[int, ...]:
    """The byte strides of a packed tensor."""
    out, step = [], DTYPES[dtype]
    for d in dims[:-1]:
        step *= d
        out.append(step)
    return tuple(out)
