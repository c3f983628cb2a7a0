"""Instructions as JSON to validated columns: a fast pass, and the exact one that names the first bad instruction.

``batch_from_lines`` reads JSON Lines in one compiled pass (``scan``) where that takes every line, else decodes
them with msgspec against a schema made from ``records.FIELDS`` and ``records.OP_FIELDS`` (types, allowed fields,
forms, ranges; the lane lists left as text for one compiled pass), takes the columns, and holds them to
``v1.column_problem``. Whatever that declines goes to
``BatchBuilder``, which reads the instructions one by one with each field's ``Kind.read`` and stops
at the first bad one. ``batch_from_objects`` does the same for objects already parsed.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, Literal, Union

import msgspec
import numpy as np
import orjson

from ..errors import TraceError
from .records import (
    COLUMNS,
    DTYPES,
    FIELDS,
    INACTIVE,
    LANE_COLUMNS,
    LANES,
    OP_FIELDS,
    OPS,
    InstructionBatch,
    OpFields,
    active_lanes,
)
from .scan import scan
from .stream import gc_paused
from .v1 import canonical_others, column_problem

#: The fields whose decoded value is their column value (read together into one array), and the others.
PLAIN = tuple(name for name, f in FIELDS.items() if f.kind.plain)
OTHER = tuple(name for name, f in FIELDS.items() if not f.kind.plain)


def _op_struct(op: str, spec: OpFields) -> type:
    """The msgspec schema of one op's instruction object (``op`` its tag; ``code`` its OPS index; the fields it
    does not take, at their decoded defaults, as class attributes)."""
    fields = [(spec.form, Literal[spec.values])] if spec.form else []
    for name in sorted(spec.takes - {spec.form}):
        f = FIELDS[name]
        fields.append((name, f.kind.schema(), msgspec.NODEFAULT if name in spec.needs else f.kind.decoded(f.default)))
    absent = {name: f.kind.decoded(f.default) for name, f in FIELDS.items() if name not in spec.takes}
    return msgspec.defstruct(op, fields, tag=op, tag_field="op", kw_only=True, forbid_unknown_fields=True,
                             namespace={"code": OPS.index(op), **absent})


_DECODE = msgspec.json.Decoder(Union[tuple(_op_struct(op, spec) for op, spec in OP_FIELDS.items())]).decode
_PLAIN, _OTHER = attrgetter("code", *PLAIN), attrgetter(*OTHER)


def batch_from_lines(data: bytes, lines: int | None = None) -> InstructionBatch | None:
    """The columns of JSON Lines ``data`` (one instruction object per line; ``lines`` of them, where the caller counted
    them) if every line is valid; None leaves the lines to the exact check, which names the first bad one."""
    scanned = scan(data, lines)
    if scanned is not None:  # (its lanes placed, and each row's fields those its op takes)
        batch = InstructionBatch(**{name: scanned.column(name, data) for name in COLUMNS})
        return None if column_problem(batch, taken=True) else canonical_others(batch)
    columns = _decoded(data)
    if columns is None or any(column is None for column in columns.values()):
        return None
    active = active_lanes(columns["op"], columns["num"], columns["mask"])
    if columns["addrs"].strides == (0, 0):  # no instruction with lanes
        columns["addrs"] = np.full((len(columns["op"]), LANES), INACTIVE, dtype=DTYPES["addrs"])
    for name in LANE_COLUMNS:
        lanes = columns[name]
        if lanes.strides != (0, 0):  # a no_sources view holds nothing to place
            lanes = lanes.astype(DTYPES[name])
            lanes[~active] = INACTIVE  # inactive lanes may hold anything in JSON
            columns[name] = lanes
    batch = InstructionBatch(**columns)
    return None if column_problem(batch) else canonical_others(batch)


def _decoded(data: bytes) -> dict[str, Any] | None:
    """The columns msgspec decodes from JSON Lines ``data`` (a column None where a kind refuses its values); None if
    the schema refuses a line."""
    try:
        with gc_paused():
            objs = list(map(_DECODE, data.split(b"\n")))
            plain = np.array(list(map(_PLAIN, objs)), dtype=np.int64).reshape(len(objs), len(PLAIN) + 1)
            columns: dict[str, Any] = {"op": plain[:, 0].astype(np.uint8)}
            columns |= {name: plain[:, k + 1].astype(DTYPES[name]) for k, name in enumerate(PLAIN)}
            for name, values in zip(OTHER, zip(*map(_OTHER, objs))):
                columns[name] = FIELDS[name].kind.column(list(values))
            return columns
    except (msgspec.MsgspecError, TraceError, OverflowError):
        return None


class BatchBuilder:
    """The exact check: validates instructions one at a time, naming the first bad one; ``build()`` the batch."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.columns: dict[str, list] = {name: [] for name in DTYPES}

    def __len__(self) -> int:
        return len(self.columns["op"])

    def add(self, ins: Any, index: int, line: int | None = None) -> None:
        """Validate one instruction object and append it; errors name ``index`` (and ``line``, for JSON Lines)."""
        at = f"{self.where}: " + (f"line {line} (instruction {index})" if line is not None else f"instruction {index}")
        if not isinstance(ins, dict):
            raise TraceError(at, "expected a JSON object")
        op = ins.get("op")
        if op is None:
            raise TraceError(at, "missing field 'op'")
        if not isinstance(op, str) or op not in OP_FIELDS:
            raise TraceError(f"{at}: op", f"unknown op {op!r} (known: {', '.join(OPS)})")
        spec = OP_FIELDS[op]
        unknown = set(ins) - spec.takes - {"op"}
        if unknown:
            raise TraceError(at, f"field {sorted(unknown)[0]!r} is not valid for {op}")
        row: dict[str, Any] = {"op": OPS.index(op)}
        for name, f in FIELDS.items():
            if name in ins:
                row[name] = f.kind.read(ins[name], row, at, name)
            elif name in spec.needs:
                raise TraceError(at, f"missing field {name!r} for {op}")
            else:
                row[name] = [f.default] * LANES if name in LANE_COLUMNS else f.default
        for name, value in row.items():
            self.columns[name].append(value)

    def build(self) -> InstructionBatch:
        """The columns of every instruction added."""
        return InstructionBatch(**{name: f.array(self.columns[name]) for name, f in COLUMNS.items()})


def batch_from_objects(objs: list, where: str, first: int) -> InstructionBatch:
    """Validated columns of parsed instructions ``objs`` (trace indices ``first``...)."""
    try:
        batch = batch_from_lines(b"\n".join(map(orjson.dumps, objs))) if objs else InstructionBatch.empty()
    except TypeError:  # a value JSON cannot hold (an integer past 64 bits): the exact check names it
        batch = None
    if batch is not None:
        return batch
    builder = BatchBuilder(where)
    for i, ins in enumerate(objs):
        builder.add(ins, first + i)
    return builder.build()
