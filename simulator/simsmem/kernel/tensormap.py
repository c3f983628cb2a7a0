"""TMA tensor maps (``CUtensorMap``): the ``tmap:`` launch argument, its 128 bytes, and where a box's bytes go.

``tmap:DTYPE:DIMS[@STRIDES]:BOX:SWIZZLE:BUFFER`` describes what ``cuTensorMapEncodeTiled`` would be given:
DTYPE one of ``DTYPES``, DIMS the tensor's sizes innermost first (``256x64``), STRIDES the byte strides of the
dimensions after the first (packed when left out; 0 too, as CuTe writes them for a dimension of size 1: the driver
takes it for any size, and the dimension's indices then all read one place),
BOX the box's sizes, SWIZZLE ``none``, ``32B``, ``64B`` or ``128B``, BUFFER ``zeros:BYTES``, ``npy:PATH`` (a new
global buffer, as for pointer arguments) or ``arg:I`` (the buffer of argument I, counted from 0). Element strides
are 1, there is no interleave, and out-of-bound elements load as zeros (and are not stored).

The 128 bytes are laid out as the GPU reads them (``FIELDS``): where ptxas 13.0 puts each field that
``tensormap.replace`` can change, so a kernel that builds or edits its own maps in memory (Triton's device-side
descriptors, CuTe's ``tma_descriptor_replace``) is traced like one given a map. A box lands in shared memory row
by row (a row: the box's first dimension), each row at ``pitch`` bytes (the row's bytes, or the swizzle span if
that is wider), then the swizzle ``Swizzle<b,4,3>`` (b = 1, 2, 3 for 32B, 64B, 128B) on the absolute shared
address: bits 4.. of the address are XORed with bits 7.., as TMA and wgmma both do.
"""

from __future__ import annotations

import functools
import math
import re

import attrs
import numpy as np

from ..tiles.hopper import box_addresses, box_rows

#: element types and their bytes
DTYPES = {"u8": 1, "u16": 2, "u32": 4, "s32": 4, "u64": 8, "s64": 8, "f16": 2, "f32": 4, "f64": 8, "bf16": 2, "f32ftz": 4, "tf32": 4, "tf32ftz": 4}
#: swizzle modes: bytes of the span (0: none)
SWIZZLES = {"none": 0, "32B": 32, "64B": 64, "128B": 128}
MAX_RANK = 5
MAX_BOX = 256
#: Each DTYPE's element type field (bits 7-10 of the word at 0x08, bit 16 for the tf32 forms), as ptxas writes
#: ``tensormap.replace.elemtype``'s .u8 ... .bf16 (0-10) and .tf32 / .tf32.ftz (7 and 8 with bit 16).
TYPE_CODES = {"u8": 0, "u16": 1, "u32": 2, "s32": 3, "u64": 4, "s64": 5, "f16": 6, "f32": 7, "f32ftz": 8, "f64": 9, "bf16": 10,
              "tf32": 7 | 1 << 9, "tf32ftz": 8 | 1 << 9}
#: The fields of the 128 bytes, as ptxas 13.0 compiles ``tensormap.replace`` (sm_90a): (byte offset, bit, bits) of one
#: value; the per-dimension ones are arrays, ``step`` bits apart. Sizes are stored less one, strides in 16-byte units.
#: bytes 0x0c-0x1f hold dimension k+1's stride: its low 32 bits (of the 36) at 0x0c + 4k, its top 4 in nibble k of 0x1c.
#: Two more the driver writes (cuTensorMapEncodeTiled on the H200, runs/2026-11-29-hopper-ws) and simsmem writes alike but
#: never reads: the box's bytes, and 16 bytes or eight rows of the swizzle span (the box's shared-memory alignment?).
FIELDS = {"address": (0x00, 0, 64), "rank": (0x08, 4, 3), "type": (0x08, 7, 4), "tf32": (0x08, 16, 1), "interleave": (0x08, 11, 2),
          "swizzle": (0x08, 13, 2), "fill": (0x08, 15, 1), "dims": (0x20, 0, 32), "element_strides": (0x34, 0, 3), "box": (0x37, 0, 8),
          "box_bytes": (0x40, 0, 32), "alignment": (0x48, 0, 16)}
STEP = {"dims": 32, "element_strides": 3, "box": 8}


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
        if any(s % 16 or not 0 <= s < 1 << 40 for s in self.strides):
            raise TensorMapError("strides must be multiples of 16 bytes below 2**40")
        if self.swizzle and self.row_bytes > self.swizzle:
            raise TensorMapError(f"a {self.swizzle}B swizzle takes rows of at most {self.swizzle} bytes, not {self.row_bytes}")
        if self.address % 16:
            raise TensorMapError("the tensor's address must be 16-byte aligned")

    def encode(self) -> bytes:
        """The 128 bytes of the map (``FIELDS``), element strides 1: the driver's, but for the address."""
        bits = 0
        code = TYPE_CODES[self.dtype]
        values = {"address": self.address, "rank": self.rank - 1, "type": code & 15, "tf32": code >> 9, "swizzle": (self.swizzle // 16).bit_length() - 1 if self.swizzle else 0,
                  "dims": [d - 1 for d in self.dims], "element_strides": [0] * self.rank, "box": [b - 1 for b in self.box],
                  "box_bytes": self.box_bytes, "alignment": 8 * self.swizzle or 16}
        for name, value in values.items():
            at, bit, _ = FIELDS[name]
            for k, v in enumerate(value if isinstance(value, list) else [value]):
                bits |= v << (8 * at + bit + k * STEP.get(name, 0))
        for k, stride in enumerate(self.strides):
            bits |= (stride >> 4 & 0xFFFF_FFFF) << (8 * (0x0C + 4 * k)) | (stride >> 36) << (8 * 0x1C + 4 * k)
        return bits.to_bytes(128, "little")

    @classmethod
    def decode(cls, data: bytes) -> TensorMap:
        """The tiled tensor map in ``data`` (128 bytes as the GPU reads them); a ``TensorMapError`` for one simsmem does not
        model (interleave, element strides other than 1, an unknown type) or no map at all (a null address)."""
        bits = int.from_bytes(data[:128], "little")

        def field(name: str, k: int = 0) -> int:
            at, bit, width = FIELDS[name]
            return bits >> (8 * at + bit + k * STEP.get(name, 0)) & ((1 << width) - 1)
        rank = field("rank") + 1
        code = field("type") | field("tf32") << 9
        if field("address") == 0:
            raise TensorMapError("its global address is 0 (no tensor map there?)")
        if not 1 <= rank <= MAX_RANK or code not in TYPE_CODES.values():
            raise TensorMapError(f"rank {rank}, element type {code:#x}: not a tensor map simsmem reads")
        if field("interleave") or any(field("element_strides", k) for k in range(rank)):
            raise TensorMapError("interleaved layouts and element strides other than 1 are not modelled")
        strides = tuple((bits >> (8 * (0x0C + 4 * k)) & 0xFFFF_FFFF | (bits >> (8 * 0x1C + 4 * k) & 15) << 32) << 4 for k in range(rank - 1))
        swizzle = field("swizzle")
        return cls(next(n for n, c in TYPE_CODES.items() if c == code), field("address"), tuple(field("dims", k) + 1 for k in range(rank)),
                   strides, tuple(field("box", k) + 1 for k in range(rank)), 16 << swizzle if swizzle else 0)

    def box_layout(self, coords: tuple[int, ...], smem: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """For the box at ``coords`` landing at shared address ``smem``, piece by piece in row order: (global byte offset
        from ``address``, whether it is inside the tensor, shared address), and the bytes of a piece: 16 bytes of a row
        where the whole box is inside the tensor and 16-byte aligned in both memories (a row is contiguous in each, and
        a swizzle moves whole 16 bytes), else an element."""
        steps = (self.elem, *self.strides)
        base = sum(c * s for c, s in zip(coords, steps))
        if (all(0 <= c and c + b <= d for c, b, d in zip(coords, self.box, self.dims))
                and (self.address + base) % 16 == 0 and self.row_bytes % 16 == 0 and smem % 16 == 0):
            rel, shared = _pieces(self.box, steps, self.swizzle, 16, smem)
            return base + rel, np.ones(len(rel), dtype=bool), shared, 16
        pos = box_rows(self.box) + np.array(coords, dtype=np.int64)[:, None]
        inside = ((pos >= 0) & (pos < np.array(self.dims, dtype=np.int64)[:, None])).all(axis=0)
        rel, shared = _pieces(self.box, steps, self.swizzle, self.elem, smem)
        return base + rel, inside, shared, self.elem


@functools.lru_cache(maxsize=1024)
def _pieces(box: tuple[int, ...], steps: tuple[int, ...], swizzle: int, piece: int, smem: int) -> tuple[np.ndarray, np.ndarray]:
    """A box's pieces of ``piece`` bytes (elements, or 16 bytes of a row), in row order: byte offsets in the tensor from the
    box's first element, and shared addresses; kept, read-only: a kernel copies the same boxes into the same buffers
    over and over."""
    shape = (box[0] * steps[0] // piece, *box[1:])
    rel = (box_rows(shape) * np.array((piece, *steps[1:]), dtype=np.int64)[:, None]).sum(axis=0)
    shared = box_addresses(smem, shape, piece, swizzle)
    rel.flags.writeable = shared.flags.writeable = False
    return rel, shared


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
