"""The kinds of value a trace field holds: each states its rule once, for every place the rule applies.

``records.InstructionBatch`` gives each field its kind. A kind says

- ``schema``: the msgspec type of the fast JSON reader (``decode.batch_from_lines``);
- ``read``: the exact check of one parsed value, which names the first bad instruction and field (``decode.BatchBuilder``);
- ``column``: the column of the values the schema decoded (the kinds that are not ``plain``);
- ``problems``: the check of whole columns (``v1.column_problem``: ``.npz`` columns, and every batch the fast reader makes);
- ``write``: the JSON value of a column value (``v1.instruction_objects``, the writers);
- ``value``, ``code``: an ``Instruction``'s value of a column value, and back;
- ``words``, ``shown``: what it takes and what a field left out holds, in words (the field table of docs/trace-format.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Annotated, Any, Literal

import attrs
import msgspec
import numpy as np
import orjson

from ..errors import TraceError
from .lanes import (
    FULL_MASK,
    INACTIVE,
    LANES,
    first_misplaced,
    holds_no_sources,
    no_sources,
    parse_lists,
)
from .others import any_text, parse, unparse

MAX_INT = 2**31 - 1
#: The ``wait`` column value of an instruction without ``wait`` (``wait: true`` is 0: no earlier one in flight).
NO_WAIT = -1
#: Bits of one size in a ``box`` column (a TMA box of up to 5 sizes of 1 to 256, packed, dimension 0 lowest).
BOX_BITS = 9
#: A problem of a batch: (row, field, what).
Problem = tuple[int, str, str]


def first_problem(bad: np.ndarray, field: str, what: Callable[[int], str]) -> Iterator[Problem]:
    """The first row of ``bad`` as a problem of ``field`` (``what(row)`` says it), if there is one."""
    rows = np.flatnonzero(bad)
    if len(rows):
        yield int(rows[0]), field, what(int(rows[0]))


def pack_box(sizes: Sequence[int]) -> int:
    """A TMA box's sizes as one integer (``unpack_box`` backwards)."""
    return sum(int(n) << (BOX_BITS * d) for d, n in enumerate(sizes))


def unpack_box(packed: int) -> tuple[int, ...]:
    """The sizes ``pack_box`` packed."""
    out = []
    while packed:
        out.append(packed & ((1 << BOX_BITS) - 1))
        packed >>= BOX_BITS
    return tuple(out)


def box_sizes(column: np.ndarray, dims: int) -> list[np.ndarray]:
    """The first ``dims`` sizes of each packed box of a ``box`` column (0 past a box's last)."""
    return [((column >> np.uint64(BOX_BITS * d)) & np.uint64((1 << BOX_BITS) - 1)).astype(np.int64) for d in range(dims)]


def alternatives(values: tuple[int, ...]) -> str:
    """``8, 16 or 32``."""
    return ", ".join(map(str, values[:-1])) + f" or {values[-1]}" if len(values) > 1 else str(values[0])


class Kind:
    """How a field is written in JSON, held in its column and kept in a record. The base: a value the schema checks, kept as it is."""

    #: The decoded value is the column value: the fast reader takes it with the other plain fields in one pass.
    plain = True
    #: What a field of this kind takes, in words.
    words = ""

    def schema(self) -> Any:
        """The msgspec type of a field of this kind."""
        raise NotImplementedError

    def read(self, value: Any, row: dict[str, Any], at: str, name: str) -> Any:
        """The column value of a JSON ``value`` given as field ``name`` (``row``: the fields before it, read);
        a ``TraceError`` at ``at: name`` if the value breaks the rule."""
        raise NotImplementedError

    def decoded(self, default: Any) -> Any:
        """What the schema decodes for a field left out whose column value is ``default``."""
        return default

    def column(self, values: list) -> np.ndarray | None:
        """The column of decoded values (non-plain kinds); None where one breaks the rule."""
        raise NotImplementedError

    def scanned(self) -> tuple[str, int]:
        """How the compiled JSON Lines pass reads it (``scan.SCANS``), and the largest integer it takes there."""
        raise NotImplementedError

    def problems(self, b: Any, name: str) -> Iterator[Problem]:
        """The first row of batch ``b`` breaking each rule of its column ``name``."""
        return iter(())

    def given(self, column: np.ndarray, default: Any) -> np.ndarray:
        """Per row: whether the column holds anything but ``default`` (an op that does not take the field holds ``default``)."""
        return column != default

    def write(self, value: Any) -> Any:
        """The JSON value of a column value."""
        return value

    def value(self, code: Any) -> Any:
        """An ``Instruction``'s value of a column value (a Python scalar, or a row's list)."""
        return code

    def code(self, value: Any) -> Any:
        """The column value of an ``Instruction``'s value (``value`` backwards)."""
        return value

    def shown(self, default: Any) -> str:
        """What a field left out holds, in words: its JSON value."""
        return f"`{orjson.dumps(self.write(default)).decode()}`"


@attrs.frozen
class Count(Kind):
    """An integer from ``low`` to 2**31 - 1: a count of cycles or instructions, a warp."""

    low: int = 0

    @property
    def what(self) -> str:
        """What the field must be, in errors."""
        return "a non-negative integer" if self.low == 0 else "a positive integer"

    def schema(self) -> Any:
        return Annotated[int, msgspec.Meta(ge=self.low, le=MAX_INT)]

    def scanned(self):
        return "int", MAX_INT  # (``low``: column_problem's)

    def read(self, value, row, at, name):
        if not is_int(value) or not self.low <= value <= MAX_INT:
            raise TraceError(f"{at}: {name}", f"expected {self.what}, got {value!r}")
        return value

    def problems(self, b, name):
        column = getattr(b, name)
        yield from first_problem((column < self.low) | (column > MAX_INT), name, lambda i: f"expected {self.what}, got {column[i]}")

    @property
    def words(self) -> str:
        return self.what.removeprefix("a ")


@attrs.frozen
class Part(Count):
    """A count of some of the other instructions another count (``whole``) gives: ``early_alu`` of ``early``."""

    whole: str = ""

    def read(self, value, row, at, name):
        value = super().read(value, row, at, name)
        if value > row[self.whole]:
            raise TraceError(f"{at}: {name}", _too_many(self.whole, row[self.whole], value))
        return value

    def problems(self, b, name):
        yield from super().problems(b, name)
        part, whole = getattr(b, name), getattr(b, self.whole)
        yield from first_problem(part > whole, name, lambda i: _too_many(self.whole, whole[i], part[i]))

    @property
    def words(self) -> str:
        return f"non-negative integer, at most `{self.whole}`"


@attrs.frozen
class Offset(Count):
    """A non-negative integer the trace may leave out, held as ``none`` then (``pc``: a SASS byte offset)."""

    none: int = -1

    def problems(self, b, name):
        column = getattr(b, name)
        yield from first_problem((column < self.none) | (column > MAX_INT), name,
                                 lambda i: f"expected {self.none} (none) or a non-negative SASS offset, got {column[i]}")

    def shown(self, default):
        return "none"


class Flag(Kind):
    """true or false."""

    def schema(self) -> Any:
        return bool

    def scanned(self):
        return "bool", 1

    def read(self, value, row, at, name):
        if not isinstance(value, bool):
            raise TraceError(f"{at}: {name}", f"expected true or false, got {value!r}")
        return value

    words = "true or false"


class Wait(Kind):
    """``wait``: false (none), true (every earlier instruction of the warp completed), or N (at most N in flight);
    held as NO_WAIT, 0 or N."""

    plain = False

    def schema(self) -> Any:
        return bool | Annotated[int, msgspec.Meta(ge=0, le=MAX_INT)]

    def scanned(self):
        return "wait", MAX_INT

    def read(self, value, row, at, name):
        if not isinstance(value, bool) and not (is_int(value) and 0 <= value <= MAX_INT):
            raise TraceError(f"{at}: {name}", f"expected true, false or a non-negative integer (earlier instructions that may stay in flight), got {value!r}")
        return self.code(value)

    def column(self, values):
        # code() inlined: a call per instruction costs a tenth of the whole read
        return np.array([((0 if w else NO_WAIT) if w.__class__ is bool else w) for w in values], dtype=np.int32)

    def problems(self, b, name):
        column = getattr(b, name)
        yield from first_problem(column < NO_WAIT, name, lambda i: f"expected {NO_WAIT} (no wait) or a non-negative integer, got {column[i]}")

    def value(self, code):
        return {NO_WAIT: False, 0: True}.get(code, code)

    write = value

    def code(self, value):
        return (0 if value else NO_WAIT) if isinstance(value, bool) else value

    words = "false, true or a non-negative integer"


class Mask(Kind):
    """A 32-bit lane mask: an integer, or a string such as ``"0x0000ffff"``."""

    plain = False

    def schema(self) -> Any:
        return Annotated[int, msgspec.Meta(ge=0, le=FULL_MASK)] | str

    def scanned(self):
        return "mask", FULL_MASK  # an integer, or "0x" and up to 8 hex digits

    def read(self, value, row, at, name):
        return _mask(value, f"{at}: {name}")

    def column(self, values):
        if str in set(map(type, values)):  # hex strings: each distinct one parsed once
            try:
                parsed = {m: _mask(m, "") for m in set(values) if type(m) is str}
            except TraceError:
                return None
            values = [parsed[m] if type(m) is str else m for m in values]
        return np.array(values, dtype=np.uint32)

    def write(self, value):
        return f"0x{value:08x}"

    words = "lane mask: an integer or a hex string"


@attrs.frozen
class LanesOf(Mask):
    """A lane mask within another (``within``): ``zfill``'s and ``zeroed``'s lanes are some of the ``mask``'s."""

    within: str = "mask"

    def read(self, value, row, at, name):
        value = super().read(value, row, at, name)
        if value & ~row[self.within]:
            raise TraceError(f"{at}: {name}", f"lanes {value & ~row[self.within]:#010x} are not in the {self.within}")
        return value

    def problems(self, b, name):
        lanes, within = getattr(b, name), getattr(b, self.within)
        yield from first_problem((lanes & ~within) != 0, name, lambda i: f"lanes {lanes[i] & ~within[i]:#010x} are not in the {self.within}")

    @property
    def words(self) -> str:
        return f"lane mask within `{self.within}`"


@attrs.frozen
class Choice(Kind):
    """One of ``names``, held as its index."""

    names: tuple[str, ...]

    plain = False

    def schema(self) -> Any:
        return Literal[self.names]

    def scanned(self):
        return "choice", 0

    def read(self, value, row, at, name):
        if not isinstance(value, str) or value not in self.names:
            raise TraceError(f"{at}: {name}", f"expected one of {', '.join(self.names)}, got {value!r}")
        return self.names.index(value)

    def decoded(self, default):
        return self.names[default]

    def column(self, values):
        code = {name: i for i, name in enumerate(self.names)}
        return np.array([code[v] for v in values], dtype=np.uint8)

    def problems(self, b, name):
        column, n = getattr(b, name), len(self.names)
        yield from first_problem(column >= n, name, lambda i: f"unknown {name} code {column[i]} (codes 0..{n - 1}: {', '.join(self.names)})")

    def write(self, value):
        return self.names[value]

    value = write

    def code(self, value):
        return self.names.index(value)

    @property
    def words(self) -> str:
        return ", ".join(f"`{name}`" for name in self.names)


@attrs.frozen
class Others(Kind):
    """The other instructions issued before this one, one by one (``others.py``), held canonically; not
    given together with counts of them (``counts``)."""

    counts: tuple[str, ...]

    plain = False
    BOTH = "give the other instructions one by one (others) or as counts (early, issue), not both"

    def schema(self) -> Any:
        return str

    def scanned(self):
        return "text", 0

    def read(self, value, row, at, name):
        if not isinstance(value, str):
            raise TraceError(f"{at}: {name}", f"expected a string of other instructions such as 'alu - imad:2 alu@0', got {value!r}")
        try:
            parsed = parse(value)
        except ValueError as exc:
            raise TraceError(f"{at}: {name}", str(exc)) from None
        if parsed and any(row[count] for count in self.counts):
            raise TraceError(f"{at}: {name}", self.BOTH)
        return unparse(parsed)

    def column(self, values):
        return np.array(values, dtype=str) if any(values) else np.zeros(len(values), dtype="U1")

    def problems(self, b, name):
        column = getattr(b, name)
        if not any_text(column):
            return
        counted = np.zeros(len(b), dtype=bool)
        for count in self.counts:
            counted |= getattr(b, count) != 0
        yield from first_problem((column != "") & counted, name, lambda i: self.BOTH)
        texts, rows = np.unique(column, return_index=True)  # each distinct string once, at its first row
        for text, row in zip(texts.tolist(), rows.tolist()):
            try:
                parse(text)
            except ValueError as exc:
                yield row, name, str(exc)

    words = "a string of `PIPE[:STALL][@WAIT]` tokens"


@attrs.frozen
class Lanes(Kind):
    """32 integers from 0 to ``limit``, one per lane: a value in each active lane, ``null`` (or anything) in the others;
    held as an (n, 32) column with INACTIVE in the inactive lanes. ``of`` names a value in errors."""

    limit: int
    of: str  # "address", "source address"
    used: np.ndarray = attrs.field(eq=False)  # used[op code]: the op gives these values (others hold none)
    matrix: np.ndarray = attrs.field(eq=False)  # matrix[op code]: its active lanes are the first 8 * num (else the mask's)

    plain = False

    def schema(self) -> Any:
        return msgspec.Raw  # the lane lists stay text here: ``column`` reads them in one compiled pass

    def scanned(self):
        return "lanes", self.limit

    def read(self, value, row, at, name):
        if not isinstance(value, list):
            raise TraceError(f"{at}: {name}", f"expected a list of {LANES} byte addresses")
        if len(value) != LANES:
            raise TraceError(f"{at}: {name}", f"expected {LANES} entries, got {len(value)}")
        num, mask = row["num"], row["mask"]
        active = set(range(8 * num)) if num else {lane for lane in range(LANES) if mask >> lane & 1}
        out = [INACTIVE] * LANES
        for lane, a in enumerate(value):
            if lane in active:
                if a is None:
                    raise TraceError(f"{at}: {name}[{lane}]", "null address in an active lane")
                if not is_int(a):
                    raise TraceError(f"{at}: {name}[{lane}]", f"expected an integer byte {'offset' if name == 'addrs' else 'address'}, got {a!r}")
                if not 0 <= a <= self.limit:
                    raise TraceError(f"{at}: {name}[{lane}]", f"address {a} is out of range")
                out[lane] = a
            elif a is not None and not is_int(a):
                raise TraceError(f"{at}: {name}[{lane}]", f"expected an integer or null, got {a!r}")
        return out

    def decoded(self, default):
        return None  # left out: no list

    def column(self, values):
        given = [i for i, v in enumerate(values) if v is not None]
        if not given:
            return no_sources(len(values))
        lanes = parse_lists(b"".join([values[i] for i in given]), len(given), self.limit)
        if lanes is None or len(given) == len(values):
            return lanes
        out = np.full((len(values), LANES), INACTIVE, dtype=np.int64)
        out[given] = lanes
        return out

    def problems(self, b, name):
        column, used = getattr(b, name), self.used[b.op]
        if holds_no_sources(column) and not used.any():
            return
        bad = first_misplaced(column, used, self.matrix[b.op], b.num, b.mask)  # active lanes hold values, the others INACTIVE
        if bad:
            i, lane = bad
            active = lane < 8 * int(b.num[i]) if self.matrix[b.op[i]] else bool(b.mask[i] >> lane & 1)
            if used[i] and active:
                yield i, name, f"negative {self.of} in active lane {lane}"
            else:
                yield i, name, f"inactive lane {lane} must hold {INACTIVE}"

    def given(self, column, default):
        return np.zeros(len(column), dtype=bool) if holds_no_sources(column) else (column != default).any(axis=1)

    def write(self, value):
        return [None if a == INACTIVE else a for a in value] if INACTIVE in value else value

    def value(self, code):
        return tuple(None if a == INACTIVE else a for a in code)

    def code(self, value):
        return [INACTIVE] * LANES if value is None else [INACTIVE if a is None else a for a in value]

    words = f"{LANES} integers from 0, `null` in inactive lanes"

    def shown(self, default):
        return "none"


class Word(Kind):
    """A 64-bit value (a wgmma matrix descriptor): an integer, or a string such as ``"0x4000004000010040"``."""

    plain = False

    def schema(self) -> Any:
        return int | str  # the range is column()'s: msgspec bounds stop at int64

    def scanned(self):
        return "word", 2**63 - 1  # an integer to 2**63 - 1, or "0x" and up to 16 hex digits

    def read(self, value, row, at, name):
        return _word(value, f"{at}: {name}")

    def column(self, values):
        try:
            return np.array([_word(v, "") for v in values], dtype=np.uint64)
        except TraceError:
            return None

    def write(self, value):
        return f"{value:#018x}"

    words = "64-bit integer or hex string"

    def shown(self, default):
        return f"`{default}`"


class Box(Kind):
    """A TMA box: 1 to 5 sizes of 1 to 256 elements, dimension 0 first; held packed (``pack_box``)."""

    plain = False
    LIMIT = 256

    def schema(self) -> Any:
        return list[Annotated[int, msgspec.Meta(ge=1, le=self.LIMIT)]]

    def scanned(self):
        return "box", self.LIMIT

    def read(self, value, row, at, name):
        if not isinstance(value, list) or not 1 <= len(value) <= 5 or not all(is_int(v) and 1 <= v <= self.LIMIT for v in value):
            raise TraceError(f"{at}: {name}", f"expected a list of 1 to 5 sizes from 1 to {self.LIMIT}, got {value!r}")
        return pack_box(value)

    def decoded(self, default):
        return []

    def column(self, values):
        if any(not 0 <= len(v) <= 5 for v in values):
            return None
        return np.array([pack_box(v) for v in values], dtype=np.uint64)

    def problems(self, b, name):
        column = getattr(b, name)
        sizes = box_sizes(column, 6)
        bad = (sizes[5] != 0) | np.any([s > self.LIMIT for s in sizes[:5]], axis=0)
        yield from first_problem(bad, name, lambda i: f"not a box of at most 5 sizes up to {self.LIMIT}: {column[i]:#x}")

    def write(self, value):
        return list(unpack_box(value))

    def value(self, code):
        return unpack_box(code)

    def code(self, value):
        return pack_box(value)

    words = f"1 to 5 sizes from 1 to {LIMIT}, dimension 0 first"


@attrs.frozen
class FormValue(Kind):
    """The field that gives an op's form (``width``, ``num``, ...): one of the values ``values`` lists for the op."""

    values: dict[int, tuple[int, ...]] = attrs.field(eq=False)  # per op code, the values its form field takes

    def scanned(self):
        return "int", max(max(v, default=0) for v in self.values.values())  # (the op's values: column_problem's)

    def read(self, value, row, at, name):  # its schema is a Literal of its op's values (``decode``)
        values = self.values[row["op"]]
        if not is_int(value) or value not in values:
            raise TraceError(f"{at}: {name}", f"expected {alternatives(values)}, got {value!r}")
        return value

    words = "the op's form (the op table)"


def is_int(v: Any) -> bool:
    """An integer, and not a bool."""
    return isinstance(v, int) and not isinstance(v, bool)


def _too_many(whole: str, n: int, got: int) -> str:
    return f"expected at most {whole} ({n}): these are some of those other instructions, got {got}"


def _mask(v: Any, at: str) -> int:
    if isinstance(v, str):
        try:
            v = int(v, 0)
        except ValueError:
            raise TraceError(at, f"expected an integer or hex string, got {v!r}") from None
    if not is_int(v) or not 0 <= v <= FULL_MASK:
        raise TraceError(at, f"expected a 32-bit lane mask, got {v!r}")
    return v


def _word(v: Any, at: str) -> int:
    if isinstance(v, str):
        try:
            v = int(v, 0)
        except ValueError:
            raise TraceError(at, f"expected an integer or hex string, got {v!r}") from None
    if not is_int(v) or not 0 <= v < 1 << 64:
        raise TraceError(at, f"expected a 64-bit value, got {v!r}")
    return v
