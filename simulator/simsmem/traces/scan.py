"""JSON Lines to columns in one compiled pass: the reader's fastest path, for the JSON a trace writer writes.

``scan`` reads a block of instruction lines byte by byte into an int64 value per field and row, the lane lists
into their columns (each in its dtype, a lane that gives no value ``INACTIVE``: ``_place``), the strings of ``others``
as spans, and which fields each row gives. It takes a strict subset of
JSON: objects of known keys without escapes, non-negative integers without fraction or exponent, ``true``,
``false``, ``null`` in a lane list, ASCII strings without escapes, each field's value of the JSON type its kind's
schema takes (``kinds.Kind.scanned``) and within its range. Anything else (a duplicate key, a float, ``"\\u..."``,
a mask written in decimal text, ...) makes it decline, and the block goes to msgspec (``decode``), which reads all
of JSON and names nothing differently. Every line it takes reads as msgspec's schema reads it; the rules of
whole rows (which ops take which fields, forms, ranges between fields) stay ``v1.column_problem``'s.
"""

from __future__ import annotations

import numpy as np

from ..jit import compiled
from .kinds import BOX_BITS, NO_WAIT
from .lanes import INACTIVE, LANES, no_sources
from .records import COLUMNS, DTYPES, IS_LANES, IS_MATRIX, OP_FIELDS, OPS

#: How a field's value is read (``Kind.scanned``'s first item): its code in the compiled pass.
SCANS = ("int", "bool", "wait", "mask", "choice", "text", "lanes", "word", "box")
_INT, _BOOL, _WAIT, _MASK, _CHOICE, _TEXT, _LANES, _WORD, _BOX = range(len(SCANS))
NAMES = tuple(COLUMNS)
#: Per field: its scan code and largest integer; its lane slot (per-lane fields) and its vocabulary (choices).
_KIND = np.array([SCANS.index(f.kind.scanned()[0]) for f in COLUMNS.values()], dtype=np.int64)
_LIMIT = np.array([f.kind.scanned()[1] for f in COLUMNS.values()], dtype=np.int64)
LANE_FIELDS = tuple(name for name, f in COLUMNS.items() if f.kind.scanned()[0] == "lanes")
assert LANE_FIELDS == ("addrs", "src"), "the pass fills two per-lane columns, a lane's addresses and its sources"
_SLOT = np.array([LANE_FIELDS.index(name) if name in LANE_FIELDS else -1 for name in NAMES], dtype=np.int64)
TEXT_FIELDS = tuple(name for name, f in COLUMNS.items() if f.kind.scanned()[0] == "text")
_SPAN = np.array([TEXT_FIELDS.index(name) if name in TEXT_FIELDS else -1 for name in NAMES], dtype=np.int64)


def _table(words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Words as rows of bytes (zero-padded) and their lengths."""
    width = max(map(len, words))
    table = np.zeros((len(words), width), dtype=np.uint8)
    for i, w in enumerate(words):
        table[i, : len(w)] = np.frombuffer(w.encode(), dtype=np.uint8)
    return table, np.array([len(w) for w in words], dtype=np.int64)


_KEYS, _KEY_LEN = _table(list(NAMES))
_CHOICES = [COLUMNS[name].kind.names if _KIND[f] == _CHOICE else () for f, name in enumerate(NAMES)]
_VOCAB, _VOCAB_LEN = _table([w for names in _CHOICES for w in names])
_VOCAB_FROM = np.cumsum([0] + [len(c) for c in _CHOICES])[:-1].astype(np.int64)
_VOCAB_COUNT = np.array([len(c) for c in _CHOICES], dtype=np.int64)
#: Per op code, the bits (field index) of the fields it takes and of those it needs.
_TAKES = np.array([sum(1 << f for f, name in enumerate(NAMES) if name in spec.takes | {"op"}) for spec in OP_FIELDS.values()], dtype=np.uint64)
_NEEDS = np.array([sum(1 << f for f, name in enumerate(NAMES) if name in spec.needs | {"op"}) for spec in OP_FIELDS.values()], dtype=np.uint64)
#: Each field's column value where a row leaves it out (text and lanes: in their own arrays).
_DEFAULT = np.array([0 if _KIND[f] in (_TEXT, _LANES) else int(c.default) for f, c in enumerate(COLUMNS.values())], dtype=np.int64)
assert len(NAMES) <= 64, "a row's fields are the bits of a uint64"
#: The fields ``_place`` reads, by index: op, num, mask, and the two per-lane ones.
_PLACED = np.array([NAMES.index(name) for name in ("op", "num", "mask", *LANE_FIELDS)], dtype=np.int64)


class Scanned:
    """A block's rows as the compiled pass read them."""

    def __init__(self, n: int) -> None:
        self.values = np.empty((len(NAMES), n), dtype=np.int64)  # each field's value in the rows that give it (else unset)
        self.present = np.zeros(n, dtype=np.uint64)  # bit f: the row gives field f
        self.given = np.zeros(len(NAMES), dtype=np.int64)  # how many rows give each field
        self.addrs = np.empty((n, LANES), dtype=DTYPES["addrs"])  # the per-lane columns (``_place`` fills what no list gave;
        self.src = np.empty((n, LANES), dtype=DTYPES["src"])  # memory no row writes is never touched)
        self.spans = np.full((n, len(TEXT_FIELDS), 2), -1, dtype=np.int64)  # a text's bytes in the block

    def column(self, name: str, data: bytes) -> np.ndarray:
        """A field's column as ``decode`` holds it before its checks (``kinds.Kind.column``'s), a per-lane one placed."""
        f = NAMES.index(name)
        n = len(self.present)
        if _KIND[f] == _LANES:
            return getattr(self, name) if name == "addrs" or self.given[f] else no_sources(n)
        if _KIND[f] == _TEXT:
            if not self.given[f]:
                return np.zeros(n, dtype="U1")
            return np.array(["" if s < 0 else data[s:e].decode() for s, e in self.spans[:, _SPAN[f]].tolist()], dtype=str)
        if not self.given[f]:
            return np.full(n, _DEFAULT[f], dtype=DTYPES[name])
        values = self.values[f]
        if self.given[f] < n:
            values = np.where((self.present & np.uint64(1 << f)) != 0, values, _DEFAULT[f])
        return values.view(np.uint64).copy() if _KIND[f] == _WORD else values.astype(DTYPES[name])


def scan(data: bytes, lines: int | None = None) -> Scanned | None:
    """The rows of JSON Lines ``data`` (one instruction object a line, no final newline; ``lines`` of them, where the
    caller counted them), or None where the compiled pass declines a line or a row gives a field its op does not take
    or lacks one it needs."""
    out = Scanned(data.count(b"\n") + 1 if lines is None else lines)
    if not _scan(np.frombuffer(data, dtype=np.uint8), _KIND, _LIMIT, _KEYS, _KEY_LEN, _VOCAB, _VOCAB_LEN, _VOCAB_FROM, _VOCAB_COUNT, _SLOT,
                 _SPAN, out.values, out.present, out.given, out.addrs, out.src, out.spans):
        return None
    if out.given[0] < len(out.present):  # a row without its op
        return None
    op = out.values[0]
    if (op >= len(OPS)).any() or ((out.present & ~_TAKES[op]) != 0).any() or ((_NEEDS[op] & ~out.present) != 0).any():
        return None
    _place(out.values, out.present, out.given, _PLACED, _DEFAULT, IS_LANES, IS_MATRIX, out.addrs, out.src)
    return out


@compiled(cache=True, nogil=True, plain=True)
def _place(values, present, given, fields, default, is_lanes, is_matrix, addrs, src) -> None:  # pragma: no cover - compiled
    """``INACTIVE`` in the lanes of the per-lane columns that give no value (``records.active_lanes``: those outside the
    mask, or a matrix op's 8*num row lanes, and every lane of a block op or of a row that leaves the field out), in rows
    valid for their op (``scan``'s checks); ``src`` only where a row gives it."""
    op_f, num_f, mask_f, addrs_f, src_f = fields[0], fields[1], fields[2], fields[3], fields[4]
    for row in range(len(present)):
        op = values[op_f, row]
        active = np.int64(0)
        if is_matrix[op]:
            num = values[num_f, row] if present[row] >> np.uint64(num_f) & np.uint64(1) else default[num_f]
            active = np.int64(0xFFFFFFFF) if num >= 4 else (np.int64(1) << (8 * num)) - 1
        elif is_lanes[op]:
            active = values[mask_f, row] if present[row] >> np.uint64(mask_f) & np.uint64(1) else default[mask_f]
        _clear(addrs, row, active if present[row] >> np.uint64(addrs_f) & np.uint64(1) else np.int64(0))
        if given[src_f]:
            _clear(src, row, active if present[row] >> np.uint64(src_f) & np.uint64(1) else np.int64(0))


@compiled(cache=True, nogil=True, inline="always", plain=True)
def _clear(lanes, row, active):  # pragma: no cover - compiled
    """``INACTIVE`` in row ``row``'s lanes outside ``active`` (a bit a lane)."""
    if active != 0xFFFFFFFF:
        for lane in range(LANES):
            if not (active >> lane) & 1:
                lanes[row, lane] = INACTIVE


@compiled(cache=True, nogil=True, plain=True)
def _scan(text, kind, limit, keys, key_len, vocab, vocab_len, vocab_from, vocab_count, slot, span, values, present, given, addrs, src, spans
          ) -> bool:
    """Fill the arrays row by row from ``text``; False at the first byte it does not take."""  # pragma: no cover - compiled
    at, end = 0, len(text)
    for row in range(values.shape[1]):
        if row:
            if at == end or text[at] != 10:  # "\n"
                return False
            at += 1
        at = _space(text, at, end)
        if at == end or text[at] != 123:  # "{"
            return False
        at = _space(text, at + 1, end)
        if at < end and text[at] == 125:  # "}"
            at += 1
        else:
            while True:
                start, at = _string(text, at, end)
                if at < 0:
                    return False
                f = _find(text, start, at - 1, keys, key_len, 0, len(key_len))
                if f < 0:
                    return False
                bit = np.uint64(1) << np.uint64(f)
                if present[row] & bit:
                    return False
                present[row] |= bit
                given[f] += 1
                at = _space(text, at, end)
                if at == end or text[at] != 58:  # ":"
                    return False
                at = _space(text, at + 1, end)
                at = _value(text, at, end, row, f, kind[f], limit[f], vocab, vocab_len, vocab_from[f], vocab_count[f], slot[f], span[f],
                            values, addrs, src, spans)
                if at < 0:
                    return False
                at = _space(text, at, end)
                if at == end:
                    return False
                if text[at] == 125:
                    at += 1
                    break
                if text[at] != 44:  # ","
                    return False
                at = _space(text, at + 1, end)
        at = _space(text, at, end)
    return at == end


@compiled(cache=True, nogil=True, inline="always", plain=True)
def _value(text, at, end, row, f, kind, limit, vocab, vocab_len, first, count, slot, span, values, addrs, src, spans):  # pragma: no cover - compiled
    """Read field ``f``'s value at ``at``; the position after it, or -1."""
    if at == end:
        return -1
    c = text[at]
    if kind == _INT or ((kind == _WAIT or kind == _MASK or kind == _WORD) and 48 <= c <= 57):
        value, at = _int(text, at, end, limit)
        values[f, row] = value
        return at
    if kind == _BOOL or kind == _WAIT:
        truth, at = _bool(text, at, end)
        values[f, row] = truth if kind == _BOOL else (0 if truth else NO_WAIT)
        return at
    if kind == _MASK or kind == _WORD:
        value, at = _hex(text, at, end, 8 if kind == _MASK else 16)
        values[f, row] = value
        return at
    if kind == _CHOICE or kind == _TEXT:
        start, at = _string(text, at, end)
        if at < 0:
            return -1
        if kind == _TEXT:
            spans[row, span, 0] = start
            spans[row, span, 1] = at - 1
            return at
        choice = _find(text, start, at - 1, vocab, vocab_len, first, first + count)
        values[f, row] = choice - first
        return at if choice >= 0 else -1
    if kind == _LANES:
        if slot == 0:
            return _list(text, at, end, limit, addrs[row])
        return _list(text, at, end, limit, src[row])
    return _box(text, at, end, row, f, values)


@compiled(cache=True, nogil=True, inline="always", plain=True)
def _space(text, at, end):  # pragma: no cover - compiled
    """Past spaces, tabs and carriage returns (a line's whitespace)."""
    if at < end and text[at] > 32:  # no whitespace, as a writer writes JSON: one compare (the pass 17% faster)
        return at
    while at < end and (text[at] == 32 or text[at] == 9 or text[at] == 13):
        at += 1
    return at


@compiled(cache=True, nogil=True, plain=True)
def _int(text, at, end, limit):  # pragma: no cover - compiled
    """A JSON integer from 0 to ``limit`` at ``at`` and the position after it; position -1 if there is none."""
    if at == end or not 48 <= text[at] <= 57 or (text[at] == 48 and at + 1 < end and 48 <= text[at + 1] <= 57):
        return 0, -1
    value, digits = 0, 0
    while at < end and 48 <= text[at] <= 57:
        value = value * 10 + (np.int64(text[at]) - 48)
        digits += 1
        if digits > 18:  # (18 digits fit an int64)
            return 0, -1
        at += 1
    if value > limit or (at < end and (text[at] == 46 or text[at] == 101 or text[at] == 69)):  # a fraction or an exponent
        return 0, -1
    return value, at


@compiled(cache=True, nogil=True, plain=True)
def _bool(text, at, end):  # pragma: no cover - compiled
    """``true`` or ``false`` at ``at`` (1 or 0) and the position after it; position -1 if neither."""
    if at + 4 <= end and text[at] == 116 and text[at + 1] == 114 and text[at + 2] == 117 and text[at + 3] == 101:
        return 1, at + 4
    if at + 5 <= end and text[at] == 102 and text[at + 1] == 97 and text[at + 2] == 108 and text[at + 3] == 115 and text[at + 4] == 101:
        return 0, at + 5
    return 0, -1


@compiled(cache=True, nogil=True, plain=True)
def _hex(text, at, end, digits):  # pragma: no cover - compiled
    """A string ``"0x"`` and 1 to ``digits`` hex digits at ``at`` (its value, wrapping past 63 bits) and the position after."""
    if at + 4 > end or text[at] != 34 or text[at + 1] != 48 or text[at + 2] != 120:
        return 0, -1
    at += 3
    value, n = np.int64(0), 0
    while at < end and text[at] != 34:
        c = np.int64(text[at])
        h = c - 48 if 48 <= c <= 57 else c - 87 if 97 <= c <= 102 else c - 55 if 65 <= c <= 70 else -1
        if h < 0 or n == digits:
            return 0, -1
        value = value << np.int64(4) | h
        n += 1
        at += 1
    if at == end or n == 0:
        return 0, -1
    return value, at + 1


@compiled(cache=True, nogil=True, plain=True)
def _string(text, at, end):  # pragma: no cover - compiled
    """An ASCII string without escapes at ``at``: its first byte and the position after its closing quote (-1 if none)."""
    if at == end or text[at] != 34:
        return 0, -1
    start = at + 1
    at = start
    while at < end and text[at] != 34:
        if text[at] == 92 or text[at] < 32 or text[at] >= 127:  # an escape, a control character, not ASCII
            return 0, -1
        at += 1
    return start, (at + 1 if at < end else -1)


@compiled(cache=True, nogil=True, plain=True)
def _find(text, start, stop, words, lengths, first, last):  # pragma: no cover - compiled
    """The row of ``words[first:last]`` that ``text[start:stop]`` spells, or -1."""
    n = stop - start
    for w in range(first, last):
        if lengths[w] == n:
            same = True
            for k in range(n):
                if words[w, k] != text[start + k]:
                    same = False
                    break
            if same:
                return w
    return -1


@compiled(cache=True, nogil=True, plain=True)
def _list(text, at, end, limit, lanes):  # pragma: no cover - compiled
    """A list of 32 lanes (integers to ``limit``, or null: ``INACTIVE``) into ``lanes``; the position after it, or -1."""
    if at == end or text[at] != 91:  # "["
        return -1
    at += 1
    for lane in range(LANES):
        at = _space(text, at, end)
        if at == end:
            return -1
        if text[at] == 110:  # "null"
            if at + 4 > end or text[at + 1] != 117 or text[at + 2] != 108 or text[at + 3] != 108:
                return -1
            lanes[lane] = INACTIVE
            at += 4
        else:  # (``_int``, written out: a call a lane took twice the time; the digits' checks once they are read)
            start, value = at, np.int64(0)
            while at < end:
                digit = np.int64(text[at]) - 48
                if digit < 0 or digit > 9:
                    break
                value = value * 10 + digit
                at += 1
            digits = at - start
            if digits == 0 or digits > 18 or (digits > 1 and text[start] == 48) or value > limit:  # (18 digits fit an int64)
                return -1
            if at < end and (text[at] == 46 or text[at] == 101 or text[at] == 69):  # a fraction or an exponent
                return -1
            lanes[lane] = value
        at = _space(text, at, end)
        if at == end or text[at] != (44 if lane < LANES - 1 else 93):  # "," or "]"
            return -1
        at += 1
    return at


@compiled(cache=True, nogil=True, plain=True)
def _box(text, at, end, row, f, values):  # pragma: no cover - compiled
    """A TMA box, 1 to 5 sizes from 1 to 256, packed into ``values[f, row]``; the position after it, or -1."""
    if at == end or text[at] != 91:
        return -1
    packed, d = np.int64(0), 0
    while True:
        at = _space(text, at + 1, end)
        size, at = _int(text, at, end, 256)
        if at < 0 or size == 0 or d == 5:
            return -1
        packed |= size << np.int64(BOX_BITS * d)
        d += 1
        at = _space(text, at, end)
        if at == end:
            return -1
        if text[at] == 93:
            values[f, row] = packed
            return at + 1
        if text[at] != 44:
            return -1
