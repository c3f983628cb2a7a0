"""numba's ``njit`` (nopython, cached on disk), imported only when a function first needs it.

Importing numba and loading the first compiled function from its cache take about half a second, more than a small
trace's whole run (``simsmem run traces/ldsm_x4.json``). ``compiled`` therefore leaves a function as it is until it is
called: a function marked ``plain`` runs as the same plain Python while the process's plain work stays under
``PLAIN_WORK`` (array elements passed, summed over its calls), and anything else loads numba, which then compiles or
loads every function ``compiled`` made. The two are the same code; tests hold their results identical.

numba sees a ``Compiled`` where another compiled function calls it as the dispatcher it stands for (``_numba_type_``,
``targetoptions`` and ``py_func`` are what numba asks of a callee), so functions call one another as before.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

#: Array elements (all arguments' together, over every call) a process runs as plain Python before it loads numba: a
#: few tens of milliseconds of plain Python (measured: docs/performance.md), a tenth of loading numba.
PLAIN_WORK = 20_000
_plain_work = [0]
_inside = threading.local()  # ``on``: whether compiled functions run as plain Python now in this thread (``plain_calls``)
_loading = threading.RLock()  # (worker threads may first need numba together)
_ALL: list[Compiled] = []  # every function ``compiled`` made
_SETUP: list[Callable[[], None]] = []  # what runs once numba is imported, before any compilation
_numba: list = []  # the numba module, once loaded


class Compiled:
    """A function numba compiles when first needed (``dispatcher``); called, it runs compiled, or as plain Python where
    it is ``plain`` and the process's plain work allows."""

    def __init__(self, function: Callable, options: dict[str, Any], plain: bool) -> None:
        functools.update_wrapper(self, function)
        self.py_func = function
        self.options = options  # numba's ``njit`` keywords
        self.targetoptions = {"nopython": True, **options}
        self.plain = plain
        self._dispatcher = None
        _ALL.append(self)

    def __call__(self, *args: Any) -> Any:
        if getattr(_inside, "on", False):  # called by a function running as plain Python
            return self.py_func(*args)
        if self._dispatcher is None:
            if self.plain and _runs_plain(args):
                with plain_calls():
                    return self.py_func(*args)
            load()
        return self._dispatcher(*args)

    @property
    def dispatcher(self) -> Any:
        """numba's dispatcher of the function (numba imported, and every ``compiled`` function made, on first use)."""
        load()
        return self._dispatcher

    @property
    def signatures(self) -> list:
        """The signatures compiled (or loaded from the cache) so far in this process."""
        return self._dispatcher.signatures if self._dispatcher is not None else []

    @property
    def _numba_type_(self) -> Any:
        return _numba[0].types.Dispatcher(self.dispatcher)


def compiled(function: Callable | None = None, *, plain: bool = False, **options: Any) -> Any:
    """``function`` as a ``Compiled`` (numba's ``njit`` options: ``cache``, ``nogil``, ``inline``); ``plain``: small inputs
    run as plain Python (only for functions whose plain run gives what the compiled one does)."""
    if function is None:
        return functools.partial(compiled, plain=plain, **options)
    made = Compiled(function, options, plain)
    if _numba:
        made._dispatcher = _numba[0].njit(**options)(function)
    return made


@contextlib.contextmanager
def plain_calls() -> Iterator[None]:
    """Within it, every compiled function called in this thread runs as plain Python (what a small input gets)."""
    was, _inside.on = getattr(_inside, "on", False), True
    try:
        yield
    finally:
        _inside.on = was


def on_load(setup: Callable[[], None]) -> Callable[[], None]:
    """Run ``setup`` (numba extensions: overloads, intrinsics) once numba is imported, before any function compiles."""
    if _numba:
        setup()
    else:
        _SETUP.append(setup)
    return setup


def _runs_plain(args: tuple) -> bool:
    """Whether a call with ``args`` fits in the process's plain work (counted if so)."""
    work = sum(a.size for a in args if isinstance(a, np.ndarray))
    if _plain_work[0] + work > PLAIN_WORK:
        return False
    _plain_work[0] += work
    return True


def load() -> None:
    """Import numba (once), run the setups, and make every compiled function's dispatcher."""
    with _loading:
        if not _numba:
            import numba

            for setup in _SETUP:
                setup()
            _numba.append(numba)
        for c in _ALL:
            if c._dispatcher is None:
                c._dispatcher = _numba[0].njit(**c.options)(c.py_func)


def ready() -> None:
    """numba loaded (``load``) with its typing and target registries, which the first function compiled or loaded from
    its cache makes otherwise (about 0.25 s: a Dask worker's first task, were they not made as it starts)."""
    load()
    _nothing()


@compiled(cache=True)
def _nothing() -> int:  # pragma: no cover - compiled
    return 0
