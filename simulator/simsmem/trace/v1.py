"""Trace format v1: every field declared once, and the rules each declaration gives.

::

    {"simsmem_trace": 1, "name": "ldsm_x4", "arch": "sm_90", "ctas": 1,
     "instructions": [
       {"warp": 0, "op": "LDSM", "num": 4, "trans": false, "addrs": [0, 32, ...]},
       {"op": "LDS", "width": 128, "mask": "0x0000ffff", "addrs": [0, 16, ..., null]},
       {"op": "STS", "width": 32, "addrs": [...], "wait": true, "delay": 4},
       {"op": "LDGSTS", "width": 128, "bypass": true, "addrs": [...], "src": [4096, 4112, ...]},
       {"op": "LDS", "width": 32, "addrs": [...], "early": 2, "wait": 3, "issue": 5, "issue_alu": 3, "delay": 2},
       {"op": "LDS", "width": 32, "addrs": [...], "others": "alu:4@1 - alu imad", "stall": 4}]}

``FIELDS`` declares each field of an instruction: its ``Kind``, its column's dtype and the column value
of an instruction that leaves it out; ``OP_FIELDS`` says which ops take which. A kind states its
rule once, for each place the rule applies:

- ``schema``: the msgspec type of the fast JSON reader (``decode.batch_from_lines``);
- ``read``: the exact check of one parsed value, which names the first bad instruction and field (``decode.BatchBuilder``);
- ``problems``: the check of whole columns (``column_problem``: ``.npz`` columns, and every batch the fast reader makes);
- ``write``: the JSON value of a column value (``instruction_objects``, the writers).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

import attrs
import msgspec
import numpy as np

from ..errors import TraceError
from .lanes import first_misplaced, parse_lists
from .others import parse, unparse
from .records import (ATOM_KINDS, BOX_BITS, FULL_MASK, GMMA_TYPES, INACTIVE, IS_LANES, IS_MATRIX, IS_SOURCE, LANES, NO_PC, NO_WAIT, OPS,
                      PREDICATES, SWIZZLE_MODES, TNSP_MODES, InstructionBatch, active_lanes, holds_no_sources, no_sources, pack_box, unpack_box,
                      wait_code, wait_value)

FORMAT_VERSION = 1
HEADER_FIELDS = frozenset({"simsmem_trace", "name", "arch", "ctas", "count", "kernel", "instructions"})
MAX_INT = 2**31 - 1
MAX_SRC = 2**63 - 1  # global source addresses (int64)
#: A problem of a batch: (row, field, what).
Problem = tuple[int, str, str]


def _first(bad: np.ndarray, field: str, what: Callable[[int], str]) -> Iterator[Problem]:
    """The first row of ``bad`` as a problem of ``field`` (``what(row)`` says it), if there is one."""
    rows = np.flatnonzero(bad)
    if len(rows):
        yield int(rows[0]), field, what(int(rows[0]))


class Kind:
    """How a field is written in JSON and held in its column. The base: a value the schema checks, kept as it is."""

    #: The decoded value is the column value: the fast reader takes it with the other plain fields in one pass.
    plain = True

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

    def problems(self, b: InstructionBatch, name: str) -> Iterator[Problem]:
        """The first row breaking each rule of column ``name`` of ``b``."""
        return iter(())

    def given(self, column: np.ndarray, default: Any) -> np.ndarray:
        """Per row: whether the column holds anything but ``default`` (an op that does not take the field holds ``default``)."""
        return column != default

    def write(self, value: Any) -> Any:
        """The JSON value of a column value."""
        return value


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

    def read(self, value, row, at, name):
        if not _is_int(value) or not self.low <= value <= MAX_INT:
            raise TraceError(f"{at}: {name}", f"expected {self.what}, got {value!r}")
        return value

    def problems(self, b, name):
        column = getattr(b, name)
        yield from _first((column < self.low) | (column > MAX_INT), name, lambda i: f"expected {self.what}, got {column[i]}")


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
        yield from _first(part > whole, name, lambda i: _too_many(self.whole, whole[i], part[i]))


@attrs.frozen
class Offset(Count):
    """A non-negative integer the trace may leave out, held as ``none`` then (``pc``: a SASS byte offset)."""

    none: int = NO_PC

    def problems(self, b, name):
        column = getattr(b, name)
        yield from _first((column < self.none) | (column > MAX_INT), name,
                         lambda i: f"expected {self.none} (none) or a non-negative SASS offset, got {column[i]}")


class Flag(Kind):
    """true or false."""

    def schema(self) -> Any:
        return bool

    def read(self, value, row, at, name):
        if not isinstance(value, bool):
            raise TraceError(f"{at}: {name}", f"expected true or false, got {value!r}")
        return value


class Wait(Kind):
    """``wait``: false (none), true (every earlier instruction of the warp completed), or N (at most N in flight);
    held as NO_WAIT, 0 or N."""

    plain = False

    def schema(self) -> Any:
        return bool | Annotated[int, msgspec.Meta(ge=0, le=MAX_INT)]

    def read(self, value, row, at, name):
        if not isinstance(value, bool) and not (_is_int(value) and 0 <= value <= MAX_INT):
            raise TraceError(f"{at}: {name}", f"expected true, false or a non-negative integer (earlier instructions that may stay in flight), got {value!r}")
        return wait_code(value)

    def column(self, values):
        # wait_code inlined: a call per instruction costs a tenth of the whole read
        return np.array([((0 if w else NO_WAIT) if w.__class__ is bool else w) for w in values], dtype=np.int32)

    def problems(self, b, name):
        column = getattr(b, name)
        yield from _first(column < NO_WAIT, name, lambda i: f"expected {NO_WAIT} (no wait) or a non-negative integer, got {column[i]}")

    def write(self, value):
        return wait_value(value)


class Mask(Kind):
    """A 32-bit lane mask: an integer, or a string such as ``"0x0000ffff"``."""

    plain = False

    def schema(self) -> Any:
        return Annotated[int, msgspec.Meta(ge=0, le=FULL_MASK)] | str

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
        yield from _first((lanes & ~within) != 0, name, lambda i: f"lanes {lanes[i] & ~within[i]:#010x} are not in the {self.within}")


@attrs.frozen
class Choice(Kind):
    """One of ``names``, held as its index."""

    names: tuple[str, ...]

    plain = False

    def schema(self) -> Any:
        return Literal[self.names]

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
        yield from _first(column >= n, name, lambda i: f"unknown {name} code {column[i]} (codes 0..{n - 1}: {', '.join(self.names)})")

    def write(self, value):
        return self.names[value]


@attrs.frozen
class Others(Kind):
    """The other instructions issued before this one, one by one (``others.py``), held canonically; not
    given together with counts of them (``counts``)."""

    counts: tuple[str, ...]

    plain = False
    BOTH = "give the other instructions one by one (others) or as counts (early, issue), not both"

    def schema(self) -> Any:
        return str

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
        if not column.any():
            return
        counted = np.zeros(len(b), dtype=bool)
        for count in self.counts:
            counted |= getattr(b, count) != 0
        yield from _first((column != "") & counted, name, lambda i: self.BOTH)
        texts, rows = np.unique(column, return_index=True)  # each distinct string once, at its first row
        for text, row in zip(texts.tolist(), rows.tolist()):
            try:
                parse(text)
            except ValueError as exc:
                yield row, name, str(exc)



@attrs.frozen
class Lanes(Kind):
    """32 integers from 0 to ``limit``, one per lane: a value in each active lane, ``null`` (or anything) in the others;
    held as an (n, 32) column with INACTIVE in the inactive lanes. ``of`` names a value in errors."""

    limit: int
    of: str  # "address", "source address"
    used: np.ndarray = attrs.field(eq=False)  # used[op code]: the op gives these values (others hold none)

    plain = False

    def schema(self) -> Any:
        return msgspec.Raw  # the lane lists stay text here: ``column`` reads them in one compiled pass

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
                if not _is_int(a):
                    raise TraceError(f"{at}: {name}[{lane}]", f"expected an integer byte {'offset' if name == 'addrs' else 'address'}, got {a!r}")
                if not 0 <= a <= self.limit:
                    raise TraceError(f"{at}: {name}[{lane}]", f"address {a} is out of range")
                out[lane] = a
            elif a is not None and not _is_int(a):
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
        bad = first_misplaced(column, used, IS_MATRIX[b.op], b.num, b.mask)  # active lanes hold values, the others INACTIVE
        if bad:
            i, lane = bad
            if used[i] and active_lanes(b.op[i : i + 1], b.num[i : i + 1], b.mask[i : i + 1])[0, lane]:
                yield i, name, f"negative {self.of} in active lane {lane}"
            else:
                yield i, name, f"inactive lane {lane} must hold {INACTIVE}"

    def given(self, column, default):
        return np.zeros(len(column), dtype=bool) if holds_no_sources(column) else (column != default).any(axis=1)

    def write(self, value):
        return [None if a == INACTIVE else a for a in value] if INACTIVE in value else value


class Word(Kind):
    """A 64-bit value (a wgmma matrix descriptor): an integer, or a string such as ``"0x4000004000010040"``."""

    plain = False

    def schema(self) -> Any:
        return int | str  # the range is column()'s: msgspec bounds stop at int64

    def read(self, value, row, at, name):
        return _word(value, f"{at}: {name}")

    def column(self, values):
        try:
            return np.array([_word(v, "") for v in values], dtype=np.uint64)
        except TraceError:
            return None

    def write(self, value):
        return f"{value:#018x}"


class Box(Kind):
    """A TMA box: 1 to 5 sizes of 1 to 256 elements, dimension 0 first; held packed (``records.pack_box``)."""

    plain = False
    LIMIT = 256

    def schema(self) -> Any:
        return list[Annotated[int, msgspec.Meta(ge=1, le=self.LIMIT)]]

    def read(self, value, row, at, name):
        if not isinstance(value, list) or not 1 <= len(value) <= 5 or not all(_is_int(v) and 1 <= v <= self.LIMIT for v in value):
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
        sizes = [(column >> np.uint64(BOX_BITS * d)) & np.uint64((1 << BOX_BITS) - 1) for d in range(6)]
        bad = (sizes[5] != 0) | np.any([s > self.LIMIT for s in sizes[:5]], axis=0)
        yield from _first(bad, name, lambda i: f"not a box of at most 5 sizes up to {self.LIMIT}: {column[i]:#x}")

    def write(self, value):
        return list(unpack_box(value))


@attrs.frozen
class Form(Kind):
    """The field that gives an op's form, ``width`` or ``num``: one of the values ``OP_FIELDS`` lists for the op."""

    def read(self, value, row, at, name):  # its schema is a Literal of its op's values (``decode``)
        values = OP_FIELDS[OPS[row["op"]]].values
        if not _is_int(value) or value not in values:
            raise TraceError(f"{at}: {name}", f"expected {alternatives(values)}, got {value!r}")
        return value


@attrs.frozen
class Field:
    """One field of an instruction: its rule, its column's dtype, and the column value where an instruction leaves it out."""

    kind: Kind
    dtype: type
    default: Any
    always: bool = False  # written even when it holds the default (for an op that takes it)


#: Every field of an instruction but ``op``, in the order the writers write them and the exact check reads them
#: (a field's rule may look at the fields before it). A new field is an entry here and a column of ``InstructionBatch``.
FIELDS: dict[str, Field] = {
    "warp": Field(Count(), np.int32, 0),
    "width": Field(Form(), np.uint8, 0),
    "num": Field(Form(), np.uint8, 0),
    "trans": Field(Flag(), np.bool_, False, always=True),
    "mask": Field(Mask(), np.uint32, FULL_MASK),
    "atom": Field(Choice(ATOM_KINDS), np.uint8, 0),
    "bypass": Field(Flag(), np.bool_, False),
    "zfill": Field(LanesOf("mask"), np.uint32, 0),
    "srcsize": Field(Flag(), np.bool_, False),
    "zeroed": Field(LanesOf("mask"), np.uint32, 0),
    "pred": Field(Choice(PREDICATES), np.uint8, 0),
    "generic": Field(Flag(), np.bool_, False),
    "wait": Field(Wait(), np.int32, NO_WAIT),
    "early": Field(Count(), np.int32, 0),
    "early_alu": Field(Part(whole="early"), np.int32, 0),
    "issue": Field(Count(), np.int32, 0),
    "issue_alu": Field(Part(whole="issue"), np.int32, 0),
    "delay": Field(Count(), np.int64, 0),
    "others": Field(Others(counts=("early", "early_alu", "issue", "issue_alu")), np.str_, ""),
    "stall": Field(Count(low=1), np.int32, 1),
    "pc": Field(Offset(), np.int32, NO_PC),
    "n": Field(Form(), np.uint16, 0),
    "gtype": Field(Choice(GMMA_TYPES), np.uint8, 0),
    "desc_a": Field(Word(), np.uint64, 0),
    "desc_b": Field(Word(), np.uint64, 0),
    "tnsp": Field(Choice(TNSP_MODES), np.uint8, 0),
    "sparse": Field(Flag(), np.bool_, False),
    "elem": Field(Form(), np.uint8, 0),
    "smem": Field(Count(), np.int32, 0),
    "size": Field(Count(), np.int32, 0),
    "box": Field(Box(), np.uint64, 0),
    "swizzle": Field(Choice(SWIZZLE_MODES), np.uint8, 0),
    "store": Field(Flag(), np.bool_, False),
    "addrs": Field(Lanes(MAX_INT, "address", IS_LANES), np.int32, INACTIVE),
    "src": Field(Lanes(MAX_SRC, "source address", IS_SOURCE), np.int64, INACTIVE),
}
#: The fields every op takes (and ``addrs``, every op with lanes).
COMMON_FIELDS = frozenset({"warp", "wait", "delay", "issue", "early", "early_alu", "issue_alu", "others", "stall", "pc"})


@attrs.frozen
class OpFields:
    """The fields one op takes besides ``COMMON_FIELDS``."""

    form: str  # the required field that gives the instruction's form: "width", "num", "n" or "elem" ("": none)
    values: tuple[int, ...]  # the values ``form`` may take
    optional: frozenset[str]  # further fields it may carry
    required: frozenset[str] = frozenset()  # further fields it must carry
    lanes: bool = True  # whether it gives the addresses of its lanes (``addrs``)

    @property
    def takes(self) -> frozenset[str]:
        """Every field the op takes."""
        return COMMON_FIELDS | self.optional | self.needs

    @property
    def needs(self) -> frozenset[str]:
        """The fields it must carry."""
        return self.required | ({self.form} if self.form else set()) | ({"addrs"} if self.lanes else set())


WIDTHS = (8, 16, 32, 64, 128)
NUMS = (1, 2, 4)
#: Per op, its fields. A new op is a row here (and a name in ``records.OPS``).
OP_FIELDS = {
    "LDS": OpFields("width", WIDTHS, frozenset({"mask", "generic"})),
    "STS": OpFields("width", WIDTHS, frozenset({"mask", "generic"})),
    "ATOMS": OpFields("width", WIDTHS, frozenset({"mask", "atom"})),
    "LDSM": OpFields("num", NUMS, frozenset({"trans"})),
    "STSM": OpFields("num", NUMS, frozenset({"trans"})),
    "LDGSTS": OpFields("width", (32, 64, 128), frozenset({"mask", "bypass", "zfill", "srcsize", "zeroed", "pred"}), frozenset({"src"})),  # cp.async; bypass: .cg
    # wgmma.mma_async (HGMMA, QGMMA, IGMMA): one row per warpgroup instruction, its first warp's number
    "GMMA": OpFields("n", tuple(range(8, 257, 8)), frozenset({"desc_a", "tnsp", "sparse"}), frozenset({"gtype", "desc_b"}), lanes=False),
    # cp.async.bulk.tensor into / out of shared memory; size: the bytes moved through shared memory
    "UTMALDG": OpFields("elem", (1, 2, 4, 8), frozenset({"swizzle"}), frozenset({"smem", "size", "box"}), lanes=False),
    "UTMASTG": OpFields("elem", (1, 2, 4, 8), frozenset({"swizzle"}), frozenset({"smem", "size", "box"}), lanes=False),
    # cp.async.bulk (no tensor map); store: shared to global
    "UBLKCP": OpFields("", (), frozenset({"store"}), frozenset({"smem", "size"}), lanes=False),
}
#: dtype of each ``InstructionBatch`` column.
DTYPES = {"op": np.uint8, **{name: f.dtype for name, f in FIELDS.items()}}
#: Columns of one entry per lane, shape (n, 32).
LANE_COLUMNS = tuple(name for name, f in FIELDS.items() if isinstance(f.kind, Lanes))


def column_problem(b: InstructionBatch) -> Problem | None:
    """The first row of ``b`` that breaks a v1 rule, as (row, field, what), or None if every row is valid.

    For columns from any source: binary ``.npz`` columns are checked by this alone, JSON by this after the schema.
    """
    problems = list(_op_problems(b))
    for name, f in FIELDS.items():
        if not isinstance(f.kind, Lanes):
            problems += f.kind.problems(b, name)
    if problems:
        return min(problems)  # the lanes' rule needs valid ops and forms
    for name in LANE_COLUMNS:
        problems += FIELDS[name].kind.problems(b, name)
    return min(problems) if problems else None


def _op_problems(b: InstructionBatch) -> Iterator[Problem]:
    """Unknown op codes, forms an op lacks, and fields set for an op that does not take them."""
    known = b.op < len(OPS)
    yield from _first(~known, "op", lambda i: f"unknown op code {b.op[i]} (codes 0..{len(OPS) - 1}: {', '.join(OPS)})")
    for code in np.unique(b.op[known]).tolist():
        name = OPS[code]
        spec = OP_FIELDS[name]
        rows = b.op == code
        if spec.form:
            allowed = np.zeros(1 << 16, dtype=bool)
            allowed[list(spec.values)] = True
            form = getattr(b, spec.form)
            yield from _first(rows & ~allowed[form], spec.form, lambda i: f"expected {alternatives(spec.values)} for {name}, got {form[i]}")
        for field in FIELDS.keys() - spec.takes:
            kind, default = FIELDS[field].kind, FIELDS[field].default
            if isinstance(kind, Form):
                yield from _first(rows & (getattr(b, field) != 0), field, lambda i: f"must be 0 for {name}")
            else:
                yield from _first(rows & kind.given(getattr(b, field), default), field, lambda i: f"{name} takes no {field}")


def canonical_others(batch: InstructionBatch) -> InstructionBatch:
    """``batch`` (valid) with its ``others`` written canonically (``others.unparse``), as the exact check keeps them."""
    if not batch.others.any():
        return batch
    texts, back = np.unique(batch.others, return_inverse=True)
    return attrs.evolve(batch, others=np.array([unparse(parse(t)) for t in texts.tolist()], dtype=str)[back])


def instruction_objects(b: InstructionBatch) -> list[dict[str, Any]]:
    """The v1 objects of a batch's instructions (optional fields only where they differ from defaults)."""
    columns = {name: getattr(b, name).tolist() for name in DTYPES}
    out = []
    for i, code in enumerate(columns["op"]):
        ins: dict[str, Any] = {"warp": columns["warp"][i], "op": OPS[code]}
        for name, write, default in _written(code):
            value = columns[name][i]
            if value != default:
                ins[name] = value if write is None else write(value)
        out.append(ins)
    return out


#: The ``default`` of a field ``_written`` always writes: no value equals it.
_ALWAYS = object()


@functools.cache
def _written(code: int) -> tuple[tuple[str, Callable[[Any], Any] | None, Any], ...]:
    """(field, its ``write`` (None: the value as it is), the value it is left out at) of each field an op writes after
    ``warp`` and ``op``."""
    spec = OP_FIELDS[OPS[code]]
    return tuple((name, None if type(f.kind).write is Kind.write else f.kind.write, _ALWAYS if name in spec.needs or f.always else f.default)
                 for name, f in FIELDS.items() if name in spec.takes and name != "warp")


def parse_header(doc: Any, where: str, with_instructions: bool) -> dict[str, Any]:
    """The header of a v1 document: ``Trace`` keyword arguments, and ``count`` (None if not given)."""
    if not isinstance(doc, dict):
        raise TraceError(where, "expected a JSON object with 'simsmem_trace' and 'instructions'")
    unknown = set(doc) - HEADER_FIELDS
    if unknown:
        raise TraceError(where, f"unknown top-level field {sorted(unknown)[0]!r}")
    version = doc.get("simsmem_trace")
    if version is None:
        raise TraceError(where, "missing field 'simsmem_trace' (the format version, 1)")
    if version != FORMAT_VERSION or isinstance(version, bool):
        raise TraceError(f"{where}: simsmem_trace", f"unsupported format version {version!r} (this reads 1)")
    if with_instructions and "instructions" not in doc:
        raise TraceError(where, "missing field 'instructions'")
    if not with_instructions and "instructions" in doc:
        raise TraceError(f"{where}: line 1: instructions", "a JSON Lines header holds no instructions (they follow, one per line)")
    kernel = doc.get("kernel")
    if kernel is not None and not isinstance(kernel, dict):
        raise TraceError(f"{where}: kernel", "expected an object (what simsmem trace knows of the kernel)")
    name = doc.get("name", Path(where).name.split(".")[0])
    arch = doc.get("arch")
    ctas = doc.get("ctas", 1)
    count = doc.get("count")
    if not isinstance(name, str):
        raise TraceError(f"{where}: name", "expected a string")
    if arch is not None and not isinstance(arch, str):
        raise TraceError(f"{where}: arch", "expected a string such as 'sm_90'")
    if not _is_int(ctas) or not 1 <= ctas <= MAX_INT:
        raise TraceError(f"{where}: ctas", f"expected a positive integer, got {ctas!r}")
    if count is not None and (not _is_int(count) or count < 0):
        raise TraceError(f"{where}: count", f"expected the number of instructions, got {count!r}")
    return {"name": name, "arch": arch, "ctas": ctas, "count": count, "kernel": kernel}


def header_object(name: str, arch: str | None, ctas: int, count: int | None = None, kernel: dict | None = None) -> dict[str, Any]:
    """The v1 header fields (optional ones only where they differ from the defaults)."""
    doc: dict[str, Any] = {"simsmem_trace": FORMAT_VERSION, "name": name}
    if arch:
        doc["arch"] = arch
    if ctas != 1:
        doc["ctas"] = ctas
    if count is not None:
        doc["count"] = count
    if kernel is not None:
        doc["kernel"] = kernel
    return doc


def alternatives(values: tuple[int, ...]) -> str:
    """``8, 16 or 32``."""
    return ", ".join(map(str, values[:-1])) + f" or {values[-1]}" if len(values) > 1 else str(values[0])


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _too_many(whole: str, n: int, got: int) -> str:
    return f"expected at most {whole} ({n}): these are some of those other instructions, got {got}"


def _mask(v: Any, at: str) -> int:
    if isinstance(v, str):
        try:
            v = int(v, 0)
        except ValueError:
            raise TraceError(at, f"expected an integer or hex string, got {v!r}") from None
    if not _is_int(v) or not 0 <= v <= FULL_MASK:
        raise TraceError(at, f"expected a 32-bit lane mask, got {v!r}")
    return v


def _word(v: Any, at: str) -> int:
    if isinstance(v, str):
        try:
            v = int(v, 0)
        except ValueError:
            raise TraceError(at, f"expected an integer or hex string, got {v!r}") from None
    if not _is_int(v) or not 0 <= v < 1 << 64:
        raise TraceError(at, f"expected a 64-bit value, got {v!r}")
    return v
