"""Files in and out: compressed inputs whose errors name the file, outputs written atomically.

Inputs are chosen by suffix: ``.gz`` (gzip) and ``.xz`` (what Accel-Sim's tracer writes) are read
through a decompressor, anything else as it is. A corrupt or truncated compressed file is a
``TraceError``, never a short read mistaken for the end. Outputs go to a temporary file in the same
folder and are renamed into place only once complete, so a failed write leaves nothing behind.
"""

from __future__ import annotations

import gzip
import lzma
import os
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from isal import igzip, isal_zlib

from ..errors import TraceError

#: Decompressed bytes read at a time.
BLOCK = 1 << 20
COMPRESSED = {".gz": "gzip", ".xz": "xz"}


class Input:
    """A trace file open for reading: ``read()`` blocks of decompressed bytes, ``done`` bytes of the file used."""

    def __init__(self, path: str | Path) -> None:
        self.where = str(path)
        self.kind = COMPRESSED.get(Path(path).suffix)
        try:
            self.raw: BinaryIO = open(path, "rb")  # noqa: SIM115 - closed by close()
            self.size = os.fstat(self.raw.fileno()).st_size
        except OSError as exc:
            raise TraceError(self.where, f"cannot read trace: {exc.strerror}") from None
        if self.kind == "gzip":  # ISA-L's gzip: the same format, inflated about three times faster than zlib
            self.stream: BinaryIO = igzip.IGzipFile(fileobj=self.raw, mode="rb")
        elif self.kind == "xz":
            self.stream = lzma.LZMAFile(self.raw)
        else:
            self.stream = self.raw

    @property
    def done(self) -> int:
        """Bytes of the file consumed so far (for progress bars)."""
        return self.raw.tell()

    def read(self, n: int = BLOCK) -> bytes:
        """Up to ``n`` decompressed bytes; ``b""`` only at the true end of the data."""
        try:
            return self.stream.read(n)
        except (OSError, EOFError, zlib.error, isal_zlib.error, lzma.LZMAError) as exc:
            what = f"corrupt or truncated {self.kind} data" if self.kind else "cannot read trace"
            raise TraceError(self.where, f"{what}: {exc}") from None

    def read_all(self) -> bytes:
        """Everything that is left."""
        parts = []
        while block := self.read():
            parts.append(block)
        return b"".join(parts)

    def close(self) -> None:
        self.stream.close()
        self.raw.close()


@contextmanager
def open_input(path: str | Path) -> Iterator[Input]:
    """``Input`` for ``path``, closed on leaving the block."""
    f = Input(path)
    try:
        yield f
    finally:
        f.close()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def atomic_output(path: str | Path) -> Iterator[BinaryIO]:
    """A binary file that becomes ``path`` only if the block completes (gzip-compressed for ``.gz``)."""
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise TraceError(str(path), f"cannot write: {exc.strerror}") from None
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp's 0600 -> what open() would have made
        with os.fdopen(fd, "wb") as raw:
            if path.suffix == ".gz":
                with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) as f:
                    yield f
            else:
                yield raw
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_atomically(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder, then rename."""
    with atomic_output(path) as f:
        f.write(data)
