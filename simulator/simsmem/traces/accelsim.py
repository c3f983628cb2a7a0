"""Accel-Sim SASS traces (``kernel-N.traceg``, also ``.traceg.xz``/``.gz``): their shared-memory instructions as trace v1.

The format, as the accel-sim-framework sources write and read it (``util/tracer_nvbit/tracer_tool``
writes it, ``traces-processing/post-traces-processing.cpp`` groups it per thread block and warp,
``gpu-simulator/trace-parser/trace_parser.cc`` reads it)::

    -kernel name = _Z6kernelPf        header lines "-key = value": grid and block dims, shared memory
    -grid dim = (8,1,1)               size and window base, binary version (90: sm_90), tracer version,
    -block dim = (128,1,1)            whether lines carry a source line number
    -shmem base_addr = 0x00007f2a00000000
    -accelsim tracer version = 4
    -enable lineinfo = 0
    #BEGIN_TB
    thread block = 0,0,0              (newer tracers add cluster id / cluster cta / cluster rank lines)
    warp = 0
    insts = 2
    0000 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0 0
    0010 ffffffff 1 R4 LDS.128 1 R2 16 1 0x7f2a00000000 16 0
    #END_TB

An instruction line is ``[tb_x tb_y tb_z warp] [line] PC mask dest_num dests... opcode src_num
srcs... [gmma_flag] mem_width [address_mode addresses...] [immediates and values]``: the thread block
prefix only before tracer version 3, the line number only with lineinfo, the GMMA flag only on GMMA
opcodes, immediates from version 4 on (version 6 adds a second one and register values). Addresses
come in one of three encodings: 0, one hex address per active lane; 1, a hex base and a decimal
stride over a contiguous run of active lanes; 2, a hex base and one decimal delta per further active
lane, each from the previous lane's address. Everything after the addresses is ignored.

The README's "Large traces and imports" section lists how each SASS opcode maps to a trace op.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Iterator
from itertools import accumulate
from pathlib import Path
from typing import Any

from ..errors import TraceError
from .decode import batch_from_objects
from .files import Input
from .records import FULL_MASK, LANES, MATRIX_OPS
from .sass import sass_form
from .stream import CHUNK, TraceStream, rechunk

#: The shared window: NVBit's generic shared addresses are [base, base + 16 MiB), 16 MiB-aligned.
WINDOW = 16 << 20
#: Tracer versions whose line layout this reads (the header gives e.g. "4", "5" or "1.2").
VERSIONS = range(1, 7)
#: Opcodes (before the first '.') of shared-memory traffic the trace does not describe fully: they
#: are left out, and the stream's notes say how many. (The tracer writes each LDGSTS twice, once per
#: address; post-processing keeps the line with the global address.)
NOT_MODELLED = {"LDGSTS": "LDGSTS (the trace keeps only its global addresses)"}
#: Instructions per batch handed to the v1 checks.
BLOCK = 4096
_DIMS = re.compile(r"\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)")


def read_accelsim(path: str | Path, chunk: int = CHUNK) -> TraceStream:
    """The shared-memory instructions of an Accel-Sim ``.traceg`` kernel trace, streamed in chunks."""
    f = Input(path)
    try:
        lines = _lines(f)
        header, first_line = _header(lines, f.where)
    except BaseException:
        f.close()
        raise
    notes: list[str] = []
    parts = _parts(_Kernel(header, f.where), lines, first_line, notes, f)
    return TraceStream(f.where, header["name"], header["arch"], 1, f.size, rechunk(parts, chunk), notes=notes)


def _lines(f: Input) -> Iterator[tuple[int, str]]:
    """(line number, text) of every line; undecodable bytes are an error naming the line."""
    pending, number = b"", 0
    while True:
        block = f.read()
        data = pending + block
        cut = data.rfind(b"\n") + 1 if block else len(data)
        pending = data[cut:]
        for raw in data[:cut].splitlines():
            number += 1
            try:
                yield number, raw.decode("ascii")
            except UnicodeDecodeError:
                raise TraceError(f"{f.where}: line {number}", "not a text trace (non-ASCII bytes)") from None
        if not block:
            return


def _header(lines: Iterator[tuple[int, str]], where: str) -> tuple[dict[str, Any], int]:
    """The kernel header fields (everything up to the first ``#BEGIN_TB``), and that line's number."""
    fields: dict[str, str] = {}
    for number, text in lines:
        if text.startswith("-"):
            key, _, value = text[1:].partition("=")
            fields[" ".join(key.split())] = value.strip()
        elif text.strip() == "#BEGIN_TB":
            break
        elif text.strip() and not text.startswith("#"):
            raise TraceError(f"{where}: line {number}", f"expected a '-key = value' header line or '#BEGIN_TB', got {text[:40]!r}")
    else:
        number = 0  # no thread blocks: an empty kernel
    for key in ("accelsim tracer version", "grid dim", "block dim"):
        if key not in fields:
            raise TraceError(where, f"missing header line '-{key} = ...' (is this an Accel-Sim .traceg file?)")
    version = re.match(r"\d+", fields["accelsim tracer version"])
    if not version or int(version[0]) not in VERSIONS:
        raise TraceError(f"{where}: accelsim tracer version", f"{fields['accelsim tracer version']!r} is not a version this reads ({VERSIONS[0]} to {VERSIONS[-1]})")
    grid, block = (_dims(fields[k], f"{where}: {k}") for k in ("grid dim", "block dim"))
    binary = fields.get("binary version", "")
    header = {
        "name": fields.get("kernel name", Path(where).name.split(".")[0]),
        "arch": f"sm_{binary}" if binary.isdigit() else None,
        "version": int(version[0]),
        "lineinfo": _number(fields.get("enable lineinfo", "0"), 10, f"{where}: enable lineinfo"),
        "base": _number(fields.get("shmem base_addr", "0"), 16, f"{where}: shmem base_addr"),
        "grid": grid,
        "warps": math.ceil(block[0] * block[1] * block[2] / LANES),
    }
    return header, number


class _Kernel:
    """What the instruction lines need from the header, and the mapping of one line to a v1 object."""

    def __init__(self, header: dict[str, Any], where: str) -> None:
        self.where = where
        self.skip = (4 if header["version"] < 3 else 0) + (1 if header["lineinfo"] else 0)
        self.base = header["base"]
        self.grid = header["grid"]
        self.warps = header["warps"]
        self.left_out: Counter[str] = Counter()

    def instruction(self, text: str, at: str, warp: int, issue: int) -> dict[str, Any] | None:
        """The v1 object of one instruction line, or None if it is not shared-memory traffic simsmem counts."""
        i = self.skip
        head = text.split(maxsplit=i + 5)  # enough for the opcode after up to two destinations
        dests = _number(_token(head, i + 2, at, "dest_num"), 10, f"{at}: dest_num")
        opcode = _token(head if dests <= 2 else text.split(), i + 3 + dests, at, "opcode")
        base = opcode.split(".", 1)[0]
        if base in NOT_MODELLED:
            self.left_out[NOT_MODELLED[base]] += 1
            return None
        if base not in ("LDS", "STS", "LDSM", "STSM", "ATOMS", "LD", "ST"):
            return None  # not shared memory: the rest of the line (often 32 addresses) is not split
        tok = text.split()
        mask = _number(_token(tok, i + 1, at, "mask"), 16, f"{at}: mask")
        if mask > FULL_MASK:
            raise TraceError(f"{at}: mask", f"{mask:#x} is wider than 32 lanes")
        srcs = _number(_token(tok, i + 4 + dests, at, "src_num"), 10, f"{at}: src_num")
        j = i + 5 + dests + srcs
        width = _number(_token(tok, j, at, "mem_width"), 10, f"{at}: mem_width")
        if width == 0:
            raise TraceError(f"{at}: mem_width", f"{opcode} carries no addresses (mem_width 0)")
        addrs = _quick_addresses(tok, j + 1, mask) or _addresses(tok, j + 1, mask, at)
        generic = base in ("LD", "ST")
        if generic:
            shared = [lane for lane, a in enumerate(addrs) if a is not None and self.base and self.base <= a < self.base + WINDOW]
            if not shared:
                return None  # global or local memory
            if len(shared) != bin(mask).count("1"):
                raise TraceError(f"{at}: addresses", f"{opcode} mixes shared and other memory across lanes (not modelled)")
        try:  # a generic LD/ST in the window is read as the LDS/STS of the same modifiers
            obj: dict[str, Any] = {**sass_form(f"{base}S{opcode[len(base):]}" if generic else opcode), "warp": warp}
        except TraceError as exc:
            raise TraceError(f"{at}: opcode", f"{opcode}: {exc.what}") from None
        if obj["op"] in MATRIX_OPS:
            rows = 8 * obj["num"]
            missing = [lane for lane in range(rows) if addrs[lane] is None]
            if missing:
                raise TraceError(f"{at}: mask", f"{opcode} needs row addresses from lanes 0..{rows - 1}; lane {missing[0]} is inactive")
            addrs = addrs[:rows] + [None] * (LANES - rows)
        elif generic:
            obj["generic"] = True
        if "width" in obj and mask != FULL_MASK:
            obj["mask"] = mask
        obj["addrs"] = self._offsets(addrs, at)
        if issue:
            obj["issue"] = issue
        return obj

    def _offsets(self, addrs: list[int | None], at: str) -> list[int | None]:
        """The lanes' shared-memory byte offsets (all in the window, or all offsets already: at once)."""
        present = [a for a in addrs if a is not None]
        if present and self.base and self.base <= min(present) and max(present) < self.base + WINDOW:
            return [None if a is None else a - self.base for a in addrs]
        if not present or max(present) < WINDOW:
            return addrs
        return [None if a is None else self._offset(a, lane, at) for lane, a in enumerate(addrs)]

    def _offset(self, address: int, lane: int, at: str) -> int:
        """A shared-memory byte offset: a generic address in the window, or already an offset (older NVBit)."""
        if self.base and self.base <= address < self.base + WINDOW:
            return address - self.base
        if address < WINDOW:
            return address
        raise TraceError(f"{at}: addresses", f"lane {lane}: {address:#x} is outside the shared window {self.base:#x} + 16 MiB")


def _parts(kernel: _Kernel, lines: Iterator[tuple[int, str]], first_line: int, notes: list[str], f: Input) -> Iterator[tuple[Any, int]]:
    """Batches of the kernel's shared-memory instructions, in thread block then warp order."""
    where = kernel.where
    objs: list[dict[str, Any]] = []
    index = 0
    block_open = first_line > 0
    warp = expected = seen = issue = cta = None

    def close_warp(number: int) -> None:
        if expected is not None and seen != expected:
            raise TraceError(f"{where}: line {number}", f"warp {warp_in_cta}: 'insts = {expected}' but {seen} instruction lines follow")

    try:
        warp_in_cta = None
        for number, text in lines:
            line = text.strip()
            if not line:
                continue
            if line == "#BEGIN_TB":
                if block_open:
                    raise TraceError(f"{where}: line {number}", "#BEGIN_TB inside an open thread block")
                block_open, cta, warp, expected = True, None, None, None
            elif line == "#END_TB":
                if not block_open:
                    raise TraceError(f"{where}: line {number}", "#END_TB without #BEGIN_TB")
                close_warp(number)
                block_open, warp, expected = False, None, None
            elif line.startswith("#"):
                continue
            elif not block_open:
                raise TraceError(f"{where}: line {number}", f"expected '#BEGIN_TB', got {line[:40]!r}")
            elif line.startswith("thread block"):
                cta = _cta(line, kernel.grid, f"{where}: line {number}")
            elif line.startswith("cluster"):
                continue
            elif line.startswith("warp"):
                close_warp(number)
                warp_in_cta = _number(_value(line, f"{where}: line {number}"), 10, f"{where}: line {number}: warp")
                if cta is None:
                    raise TraceError(f"{where}: line {number}", "'warp = ...' before 'thread block = ...'")
                if warp_in_cta >= kernel.warps:
                    raise TraceError(f"{where}: line {number}: warp", f"warp {warp_in_cta} of a {kernel.warps}-warp thread block")
                warp, expected, seen, issue = cta * kernel.warps + warp_in_cta, None, 0, 0
            elif line.startswith("insts"):
                expected = _number(_value(line, f"{where}: line {number}"), 10, f"{where}: line {number}: insts")
            else:
                if warp is None:
                    raise TraceError(f"{where}: line {number}", "instruction line before 'warp = ...'")
                seen += 1
                obj = kernel.instruction(line, f"{where}: line {number}", warp, issue)
                if obj is None:
                    issue += 1
                    continue
                objs.append(obj)
                issue = 0
                if len(objs) == BLOCK:
                    yield batch_from_objects(objs, where, index), f.done
                    index += len(objs)
                    objs = []
        if block_open:
            raise TraceError(where, "the last thread block has no #END_TB (is the file cut short?)")
        if objs:
            yield batch_from_objects(objs, where, index), f.done
        notes.extend(f"left out {n:,} {what}" for what, n in sorted(kernel.left_out.items()))
    finally:
        f.close()


@functools.lru_cache(maxsize=4096)
def _lanes(mask: int) -> tuple[int, ...]:
    return tuple(lane for lane in range(LANES) if mask >> lane & 1)


def _quick_addresses(tok: list[str], i: int, mask: int) -> list[int | None] | None:
    """``_addresses`` for a well-formed line, decoded without per-token checks; None sends the line
    to ``_addresses``, which checks every token and names the bad one."""
    lanes = _lanes(mask)
    k = len(lanes)
    mode = tok[i] if i < len(tok) else ""
    try:
        if mode == "0":
            values = [int(t, 16) for t in tok[i + 1 : i + 1 + k]]
        elif mode == "1" and k and lanes[-1] - lanes[0] + 1 == k:
            start, stride = int(tok[i + 1], 16), int(tok[i + 2])
            values = [start + n * stride for n in range(k)]
        elif mode == "2" and k:
            values = list(accumulate([int(tok[i + 1], 16)] + [int(t) for t in tok[i + 2 : i + 1 + k]]))
        else:
            return None
    except (ValueError, IndexError):
        return None
    if len(values) != k or (values and (min(values) < 0 or max(values) >= 1 << 64)):
        return None
    out: list[int | None] = [None] * LANES
    for lane, value in zip(lanes, values):
        out[lane] = value
    return out


def _addresses(tok: list[str], i: int, mask: int, at: str) -> list[int | None]:
    """The 32 lanes' addresses (None for inactive lanes) from ``address_mode addresses...`` at token ``i``."""
    mode = _number(_token(tok, i, at, "address mode"), 10, f"{at}: address mode")
    lanes = [lane for lane in range(LANES) if mask >> lane & 1]
    out: list[int | None] = [None] * LANES
    if not lanes:
        return out
    if mode == 0:
        for k, lane in enumerate(lanes):
            out[lane] = _number(_token(tok, i + 1 + k, at, "addresses"), 16, f"{at}: addresses")
    elif mode == 1:
        if lanes[-1] - lanes[0] + 1 != len(lanes):
            raise TraceError(f"{at}: address mode", "base+stride (1) needs the active lanes to be contiguous")
        start = _number(_token(tok, i + 1, at, "base address"), 16, f"{at}: base address")
        stride = _number(_token(tok, i + 2, at, "stride"), 10, f"{at}: stride", signed=True)
        for k, lane in enumerate(lanes):
            out[lane] = start + k * stride
    elif mode == 2:
        address = _number(_token(tok, i + 1, at, "base address"), 16, f"{at}: base address")
        out[lanes[0]] = address
        for k, lane in enumerate(lanes[1:]):
            address += _number(_token(tok, i + 2 + k, at, "deltas"), 10, f"{at}: deltas", signed=True)
            out[lane] = address
    else:
        raise TraceError(f"{at}: address mode", f"expected 0 (list), 1 (base+stride) or 2 (base+deltas), got {mode}")
    negative = [lane for lane in lanes if out[lane] < 0]
    if negative:
        raise TraceError(f"{at}: addresses", f"lane {negative[0]}: the encoding gives a negative address")
    return out


def _token(tok: list[str], i: int, at: str, field: str) -> str:
    if i >= len(tok):
        raise TraceError(f"{at}: {field}", "the line ends before it")
    return tok[i]


def _number(text: str, base: int, at: str, signed: bool = False) -> int:
    try:
        value = int(text, base)
    except ValueError:
        raise TraceError(at, f"expected a {'hex' if base == 16 else 'decimal'} number, got {text[:24]!r}") from None
    if value < 0 and not signed:
        raise TraceError(at, f"expected a non-negative number, got {text[:24]!r}")
    if abs(value) >= 1 << 64:
        raise TraceError(at, f"{text[:24]!r} does not fit 64 bits")
    return value


def _value(line: str, at: str) -> str:
    _, sep, value = line.partition("=")
    if not sep:
        raise TraceError(at, f"expected 'key = value', got {line[:40]!r}")
    return value.strip()


def _dims(text: str, at: str) -> tuple[int, int, int]:
    m = _DIMS.fullmatch(text)
    if not m or not all(int(v) > 0 for v in m.groups()):
        raise TraceError(at, f"expected (x,y,z) with positive sizes, got {text[:40]!r}")
    return int(m[1]), int(m[2]), int(m[3])


def _cta(line: str, grid: tuple[int, int, int], at: str) -> int:
    """The linear index of ``thread block = x,y,z`` in the grid (x fastest)."""
    parts = _value(line, at).split(",")
    if len(parts) != 3:
        raise TraceError(f"{at}: thread block", f"expected x,y,z, got {line[:40]!r}")
    x, y, z = (_number(p.strip(), 10, f"{at}: thread block") for p in parts)
    if not (x < grid[0] and y < grid[1] and z < grid[2]):
        raise TraceError(f"{at}: thread block", f"({x},{y},{z}) is outside the grid {grid}")
    return (z * grid[1] + y) * grid[0] + x
