"""The engine's rules compiled by numba, or the same functions run as plain Python.

``compiled`` is numba's ``njit`` with its disk cache, numba imported when first needed (``simsmem.jit``). numba keys a cached function by its own source file
only, and the engine's functions call one another across files (a cached caller holds its callees' code),
so each compiled function's name carries a digest of every source file of the engine: an edit anywhere in
``simsmem/engine`` makes numba compile them all afresh, and no cached function runs old code.

``plain`` gives a compiled function as plain Python, calling the plain versions of the others: a small
trace runs so at once, where compiling the engine takes numba tens of seconds (loading it from the cache
afterwards, a fraction of one). The two are the same code; tests hold their results identical.

``table`` views a run's byte buffer as a table of records: in numpy, or compiled as an array that holds no
reference to the buffer, which numba would otherwise count at every call and every table taken out of the
state (most of the engine's time, measured).
"""

from __future__ import annotations

import functools
import hashlib
import types
from pathlib import Path

import numpy as np

from .. import jit

#: A digest of the engine's sources (every ``simsmem/engine/*.py``).
DIGEST = hashlib.sha256(b"".join(path.read_bytes() for path in sorted(Path(__file__).parent.glob("*.py")))).hexdigest()[:16]

_COMPILED: list = []  # every function ``compiled`` made, to find their plain versions


def compiled(function=None, *, inline: bool = False):
    """``function`` compiled by numba (nopython, cached on disk under a name carrying ``DIGEST``); ``inline``: into
    each caller (a small function taking the whole state: numba counts references to each of its tables at every
    call)."""
    if function is None:
        return functools.partial(compiled, inline=inline)
    function.__qualname__ = f"{function.__qualname__}_{DIGEST}"
    made = jit.compiled(function, cache=True, nogil=True, inline="always" if inline else "never")
    _COMPILED.append(made)
    return made


def plain(dispatcher):
    """The plain Python function of a ``compiled`` one, whose calls go to the plain versions of the others."""
    return _plain_versions()[id(dispatcher)]


def table(buffer: np.ndarray, at: int, shape, dtype: np.dtype) -> np.ndarray:
    """The records of ``dtype`` from byte ``at`` of ``buffer``, ``shape`` of them (a count, or rows and columns), as
    an array over it. Compiled, the array holds no reference to the buffer (numba would count references to it at
    every call: most of the engine's time), so the buffer must outlive every call that makes one, as a run's does."""
    return buffer[at:at + int(np.prod(shape)) * dtype.itemsize].view(dtype).reshape(shape)


@jit.on_load
def _extensions() -> None:
    """``table`` compiled: an array over the buffer's memory that holds no reference to it."""
    import numba
    from numba.core import cgutils
    from numba.core.types import voidptr
    from numba.extending import intrinsic, overload

    @intrinsic
    def pointer(typingctx, address):  # pragma: no cover - compiled
        """An address as a ``void *``."""
        def cast(context, builder, signature, args):
            return builder.inttoptr(args[0], cgutils.voidptr_t)
        return voidptr(address), cast

    @overload(table)
    def _table(buffer, at, shape, dtype):  # pragma: no cover - compiled
        def unowned(buffer, at, shape, dtype):
            return numba.carray(pointer(buffer.ctypes.data + at), shape, dtype)
        return unowned


@functools.cache
def _plain_versions() -> dict[int, types.FunctionType]:
    """Each compiled function's plain version (by the dispatcher's id), over copies of their modules' globals in
    which every compiled function is replaced by its plain version. (Made once, after the engine is imported.)"""
    scopes: dict[str, dict] = {}
    versions = {}
    for dispatcher in _COMPILED:
        f = dispatcher.py_func
        scope = scopes.setdefault(f.__module__, dict(f.__globals__))
        versions[id(dispatcher)] = types.FunctionType(f.__code__, scope, f.__name__, f.__defaults__, f.__closure__)
    for scope in scopes.values():
        for name, value in scope.items():
            if id(value) in versions:
                scope[name] = versions[id(value)]
    return versions
