"""Compiled passes over the per-lane columns (``addrs``, ``src``): reading them from JSON text, finding
the first lane that breaks v1's active/inactive rule, and the first lane an arch rejects. Each runs
once per lane of every instruction, which numpy could only do with several (n, 32) temporaries a pass.

``parse_lists``: msgspec checks each line's structure and hands over the lists untouched (``msgspec.Raw``); their
bytes, joined, come here. Turning 32 JSON numbers a line into Python ints cost more than everything
else in reading a trace, so one compiled pass reads them all. It takes only what a lane may hold, a
non-negative JSON integer or ``null`` (an inactive lane, read as ``INACTIVE``), exactly 32 to a list,
each at most ``limit``; anything else (a float, a string, a negative or huge number, 31 lanes) makes
it give up, and the caller leaves the lines to the exact check, which names the bad one.
"""

from __future__ import annotations

import numpy as np

from ..jit import compiled

#: Lanes of a warp; the mask of all of them.
LANES = 32
FULL_MASK = 0xFFFFFFFF
#: A per-lane column's value in a lane that gives none.
INACTIVE = -1


def no_sources(n: int) -> np.ndarray:
    """An ``src`` column of ``n`` rows without sources: a read-only view of INACTIVE (no memory, no fill)."""
    return np.broadcast_to(np.int64(INACTIVE), (n, LANES))


def holds_no_sources(src: np.ndarray) -> bool:
    """Whether ``src`` is a ``no_sources`` column (so nothing in it needs checking)."""
    return src.strides == (0, 0) and (src.size == 0 or src[0, 0] == INACTIVE)


def parse_lists(data: bytes, count: int, limit: int) -> np.ndarray | None:
    """(count, 32) int64 from ``count`` JSON lists of 32 lanes each, back to back in ``data``; None if any breaks the rules."""
    out = np.empty((count, LANES), dtype=np.int64)
    ok = _parse(np.frombuffer(data, dtype=np.uint8), out, limit)
    return out if ok else None



@compiled(cache=True, nogil=True, plain=True)
def _parse(text: np.ndarray, out: np.ndarray, limit: int) -> bool:  # pragma: no cover - compiled
    """Fill ``out`` row by row from ``text``; False at the first byte that is not a valid lane list."""
    at, end = 0, len(text)
    for row in range(out.shape[0]):
        at = _skip_space(text, at, end)
        if at == end or text[at] != ord("["):
            return False
        at += 1
        for lane in range(LANES):
            at = _skip_space(text, at, end)
            if at == end:
                return False
            c = text[at]
            if c == ord("n"):
                if at + 4 > end or text[at + 1] != ord("u") or text[at + 2] != ord("l") or text[at + 3] != ord("l"):
                    return False
                out[row, lane] = INACTIVE
                at += 4
            elif ord("0") <= c <= ord("9"):
                if c == ord("0") and at + 1 < end and ord("0") <= text[at + 1] <= ord("9"):
                    return False  # JSON has no leading zeros
                value = 0
                while at < end and ord("0") <= text[at] <= ord("9"):
                    value = value * 10 + np.int64(text[at] - ord("0"))  # (an int64 as plain Python too, not a byte)
                    if value > limit:
                        return False
                    at += 1
                out[row, lane] = value
            else:
                return False
            at = _skip_space(text, at, end)
            if at == end or text[at] != (ord(",") if lane < LANES - 1 else ord("]")):
                return False
            at += 1
    return _skip_space(text, at, end) == end


@compiled(cache=True, nogil=True, inline="always", plain=True)
def _skip_space(text: np.ndarray, at: int, end: int) -> int:  # pragma: no cover - compiled
    while at < end and (text[at] == 32 or text[at] == 9 or text[at] == 10 or text[at] == 13):
        at += 1
    return at


def first_bad_lane(lanes: np.ndarray, size: np.ndarray, limit: int) -> tuple[int, int] | None:
    """(row, lane) of the first used lane (not ``INACTIVE``) of ``lanes`` that is not a multiple of
    its row's ``size`` (a power of two) or whose ``size`` bytes end past ``limit``; None if none."""
    at = _first_bad(lanes, size.astype(np.int64), limit)
    return None if at < 0 else divmod(int(at), LANES)


@compiled(cache=True, nogil=True, plain=True)
def _first_bad(lanes: np.ndarray, size: np.ndarray, limit: int) -> int:  # pragma: no cover - compiled
    for row in range(lanes.shape[0]):
        align, last = size[row] - 1, limit - size[row]
        for lane in range(LANES):
            a = lanes[row, lane]
            if a != INACTIVE and (a & align != 0 or a > last):
                return row * LANES + lane
    return -1


def first_misplaced(lanes: np.ndarray, used: np.ndarray, matrix: np.ndarray, num: np.ndarray, mask: np.ndarray) -> tuple[int, int] | None:
    """(row, lane) of the first lane of ``lanes`` that breaks v1's rule, or None: in a ``used`` row
    an active lane (a matrix op's first ``8 * num`` lanes, else the ``mask``'s) holds a value >= 0 and
    an inactive one ``INACTIVE``; a row not ``used`` holds ``INACTIVE`` in every lane."""
    at = _first_misplaced(lanes, used, matrix, num, mask)
    return None if at < 0 else divmod(int(at), LANES)


@compiled(cache=True, nogil=True, plain=True)
def _first_misplaced(lanes, used, matrix, num, mask) -> int:  # pragma: no cover - compiled
    for row in range(lanes.shape[0]):
        for lane in range(LANES):
            active = used[row] and (lane < 8 * np.int64(num[row]) if matrix[row] else ((np.int64(mask[row]) >> lane) & 1) == 1)
            a = lanes[row, lane]
            if (a < 0) if active else (a != INACTIVE):
                return row * LANES + lane
    return -1
