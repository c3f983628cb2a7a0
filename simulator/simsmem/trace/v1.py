"""Trace format v1 (JSON): reading with full validation, and writing.

::

    {"simsmem_trace": 1, "name": "ldsm_x4", "arch": "sm_90", "ctas": 1,
     "instructions": [
       {"warp": 0, "op": "LDSM", "num": 4, "trans": false, "addrs": [0, 32, ...]},
       {"op": "LDS", "width": 128, "mask": "0x0000ffff", "addrs": [0, 16, ..., null]},
       {"op": "STS", "width": 32, "addrs": [...], "wait": true, "delay": 4}]}

Every problem is a ``TraceError`` naming the file, the instruction index and the field. Nothing is
returned for a trace that was not read to its end.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from ..config import ArchConfig
from ..errors import TraceError
from .records import FULL_MASK, INACTIVE, LANES, MATRIX_OPS, OPS, InstructionBatch, Trace

FORMAT_VERSION = 1
HEADER_FIELDS = frozenset({"simsmem_trace", "name", "arch", "ctas", "instructions"})
INSTRUCTION_FIELDS = {
    "LDS": {"width", "mask", "generic"},
    "STS": {"width", "mask", "generic"},
    "ATOMS": {"width", "mask"},
    "LDSM": {"num", "trans"},
    "STSM": {"num", "trans"},
}
COMMON_FIELDS = frozenset({"op", "addrs", "warp", "wait", "delay"})
MAX_INT = 2**31 - 1


def read_trace(path: str | Path) -> Trace:
    """Read and validate a v1 JSON trace file."""
    where = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise TraceError(where, f"cannot read trace: {exc.strerror}") from None
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise TraceError(where, f"invalid JSON: {exc}") from None
    return trace_from_json(doc, where)


def trace_from_json(doc: Any, where: str) -> Trace:
    """Validate a parsed v1 document into a ``Trace`` (addresses not yet checked against an arch)."""
    header = parse_header(doc, where, with_instructions=True)
    instructions = doc["instructions"]
    if not isinstance(instructions, list):
        raise TraceError(f"{where}: instructions", "expected a list")
    builder = BatchBuilder(where)
    for i, ins in enumerate(instructions):
        builder.add(ins, i)
    return Trace(instructions=builder.build(), **header)


def parse_header(doc: Any, where: str, with_instructions: bool) -> dict[str, Any]:
    """The header fields of a v1 document as ``Trace`` keyword arguments."""
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
    name = doc.get("name", Path(where).stem)
    arch = doc.get("arch")
    ctas = doc.get("ctas", 1)
    if not isinstance(name, str):
        raise TraceError(f"{where}: name", "expected a string")
    if arch is not None and not isinstance(arch, str):
        raise TraceError(f"{where}: arch", "expected a string such as 'sm_90'")
    if not _is_int(ctas) or not 1 <= ctas <= MAX_INT:
        raise TraceError(f"{where}: ctas", f"expected a positive integer, got {ctas!r}")
    return {"name": name, "arch": arch, "ctas": ctas}


class BatchBuilder:
    """Collects validated instructions into columns; ``build()`` returns the batch."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.columns: dict[str, list] = {k: [] for k in ("op", "width", "num", "trans", "mask", "warp", "wait", "delay", "generic", "addrs")}

    def __len__(self) -> int:
        return len(self.columns["op"])

    def add(self, ins: Any, index: int) -> None:
        """Validate one instruction object (``index`` names it in errors) and append it."""
        at = f"{self.where}: instruction {index}"
        if not isinstance(ins, dict):
            raise TraceError(at, "expected a JSON object")
        op = ins.get("op")
        if op is None:
            raise TraceError(at, "missing field 'op'")
        if op not in INSTRUCTION_FIELDS:
            raise TraceError(f"{at}: op", f"unknown op {op!r} (known: {', '.join(OPS)})")
        unknown = set(ins) - COMMON_FIELDS - INSTRUCTION_FIELDS[op]
        if unknown:
            raise TraceError(at, f"field {sorted(unknown)[0]!r} is not valid for {op}")
        matrix = op in MATRIX_OPS
        width = num = 0
        if matrix:
            num = _required(ins, "num", at)
            if num not in (1, 2, 4) or isinstance(num, bool):
                raise TraceError(f"{at}: num", f"expected 1, 2 or 4, got {num!r}")
            mask = FULL_MASK
        else:
            width = _required(ins, "width", at)
            if width not in (8, 16, 32, 64, 128) or isinstance(width, bool):
                raise TraceError(f"{at}: width", f"expected 8, 16, 32, 64 or 128, got {width!r}")
            mask = _mask(ins.get("mask", FULL_MASK), f"{at}: mask")
        addrs = _required(ins, "addrs", at)
        if not isinstance(addrs, list):
            raise TraceError(f"{at}: addrs", "expected a list of 32 byte offsets")
        if len(addrs) != LANES:
            raise TraceError(f"{at}: addrs", f"expected {LANES} entries, got {len(addrs)}")
        active = range(8 * num) if matrix else [lane for lane in range(LANES) if mask >> lane & 1]
        row = [INACTIVE] * LANES
        for lane in active:
            a = addrs[lane]
            if a is None:
                raise TraceError(f"{at}: addrs[{lane}]", "null address in an active lane")
            if not _is_int(a):
                raise TraceError(f"{at}: addrs[{lane}]", f"expected an integer byte offset, got {a!r}")
            if not 0 <= a <= MAX_INT:
                raise TraceError(f"{at}: addrs[{lane}]", f"address {a} is out of range")
            row[lane] = a
        for lane in set(range(LANES)) - set(active):
            a = addrs[lane]
            if a is not None and not _is_int(a):
                raise TraceError(f"{at}: addrs[{lane}]", f"expected an integer or null, got {a!r}")
        c = self.columns
        c["op"].append(OPS.index(op))
        c["width"].append(width)
        c["num"].append(num)
        c["trans"].append(_flag(ins, "trans", at))
        c["mask"].append(mask)
        c["warp"].append(_nonneg(ins, "warp", at))
        c["wait"].append(_flag(ins, "wait", at))
        c["delay"].append(_nonneg(ins, "delay", at))
        c["generic"].append(_flag(ins, "generic", at))
        c["addrs"].append(row)

    def build(self) -> InstructionBatch:
        c = self.columns
        return InstructionBatch(
            op=np.array(c["op"], dtype=np.uint8),
            width=np.array(c["width"], dtype=np.uint8),
            num=np.array(c["num"], dtype=np.uint8),
            trans=np.array(c["trans"], dtype=bool),
            mask=np.array(c["mask"], dtype=np.uint32),
            warp=np.array(c["warp"], dtype=np.int32),
            wait=np.array(c["wait"], dtype=bool),
            delay=np.array(c["delay"], dtype=np.int64),
            generic=np.array(c["generic"], dtype=bool),
            addrs=np.array(c["addrs"], dtype=np.int32).reshape(-1, LANES),
        )


def check_against_arch(batch: InstructionBatch, arch: ArchConfig, where: str, first_index: int = 0) -> None:
    """Reject ops the arch lacks, widths it does not have, and out-of-range or misaligned addresses."""
    for code in np.unique(batch.op):
        name = OPS[code]
        rows = np.flatnonzero(batch.op == code)
        if name not in arch.ops:
            raise TraceError(f"{where}: instruction {first_index + rows[0]}: op", f"{name} does not exist on {arch.name}")
        spec = arch.ops[name]
        if spec.phase == "bytes":
            bad = rows[~np.isin(batch.width[rows], spec.widths)]
            if len(bad):
                raise TraceError(f"{where}: instruction {first_index + bad[0]}: width", f"{name} on {arch.name} has no {batch.width[bad[0]]}-bit form")
        else:
            bad = rows[~np.isin(batch.num[rows], spec.nums)]
            if len(bad):
                raise TraceError(f"{where}: instruction {first_index + bad[0]}: num", f"{name} on {arch.name} has no .x{batch.num[bad[0]]} form")
    size = np.where(batch.width > 0, batch.width // 8, 16).astype(np.int64)[:, None]
    addrs = batch.addrs.astype(np.int64)
    used = addrs != INACTIVE
    beyond = used & (addrs + size > arch.shared_memory_per_cta)
    misaligned = used & (addrs % size != 0)
    for bad, what in ((beyond, "out of range"), (misaligned, "misaligned")):
        if bad.any():
            i, lane = np.argwhere(bad)[0]
            a = int(addrs[i, lane])
            if what == "out of range":
                msg = f"address {a} + {int(size[i, 0])} bytes is past {arch.name}'s {arch.shared_memory_per_cta} bytes of shared memory per CTA"
            else:
                msg = f"address {a} is not aligned to the {int(size[i, 0])}-byte access (the hardware faults)"
            raise TraceError(f"{where}: instruction {first_index + i}: addrs[{lane}]", msg)


def trace_to_json(trace: Trace) -> dict[str, Any]:
    """The v1 document of a trace (optional fields written only where they differ from defaults)."""
    b = trace.instructions
    out = []
    for i in range(len(b)):
        op = OPS[b.op[i]]
        ins: dict[str, Any] = {"warp": int(b.warp[i]), "op": op}
        if op in MATRIX_OPS:
            ins["num"] = int(b.num[i])
            ins["trans"] = bool(b.trans[i])
        else:
            ins["width"] = int(b.width[i])
            if b.mask[i] != FULL_MASK:
                ins["mask"] = f"0x{int(b.mask[i]):08x}"
        if b.generic[i]:
            ins["generic"] = True
        if b.wait[i]:
            ins["wait"] = True
        if b.delay[i]:
            ins["delay"] = int(b.delay[i])
        ins["addrs"] = [None if a == INACTIVE else int(a) for a in b.addrs[i]]
        out.append(ins)
    doc: dict[str, Any] = {"simsmem_trace": FORMAT_VERSION, "name": trace.name}
    if trace.arch:
        doc["arch"] = trace.arch
    if trace.ctas != 1:
        doc["ctas"] = trace.ctas
    doc["instructions"] = out
    return doc


def write_trace(trace: Trace, path: str | Path) -> None:
    """Write a v1 JSON trace, one instruction per line, atomically (no half-written file on error)."""
    doc = trace_to_json(trace)
    lines = [orjson.dumps(ins).decode() for ins in doc.pop("instructions")]
    head = orjson.dumps(doc).decode()[:-1]
    body = head + ',\n "instructions": [\n  ' + ",\n  ".join(lines) + "\n]}\n"
    write_atomically(path, body.encode())


def write_atomically(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder, then rename."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


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


def _nonneg(ins: dict, field: str, at: str) -> int:
    v = ins.get(field, 0)
    if not _is_int(v) or not 0 <= v <= MAX_INT:
        raise TraceError(f"{at}: {field}", f"expected a non-negative integer, got {v!r}")
    return v


def _mask(v: Any, at: str) -> int:
    if isinstance(v, str):
        try:
            v = int(v, 0)
        except ValueError:
            raise TraceError(at, f"expected an integer or hex string, got {v!r}") from None
    if not _is_int(v) or not 0 <= v <= FULL_MASK:
        raise TraceError(at, f"expected a 32-bit lane mask, got {v!r}")
    return v
