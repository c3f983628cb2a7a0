"""The trace's fields, declared once, and the records made of them: ``InstructionBatch`` for counting, ``Instruction`` for reading.

Each field of an instruction is a column of ``InstructionBatch``, declared there with its ``Field``: its kind
(``kinds``: how it is written in JSON, checked and kept), its dtype, the value of an instruction that leaves it out,
and what it means. ``OP_FIELDS`` says which ops take which. From these come ``FIELDS``, the ``Instruction`` record,
the v1 readers and writers (``decode``, ``v1``), the ``.npz`` members (``npz``) and the field table of
docs/trace-format.md (``v1.field_tables``). A new field is one line of ``InstructionBatch``.

A batch holds a trace's instructions column by column (numpy arrays), so the bank model can count a million
instructions without building a Python object for each; ``batch[i]`` gives one ``Instruction`` back. Per-lane
columns hold ``INACTIVE`` in the lanes that give no value (inactive lanes, an LDSM's lanes past its row addresses,
every lane of an op that does not take the field).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from operator import attrgetter
from typing import Any

import attrs
import numpy as np

from .kinds import (
    MAX_INT,
    NO_WAIT,
    Box,
    Choice,
    Count,
    Flag,
    FormValue,
    Kind,
    Lanes,
    LanesOf,
    Mask,
    Offset,
    Others,
    Part,
    Wait,
    Word,
    box_sizes,
)
from .lanes import FULL_MASK, INACTIVE, LANES, holds_no_sources, no_sources

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
    meaning: str = ""  # what it is, in the op table of docs/trace-format.md

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
#: Per op, its fields, in the order of the ops' codes (``OPS``: files hold the codes, so a new op is a row at the end).
OP_FIELDS = {
    "LDS": OpFields("width", WIDTHS, frozenset({"mask", "generic", "elsewhere"}), meaning="shared load (`ld.shared`)"),
    "STS": OpFields("width", WIDTHS, frozenset({"mask", "generic", "elsewhere"}), meaning="shared store (`st.shared`)"),
    "ATOMS": OpFields("width", WIDTHS, frozenset({"mask", "atom", "generic", "elsewhere"}),
                      meaning="shared atomic (`atom.shared`, `red.shared`; `width` 32 or 64)"),
    "LDSM": OpFields("num", NUMS, frozenset({"trans"}), meaning="`ldmatrix`: `num` 8x8 b16 matrices"),
    "STSM": OpFields("num", NUMS, frozenset({"trans"}), meaning="`stmatrix`"),
    "LDGSTS": OpFields("width", (32, 64, 128), frozenset({"mask", "bypass", "zfill", "srcsize", "zeroed", "pred", "imm"}), frozenset({"src"}),
                       meaning="`cp.async`: a copy from global into shared memory"),
    "GMMA": OpFields("n", tuple(range(8, 257, 8)), frozenset({"desc_a", "tnsp", "sparse"}), frozenset({"gtype", "desc_b"}), lanes=False,
                     meaning="`wgmma.mma_async` (HGMMA, QGMMA, IGMMA): one row per warpgroup instruction, `warp` its first warp"),
    "UTMALDG": OpFields("elem", (1, 2, 4, 8), frozenset({"swizzle", "mask"}), frozenset({"smem", "size", "box"}), lanes=False,
                        meaning="`cp.async.bulk.tensor` into shared memory"),
    "UTMASTG": OpFields("elem", (1, 2, 4, 8), frozenset({"swizzle", "mask"}), frozenset({"smem", "size", "box"}), lanes=False,
                        meaning="`cp.async.bulk.tensor` out of shared memory"),
    "UBLKCP": OpFields("", (), frozenset({"store", "mask"}), frozenset({"smem", "size"}), lanes=False, meaning="`cp.async.bulk` (no tensor map)"),
}
#: Operation names a trace may use, in the order of their codes in ``InstructionBatch.op``.
OPS: tuple[str, ...] = tuple(OP_FIELDS)
#: Ops that read or write shared memory without lanes: a warpgroup's wgmma (one row per warpgroup instruction, its
#: A and B operands read through matrix descriptors) and the copies of the tensor memory accelerator (TMA tensor
#: copies, bulk copies: one row per copy, the bytes it moves).
BLOCK_OPS = frozenset(op for op, spec in OP_FIELDS.items() if not spec.lanes)
#: The copies among them (TMA tensor copies and bulk copies): those that take a shared address.
COPY_OPS = frozenset(op for op in BLOCK_OPS if "smem" in OP_FIELDS[op].takes)
#: Ops whose lanes give the row addresses of 8x8 b16 matrices (``num`` matrices, 8 lanes each).
MATRIX_OPS = frozenset(op for op, spec in OP_FIELDS.items() if spec.form == "num")
#: Ops whose lanes also give a global source address (``src``): cp.async's LDGSTS.
SOURCE_OPS = frozenset(op for op, spec in OP_FIELDS.items() if "src" in spec.takes)
#: Shared atomic operations (``atom``). ``popc_inc`` is the SASS ``ATOMS.POPC.INC`` that ``red.shared.add.u32 [a], 1``
#: compiles to; ``cast`` is ``ATOMS.CAST.SPIN``, the compare-and-store of the loops the compiler makes of atomics the
#: hardware lacks (a float atomicAdd on shared memory); ``unserved`` and ``unserved_float`` a generic atomic on shared words
#: whose operation shared memory does not serve (``ATOM.E.MIN.64``; ``ATOM.E.ADD.F32``): it fails there, and ptxas's
#: fallback after it does the work.
ATOM_KINDS: tuple[str, ...] = ("add", "min", "max", "inc", "dec", "exch", "cas", "and", "or", "xor", "popc_inc", "cast", "unserved",
                               "unserved_float")
#: An LDGSTS's SASS predicate operand (``pred``): ``P0`` (or none), another positive one (``P1``...``P6``), a negated one.
PREDICATES: tuple[str, ...] = ("P0", "other", "negated")
#: Operand types of a wgmma (``gtype``), its M/N-major operands (``tnsp``), and TMA swizzle modes (``swizzle``).
GMMA_TYPES: tuple[str, ...] = ("f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "b1")
TNSP_MODES: tuple[str, ...] = ("none", "A", "B", "AB")
SWIZZLE_MODES: tuple[str, ...] = ("none", "32B", "64B", "128B")
#: ``InstructionBatch.pc`` of an instruction whose SASS offset the trace does not give.
NO_PC = -1
MAX_SRC = 2**63 - 1  # global source addresses (int64)
#: IS_MATRIX[op code]: the op gives 8x8 matrix row addresses (a table lookup beats np.isin per chunk).
IS_MATRIX = np.array([name in MATRIX_OPS for name in OPS])
#: IS_SOURCE[op code]: the op's lanes give global sources (``src``).
IS_SOURCE = np.array([name in SOURCE_OPS for name in OPS])
#: IS_LANES[op code]: the op's lanes give addresses (``addrs``); the block ops have none.
IS_LANES = np.array([name not in BLOCK_OPS for name in OPS])


@attrs.frozen
class Field:
    """One field of an instruction: its kind, its column's dtype, the column value of an instruction that leaves it out,
    and what it means."""

    kind: Kind
    dtype: type
    default: Any
    meaning: str
    record: Any  # ``Instruction``'s default (attrs.NOTHING: required)
    always: bool = False  # written even when it holds the default (for an op that takes it)
    later: bool = False  # added after the first .npz files: a chunk, and a batch, may leave it out (all default then)

    @property
    def lanes(self) -> bool:
        """Whether it holds a value per lane (a column of shape (n, 32))."""
        return isinstance(self.kind, Lanes)

    def filled(self, n: int) -> np.ndarray:
        """The column of ``n`` rows that leave it out (per lane: a read-only view, no memory)."""
        if self.lanes:
            return np.broadcast_to(self.dtype(self.default), (n, LANES))
        return np.full(n, self.default, dtype="U1" if self.dtype is np.str_ else self.dtype)

    def array(self, values: list) -> np.ndarray:
        """The column of one value per row (per lane: a list of 32)."""
        column = np.array(values, dtype=self.dtype)
        return column.reshape(-1, LANES) if self.lanes else column


_KEEP = object()


def column(kind: Kind, dtype: type, default: Any, meaning: str, *, record: Any = _KEEP, always: bool = False, later: bool = False) -> Any:
    """A column of ``InstructionBatch``, declared: its ``Field`` (``record`` defaults to ``default`` as a record holds it)."""
    f = Field(kind, dtype, default, meaning, kind.value(default) if record is _KEEP else record, always, later)
    fill = attrs.Factory(lambda b: f.filled(len(b.op)), takes_self=True) if later else attrs.NOTHING
    return attrs.field(default=fill, metadata={"field": f})


#: The kind of the fields that give an op's form.
_FORM = FormValue({OPS.index(op): spec.values for op, spec in OP_FIELDS.items()})


@attrs.frozen(eq=False, kw_only=True)
class InstructionBatch:
    """Instructions as columns, one row per instruction: every field of trace v1, in the order the writers write them
    and the exact check reads them (a field's rule may look at the fields before it)."""

    op: np.ndarray = column(Choice(OPS), np.uint8, 0, "the operation (the op table)", record=attrs.NOTHING)
    warp: np.ndarray = column(Count(), np.int32, 0, "warp index in the CTA (a kernel's trace: grid-wide, the CTA's index times its warps "
                                                    "plus the warp)")
    width: np.ndarray = column(_FORM, np.uint8, 0, "access width in bits (LDGSTS: the copy's)", record=32)
    num: np.ndarray = column(_FORM, np.uint8, 0, "matrices; only lanes `0 .. 8*num-1` give row addresses (the rest are ignored, any "
                                                 "value or `null`)")
    trans: np.ndarray = column(Flag(), np.bool_, False, "transposed (`.trans`)", always=True)
    mask: np.ndarray = column(Mask(), np.uint32, FULL_MASK, "active lanes. A mask of 0 is valid: the instruction counts as executed (as "
                                                           "ncu counts predicated-off instructions) and makes no wavefronts. A copy's "
                              "(TMA, bulk): 0 when its warp executed it with the guard false in every lane, so nothing was copied (its "
                              "other fields say nothing): ncu's warp-level `smsp__inst_executed_op_tma_*` count it, the SASS-level "
                              "`smsp__sass_inst_executed_op_tma_*` do not")
    atom: np.ndarray = column(Choice(ATOM_KINDS), np.uint8, 0, "the atomic operation (below)")
    bypass: np.ndarray = column(Flag(), np.bool_, False, "`true`: cp.async `.cg` (`LDGSTS.E.BYPASS.128`, L1 bypassed), which exists only "
                                "with `width` 128 (the arch's `bypass_widths`); `false`: `.ca` (SASS `LDGSTS.E`, `.64`, `.128`)", later=True)
    zfill: np.ndarray = column(LanesOf("mask"), np.uint32, 0, "the lanes whose source ncu's SASS-level LDGSTS wavefront count does not "
                               "read: it takes such a lane's destination for its source. `simsmem trace` sets it for the lanes of a `.ca` "
                               "copy with src-size 0, and for every lane of the SASS form that takes src-size as a predicate "
                               "(`LDGSTS ..., P`); `.cg`'s `.ZFILL` form counts its lanes with their sources", later=True)
    srcsize: np.ndarray = column(Flag(), np.bool_, False, "`true`: the SASS form that takes cp.async's src-size in a register "
                                 "(`LDGSTS....ZFILL`); `false`: no src-size, or src-size as a predicate. A `.cg` copy of this form counts "
                                 "more wavefronts and has bank conflicts ([bank-model.md](bank-model.md), rule 6)", later=True)
    zeroed: np.ndarray = column(LanesOf("mask"), np.uint32, 0, "the lanes whose src-size is 0 (they copy only zeros). A `.cg` copy's "
                                "bank conflicts count the lanes that copy data: those not in it (rule 6). `simsmem trace` sets it for "
                                "both src-size forms", later=True)
    pred: np.ndarray = column(Choice(PREDICATES), np.uint8, 0, "the SASS instruction's predicate operand, ptxas's choice: `P0` (or none), "
                              "`other` (`P1` to `P6`) or `negated` (`!P0`, ...). ncu's SASS-level counters count the copies apart by it "
                              "(rule 6); `simsmem trace` sets it", later=True)
    imm: np.ndarray = column(Flag(), np.bool_, False, "an LDGSTS whose SASS shared address has an immediate offset (`[R9+0x800]`): "
                             "ncu's `smsp__sass_data_bytes_mem_shared` counts one lane's bytes of it", later=True)
    generic: np.ndarray = column(Flag(), np.bool_, False, "a generic `LD`/`ST`/`ATOM`/`RED` whose address fell in shared memory: the "
                                 "same data path and wavefronts (a load's never pack two phases into one), but not counted by ncu's "
                                 "`smsp__inst_executed_op_shared_*`")
    elsewhere: np.ndarray = column(Count(), np.int32, 0, "a generic instruction's distinct bytes outside shared memory (its other "
                                   "lanes', on global or local memory): ncu's `smsp__sass_data_bytes_mem_shared` counts them too", later=True)
    wait: np.ndarray = column(Wait(), np.int32, NO_WAIT, "timing: `true`: issue only after all earlier instructions of the warp "
                              "completed (a dependent load); N: once all but the N latest of them completed (at most N in flight, like "
                              "`cp.async.wait_group N` or a SASS scoreboard wait on an older load); `false`: no wait. `0` is `true`")
    early: np.ndarray = column(Count(), np.int32, 0, "timing: other (non-shared-memory) instructions the warp issues before the wait, "
                               "each taking one issue slot of its sub-partition", later=True)
    early_alu: np.ndarray = column(Part(whole="early"), np.int32, 0, "timing: how many of the `early` instructions are integer-ALU "
                                   "ones (`LOP3`, `IADD3`, `LEA`, `ISETP`, ...), which also take the sub-partition's ALU pipe", later=True)
    issue: np.ndarray = column(Count(), np.int32, 0, "timing: other instructions the warp issues after the wait and before this one, one "
                               "issue slot each; `simsmem trace` writes here those the warp executed since its previous shared-memory one")
    issue_alu: np.ndarray = column(Part(whole="issue"), np.int32, 0, "timing: how many of the `issue` instructions are integer-ALU ones",
                                   later=True)
    delay: np.ndarray = column(Count(), np.int64, 0, "timing: stall cycles the warp spends before issuing this one, after the wait and "
                               "the `issue` instructions")
    others: np.ndarray = column(Others(counts=("early", "early_alu", "issue", "issue_alu")), np.str_, "", "timing: the other "
                                "instructions the warp issues before this one (since its previous shared-memory one), one by one, in "
                                "place of `early`/`issue` counts (below)", later=True)
    stall: np.ndarray = column(Count(low=1), np.int32, 1, "timing: cycles from this instruction's issue until the warp's next one may "
                               "issue", later=True)
    pc: np.ndarray = column(Offset(none=NO_PC), np.int32, NO_PC, "the byte offset of its SASS instruction in the kernel's code "
                            "(`simsmem trace` writes it)", later=True)
    n: np.ndarray = column(_FORM, np.uint16, 0, "N of the wgmma's `m64nNk` shape", later=True)
    gtype: np.ndarray = column(Choice(GMMA_TYPES), np.uint8, 0, "the A and B operand type", later=True)
    desc_a: np.ndarray = column(Word(), np.uint64, 0, "A's shared-memory matrix descriptor; 0: A in registers", later=True)
    desc_b: np.ndarray = column(Word(), np.uint64, 0, "B's shared-memory matrix descriptor", later=True)
    tnsp: np.ndarray = column(Choice(TNSP_MODES), np.uint8, 0, "the M/N-major operands (SASS `.tnspA`, `.tnspB`)", later=True)
    sparse: np.ndarray = column(Flag(), np.bool_, False, "a sparse wgmma (A holds half of K)", later=True)
    elem: np.ndarray = column(_FORM, np.uint8, 0, "bytes of an element", later=True)
    smem: np.ndarray = column(Count(), np.int32, 0, "the shared address the copy starts at", later=True)
    size: np.ndarray = column(Count(), np.int32, 0, "the bytes it writes into shared memory (a TMA load: the whole box), or for a store "
                              "the bytes it reads out of it (a TMA store: the box's elements inside the tensor)", later=True)
    box: np.ndarray = column(Box(), np.uint64, 0, "the TMA box's sizes", later=True)
    swizzle: np.ndarray = column(Choice(SWIZZLE_MODES), np.uint8, 0, "the tensor map's swizzle mode", later=True)
    store: np.ndarray = column(Flag(), np.bool_, False, "`true`: from shared to global memory", later=True)
    addrs: np.ndarray = column(Lanes(MAX_INT, "address", IS_LANES, IS_MATRIX), np.int32, INACTIVE, "each lane's byte offset into the "
                               "CTA's shared memory (LDGSTS: its destination); `null` only for inactive lanes", record=attrs.NOTHING)
    src: np.ndarray = column(Lanes(MAX_SRC, "source address", IS_SOURCE, IS_MATRIX), np.int64, INACTIVE, "each lane's global source "
                             "byte address, aligned to the copy size; `null` only for inactive lanes", record=None, later=True)

    def __len__(self) -> int:
        return len(self.op)

    def forms(self) -> np.ndarray:
        """Each instruction's form (op, width, matrix count, trans, atomic operation, bypass, store) as one integer;
        ``Form.of`` decodes it. Whatever works per form groups a batch by these keys."""
        return (self.store.astype(np.int64) << 33 | self.bypass.astype(np.int64) << 32 | self.atom.astype(np.int64) << 25
                | self.op.astype(np.int64) << 17
                | self.width.astype(np.int64) << 9 | self.num.astype(np.int64) << 1 | self.trans)

    def __getitem__(self, i: int) -> Instruction:
        return self._records(range(len(self))[i], 1)[0]

    def __iter__(self) -> Iterator[Instruction]:
        for start in range(0, len(self), 4096):  # a block at a time: a long batch never becomes one list
            yield from self._records(start, 4096)

    def _records(self, start: int, n: int) -> list[Instruction]:
        """Rows ``start`` to ``start + n`` as records; an optional field (``src``) the op does not take is None there."""
        rows = slice(start, start + n)
        columns = [(name, value, optional, getattr(self, name)[rows].tolist()) for name, value, optional in _RECORD]
        return [Instruction(**{name: None if optional and not TAKEN[name][op] else column[k] if value is None else value(column[k])
                               for name, value, optional, column in columns}) for k, op in enumerate(self.op[rows].tolist())]

    def take(self, index: np.ndarray | slice) -> InstructionBatch:
        """The rows ``index`` selects, as a new batch."""
        return InstructionBatch(**{name: getattr(self, name)[index] for name in COLUMNS})

    @staticmethod
    def empty() -> InstructionBatch:
        """No instructions."""
        return InstructionBatch.from_instructions(())

    @staticmethod
    def concat(batches: Sequence[InstructionBatch]) -> InstructionBatch:
        """The batches one after another (one batch is returned as it is; sources stay a view where none has any)."""
        if len(batches) < 2:
            return batches[0] if batches else InstructionBatch.empty()
        columns = {name: np.concatenate([getattr(b, name) for b in batches]) for name in COLUMNS if name != "src"}
        sourced = not all(holds_no_sources(b.src) for b in batches)
        return InstructionBatch(**columns, src=np.concatenate([b.src for b in batches]) if sourced else no_sources(len(columns["op"])))

    @staticmethod
    def from_instructions(instructions: Iterable[Instruction]) -> InstructionBatch:
        """Columns from records (for tests, generators and small traces): a field the op does not take is left out,
        and so is every lane that gives no value."""
        rows = list(map(_FIELDS_OF, instructions))
        columns = {name: f.array([r[k] for r in rows] if code is None else [code(r[k]) for r in rows])
                   for k, (name, f, code) in enumerate(_COLUMN)}
        op = columns["op"]
        for name, f in FIELDS.items():
            columns[name][~TAKEN[name][op]] = f.default
        silent = ~active_lanes(op, columns["num"], columns["mask"])
        for name in LANE_COLUMNS:
            columns[name][silent] = INACTIVE
        return InstructionBatch(**columns)


#: Every column's declaration, ``op`` first; ``FIELDS``: those of an instruction object's fields (all but ``op``).
COLUMNS: dict[str, Field] = {a.name: a.metadata["field"] for a in attrs.fields(InstructionBatch)}
FIELDS: dict[str, Field] = {name: f for name, f in COLUMNS.items() if name != "op"}
#: dtype of each ``InstructionBatch`` column.
DTYPES = {name: f.dtype for name, f in COLUMNS.items()}
#: Columns of one entry per lane, shape (n, 32).
LANE_COLUMNS = tuple(name for name, f in FIELDS.items() if f.lanes)
#: TAKEN[field][op code]: the op takes the field.
TAKEN = {name: np.array([name in OP_FIELDS[op].takes | {"op"} for op in OPS]) for name in COLUMNS}
#: Per column: its record value of a column value, and whether a record holds None where the op does not take it;
#: its column value of a record value (identities left out of the loops: the kinds that keep values as they are).
_RECORD = tuple((name, None if type(f.kind).value is Kind.value else f.kind.value, f.record is None) for name, f in COLUMNS.items())
_COLUMN = tuple((name, f, None if type(f.kind).code is Kind.code else f.kind.code) for name, f in COLUMNS.items())
_FIELDS_OF = attrgetter(*COLUMNS)


class _Record:
    """What an ``Instruction`` says beyond its fields."""

    @property
    def active_lanes(self) -> list[int]:
        """Lanes that take part: the mask's lanes, or a matrix op's 8*num row-address lanes."""
        if self.op in MATRIX_OPS:
            return list(range(8 * self.num))
        if self.op in BLOCK_OPS:
            return []
        return [lane for lane in range(LANES) if self.mask >> lane & 1]


Instruction = attrs.make_class("Instruction", {name: attrs.field(default=f.record, kw_only=f.record is not attrs.NOTHING)
                                               for name, f in COLUMNS.items()}, bases=(_Record,), frozen=True, class_body={
    "__doc__": "One warp-wide shared-memory instruction of a trace: a row of ``InstructionBatch``, each field's value as the "
               "trace writes it (``op`` and ``addrs`` by position, the rest by name)."})


@attrs.frozen
class Form:
    """What an instruction is, apart from its lanes: ``InstructionBatch.forms`` keys decoded."""

    op: str
    width: int
    num: int
    trans: bool
    atom: str
    bypass: bool = False
    store: bool = False  # UBLKCP out of shared memory

    @staticmethod
    def of(key: int) -> Form:
        key = int(key)
        return Form(OPS[key >> 17 & 0xFF], key >> 9 & 0xFF, key >> 1 & 0xFF, bool(key & 1), ATOM_KINDS[key >> 25 & 0x7F], bool(key >> 32 & 1),
                    bool(key >> 33 & 1))


def copy_span(batch: InstructionBatch) -> np.ndarray:
    """Bytes of shared memory each copy spans from its ``smem``: a bulk copy's ``size``; a TMA box's rows, each at the
    swizzle span's pitch where that is wider than the row (``kernel.tensormap``). 0 for other ops."""
    first, *sizes = box_sizes(batch.box, 5)
    rows = np.prod([np.maximum(size, 1) for size in sizes], axis=0)
    span = np.array([0, 32, 64, 128])[batch.swizzle]
    tensor = rows * np.maximum(first * batch.elem, span)
    is_copy = np.isin(batch.op, [OPS.index(name) for name in COPY_OPS])
    return np.where(batch.op == OPS.index("UBLKCP"), batch.size, np.where(is_copy, tensor, 0))


def gmma_bytes(n: np.ndarray, desc_a: np.ndarray, sparse: np.ndarray) -> np.ndarray:
    """Bytes of shared memory a wgmma reads: A's 64 rows of 32 bytes (none when A is in registers), B's ``n`` rows of
    32 bytes (64 when sparse: K doubles, A holds half of it). Every operand type takes 32 bytes of K a row."""
    return np.where(desc_a != 0, 64 * 32, 0) + n.astype(np.int64) * 32 * np.where(sparse, 2, 1)


def active_lanes(op: np.ndarray, num: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(n, 32) bool: the lanes that give an address, by the mask, or a matrix op's 8*num row lanes (none for block ops)."""
    rows = (np.uint64(1) << (8 * num.astype(np.uint64))) - np.uint64(1)
    bits = np.where(IS_LANES[op], np.where(IS_MATRIX[op], rows, mask), 0).astype("<u4")
    return np.unpackbits(bits.view(np.uint8), bitorder="little").reshape(-1, LANES).astype(bool)


def launch_of(kernel: dict | None) -> tuple[tuple[int, int, int], tuple[int, int, int]] | None:
    """A traced kernel's grid and block as its header (``Trace.kernel``) gives them; None where it gives none."""
    dims = [(kernel or {}).get(k) for k in ("grid", "block")]
    if not all(isinstance(d, list) and len(d) == 3 and all(isinstance(v, int) and v > 0 for v in d) for d in dims):
        return None
    return tuple(dims[0]), tuple(dims[1])


def sass_at(kernel: dict | None, pc: int) -> dict[str, str]:
    """What a traced kernel's header (``Trace.kernel``) says of its SASS instruction at ``pc``: its ``sass`` text and
    ``line`` (the PTX line, and the source line where the PTX had ``.loc``); empty where it says nothing."""
    code = (kernel or {}).get("code")
    entry = code.get(f"{pc:#06x}") if isinstance(code, dict) and pc >= 0 else None
    return entry if isinstance(entry, dict) else {}


#: What one value of a ``Streams`` field stands for, by its ``per``.
PER = {"trace": "one number", "cta": "one per CTA of the SM", "sass": "one per SASS instruction of the kernel, in code order",
       "warp": "one per warp of those CTAs", "executed": "one per instruction a warp executed, warp after warp",
       "set": "one per set of global sectors", "sector": "one per sector of those sets"}


@attrs.frozen
class Part:
    """One field of ``Streams``: what each value stands for (``PER``), its dtype, its least value (None: any) and what
    it means."""

    per: str
    dtype: type
    low: int | None
    meaning: str


def part(per: str, dtype: type, low: int | None, meaning: str) -> Any:
    """A field of ``Streams``, declared."""
    return attrs.field(metadata={"part": Part(per, dtype, low, meaning)})


@attrs.frozen(eq=False, kw_only=True)
class Streams:
    """What the timed SM needs of a traced kernel (v1 header field ``streams``): the instructions each warp of one SM's
    CTAs executed, in order, with the trace row and the global sectors of each; the kernel's SASS with its control
    codes; and what the SM's occupancy depends on. Every field is a numpy array (``PER["trace"]``: of shape ())."""

    sms: np.ndarray = part("trace", np.int32, 1, "the SMs the launch's CTAs go to, round robin: `cta` are those of the first traced "
                           "CTA's SM (132 on sm_90)")
    registers: np.ndarray = part("trace", np.int32, 0, "registers per thread")
    shared: np.ndarray = part("trace", np.int32, 0, "shared memory per CTA in bytes, static and dynamic")
    threads: np.ndarray = part("trace", np.int32, 1, "threads per CTA")
    ctas: np.ndarray = part("trace", np.int64, 1, "the launch's traced CTAs")
    warps: np.ndarray = part("trace", np.int32, 1, "warps per CTA")
    cta: np.ndarray = part("cta", np.int64, 0, "the SM's CTAs, linear indices (x fastest), in launch order")
    sass: np.ndarray = part("sass", np.str_, None, "its text as nvdisasm prints it, guard first (`@!P0 BRA 0x1a0`); instruction k is at "
                            "byte offset 16k")
    control: np.ndarray = part("sass", np.int32, 0, "its control code, bits 105-125 of the instruction (stall count, yield, write and "
                               "read scoreboards, wait mask, reuse)")
    line: np.ndarray = part("sass", np.str_, None, "the PTX line it came from (and the source line where the PTX has `.loc`), or empty")
    length: np.ndarray = part("warp", np.int64, 0, "how many instructions the warp executed (a CTA's warps together, CTAs in `cta` "
                              "order)")
    pc: np.ndarray = part("executed", np.int32, 0, "the byte offset of its SASS instruction")
    row: np.ndarray = part("executed", np.int64, -1, "the trace row it made (its index among the instructions); -1: none")
    sectors: np.ndarray = part("executed", np.int64, -1, "the set of 32-byte global sectors it accessed (an index of `size`); -1: none")
    active: np.ndarray = part("executed", np.int32, 0, "how many of the warp's threads executed it (fewer after a branch split the warp)")
    size: np.ndarray = part("set", np.int64, 0, "how many sectors the set holds")
    sector: np.ndarray = part("sector", np.int64, None, "the sets' sectors one after another, each as its global byte address divided "
                              "by 32, less the previous one's (the first's less 0: they deflate to a few bits each)")

    def problem(self, count: int | None) -> tuple[str, str] | None:
        """The first field that breaks a rule, as (field, what), or None; ``count``: the trace's rows (None: unknown)."""
        shapes = {"trace": lambda: (), "cta": lambda: (self.cta.size,), "sass": lambda: (self.sass.size,),
                  "warp": lambda: (self.cta.size * int(self.warps),), "executed": lambda: (int(self.length.sum()),),
                  "set": lambda: (self.size.size,), "sector": lambda: (int(self.size.sum()),)}
        for name, p in STREAMS.items():  # in order: a field's shape follows from those before it, checked
            value, shape = getattr(self, name), shapes[p.per]()
            if value.shape != shape:
                return name, f"expected {PER[p.per]} (shape {shape}), got shape {value.shape}"
            if p.low is not None and value.size and value.min() < p.low:
                return name, f"expected values of at least {p.low}, got {value.min()}"
        highs = {"control": (1 << 21, "21 bits"), "pc": (16 * len(self.sass), "the kernel's code"), "sectors": (len(self.size), "`size`"),
                 "row": (count, "the trace's instructions")}
        for name, (high, what) in highs.items():
            value = getattr(self, name)
            if high is not None and value.size and value.max() >= high:
                return name, f"{value.max()} is past {what}"
        if (self.pc % 16).any():
            return "pc", f"{self.pc[self.pc % 16 != 0][0]} is not an instruction's offset (a multiple of 16)"
        return None


#: Every field of ``Streams``, declared.
STREAMS: dict[str, Part] = {a.name: a.metadata["part"] for a in attrs.fields(Streams)}


@attrs.frozen(eq=False)
class Trace:
    """A whole trace: its header and its instructions."""

    instructions: InstructionBatch
    name: str = ""
    arch: str | None = None  # the arch the trace was written for; --arch wins over it
    ctas: int = 1  # CTAs running this same trace; kernel totals are per-CTA counts times ctas
    kernel: dict | None = None  # what ``simsmem trace`` knows of the kernel it ran (v1 header field ``kernel``)
    streams: Streams | None = None  # what the timed SM needs of it (v1 header field ``streams``)
