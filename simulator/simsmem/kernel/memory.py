"""The memories a kernel sees: global buffers, and the address windows of shared and local memory.

Global memory is a list of buffers (the launch's ``zeros:``/``npy:`` arguments and the module's
``__device__`` variables), each at its own 4 GiB-aligned base, so that a 64-bit address tells its
buffer by its high word. Generic addresses whose high word is ``SHARED_HI`` (what ``S2UR SR_SWINHI``
reads) fall in the CTA's shared window, and ``LOCAL_HI`` in the thread's local memory; the low word
is then the offset in that window, as in SASS. An access outside every buffer is a ``MemoryFault``
naming what it hit or missed; the machine adds the lane and the instruction.
"""

from __future__ import annotations

import attrs
import numpy as np

GLOBAL_BASE = 0x7F00_0000_0000  # buffer i starts at GLOBAL_BASE + (i << 32)
SHARED_HI = 0x7FFE  # generic shared addresses: SHARED_HI << 32 | window offset
LOCAL_HI = 0x7FFD  # generic local addresses: LOCAL_HI << 32 | offset


def items(data: np.ndarray, size: int) -> np.ndarray:
    """``data`` (bytes, contiguous along its last axis) as items of ``size`` bytes: item k of a row is its bytes
    ``k * size`` to ``k * size + size - 1`` (a view; bytes past the last whole item left out). Gathering or scattering
    aligned accesses through it moves each one's bytes at once."""
    return data[..., : data.shape[-1] - data.shape[-1] % size].view(f"V{size}")


def windows(data: np.ndarray, size: int) -> np.ndarray:
    """Every ``size`` consecutive bytes of the contiguous 1-D ``data``, a row for each start: ``windows(d, s)[i]`` is
    ``d[i : i + s]``, a view (written through). Gathering rows of it moves each access's bytes at once."""
    return np.ndarray((max(len(data) - size + 1, 0), size), np.uint8, data, 0, (1, 1))


class MemoryFault(Exception):
    """An access the hardware would fault on: ``lane`` (index into the access's lanes) and what."""

    def __init__(self, lane: int, what: str) -> None:
        super().__init__(what)
        self.lane = lane
        self.what = what


@attrs.define(eq=False)
class Buffer:
    """One global allocation: a name for errors (``argument 1`` or a variable) and its bytes."""

    name: str
    data: np.ndarray  # uint8
    writable: bool = True


@attrs.define(eq=False)
class GlobalMemory:
    """The launch's global buffers, each at ``GLOBAL_BASE + (index << 32)``."""

    buffers: list[Buffer] = attrs.field(factory=list)

    def add(self, name: str, data: np.ndarray) -> int:
        """Place a buffer; returns its base address (0 for an empty one: a null pointer)."""
        if data.size == 0:
            return 0
        self.buffers.append(Buffer(name, np.ascontiguousarray(data).view(np.uint8).reshape(-1)))
        return GLOBAL_BASE + ((len(self.buffers) - 1) << 32)

    def locate(self, addr: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
        """(buffer index, byte offset) of each address; a fault for the first one outside every buffer or misaligned."""
        addr = addr.astype(np.uint64)
        index = ((addr - np.uint64(GLOBAL_BASE)) >> np.uint64(32)).astype(np.int64)
        offset = (addr & np.uint64(0xFFFF_FFFF)).astype(np.int64)
        sizes = np.array([b.data.size for b in self.buffers] + [0], dtype=np.int64)
        inside = (addr >= np.uint64(GLOBAL_BASE)) & (index >= 0) & (index < len(self.buffers))
        fits = inside & (offset + size <= sizes[np.where(inside, index, len(self.buffers))])
        if not fits.all():
            lane = int(np.flatnonzero(~fits)[0])
            a = int(addr[lane])
            if inside[lane]:
                b = self.buffers[index[lane]]
                raise MemoryFault(lane, f"{size}-byte access at byte {offset[lane]} of {b.name} ({b.data.size} bytes) is out of bounds")
            near = "(null pointer)" if a < 1 << 32 else ""
            raise MemoryFault(lane, f"global address {a:#x} is in no buffer {near}".rstrip())
        if size > 1 and (offset % size).any():
            lane = int(np.flatnonzero(offset % size)[0])
            raise MemoryFault(lane, f"global address {int(addr[lane]):#x} is not aligned to the {size}-byte access")
        return index, offset

    def _one_buffer(self, addr: np.ndarray, size: int) -> tuple[int, np.ndarray] | None:
        """(buffer index, byte offsets) where every address lies in one buffer, in bounds and aligned; None otherwise
        (``locate`` then says which access is wrong, or sorts the buffers out)."""
        if not len(addr) or addr.dtype != np.uint64:
            return None
        hi = addr >> np.uint64(32)
        top = int(hi.max())
        if int(hi.min()) != top:
            return None
        i = top - (GLOBAL_BASE >> 32)  # GLOBAL_BASE's low word is 0
        if not 0 <= i < len(self.buffers):
            return None
        offset = (addr & np.uint64(0xFFFF_FFFF)).astype(np.int64)
        if int(offset.max()) + size > self.buffers[i].data.size or (size > 1 and int(np.bitwise_or.reduce(offset)) % size):
            return None
        return i, offset

    def load(self, addr: np.ndarray, size: int) -> np.ndarray:
        """(n, size) bytes read at the addresses."""
        one = self._one_buffer(addr, size)
        if one is not None:
            i, offset = one
            return items(self.buffers[i].data, size)[offset // size].view(np.uint8).reshape(len(offset), size)
        index, offset = self.locate(addr, size)  # (every access aligned, as locate checks)
        out = np.empty((len(addr), size), dtype=np.uint8)
        for i in np.unique(index):
            rows = index == i
            out[rows] = items(self.buffers[i].data, size)[offset[rows] // size].view(np.uint8).reshape(-1, size)
        return out

    def span(self, addr: int, n: int) -> bytes:
        """The ``n`` bytes from ``addr`` (``load``'s fault where they are not all in one buffer)."""
        i, offset = (addr - GLOBAL_BASE) >> 32, addr & 0xFFFF_FFFF
        if addr >= GLOBAL_BASE and i < len(self.buffers) and offset + n <= self.buffers[i].data.size:
            return self.buffers[i].data[offset : offset + n].tobytes()
        return self.load(np.uint64(addr) + np.arange(n, dtype=np.uint64), 1).tobytes()

    def store(self, addr: np.ndarray, data: np.ndarray) -> None:
        """Write (n, size) bytes at the addresses, in the order given (the caller's: later rows win)."""
        size = data.shape[1]
        one = self._one_buffer(addr, size)
        if one is not None:
            i, offset = one
            items(self.buffers[i].data, size)[offset // size] = items(np.ascontiguousarray(data), size)[:, 0]
            return
        index, offset = self.locate(addr, size)  # (every access aligned, as locate checks)
        for i in np.unique(index):
            rows = index == i
            items(self.buffers[i].data, size)[offset[rows] // size] = items(np.ascontiguousarray(data[rows]), size)[:, 0]

    def buffer(self, addr: int) -> Buffer:
        """The buffer holding byte address ``addr`` (checked by ``locate`` first)."""
        return self.buffers[(addr - GLOBAL_BASE) >> 32]


def as_bytes(words: np.ndarray, size: int) -> np.ndarray:
    """(n, size) little-endian bytes of (n, k) uint32 register values (size < 4: the low bytes of the first)."""
    raw = np.ascontiguousarray(words, dtype=np.uint32).view(np.uint8).reshape(len(words), -1)
    return raw[:, :size]


def as_words(data: np.ndarray, signed: bool = False) -> np.ndarray:
    """(n, k) uint32 register values of (n, size) little-endian bytes (sizes 1 and 2 zero- or sign-extended)."""
    n, size = data.shape
    if size >= 4:
        return np.ascontiguousarray(data).view(np.uint32).reshape(n, size // 4)
    narrow = np.ascontiguousarray(data).view({1: np.uint8, 2: np.uint16}[size]).reshape(n)
    if signed:
        narrow = narrow.view({1: np.int8, 2: np.int16}[size]).astype(np.int32)
    return narrow.astype(np.uint32).reshape(n, 1)
