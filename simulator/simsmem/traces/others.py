"""A trace's other (non-shared-memory) instructions, one by one: the ``others`` field of trace v1.

::

    "others": "alu - alu:3 imad@0 alu:4@1"

The instructions a warp issues before a shared-memory instruction (after its previous one), in order, one
token each, separated by spaces::

    PIPE[:STALL][@WAIT]

- ``PIPE``: the pipe whose issue rate limits it, a name of the arch's ``timing.pipes`` (sm_90: ``alu``,
  the integer ALU of LOP3, IADD3, LEA, ISETP, ...; ``imad``), or ``-`` for none;
- ``STALL``: cycles from its issue until the warp's next instruction may issue, at least 1 (SASS's
  control-code stall count; default 1);
- ``WAIT``: it issues only once at most ``WAIT`` of the warp's earlier shared-memory instructions are in
  flight (a scoreboard wait on a load; 0: all completed).

The shared-memory instruction itself keeps its own ``wait``, ``delay`` and ``stall``.
"""

from __future__ import annotations

import functools
import re

import attrs
import numpy as np


def any_text(column: np.ndarray) -> bool:
    """Whether any row of a column of strings (``others``) holds one: by its code units, all zero in an empty string
    (numpy's own truth of a string array takes a Python call a row: 14 ms a chunk)."""
    return bool(column.view(np.uint32).any()) if column.dtype.kind == "U" else bool(column.any())


#: A token's pipe when it has none.
NO_PIPE = "-"
TOKEN = re.compile(r"(-|[a-z][a-z0-9_]*)(?::([0-9]+))?(?:@([0-9]+))?")
MAX = 2**31 - 1


@attrs.frozen
class Other:
    """One other instruction: its pipe (None: none), stall and wait (None: none)."""

    pipe: str | None = None
    stall: int = 1
    wait: int | None = None

    def __str__(self) -> str:
        return (self.pipe or NO_PIPE) + (f":{self.stall}" if self.stall != 1 else "") + (f"@{self.wait}" if self.wait is not None else "")


@functools.lru_cache(maxsize=4096)
def parse(text: str) -> tuple[Other, ...]:
    """The instructions of an ``others`` string; ValueError naming the first bad token."""
    out = []
    for k, token in enumerate(text.split()):
        m = TOKEN.fullmatch(token)
        if m is None:
            raise ValueError(f"token {k + 1} {token!r}: expected PIPE[:STALL][@WAIT], e.g. 'alu', '-:3', 'imad@0'")
        pipe, stall, wait = m[1], int(m[2] or 1), None if m[3] is None else int(m[3])
        if not 1 <= stall <= MAX:
            raise ValueError(f"token {k + 1} {token!r}: the stall must be a positive count of cycles")
        if wait is not None and wait > MAX:
            raise ValueError(f"token {k + 1} {token!r}: the wait is too large")
        out.append(Other(None if pipe == NO_PIPE else pipe, stall, wait))
    return tuple(out)


def unparse(others: tuple[Other, ...]) -> str:
    """The ``others`` string of ``others`` (``parse`` backwards, canonical: defaults left out)."""
    return " ".join(map(str, others))


def pipes_of(text: str) -> frozenset[str]:
    """The pipe names an ``others`` string uses."""
    return frozenset(o.pipe for o in parse(text) if o.pipe is not None)
