"""A struct passed by value (``.param .align A .b8 name[N]``): the ``bytes:`` and ``struct:`` launch arguments.

``bytes:HEX`` is the parameter's N bytes as exactly 2N hex digits, byte 0 first (memory order), as a generic
launcher takes them. ``struct:FIELD,FIELD,...`` lays its fields out as C does: each at the next multiple of its
alignment (its size), the struct padded to a multiple of its own alignment (its largest field's, or the
parameter's ``.align`` where that is larger). A FIELD is ``TYPE=VALUE``, TYPE one of ``FIELDS``: the integers
(decimal or ``0x`` hex; an ``iN`` may be negative), the floats, ``ptr`` (8 bytes: a buffer the launch places,
``zeros:BYTES``, ``npy:PATH`` or ``arg:I``) and ``tmap`` (a ``CUtensorMap``, 128 bytes aligned to 64, as a CuTe TMA
atom holds one: ``tmap=SPEC``, SPEC what follows ``tmap:`` in a tensor map argument, in parentheses where its strides
hold commas); or ``{FIELD,...}``, a nested struct with its own alignment and tail padding. Commas inside braces or
parentheses do not split fields. A float rounds to nearest even (an ``f16`` or ``bf16`` from its ``f32``, as the
corpus's launcher rounds).
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable

import attrs
import numpy as np

#: field types: (bytes, kind) with kind u unsigned, i signed, f floating point, p pointer, t tensor map
FIELDS = {"i8": (1, "i"), "u8": (1, "u"), "i16": (2, "i"), "u16": (2, "u"), "i32": (4, "i"), "u32": (4, "u"), "i64": (8, "i"),
          "u64": (8, "u"), "f16": (2, "f"), "bf16": (2, "f"), "f32": (4, "f"), "f64": (8, "f"), "ptr": (8, "p"), "tmap": (128, "t")}
#: a CUtensorMap's alignment (alignas(64) in cuda.h); every other field is aligned to its size
TMAP_ALIGN = 64
#: the kinds whose bytes the launch gives (``encode``'s ``place``)
PLACED = frozenset("pt")
#: the brackets that keep commas inside one field: a nested struct's, a tmap field's
PAIRS = {"{": "}", "(": ")"}


class StructError(ValueError):
    """A struct argument that does not fit its parameter, or a field that does not fit its type."""


@attrs.frozen
class Field:
    """One field placed: ``label`` its place in the text (``3``, or ``2.1`` inside a nested struct)."""

    label: str
    offset: int
    type: str
    value: str

    @property
    def size(self) -> int:
        return FIELDS[self.type][0]

    @property
    def align(self) -> int:
        return TMAP_ALIGN if self.type == "tmap" else self.size


def from_hex(text: str, size: int) -> bytes:
    """The bytes of ``bytes:HEX`` for a ``size``-byte parameter."""
    digits = text[len("bytes:") :]
    if not re.fullmatch(r"[0-9a-fA-F]*", digits):
        raise StructError(f"bytes: takes hex digits only, got {digits[:40]!r}")
    if len(digits) != 2 * size:
        raise StructError(f"bytes: takes exactly {2 * size} hex digits (the parameter's {size} bytes, byte 0 first), got {len(digits)}")
    return bytes.fromhex(digits)


def encode(text: str, size: int, align: int | None, place: Callable[[Field], bytes]) -> bytes:
    """The bytes of ``struct:...`` for a parameter of ``size`` bytes aligned to ``align`` (None where only a cubin says
    it: unknown); ``place`` gives a ``ptr`` or ``tmap`` field's bytes (its buffer's address, its map), placing what
    it needs in the launch's memory."""
    fields, end, natural = layout(text[len("struct:") :])
    if align is not None and natural > align:
        worst = next(f for f in fields if f.align > align)
        raise StructError(f"field {worst.label} ({worst.type}) needs {worst.align}-byte alignment; the parameter is .align {align}")
    total = _round(end, max(natural, align or 1))
    if total != size:
        atom = " (a CuTe TMA atom's AuxTmaParams follow its map: an empty one is a u8)" if any(f.type == "tmap" for f in fields) else ""
        raise StructError(f"the fields take {total} bytes as C lays them out ({end} before the tail padding); the parameter has {size}{atom}")
    out = bytearray(size)
    for f in fields:
        out[f.offset : f.offset + f.size] = place(f) if FIELDS[f.type][1] in PLACED else _value(f)
    return bytes(out)


def _round(n: int, align: int) -> int:
    return -(-n // align) * align


def _split(text: str) -> list[str]:
    """The comma-separated items of ``text``, braces and parentheses kept together."""
    items, open_, start = [], [], 0
    for k, c in enumerate(text):
        if c in PAIRS:
            open_.append(c)
        elif c in PAIRS.values() and (not open_ or PAIRS[open_.pop()] != c):
            raise StructError(f"a '{c}' with no '{next(o for o, e in PAIRS.items() if e == c)}' at character {k + 1} of {text!r}")
        elif c == "," and not open_:
            items.append(text[start:k])
            start = k + 1
    if open_:
        raise StructError(f"a '{open_[-1]}' with no '{PAIRS[open_[-1]]}' in {text!r}")
    return items + [text[start:]]


def layout(text: str, prefix: str = "") -> tuple[list[Field], int, int]:
    """The fields of ``FIELD,FIELD,...`` (what follows ``struct:``) at their offsets, the end of the last one, and the
    struct's alignment; ``prefix`` goes before the labels (a nested struct's)."""
    fields: list[Field] = []
    end, align = 0, 1
    for k, item in enumerate(_split(text), 1):
        label, item = f"{prefix}{k}", item.strip()
        if item.startswith("{") and item.endswith("}"):
            inner, size, a = layout(item[1:-1], f"{label}.")
            size = _round(size, a)
        else:
            ty, eq, value = item.partition("=")
            if ty not in FIELDS or not eq:
                raise StructError(f"field {label}: expected TYPE=VALUE (TYPE one of {' '.join(FIELDS)}) or {{...}}, got {item!r}")
            if ty == "tmap" and value.startswith("(") and value.endswith(")"):
                value = value[1:-1]
            field = Field(label, 0, ty, value)
            inner, size, a = [field], field.size, field.align
        offset = _round(end, a)
        fields += [attrs.evolve(f, offset=f.offset + offset) for f in inner]
        end, align = offset + size, max(align, a)
    return fields, end, align


def _value(f: Field) -> bytes:
    """A number field's bytes."""
    size, kind = FIELDS[f.type]
    where = f"field {f.label} ({f.type})"
    if kind == "f":
        try:
            v = float(f.value)
        except ValueError:
            raise StructError(f"{where}: expected a number, got {f.value!r}") from None
        with np.errstate(over="ignore"):
            single = np.array(v, dtype=np.float32)  # f16 and bf16 from the f32, as launch.cu rounds them
            if f.type in ("f16", "bf16") and math.isnan(v):
                out, back = struct.pack("<H", 0x7FFF), v  # CUDA's NaN of both
            elif f.type == "bf16":  # the f32's high half, rounded to nearest even
                bits = int(single.view(np.uint32))
                half = (bits + 0x7FFF + (bits >> 16 & 1)) >> 16
                out, back = struct.pack("<H", half), float(np.array(half << 16, dtype=np.uint32).view(np.float32))
            else:
                value = np.array(v) if f.type == "f64" else single.astype(np.float16) if f.type == "f16" else single
                out, back = value.tobytes(), float(value)
        if math.isfinite(v) and math.isinf(back):
            raise StructError(f"{where}: {f.value} does not fit a {f.type}")
        return out
    try:
        v = int(f.value, 0)
    except ValueError:
        raise StructError(f"{where}: expected an integer, got {f.value!r}") from None
    low = -(1 << (8 * size - 1)) if kind == "i" else 0
    if not low <= v < 1 << (8 * size):
        raise StructError(f"{where}: {v} does not fit {size} bytes" + (" unsigned" if kind == "u" else ""))
    return (v & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
