"""Trace format v1: the rules of whole instructions and headers, over the fields ``records`` declares.

::

    {"simsmem_trace": 1, "name": "ldsm_x4", "arch": "sm_90", "ctas": 1,
     "instructions": [
       {"warp": 0, "op": "LDSM", "num": 4, "trans": false, "addrs": [0, 32, ...]},
       {"op": "LDS", "width": 128, "mask": "0x0000ffff", "addrs": [0, 16, ..., null]},
       {"op": "STS", "width": 32, "addrs": [...], "wait": true, "delay": 4},
       {"op": "LDGSTS", "width": 128, "bypass": true, "addrs": [...], "src": [4096, 4112, ...]},
       {"op": "LDS", "width": 32, "addrs": [...], "early": 2, "wait": 3, "issue": 5, "issue_alu": 3, "delay": 2},
       {"op": "LDS", "width": 32, "addrs": [...], "others": "alu:4@1 - alu imad", "stall": 4}]}

Each field's own rule is its kind's (``kinds``); here: which ops take which fields (``column_problem``), the
objects the writers write (``instruction_objects``), the header, and the field tables of docs/trace-format.md.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import numpy as np

from ..errors import TraceError
from .kinds import (
    MAX_INT,
    FormValue,
    Kind,
    Problem,
    alternatives,
    first_problem,
    is_int,
)
from .others import any_text, parse, unparse
from .records import (
    COLUMNS,
    COMMON_FIELDS,
    DTYPES,
    FIELDS,
    LANE_COLUMNS,
    OP_FIELDS,
    OPS,
    PER,
    STREAMS,
    TAKEN,
    InstructionBatch,
    Streams,
)

FORMAT_VERSION = 1
HEADER_FIELDS = frozenset({"simsmem_trace", "name", "arch", "ctas", "count", "kernel", "streams", "instructions"})


def column_problem(b: InstructionBatch, taken: bool = False) -> Problem | None:
    """The first row of ``b`` that breaks a v1 rule, as (row, field, what), or None if every row is valid; ``taken``:
    each row is known to hold the default in each field its op does not take (the compiled JSON pass checked it).

    For columns from any source: binary ``.npz`` columns are checked by this alone, JSON by this after the schema.
    """
    problems = list(_op_problems(b, taken))
    for name, f in FIELDS.items():
        if not f.lanes:
            problems += f.kind.problems(b, name)
    if problems:
        return min(problems)  # the lanes' rule needs valid ops and forms
    for name in LANE_COLUMNS:
        problems += FIELDS[name].kind.problems(b, name)
    return min(problems) if problems else None


def _op_problems(b: InstructionBatch, taken: bool) -> Iterator[Problem]:
    """Unknown op codes, forms an op lacks, and (unless ``taken``) fields set for an op that does not take them."""
    known = b.op < len(OPS)
    yield from first_problem(~known, "op", lambda i: f"unknown op code {b.op[i]} (codes 0..{len(OPS) - 1}: {', '.join(OPS)})")
    codes = np.unique(b.op[known]).tolist()
    for code in codes:
        name = OPS[code]
        spec = OP_FIELDS[name]
        if spec.form:
            allowed = np.zeros(1 << 16, dtype=bool)
            allowed[list(spec.values)] = True
            form = getattr(b, spec.form)
            yield from first_problem((b.op == code) & ~allowed[form], spec.form, lambda i: f"expected {alternatives(spec.values)} for {name}, got {form[i]}")
    if taken:
        return
    op = np.where(known, b.op, 0)
    for field in sorted(set().union(*(FIELDS.keys() - OP_FIELDS[OPS[code]].takes for code in codes))):  # each field once, over every op
        kind, default = FIELDS[field].kind, FIELDS[field].default
        form = isinstance(kind, FormValue)
        given = getattr(b, field) != 0 if form else kind.given(getattr(b, field), default)
        if given.any():  # (most fields hold their default in every row)
            yield from first_problem(known & ~TAKEN[field][op] & given, field,
                                     lambda i: f"must be 0 for {OPS[b.op[i]]}" if form else f"{OPS[b.op[i]]} takes no {field}")


def canonical_others(batch: InstructionBatch) -> InstructionBatch:
    """``batch`` (valid) with its ``others`` written canonically (``others.unparse``), as the exact check keeps them."""
    if not any_text(batch.others):
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
    if not is_int(ctas) or not 1 <= ctas <= MAX_INT:
        raise TraceError(f"{where}: ctas", f"expected a positive integer, got {ctas!r}")
    if count is not None and (not is_int(count) or count < 0):
        raise TraceError(f"{where}: count", f"expected the number of instructions, got {count!r}")
    streams = doc.get("streams")
    if streams is not None:
        if not isinstance(streams, dict):
            raise TraceError(f"{where}: streams", "expected an object (what the timed SM needs of a traced kernel)")
        rows = len(doc["instructions"]) if with_instructions and isinstance(doc["instructions"], list) else count
        streams = streams_of(streams, where, rows)
    return {"name": name, "arch": arch, "ctas": ctas, "count": count, "kernel": kernel, "streams": lambda: streams}


def streams_of(values: dict[str, Any], where: str, count: int | None) -> Streams:
    """The ``Streams`` a header's ``streams`` object (numbers and lists) or an ``.npz``'s members (arrays) give, held to
    their rules; ``count``: the trace's instructions (None: unknown)."""
    missing, unknown = STREAMS.keys() - values.keys(), values.keys() - STREAMS.keys()
    if missing or unknown:
        name = min(missing or unknown)
        raise TraceError(f"{where}: streams", f"missing field {name!r}" if missing else f"unknown field {name!r}")
    arrays = {}
    for name, p in STREAMS.items():
        try:
            a = np.asarray(values[name])
        except ValueError:
            a = np.asarray(None)
        text = p.dtype is np.str_
        fits = a.dtype.kind == "U" if text else a.dtype.kind in "iu" and (not a.size or np.iinfo(p.dtype).min <= a.min() <= a.max() <= np.iinfo(p.dtype).max)
        if not fits and a.size:
            raise TraceError(f"{where}: streams.{name}", f"expected {'text' if text else 'integers'} ({PER[p.per]})")
        arrays[name] = a.astype(p.dtype)
    streams = Streams(**arrays)
    problem = streams.problem(count)
    if problem:
        raise TraceError(f"{where}: streams.{problem[0]}", problem[1])
    return streams


def header_object(name: str, arch: str | None, ctas: int, count: int | None = None, kernel: dict | None = None,
                  streams: Streams | None = None) -> dict[str, Any]:
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
    if streams is not None:
        doc["streams"] = {name: getattr(streams, name).tolist() for name in STREAMS}
    return doc


def field_tables() -> str:
    """The op table and the field table of docs/trace-format.md, as ``OP_FIELDS`` and ``InstructionBatch`` declare them."""
    ops = ["| op | what | form | required | optional |", "| --- | --- | --- | --- | --- |"]
    for op, spec in OP_FIELDS.items():
        form = f"`{spec.form}`: {_values(spec.values)}" if spec.form else "none"
        ops.append(f"| `{op}` | {spec.meaning} | {form} | {_names(spec.needs - {spec.form})} | {_names(spec.optional)} |")
    fields = ["| field | ops | value | left out | meaning |", "| --- | --- | --- | --- | --- |"]
    for name, f in COLUMNS.items():
        takers = [op for op, spec in OP_FIELDS.items() if name in spec.takes | {"op"}]
        needers = [op for op, spec in OP_FIELDS.items() if name in spec.needs | {"op"}]
        ops_text = "all" if len(takers) == len(OPS) else ", ".join(takers)
        if needers:
            ops_text += "; required" + ("" if needers == takers else f" for {', '.join(needers)}")
        left_out = "required" if needers == takers else f.kind.shown(f.default)
        fields.append(f"| `{name}` | {ops_text} | {f.kind.words} | {left_out} | {f.meaning} |")
    return "\n".join(ops) + f"\n\nEvery op also takes {_names(COMMON_FIELDS)}.\n\n" + "\n".join(fields) + "\n"


def streams_table() -> str:
    """The field table of the header's ``streams`` in docs/trace-format.md, as ``Streams`` declares it."""
    rows = ["| field | values | at least | meaning |", "| --- | --- | --- | --- |"]
    for name, p in STREAMS.items():
        rows.append(f"| `{name}` | {PER[p.per]}{', text' if p.dtype is np.str_ else ''} | {'' if p.low is None else p.low} | {p.meaning} |")
    return "\n".join(rows) + "\n"


def _names(fields: frozenset[str]) -> str:
    """The fields, in ``InstructionBatch``'s order."""
    return ", ".join(f"`{name}`" for name in COLUMNS if name in fields)


def _values(values: tuple[int, ...]) -> str:
    """A form's values: ``8, 16 or 32``, or ``8 to 256 in steps of 8``."""
    steps = {b - a for a, b in zip(values, values[1:])}
    return f"{values[0]} to {values[-1]} in steps of {steps.pop()}" if len(values) > 5 and len(steps) == 1 else alternatives(values)
