"""Validated instruction records: one ``Instruction`` for reading, an ``InstructionBatch`` for counting.

A batch holds a trace's instructions column by column (numpy arrays), so the bank model can count
a million instructions without building a Python object for each. ``batch[i]`` gives one
``Instruction`` back. Addresses of inactive lanes (and of LDSM/STSM lanes that give no row address)
are stored as ``-1``, as are the global sources (``src``) of every lane but an LDGSTS's active ones.
``bypass`` marks an LDGSTS that is cp.async ``.cg`` (SASS ``LDGSTS.E.BYPASS.128``); it is False elsewhere.
``zfill`` is the lane mask of an LDGSTS's lanes whose source ncu's SASS-level wavefront count does not read (0 elsewhere).
``srcsize`` marks an LDGSTS that takes cp.async's src-size in a register (SASS ``.ZFILL``), and ``zeroed`` is the lane
mask of an LDGSTS's lanes whose src-size is 0 (they copy only zeros; 0 elsewhere). ``pred`` says which predicate operand
an LDGSTS's SASS names (``PREDICATES``): ncu's SASS-level counters count the copies apart by it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs
import numpy as np

#: Operation names a trace may use, in the order of their codes in ``InstructionBatch.op``.
OPS: tuple[str, ...] = ("LDS", "STS", "ATOMS", "LDSM", "STSM", "LDGSTS", "GMMA", "UTMALDG", "UTMASTG", "UBLKCP")
#: Ops that read or write shared memory without lanes: a warpgroup's wgmma (one row per warpgroup instruction, its
#: A and B operands read through matrix descriptors) and the copies of the tensor memory accelerator (TMA tensor
#: copies, bulk copies: one row per copy, the bytes it moves).
BLOCK_OPS = frozenset({"GMMA", "UTMALDG", "UTMASTG", "UBLKCP"})
#: Operand types of a wgmma (``InstructionBatch.gtype``), and TMA swizzle modes (``InstructionBatch.swizzle``).
GMMA_TYPES: tuple[str, ...] = ("f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "b1")
SWIZZLE_MODES: tuple[str, ...] = ("none", "32B", "64B", "128B")
#: ``InstructionBatch.tnsp`` bits: the wgmma's A (1) or B (2) operand is M/N-major (SASS .tnspA, .tnspB).
TNSP_MODES: tuple[str, ...] = ("none", "A", "B", "AB")
#: Ops whose lanes give the row addresses of 8x8 b16 matrices (``num`` matrices, 8 lanes each).
MATRIX_OPS = frozenset({"LDSM", "STSM"})
#: Ops whose lanes also give a global source address (``src``): cp.async's LDGSTS.
SOURCE_OPS = frozenset({"LDGSTS"})
#: Shared atomic operations (``ATOMS`` ``atom`` field), in the order of their codes in ``InstructionBatch.atom``.
#: ``popc_inc`` is the SASS ``ATOMS.POPC.INC`` that ``red.shared.add.u32 [a], 1`` compiles to; ``cast`` is ``ATOMS.CAST.SPIN``,
#: the compare-and-store of the loops the compiler makes of atomics the hardware lacks (a float atomicAdd on shared memory).
#: An LDGSTS's SASS predicate operand (``pred``), in the order of their codes: ``P0`` (or none), another positive one
#: (``P1``...``P6``), a negated one (``!P0``...).
PREDICATES: tuple[str, ...] = ("P0", "other", "negated")
ATOM_KINDS: tuple[str, ...] = ("add", "min", "max", "inc", "dec", "exch", "cas", "and", "or", "xor", "popc_inc", "cast")
LANES = 32
FULL_MASK = 0xFFFFFFFF
INACTIVE = -1
#: ``InstructionBatch.wait`` of an instruction without ``wait`` (``wait: true`` is 0: no earlier one in flight).
NO_WAIT = -1
#: ``InstructionBatch.pc`` of an instruction whose SASS offset the trace does not give.
NO_PC = -1
#: IS_MATRIX[op code]: the op gives 8x8 matrix row addresses (a table lookup beats np.isin per chunk).
IS_MATRIX = np.array([name in MATRIX_OPS for name in OPS])
#: IS_SOURCE[op code]: the op's lanes give global sources (``src``).
IS_SOURCE = np.array([name in SOURCE_OPS for name in OPS])
#: IS_LANES[op code]: the op's lanes give addresses (``addrs``); the block ops have none.
IS_LANES = np.array([name not in BLOCK_OPS for name in OPS])
#: Bits of one size in ``InstructionBatch.box`` (a TMA box of up to 5 sizes of 1 to 256, packed, dimension 0 lowest).
BOX_BITS = 9


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


#: The copies among them (TMA tensor copies and bulk copies).
COPY_OPS = frozenset({"UTMALDG", "UTMASTG", "UBLKCP"})


def copy_span(batch: InstructionBatch) -> np.ndarray:
    """Bytes of shared memory each copy spans from its ``smem``: a bulk copy's ``size``; a TMA box's rows, each at the
    swizzle span's pitch where that is wider than the row (``kernel.tensormap``). 0 for other ops."""
    box = batch.box
    first = (box & np.uint64((1 << BOX_BITS) - 1)).astype(np.int64)
    rows = np.ones(len(batch), dtype=np.int64)
    for d in range(1, 5):
        size = ((box >> np.uint64(BOX_BITS * d)) & np.uint64((1 << BOX_BITS) - 1)).astype(np.int64)
        rows *= np.maximum(size, 1)
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


def no_sources(n: int) -> np.ndarray:
    """An ``src`` column of ``n`` rows without sources: a read-only view of INACTIVE (no memory, no fill)."""
    return np.broadcast_to(np.int64(INACTIVE), (n, LANES))


def holds_no_sources(src: np.ndarray) -> bool:
    """Whether ``src`` is a ``no_sources`` column (so nothing in it needs checking)."""
    return src.strides == (0, 0) and (src.size == 0 or src[0, 0] == INACTIVE)


def wait_code(wait: bool | int) -> int:
    """The ``wait`` column value of a trace's ``wait``: false -> NO_WAIT, true -> 0, N -> N."""
    return (0 if wait else NO_WAIT) if isinstance(wait, bool) else wait


def wait_value(code: int) -> bool | int:
    """The trace's ``wait`` of a column value (``wait_code`` backwards)."""
    return {NO_WAIT: False, 0: True}.get(code, code)


@attrs.frozen
class Instruction:
    """One warp-wide shared-memory instruction of a trace."""

    op: str
    addrs: tuple[int | None, ...]  # 32 byte offsets; None where a lane gives no address
    width: int = 32  # access width in bits (LDS/STS/ATOMS); ignored for matrix ops
    num: int = 0  # matrices (LDSM/STSM); 0 otherwise
    trans: bool = False
    mask: int = FULL_MASK
    warp: int = 0
    wait: bool | int = False  # timing: true, or issue once at most N earlier instructions of the warp are in flight
    delay: int = 0  # cycles the warp stalls before issuing this (timing)
    issue: int = 0  # other (non-shared) instructions the warp issues after its wait, before this, one issue slot each (timing)
    generic: bool = False  # a generic LD/ST that landed in shared memory (not an LDS/STS instruction)
    atom: str = "add"  # the atomic operation (ATOMS); ignored for other ops
    src: tuple[int | None, ...] | None = None  # LDGSTS: 32 global source byte addresses; None for other ops
    bypass: bool = False  # LDGSTS: cp.async .cg (L1 bypassed, 16 bytes a lane); False: .ca, and for other ops
    zfill: int = 0  # LDGSTS: lanes whose source the count does not read (src-size 0, or the predicate form's lanes)
    srcsize: bool = False  # LDGSTS: src-size is a register operand (SASS .ZFILL); False: none, or a predicate, and for other ops
    zeroed: int = 0  # LDGSTS: lanes whose src-size is 0 (they copy only zeros)
    pred: str = "P0"  # LDGSTS: its SASS predicate operand, one of PREDICATES
    early: int = 0  # other instructions the warp issues before its wait, one issue slot each (timing)
    early_alu: int = 0  # how many of the early ones use the sub-partition's integer-ALU pipe (timing)
    issue_alu: int = 0  # how many of the issue ones use it (timing)
    others: str = ""  # the other instructions the warp issues before this one, one by one (timing; ``others.py``)
    stall: int = 1  # cycles from this one's issue until the warp's next instruction may issue (timing)
    pc: int = NO_PC  # byte offset of its SASS instruction in the kernel's code (traced kernels); NO_PC: unknown
    n: int = 0  # GMMA: N of its m64nNk shape
    gtype: str = "f16"  # GMMA: the A and B operand type
    desc_a: int = 0  # GMMA: A's shared-memory matrix descriptor; 0: A from registers
    desc_b: int = 0  # GMMA: B's matrix descriptor
    tnsp: str = "none"  # GMMA: which operands are M/N-major ("A", "B", "AB")
    sparse: bool = False  # GMMA: a sparse wgmma (A holds half of K)
    smem: int = 0  # UTMALDG/UTMASTG/UBLKCP: the shared address the copy starts at
    size: int = 0  # UTMALDG/UTMASTG/UBLKCP: the bytes it writes into (or reads out of) shared memory
    box: tuple[int, ...] = ()  # UTMALDG/UTMASTG: the box's sizes, dimension 0 first
    elem: int = 0  # UTMALDG/UTMASTG: bytes of one element
    swizzle: str = "none"  # UTMALDG/UTMASTG: the tensor map's swizzle mode
    store: bool = False  # UBLKCP: from shared to global memory (False: into shared memory)

    @property
    def active_lanes(self) -> list[int]:
        """Lanes that take part: the mask's lanes, or a matrix op's 8*num row-address lanes."""
        if self.op in MATRIX_OPS:
            return list(range(8 * self.num))
        if self.op in BLOCK_OPS:
            return []
        return [lane for lane in range(LANES) if self.mask >> lane & 1]


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


def _filled(dtype, value=0):
    """An ``InstructionBatch`` column that holds ``value`` in every row unless given (an optional field's default)."""
    return attrs.field(default=attrs.Factory(lambda b: np.full(len(b.op), value, dtype=dtype), takes_self=True))


@attrs.frozen(eq=False)
class InstructionBatch:
    """Instructions as columns; every array has one entry (row) per instruction."""

    op: np.ndarray  # uint8 code into OPS
    width: np.ndarray  # uint8 bits; 0 for matrix ops
    num: np.ndarray  # uint8 matrices; 0 for other ops
    trans: np.ndarray  # bool
    mask: np.ndarray  # uint32 active-lane mask
    warp: np.ndarray  # int32
    wait: np.ndarray  # int32: earlier instructions of the warp that may still be in flight at issue; NO_WAIT: any
    delay: np.ndarray  # int64
    issue: np.ndarray  # int32
    generic: np.ndarray  # bool
    atom: np.ndarray  # uint8 code into ATOM_KINDS (0, "add", for ops other than ATOMS)
    addrs: np.ndarray  # int32, shape (n, 32); INACTIVE where a lane gives no address
    #: int64, shape (n, 32): LDGSTS global source byte addresses; INACTIVE elsewhere (the default: no LDGSTS)
    src: np.ndarray = attrs.field(default=attrs.Factory(lambda b: no_sources(len(b.op)), takes_self=True))
    #: bool: an LDGSTS that is cp.async .cg (the default: none)
    bypass: np.ndarray = _filled(bool)
    #: int32: other instructions issued before the wait (the default: none)
    early: np.ndarray = _filled(np.int32)
    #: int32: how many of the early other instructions use the integer-ALU pipe (the default: none)
    early_alu: np.ndarray = _filled(np.int32)
    #: int32: how many of the issue other instructions use the integer-ALU pipe (the default: none)
    issue_alu: np.ndarray = _filled(np.int32)
    #: str: the other instructions issued before it, one by one (``others.py``; the default: none)
    others: np.ndarray = _filled("U1", "")
    #: int32: cycles from its issue until its warp's next instruction may issue (the default: 1)
    stall: np.ndarray = _filled(np.int32, 1)
    #: int32: the byte offset of its SASS instruction in the kernel's code (``simsmem trace``); NO_PC where unknown
    pc: np.ndarray = _filled(np.int32, NO_PC)
    #: uint32: LDGSTS lanes whose source ncu's SASS-level count does not read (the default: none)
    zfill: np.ndarray = _filled(np.uint32)
    #: bool: an LDGSTS whose src-size is a register operand, SASS .ZFILL (the default: none)
    srcsize: np.ndarray = _filled(bool)
    #: uint32: LDGSTS lanes whose src-size is 0 (the default: none)
    zeroed: np.ndarray = _filled(np.uint32)
    #: uint8: an LDGSTS's SASS predicate operand, a code into PREDICATES (the default: P0)
    pred: np.ndarray = _filled(np.uint8)
    #: the block ops' fields (``Instruction``; zeros for the other ops)
    n: np.ndarray = _filled(np.uint16)
    gtype: np.ndarray = _filled(np.uint8)
    desc_a: np.ndarray = _filled(np.uint64)
    desc_b: np.ndarray = _filled(np.uint64)
    tnsp: np.ndarray = _filled(np.uint8)
    sparse: np.ndarray = _filled(bool)
    smem: np.ndarray = _filled(np.int32)
    size: np.ndarray = _filled(np.int32)
    box: np.ndarray = _filled(np.uint64)
    elem: np.ndarray = _filled(np.uint8)
    swizzle: np.ndarray = _filled(np.uint8)
    store: np.ndarray = _filled(bool)

    def __len__(self) -> int:
        return len(self.op)

    def forms(self) -> np.ndarray:
        """Each instruction's form (op, width, matrix count, trans, atomic operation, bypass, store) as one integer;
        ``Form.of`` decodes it. Whatever works per form groups a batch by these keys."""
        return (self.store.astype(np.int64) << 33 | self.bypass.astype(np.int64) << 32 | self.atom.astype(np.int64) << 25
                | self.op.astype(np.int64) << 17
                | self.width.astype(np.int64) << 9 | self.num.astype(np.int64) << 1 | self.trans)

    def __getitem__(self, i: int) -> Instruction:
        op = OPS[self.op[i]]
        return Instruction(
            op=op,
            addrs=tuple(None if a == INACTIVE else int(a) for a in self.addrs[i]),
            width=int(self.width[i]),
            num=int(self.num[i]),
            trans=bool(self.trans[i]),
            mask=int(self.mask[i]),
            warp=int(self.warp[i]),
            wait=wait_value(int(self.wait[i])),
            delay=int(self.delay[i]),
            issue=int(self.issue[i]),
            generic=bool(self.generic[i]),
            atom=ATOM_KINDS[self.atom[i]],
            src=tuple(None if a == INACTIVE else int(a) for a in self.src[i]) if OPS[self.op[i]] in SOURCE_OPS else None,
            bypass=bool(self.bypass[i]),
            early=int(self.early[i]),
            early_alu=int(self.early_alu[i]),
            issue_alu=int(self.issue_alu[i]),
            others=str(self.others[i]),
            stall=int(self.stall[i]),
            pc=int(self.pc[i]),
            zfill=int(self.zfill[i]),
            srcsize=bool(self.srcsize[i]),
            zeroed=int(self.zeroed[i]),
            pred=PREDICATES[self.pred[i]],
            n=int(self.n[i]),
            gtype=GMMA_TYPES[self.gtype[i]],
            desc_a=int(self.desc_a[i]),
            desc_b=int(self.desc_b[i]),
            tnsp=TNSP_MODES[self.tnsp[i]],
            sparse=bool(self.sparse[i]),
            smem=int(self.smem[i]),
            size=int(self.size[i]),
            box=unpack_box(int(self.box[i])),
            elem=int(self.elem[i]),
            swizzle=SWIZZLE_MODES[self.swizzle[i]],
            store=bool(self.store[i]),
        )

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def take(self, index: np.ndarray | slice) -> InstructionBatch:
        """The rows ``index`` selects, as a new batch."""
        return InstructionBatch(**{f.name: getattr(self, f.name)[index] for f in attrs.fields(InstructionBatch)})

    @staticmethod
    def empty() -> InstructionBatch:
        """No instructions."""
        return InstructionBatch.from_instructions(())

    @staticmethod
    def concat(batches: Sequence[InstructionBatch]) -> InstructionBatch:
        """The batches one after another (one batch is returned as it is; sources stay a view where none has any)."""
        if len(batches) < 2:
            return batches[0] if batches else InstructionBatch.empty()
        columns = {f.name: np.concatenate([getattr(b, f.name) for b in batches]) for f in attrs.fields(InstructionBatch) if f.name != "src"}
        sourced = not all(holds_no_sources(b.src) for b in batches)
        return InstructionBatch(**columns, src=np.concatenate([b.src for b in batches]) if sourced else no_sources(len(columns["op"])))

    @staticmethod
    def from_instructions(instructions: Iterable[Instruction]) -> InstructionBatch:
        """Columns from records (for tests, generators and small traces)."""
        rows = list(instructions)
        addrs = np.full((len(rows), LANES), INACTIVE, dtype=np.int32)
        src = np.full((len(rows), LANES), INACTIVE, dtype=np.int64)
        for i, ins in enumerate(rows):
            for lane in ins.active_lanes:
                addrs[i, lane] = ins.addrs[lane]
                if ins.op in SOURCE_OPS:
                    src[i, lane] = ins.src[lane]
        return InstructionBatch(
            op=np.array([OPS.index(r.op) for r in rows], dtype=np.uint8),
            width=np.array([0 if r.op in MATRIX_OPS else r.width for r in rows], dtype=np.uint8),
            num=np.array([r.num if r.op in MATRIX_OPS else 0 for r in rows], dtype=np.uint8),
            trans=np.array([r.trans for r in rows], dtype=bool),
            mask=np.array([r.mask for r in rows], dtype=np.uint32),
            warp=np.array([r.warp for r in rows], dtype=np.int32),
            wait=np.array([wait_code(r.wait) for r in rows], dtype=np.int32),
            delay=np.array([r.delay for r in rows], dtype=np.int64),
            issue=np.array([r.issue for r in rows], dtype=np.int32),
            generic=np.array([r.generic for r in rows], dtype=bool),
            atom=np.array([ATOM_KINDS.index(r.atom) if r.op == "ATOMS" else 0 for r in rows], dtype=np.uint8),
            addrs=addrs,
            src=src,
            bypass=np.array([r.bypass for r in rows], dtype=bool),
            early=np.array([r.early for r in rows], dtype=np.int32),
            early_alu=np.array([r.early_alu for r in rows], dtype=np.int32),
            issue_alu=np.array([r.issue_alu for r in rows], dtype=np.int32),
            others=np.array([r.others for r in rows], dtype=str) if rows else np.zeros(0, dtype="U1"),
            stall=np.array([r.stall for r in rows], dtype=np.int32),
            pc=np.array([r.pc for r in rows], dtype=np.int32),
            zfill=np.array([r.zfill for r in rows], dtype=np.uint32),
            srcsize=np.array([r.srcsize for r in rows], dtype=bool),
            zeroed=np.array([r.zeroed for r in rows], dtype=np.uint32),
            pred=np.array([PREDICATES.index(r.pred) for r in rows], dtype=np.uint8),
            n=np.array([r.n for r in rows], dtype=np.uint16),
            gtype=np.array([GMMA_TYPES.index(r.gtype) for r in rows], dtype=np.uint8),
            desc_a=np.array([r.desc_a for r in rows], dtype=np.uint64),
            desc_b=np.array([r.desc_b for r in rows], dtype=np.uint64),
            tnsp=np.array([TNSP_MODES.index(r.tnsp) for r in rows], dtype=np.uint8),
            sparse=np.array([r.sparse for r in rows], dtype=bool),
            smem=np.array([r.smem for r in rows], dtype=np.int32),
            size=np.array([r.size for r in rows], dtype=np.int32),
            box=np.array([pack_box(r.box) for r in rows], dtype=np.uint64),
            elem=np.array([r.elem for r in rows], dtype=np.uint8),
            swizzle=np.array([SWIZZLE_MODES.index(r.swizzle) for r in rows], dtype=np.uint8),
            store=np.array([r.store for r in rows], dtype=bool),
        )


def sass_at(kernel: dict | None, pc: int) -> dict[str, str]:
    """What a traced kernel's header (``Trace.kernel``) says of its SASS instruction at ``pc``: its ``sass`` text and
    ``line`` (the PTX line, and the source line where the PTX had ``.loc``); empty where it says nothing."""
    code = (kernel or {}).get("code")
    entry = code.get(f"{pc:#06x}") if isinstance(code, dict) and pc >= 0 else None
    return entry if isinstance(entry, dict) else {}


@attrs.frozen(eq=False)
class Trace:
    """A whole trace: its header and its instructions."""

    instructions: InstructionBatch
    name: str = ""
    arch: str | None = None  # the arch the trace was written for; --arch wins over it
    ctas: int = 1  # CTAs running this same trace; kernel totals are per-CTA counts times ctas
    kernel: dict | None = None  # what ``simsmem trace`` knows of the kernel it ran (v1 header field ``kernel``)
