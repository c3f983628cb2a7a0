"""Trace format v1: its fields, and the checks that turn parsed instructions into validated columns.

::

    {"simsmem_trace": 1, "name": "ldsm_x4", "arch": "sm_90", "ctas": 1,
     "instructions": [
       {"warp": 0, "op": "LDSM", "num": 4, "trans": false, "addrs": [0, 32, ...]},
       {"op": "LDS", "width": 128, "mask": "0x0000ffff", "addrs": [0, 16, ..., null]},
       {"op": "STS", "width": 32, "addrs": [...], "wait": true, "delay": 4},
       {"op": "LDGSTS", "width": 128, "bypass": true, "addrs": [...], "src": [4096, 4112, ...]},
       {"op": "LDS", "width": 32, "addrs": [...], "early": 2, "wait": 3, "issue": 5, "issue_alu": 3, "delay": 2},
       {"op": "LDS", "width": 32, "addrs": [...], "others": "alu:4@1 - alu imad", "stall": 4}]}

The fields each op takes live in one table, ``OP_FIELDS``. Instructions as JSON text, one per line,
become an ``InstructionBatch`` through ``batch_from_lines``: msgspec decodes each line against a
schema built from that table (types, allowed fields, forms, ranges, 32 addresses) and numpy takes
the columns. Whatever that declines goes to the exact check, ``BatchBuilder``, which walks the
instructions one by one and names the first bad instruction and field. ``batch_from_objects`` does
the same for parsed objects. Binary columns (``.npz``) are held to the same rules by
``column_problem``. Every problem is a ``TraceError``; nothing is returned for input that was not
read to its end.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, Union

import attrs
import msgspec
import numpy as np
import orjson

from ..config import ArchConfig
from ..errors import TraceError
from .files import write_atomically  # noqa: F401 - other modules write their files through it from here
from .records import (ATOM_KINDS, FULL_MASK, INACTIVE, LANES, MATRIX_OPS, NO_PC, NO_WAIT, OPS, SOURCE_OPS, InstructionBatch, holds_no_sources,
                      no_sources, wait_code, wait_value)
from .lanes import first_bad_lane, first_misplaced, parse_lists
from .others import parse, pipes_of, unparse
from .stream import gc_paused

FORMAT_VERSION = 1
HEADER_FIELDS = frozenset({"simsmem_trace", "name", "arch", "ctas", "count", "kernel", "instructions"})
COMMON_FIELDS = frozenset({"op", "addrs", "warp", "wait", "delay", "issue", "early", "early_alu", "issue_alu", "others", "stall", "pc"})
#: The counts of other instructions that ``others`` (the same, one by one) replaces.
COUNTS = ("early", "early_alu", "issue", "issue_alu")
WIDTHS = (8, 16, 32, 64, 128)
NUMS = (1, 2, 4)
MAX_INT = 2**31 - 1
MAX_SRC = 2**63 - 1  # global source addresses (int64)


@attrs.frozen
class OpFields:
    """The fields one op takes besides ``COMMON_FIELDS``."""

    form: str  # the required field that gives the instruction's form: "width" or "num"
    values: tuple[int, ...]  # the values ``form`` may take
    optional: frozenset[str]  # further fields it may carry
    required: frozenset[str] = frozenset()  # further fields it must carry


#: Per op, its fields. A new op or field is a row or an entry here (and, for ops, in ``records.OPS``).
OP_FIELDS = {
    "LDS": OpFields("width", WIDTHS, frozenset({"mask", "generic"})),
    "STS": OpFields("width", WIDTHS, frozenset({"mask", "generic"})),
    "ATOMS": OpFields("width", WIDTHS, frozenset({"mask", "atom"})),
    "LDSM": OpFields("num", NUMS, frozenset({"trans"})),
    "STSM": OpFields("num", NUMS, frozenset({"trans"})),
    "LDGSTS": OpFields("width", (32, 64, 128), frozenset({"mask", "bypass", "zfill"}), frozenset({"src"})),  # cp.async; bypass: .cg
}
OP_CODE = {name: code for code, name in enumerate(OPS)}
#: IS_MATRIX[op code]: the op gives 8x8 matrix row addresses (a table lookup beats np.isin per chunk).
IS_MATRIX = np.array([name in MATRIX_OPS for name in OPS])
#: IS_SOURCE[op code]: the op's lanes give global sources (``src``).
IS_SOURCE = np.array([name in SOURCE_OPS for name in OPS])
#: dtype of each ``InstructionBatch`` column.
DTYPES = {
    "op": np.uint8, "width": np.uint8, "num": np.uint8, "trans": np.bool_, "mask": np.uint32,
    "warp": np.int32, "wait": np.int32, "delay": np.int64, "issue": np.int32, "generic": np.bool_, "atom": np.uint8, "addrs": np.int32,
    "src": np.int64, "bypass": np.bool_, "early": np.int32, "early_alu": np.int32, "issue_alu": np.int32, "others": np.str_, "stall": np.int32,
    "pc": np.int32, "zfill": np.uint32,
}
#: Columns of one entry per lane, shape (n, 32).
LANE_COLUMNS = ("addrs", "src")


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


def batch_from_objects(objs: list, where: str, first: int) -> InstructionBatch:
    """Validated columns of parsed instructions ``objs`` (trace indices ``first``...)."""
    batch = batch_from_lines(b"\n".join(map(orjson.dumps, objs))) if objs else InstructionBatch.empty()
    if batch is not None:
        return batch
    builder = BatchBuilder(where)
    for i, ins in enumerate(objs):
        builder.add(ins, first + i)
    return builder.build()


I32 = Annotated[int, msgspec.Meta(ge=0, le=MAX_INT)]
#: msgspec types (and defaults) of the fields; a field new to ``OP_FIELDS`` needs an entry here.
FIELD_TYPES: dict[str, tuple[Any, Any]] = {
    "addrs": (msgspec.Raw, msgspec.NODEFAULT),  # the lane lists stay text here: ``lanes.parse_lists`` reads them in bulk
    "warp": (I32, 0), "wait": (bool | I32, False), "delay": (I32, 0), "issue": (I32, 0), "trans": (bool, False), "generic": (bool, False),
    "bypass": (bool, False), "early": (I32, 0), "early_alu": (I32, 0), "issue_alu": (I32, 0),
    "others": (str, ""), "stall": (Annotated[int, msgspec.Meta(ge=1, le=MAX_INT)], 1),
    "mask": (Annotated[int, msgspec.Meta(ge=0, le=FULL_MASK)] | str, FULL_MASK),
    "atom": (Literal[ATOM_KINDS], "add"),
    "src": (msgspec.Raw, msgspec.NODEFAULT),
    "pc": (I32, NO_PC),
    "zfill": (Annotated[int, msgspec.Meta(ge=0, le=FULL_MASK)] | str, 0),
}
ATOM_CODE = {name: code for code, name in enumerate(ATOM_KINDS)}
#: Column values of the fields an op does not have.
ABSENT = {"width": 0, "num": 0, "mask": FULL_MASK, "trans": False, "generic": False, "atom": "add", "src": None, "bypass": False, "zfill": 0}


def _op_struct(op: str, spec: OpFields) -> type:
    """The msgspec schema of one op's instruction object (``op`` is its tag; ``code`` its OPS index)."""
    fields = [(spec.form, Literal[spec.values])]
    fields += [(f, *FIELD_TYPES[f]) for f in sorted(COMMON_FIELDS - {"op"} | spec.optional | spec.required)]
    absent = {k: v for k, v in ABSENT.items() if k != spec.form and k not in spec.optional | spec.required}
    return msgspec.defstruct(op, fields, tag=op, tag_field="op", kw_only=True, forbid_unknown_fields=True, namespace={"code": OP_CODE[op], **absent})


_DECODE = msgspec.json.Decoder(Union[tuple(_op_struct(op, spec) for op, spec in OP_FIELDS.items())]).decode


def batch_from_lines(data: bytes) -> InstructionBatch | None:
    """The columns of JSON Lines ``data`` (one instruction object per line) if every line is valid;
    None leaves the lines to the exact check, which names the first bad one.

    msgspec checks each line against its op's schema but leaves the lane lists as text; ``lanes.parse_lists``
    reads them all in one compiled pass (32 Python ints a line cost more than all the rest).
    """
    try:
        with gc_paused():
            objs = list(map(_DECODE, data.split(b"\n")))
            # wait_code inlined: a call per line costs a tenth of the whole read
            fields = np.array([(o.code, o.width, o.num, o.warp, o.delay, o.issue, o.trans, ((0 if o.wait else NO_WAIT) if o.wait.__class__ is bool else o.wait), o.generic, ATOM_CODE[o.atom], o.bypass, o.early,
                                o.early_alu, o.issue_alu, o.stall, o.pc)
                               for o in objs], dtype=np.int64)
            others = [o.others for o in objs]
            masks, zfills = ([getattr(o, f) for o in objs] for f in ("mask", "zfill"))
            if str in set(map(type, masks)) | set(map(type, zfills)):  # hex strings: each distinct one parsed once
                parsed = {m: _mask(m, "") for m in set(masks) | set(zfills) if type(m) is str}
                masks = [parsed[m] if type(m) is str else m for m in masks]
                zfills = [parsed[m] if type(m) is str else m for m in zfills]
            addrs = parse_lists(b"".join([o.addrs for o in objs]), len(objs), MAX_INT)
            sourced = [i for i, o in enumerate(objs) if o.src is not None]
            src = np.full((len(objs), LANES), INACTIVE, dtype=np.int64) if sourced else no_sources(len(objs))
            if sourced:
                given = parse_lists(b"".join([objs[i].src for i in sourced]), len(sourced), MAX_SRC)
                if given is None:
                    return None
                src[sourced] = given
            del objs
    except (msgspec.MsgspecError, TraceError, OverflowError):
        return None
    if addrs is None:
        return None
    op, width, num, warp, delay, issue, trans, wait, generic, atom, bypass, early, early_alu, issue_alu, stall, pc = fields.T
    if np.any(early_alu > early) or np.any(issue_alu > issue):
        return None  # more ALU instructions than others: the exact check names it
    others = np.array(others, dtype=str) if any(others) else np.zeros(len(others), dtype="U1")
    if others_problem(others, early | issue) is not None:
        return None
    others = canonical_others(others)
    mask = np.array(masks, dtype=np.uint32)
    zfill = np.array(zfills, dtype=np.uint32)
    if np.any(zfill & ~mask):
        return None  # zero-fill lanes outside the mask: the exact check names it
    active = active_lanes(op, num, mask)
    if np.any(active & (addrs < 0)) or np.any(active[sourced] & (src[sourced] < 0)):
        return None  # an active lane without an address
    lanes = addrs.astype(np.int32)
    lanes[~active] = INACTIVE
    if sourced:
        src[~active] = INACTIVE
    return InstructionBatch(
        op=op.astype(np.uint8), width=width.astype(np.uint8), num=num.astype(np.uint8), trans=trans.astype(bool), mask=mask,
        warp=warp.astype(np.int32), wait=wait.astype(np.int32), delay=delay, issue=issue.astype(np.int32), generic=generic.astype(bool), atom=atom.astype(np.uint8), addrs=lanes, src=src,
        bypass=bypass.astype(bool), early=early.astype(np.int32), early_alu=early_alu.astype(np.int32), issue_alu=issue_alu.astype(np.int32),
        others=others, stall=stall.astype(np.int32), pc=pc.astype(np.int32), zfill=zfill,
    )


def active_lanes(op: np.ndarray, num: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(n, 32) bool: the lanes that give an address, by the mask, or a matrix op's 8*num row lanes."""
    matrix = IS_MATRIX[op]
    rows = (np.uint64(1) << (8 * num.astype(np.uint64))) - np.uint64(1)
    bits = np.where(matrix, rows, mask).astype("<u4")
    return np.unpackbits(bits.view(np.uint8), bitorder="little").reshape(-1, LANES).astype(bool)


def scalar_fields(ins: dict, at: str) -> dict[str, Any]:
    """The checked fields of one instruction object but its addresses, as column values."""
    op = ins.get("op")
    if op is None:
        raise TraceError(at, "missing field 'op'")
    if not isinstance(op, str) or op not in OP_FIELDS:
        raise TraceError(f"{at}: op", f"unknown op {op!r} (known: {', '.join(OPS)})")
    spec = OP_FIELDS[op]
    unknown = set(ins) - COMMON_FIELDS - spec.optional - spec.required - {spec.form}
    if unknown:
        raise TraceError(at, f"field {sorted(unknown)[0]!r} is not valid for {op}")
    form = _required(ins, spec.form, at)
    if not _is_int(form) or form not in spec.values:
        raise TraceError(f"{at}: {spec.form}", f"expected {_alternatives(spec.values)}, got {form!r}")
    matrix = op in MATRIX_OPS
    return {
        "op": OP_CODE[op], "width": 0 if matrix else form, "num": form if matrix else 0, "trans": _flag(ins, "trans", at),
        "mask": FULL_MASK if matrix else _mask(ins.get("mask", FULL_MASK), f"{at}: mask"),
        "warp": _nonneg(ins, "warp", at), "wait": _wait(ins, at), "delay": _nonneg(ins, "delay", at), "issue": _nonneg(ins, "issue", at),
        "generic": _flag(ins, "generic", at), "atom": _atom(ins, at), "bypass": _flag(ins, "bypass", at), "early": _nonneg(ins, "early", at),
        "early_alu": _part(ins, "early_alu", "early", at), "issue_alu": _part(ins, "issue_alu", "issue", at),
        "others": _others(ins, at), "stall": _positive(ins, "stall", at), "pc": _nonneg(ins, "pc", at) if "pc" in ins else NO_PC,
        "zfill": _zfill(ins, at),
    }


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
        values = scalar_fields(ins, at)
        num, mask = values["num"], values["mask"]
        active = range(8 * num) if num else [lane for lane in range(LANES) if mask >> lane & 1]
        values["addrs"] = _lanes(ins, "addrs", active, MAX_INT, at)
        values["src"] = _lanes(ins, "src", active, MAX_SRC, at) if ins["op"] in SOURCE_OPS else [INACTIVE] * LANES
        for name, value in values.items():
            self.columns[name].append(value)

    def build(self) -> InstructionBatch:
        c = self.columns
        return InstructionBatch(**{name: np.array(c[name], dtype=dtype).reshape(-1, LANES) if name in LANE_COLUMNS else np.array(c[name], dtype=dtype)
                                   for name, dtype in DTYPES.items()})


def form_problem(b: InstructionBatch) -> tuple[int, str, str] | None:
    """The first row of ``b`` whose op, form or per-instruction fields break a v1 rule, as (row, field, what)."""
    problems: list[tuple[int, str, str]] = []

    def first(bad: np.ndarray, field: str, what) -> None:
        rows = np.flatnonzero(bad)
        if len(rows):
            problems.append((int(rows[0]), field, what(int(rows[0]))))

    known = b.op < len(OPS)
    has_src = np.zeros(len(b), dtype=bool) if holds_no_sources(b.src) else (b.src != INACTIVE).any(axis=1)
    first(~known, "op", lambda i: f"unknown op code {b.op[i]} (codes 0..{len(OPS) - 1}: {', '.join(OPS)})")
    for code in np.unique(b.op[known]):
        name = OPS[code]
        spec = OP_FIELDS[name]
        rows = b.op == code
        form, other = (b.num, b.width) if spec.form == "num" else (b.width, b.num)
        allowed = np.zeros(256, dtype=bool)
        allowed[list(spec.values)] = True
        first(rows & ~allowed[form], spec.form, lambda i: f"expected {_alternatives(spec.values)} for {name}, got {form[i]}")
        first(rows & (other != 0), "num" if spec.form == "width" else "width", lambda i: f"must be 0 for {name}")
        for field, default in (("mask", FULL_MASK), ("trans", False), ("generic", False), ("atom", 0), ("bypass", False), ("zfill", 0)):
            if field not in spec.optional:
                column = getattr(b, field)
                first(rows & (column != default), field, lambda i: f"{name} takes no {field}")
        if "src" not in spec.required:
            first(rows & has_src, "src", lambda i: f"{name} takes no src")
    first(b.atom >= len(ATOM_KINDS), "atom", lambda i: f"unknown atom code {b.atom[i]} (codes 0..{len(ATOM_KINDS) - 1}: {', '.join(ATOM_KINDS)})")
    for field in ("warp", "delay", "issue", "early", "early_alu", "issue_alu"):  # int32 columns, and delay's int64 held to the int32 range
        column = getattr(b, field)
        first((column < 0) | (column > MAX_INT), field, lambda i: f"expected a non-negative integer, got {column[i]}")
    first(b.wait < NO_WAIT, "wait", lambda i: f"expected {NO_WAIT} (no wait) or a non-negative integer, got {b.wait[i]}")
    first(b.pc < NO_PC, "pc", lambda i: f"expected {NO_PC} (none) or a non-negative SASS offset, got {b.pc[i]}")
    first((b.zfill & ~b.mask) != 0, "zfill", lambda i: f"lanes {b.zfill[i] & ~b.mask[i]:#010x} are not in the mask")
    for part, whole in (("early_alu", "early"), ("issue_alu", "issue")):
        p, w = getattr(b, part), getattr(b, whole)
        first(p > w, part, lambda i: _too_many(whole, w[i], p[i]))
    first((b.stall < 1) | (b.stall > MAX_INT), "stall", lambda i: f"expected a positive integer, got {b.stall[i]}")
    if (problem := others_problem(b.others, b.early | b.issue)) is not None:
        problems.append(problem)
    return min(problems) if problems else None


def canonical_others(others: np.ndarray) -> np.ndarray:
    """An ``others`` column (valid) written canonically (``others.unparse``), as the exact check keeps it."""
    if not others.any():
        return others
    texts, back = np.unique(others, return_inverse=True)
    return np.array([unparse(parse(t)) for t in texts.tolist()], dtype=str)[back]


def others_problem(others: np.ndarray, counted: np.ndarray) -> tuple[int, str, str] | None:
    """The first row whose ``others`` is not a valid string of instructions, or that gives both ``others`` and
    counts of other instructions (``early``, ``issue``), as (row, field, what)."""
    if not others.any():
        return None
    both = np.flatnonzero((others != "") & (counted != 0))
    problems = [(int(both[0]), "others", "give the other instructions one by one (others) or as counts (early, issue), not both")] if len(both) else []
    texts, rows = np.unique(others, return_index=True)  # each distinct string once, at its first row
    for text, row in zip(texts.tolist(), rows.tolist()):
        try:
            parse(text)
        except ValueError as exc:
            problems.append((row, "others", str(exc)))
    return min(problems) if problems else None


def column_problem(b: InstructionBatch) -> tuple[int, str, str] | None:
    """The first row of ``b`` that breaks a v1 rule, as (row, field, what), or None if every row is valid.

    For columns from any source: binary ``.npz`` columns are checked by this alone.
    """
    problem = form_problem(b)
    if problem:
        return problem  # the lanes' rule needs valid ops and forms
    matrix = IS_MATRIX[b.op]
    for field, used, what in (("addrs", np.ones(len(b), dtype=bool), "address"), ("src", IS_SOURCE[b.op], "source address")):
        if field == "src" and holds_no_sources(b.src) and not used.any():
            continue
        bad = first_misplaced(getattr(b, field), used, matrix, b.num, b.mask)  # active lanes hold addresses, the others INACTIVE
        if bad:
            i, lane = bad
            if used[i] and active_lanes(b.op[i : i + 1], b.num[i : i + 1], b.mask[i : i + 1])[0, lane]:
                return i, field, f"negative {what} in active lane {lane}"
            return i, field, f"inactive lane {lane} must hold {INACTIVE}"
    return None


def check_against_arch(batch: InstructionBatch, arch: ArchConfig, where: str, first_index: int = 0, first_line: int | None = None) -> None:
    """Reject ops the arch lacks, widths it does not have, and out-of-range or misaligned addresses.

    Errors name instruction ``first_index + i`` and, where the trace holds one instruction per line
    from ``first_line`` on (JSON Lines), its file line, as the reader's own errors do.
    """

    def at(i: int) -> str:
        index = f"instruction {first_index + i}"
        return f"{where}: {index}" if first_line is None else f"{where}: line {first_line + first_index + i} ({index})"

    has = np.zeros((len(OPS), 256), dtype=bool)  # has[op, form]: the arch has this width (or matrix count) of op
    has_bypass = np.zeros((len(OPS), 256), dtype=bool)  # has_bypass[op, width]: ... and its .cg (BYPASS) form
    for name, spec in arch.ops.items():
        if name in OP_CODE:
            has[OP_CODE[name], list(spec.widths if spec.phase == "bytes" else spec.nums)] = True
            has_bypass[OP_CODE[name], list(spec.bypass_widths)] = True
    matrix = IS_MATRIX[batch.op]
    form = np.where(matrix, batch.num, batch.width)
    bad = np.flatnonzero(~has[batch.op, form])
    if len(bad):
        i = int(bad[0])
        name = OPS[batch.op[i]]
        if name not in arch.ops:
            raise TraceError(f"{at(i)}: op", f"{name} does not exist on {arch.name}")
        if matrix[i]:
            raise TraceError(f"{at(i)}: num", f"{name} on {arch.name} has no .x{batch.num[i]} form")
        raise TraceError(f"{at(i)}: width", f"{name} on {arch.name} has no {batch.width[i]}-bit form")
    bad = np.flatnonzero(batch.bypass & ~has_bypass[batch.op, batch.width])
    if len(bad):
        i = int(bad[0])
        name, widths = OPS[batch.op[i]], arch.ops[OPS[batch.op[i]]].bypass_widths
        what = f"only {_alternatives(widths)} bits" if widths else "no such form"
        raise TraceError(f"{at(i)}: bypass", f"{name} .cg (BYPASS) on {arch.name} has {what}, not {batch.width[i]}")
    if batch.others.any():
        texts = np.unique(batch.others)
        for text in texts.tolist():
            unknown = sorted(pipes_of(text) - set(arch.timing.pipes))
            if unknown:
                i = int(np.flatnonzero(batch.others == text)[0])
                known = ", ".join(arch.timing.pipes) or "none"
                raise TraceError(f"{at(i)}: others", f"pipe {unknown[0]!r} does not exist on {arch.name} (its pipes: {known}; '-' for none)")
    atoms = arch.ops.get("ATOMS")
    if atoms is not None and atoms.atoms:
        has_atom = np.zeros((len(ATOM_KINDS), 256), dtype=bool)  # has_atom[atom, width]
        for kind, spec in atoms.atoms.items():
            has_atom[ATOM_CODE[kind], list(spec.widths)] = True
        bad = np.flatnonzero((batch.op == OP_CODE["ATOMS"]) & ~has_atom[batch.atom, batch.width])
        if len(bad):
            i = int(bad[0])
            kind = ATOM_KINDS[batch.atom[i]]
            what = f"no {batch.width[i]}-bit form (the compiler makes a CAS loop of it)" if kind in atoms.atoms else "no such atomic operation"
            raise TraceError(f"{at(i)}: atom", f"ATOMS {kind} on {arch.name} has {what}")
    size = np.where(batch.width > 0, batch.width // 8, 16)  # bytes: a power of two
    bad = first_bad_lane(batch.src, size, MAX_SRC) if IS_SOURCE[batch.op].any() else None
    if bad:
        i, lane = bad
        a, n = int(batch.src[i, lane]), int(size[i])
        msg = f"source {a} is not aligned to the {n}-byte copy (the hardware faults)" if a % n else f"source {a} + {n} bytes is past 2**63 - 1"
        raise TraceError(f"{at(i)}: src[{lane}]", msg)
    bad = first_bad_lane(batch.addrs, size, arch.shared_memory_per_cta)
    if bad:
        i, lane = bad
        a, n = int(batch.addrs[i, lane]), int(size[i])
        if a + n > arch.shared_memory_per_cta:
            msg = f"address {a} + {n} bytes is past {arch.name}'s {arch.shared_memory_per_cta} bytes of shared memory per CTA"
        else:
            msg = f"address {a} is not aligned to the {n}-byte access (the hardware faults)"
        raise TraceError(f"{at(i)}: addrs[{lane}]", msg)


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


def instruction_objects(b: InstructionBatch) -> list[dict[str, Any]]:
    """The v1 objects of a batch's instructions (optional fields only where they differ from defaults)."""
    cols = {f.name: getattr(b, f.name).tolist() for f in attrs.fields(InstructionBatch)}
    out = []
    for i in range(len(b)):
        op = OPS[cols["op"][i]]
        ins: dict[str, Any] = {"warp": cols["warp"][i], "op": op}
        if op in MATRIX_OPS:
            ins["num"] = cols["num"][i]
            ins["trans"] = cols["trans"][i]
        else:
            ins["width"] = cols["width"][i]
            if cols["mask"][i] != FULL_MASK:
                ins["mask"] = f"0x{cols['mask'][i]:08x}"
        if op == "ATOMS" and cols["atom"][i]:
            ins["atom"] = ATOM_KINDS[cols["atom"][i]]
        if cols["bypass"][i]:
            ins["bypass"] = True
        if cols["zfill"][i]:
            ins["zfill"] = f"0x{cols['zfill'][i]:08x}"
        if cols["generic"][i]:
            ins["generic"] = True
        if cols["wait"][i] != NO_WAIT:
            ins["wait"] = wait_value(cols["wait"][i])
        for count in ("early", "early_alu", "issue", "issue_alu", "delay"):
            if cols[count][i]:
                ins[count] = cols[count][i]
        if cols["others"][i]:
            ins["others"] = cols["others"][i]
        if cols["stall"][i] != 1:
            ins["stall"] = cols["stall"][i]
        if cols["pc"][i] != NO_PC:
            ins["pc"] = cols["pc"][i]
        for field in LANE_COLUMNS if op in SOURCE_OPS else ("addrs",):
            row = cols[field][i]
            ins[field] = [None if a == INACTIVE else a for a in row] if INACTIVE in row else row
        out.append(ins)
    return out


def _lanes(ins: dict, field: str, active, limit: int, at: str) -> list[int]:
    """The checked per-lane integers ``field`` (32 entries; ``null`` only in inactive lanes), INACTIVE where inactive."""
    values = _required(ins, field, at)
    if not isinstance(values, list):
        raise TraceError(f"{at}: {field}", f"expected a list of {LANES} byte addresses")
    if len(values) != LANES:
        raise TraceError(f"{at}: {field}", f"expected {LANES} entries, got {len(values)}")
    row = [INACTIVE] * LANES
    for lane in active:
        a = values[lane]
        if a is None:
            raise TraceError(f"{at}: {field}[{lane}]", "null address in an active lane")
        if not _is_int(a):
            raise TraceError(f"{at}: {field}[{lane}]", f"expected an integer byte {'offset' if field == 'addrs' else 'address'}, got {a!r}")
        if not 0 <= a <= limit:
            raise TraceError(f"{at}: {field}[{lane}]", f"address {a} is out of range")
        row[lane] = a
    for lane in set(range(LANES)) - set(active):
        a = values[lane]
        if a is not None and not _is_int(a):
            raise TraceError(f"{at}: {field}[{lane}]", f"expected an integer or null, got {a!r}")
    return row


def _alternatives(values: tuple[int, ...]) -> str:
    return ", ".join(map(str, values[:-1])) + f" or {values[-1]}" if len(values) > 1 else str(values[0])


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _required(ins: dict, field: str, at: str) -> Any:
    if field not in ins:
        raise TraceError(at, f"missing field {field!r} for {ins['op']}")
    return ins[field]


def _flag(ins: dict, field: str, at: str) -> bool:
    v = ins.get(field, False)
    if not isinstance(v, bool):
        raise TraceError(f"{at}: {field}", f"expected true or false, got {v!r}")
    return v


def _wait(ins: dict, at: str) -> int:
    v = ins.get("wait", False)
    if not isinstance(v, bool) and not (_is_int(v) and 0 <= v <= MAX_INT):
        raise TraceError(f"{at}: wait", f"expected true, false or a non-negative integer (earlier instructions that may stay in flight), got {v!r}")
    return wait_code(v)


def _nonneg(ins: dict, field: str, at: str) -> int:
    v = ins.get(field, 0)
    if not _is_int(v) or not 0 <= v <= MAX_INT:
        raise TraceError(f"{at}: {field}", f"expected a non-negative integer, got {v!r}")
    return v


def _positive(ins: dict, field: str, at: str) -> int:
    v = ins.get(field, 1)
    if not _is_int(v) or not 1 <= v <= MAX_INT:
        raise TraceError(f"{at}: {field}", f"expected a positive integer, got {v!r}")
    return v


def _others(ins: dict, at: str) -> str:
    """The checked ``others`` string, canonical (``others.unparse``)."""
    v = ins.get("others", "")
    if not isinstance(v, str):
        raise TraceError(f"{at}: others", f"expected a string of other instructions such as 'alu - imad:2 alu@0', got {v!r}")
    try:
        parsed = parse(v)
    except ValueError as exc:
        raise TraceError(f"{at}: others", str(exc)) from None
    if parsed and any(ins.get(count, 0) for count in COUNTS):
        raise TraceError(f"{at}: others", "give the other instructions one by one (others) or as counts (early, issue), not both")
    return unparse(parsed)


def _part(ins: dict, field: str, whole: str, at: str) -> int:
    """A count of some of ``whole``'s other instructions (``early_alu``, ``issue_alu``)."""
    v = _nonneg(ins, field, at)
    if v > ins.get(whole, 0):
        raise TraceError(f"{at}: {field}", _too_many(whole, ins.get(whole, 0), v))
    return v


def _too_many(whole: str, n: int, got: int) -> str:
    return f"expected at most {whole} ({n}): these are some of those other instructions, got {got}"


def _zfill(ins: dict, at: str) -> int:
    """An LDGSTS's zero-fill lanes: a lane mask within the instruction's mask."""
    v = _mask(ins.get("zfill", 0), f"{at}: zfill")
    if v & ~_mask(ins.get("mask", FULL_MASK), f"{at}: mask"):
        raise TraceError(f"{at}: zfill", f"lanes {v & ~_mask(ins.get('mask', FULL_MASK), at):#010x} are not in the mask")
    return v


def _atom(ins: dict, at: str) -> int:
    v = ins.get("atom", "add")
    if not isinstance(v, str) or v not in ATOM_CODE:
        raise TraceError(f"{at}: atom", f"expected one of {', '.join(ATOM_KINDS)}, got {v!r}")
    return ATOM_CODE[v]


def _mask(v: Any, at: str) -> int:
    if isinstance(v, str):
        try:
            v = int(v, 0)
        except ValueError:
            raise TraceError(at, f"expected an integer or hex string, got {v!r}") from None
    if not _is_int(v) or not 0 <= v <= FULL_MASK:
        raise TraceError(at, f"expected a 32-bit lane mask, got {v!r}")
    return v
