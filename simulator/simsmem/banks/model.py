"""The bank model for whole batches of instructions, as a compiled loop.

Same rule as ``reference.py`` (read that first; a property test holds the two equal). A numpy
version (sort each phase's words, count runs per bank) reached about 0.4M instructions/s on this
project's 2-core machine against a target of 1M/s, so the counting runs as a numba-compiled loop
(compiled once, cached on disk) over the batch's address columns, without copying them.

Every lane of an instruction accesses the same number of bytes at an aligned address, so a lane that
covers ``k`` words covers a whole aligned run of ``k`` banks. Counting *units* (the aligned ``k``-word
pieces lanes access) over ``banks / k`` *unit banks* gives exactly the counts of words over banks, with
one element per lane.
"""

from __future__ import annotations

import attrs
import numpy as np

from ..config import ArchConfig, OpSpec
from ..jit import compiled
from ..traces.records import (
    INACTIVE,
    IS_LANES,
    LANES,
    OPS,
    PREDICATES,
    Form,
    InstructionBatch,
)
from .blocks import count_blocks
from .phases import PACK_PARTNERS, Shape, shape_of


@attrs.frozen(eq=False)
class Counts:
    """Per-instruction results, one entry per instruction of the batch counted."""

    wavefronts: np.ndarray  # int64
    bank_conflicts: np.ndarray  # int64: wavefronts - ideal
    ideal: np.ndarray  # int64: ideal wavefronts
    bytes: np.ndarray  # int64: distinct bytes touched
    bank_reads: np.ndarray  # int64: bank words read (ncu's l1tex__data_bank_reads, this instruction's part)
    bank_writes: np.ndarray  # int64: bank words written (l1tex__data_bank_writes, this instruction's part)
    #: int64: bank conflicts as ncu's L1-level counters count them: an LDGSTS's ``l1tex__..._op_ldgsts`` part, its warp
    #: alone (reference.py, rule 11; -1: the arch has no rule), every other instruction's ``bank_conflicts``
    l1_bank_conflicts: np.ndarray


def loaded() -> bool:
    """Whether this process has the compiled counting loop (numba loads it from its disk cache, or compiles it on a
    machine's first run, at the first ``count``)."""
    return bool(_count_rows.signatures)


def count(batch: InstructionBatch, arch: ArchConfig) -> Counts:
    """Wavefronts, ideal wavefronts, bank conflicts, bytes and bank reads and writes of every instruction in ``batch``."""
    n = len(batch)
    out = np.zeros((OUT_ROWS, n), dtype=np.int64)
    lanes = IS_LANES[batch.op]
    if not lanes.all():  # a wgmma's or a copy's: counted by their size (``blocks``)
        count_blocks(batch, np.flatnonzero(~lanes), arch, out)
    form = np.where(lanes, batch.forms(), -1)
    forms = np.unique(form[lanes])
    sources = counted_sources(batch)  # (LDGSTS: the sources the count reads)
    groups = []  # (rows, form, spec, shape) of each form
    which = np.full(n, -1, dtype=np.int64)  # each row's form with lanes, but a .cg copy's (counted apart): its index in `plain`
    plain: list[Shape] = []
    for key in forms:
        rows = np.flatnonzero(form == key) if len(forms) > 1 or not lanes.all() else np.arange(n)
        f = Form.of(key)
        spec = arch.op(f.op)
        shape = shape_of(spec, arch, f.width, f.num, f.atom, f.bypass)
        groups.append((rows, f, spec, shape))
        if shape.source_sector:
            count_rows(batch.addrs, sources if shape.source_positions else batch.src, rows, shape, arch, out)
        else:
            which[rows] = len(plain)
            plain.append(shape)
    if plain:  # every other form in one pass, in batch order (rows scattered form by form cost twice the time in memory)
        rows = np.flatnonzero(which >= 0) if len(plain) < len(forms) or not lanes.all() else np.arange(n)
        positions = any(shape.source_positions for shape in plain)
        count_rows(batch.addrs, sources if positions else batch.src, rows, plain, arch, out, which[rows])
    any_generic = batch.generic.any()
    for rows, f, spec, shape in groups:
        if shape.group > 1 and any_generic and batch.generic[rows].any():  # a generic load never packs (docs/bank-model.md, rule 9)
            generic = rows[batch.generic[rows]]
            count_rows(batch.addrs, batch.src, generic, attrs.evolve(shape, group=1), arch, out)
        if shape.source_positions:
            count_l1(batch, rows, spec, f.width, arch, out)
        if shape.source_sector:
            count_predicate_form(batch, sources, rows, spec, f.width, arch, out)
            count_src_size(batch, rows, spec, shape, arch, out)
        if shape.single_pass:  # one pass per phase that has lanes: as many as ideal
            out[0, rows] = out[1, rows]
        if shape.rounds > 1:  # every pass takes `rounds` wavefronts; the conflicts stay one round's
            passes = out[0, rows]
            out[0, rows] = passes * shape.rounds
            out[1, rows] += passes * (shape.rounds - 1)
        reads, writes = bank_traffic(batch, rows, spec.counter, shape, arch, out)
        out[6, rows] = reads
        out[7, rows] = writes
        if f.op == "ATOMS" and f.atom.startswith("unserved"):  # it fails: no bank traffic; a float one, no bytes either
            out[6, rows] = out[7, rows] = 0
            if f.atom == "unserved_float":
                out[2, rows] = 0
    out[2] += batch.elsewhere  # a generic instruction's bytes outside shared memory count too
    imm = np.flatnonzero(batch.imm)  # an LDGSTS with an immediate offset: one lane's bytes (docs/bank-model.md, rule 10)
    out[2, imm] = np.where(batch.mask[imm] != 0, batch.width[imm].astype(np.int64) // 8, 0)
    conflicts = out[0] - out[1]
    l1 = np.where(batch.op == OPS.index("LDGSTS"), out[8], conflicts)
    return Counts(out[0], conflicts, out[1], out[2], out[6], out[7], l1)


#: rows of ``count_rows``' output: wavefronts, ideal wavefronts, bytes, the distinct units of each group (a phase, or
#: a merged pair) summed, active lanes, the unit banks each phase touches summed; then bank reads and writes, and an
#: LDGSTS's L1-level bank conflicts (``count_l1``)
OUT_ROWS = 9


def count_l1(batch: InstructionBatch, rows: np.ndarray, spec: OpSpec, width: int, arch: ArchConfig, out: np.ndarray) -> None:
    """LDGSTS ``rows`` (of one width): their L1-level bank conflicts into ``out[8]`` (reference.py, rule 11; -1 where
    ``spec`` has no ``line_classes``)."""
    if not spec.line_classes:
        out[8, rows] = -1
        return
    shape = shape_of(spec, arch, width, 0)
    _l1_conflicts(batch.addrs, batch.src, batch.zeroed, batch.bypass, rows, shape.access_bytes, shape.lanes_per_phase, spec.source_line,
                  spec.line_classes, out)


def bank_traffic(batch: InstructionBatch, rows: np.ndarray, counter: str, shape: Shape, arch: ArchConfig, out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(bank words read, bank words written) of ``rows`` (instructions of one form), from ``count_rows``' columns of
    ``out`` (reference.py, rule 8); each column gathered only where the counter's rule reads it."""
    k = shape.words_per_lane
    if counter == "ld":  # each wavefront reads its distinct words
        return out[3, rows] * k, 0
    if counter == "st":  # and writes them; a sub-word store reads each word it writes part of
        words = out[3, rows] * k
        return (words if shape.access_bytes < arch.bank_width else 0), words
    if counter == "atom":  # a read and a write per word: per lane (no broadcast), per distinct word, or per word served
        n = out[(5 if shape.single_pass else 3) if shape.broadcast else 4, rows] * k
        return n, n
    if counter != "ldgsts":  # no rule for another op class
        return 0, 0
    zeroed = np.bitwise_count(batch.zeroed[rows] & batch.mask[rows]).astype(np.int64)  # the zero-filled lanes
    if shape.source_sector:  # LDGSTS .cg: the bytes it writes into shared memory (L1 holds none of it); a zeroed lane's words are read
        return zeroed * k, out[2, rows] // arch.bank_width
    # LDGSTS .ca: each lane's words, read from L1 (a zeroed lane: one) and written to shared memory (L1's fill: kernel/l1.py)
    lanes = out[4, rows] * k
    return lanes - zeroed * (k - 1), lanes


def counted_sources(batch: InstructionBatch) -> np.ndarray:
    """The LDGSTS sources the count reads: a ``zfill`` lane's source is its destination, a ``.ca`` copy's ``zeroed``
    lane has none (``INACTIVE``) (reference.py, rules 4 and 5)."""
    src = batch.src
    if batch.zfill.any():
        src = np.where(_lanes(batch.zfill), batch.addrs.astype(np.int64), src)
    none = np.where(batch.bypass, np.uint32(0), batch.zeroed)
    if none.any():
        src = np.where(_lanes(none), INACTIVE, src)
    return src


def _lanes(masks: np.ndarray) -> np.ndarray:
    """Lane masks as (n, 32) bools."""
    return (masks[:, None] >> np.arange(LANES, dtype=np.uint32)) & np.uint32(1) != 0


def count_predicate_form(batch: InstructionBatch, sources: np.ndarray, rows: np.ndarray, spec: OpSpec, width: int, arch: ArchConfig,
                         out: np.ndarray) -> None:
    """LDGSTS .cg ``rows`` of the predicate form (lanes ``zfill``), counted into ``out``: rule 4's quarter-warp passes,
    each ``zfill`` lane at its destination (``sources``: ``counted_sources``), every one ideal (reference.py, rule 5)."""
    rows = rows[(batch.zfill[rows] & batch.mask[rows]) != 0]
    if not len(rows):
        return
    q = np.zeros((OUT_ROWS, len(rows)), dtype=np.int64)
    count_rows(batch.addrs[rows], sources[rows], np.arange(len(rows)), shape_of(spec, arch, width, 0), arch, q)
    out[0, rows] = out[1, rows] = q[0]


def count_src_size(batch: InstructionBatch, rows: np.ndarray, spec: OpSpec, shape: Shape, arch: ArchConfig, out: np.ndarray) -> None:
    """LDGSTS .cg ``rows`` (of ``shape``), counted into ``out``: the ``.ZFILL`` form's quarter-warp passes and the bank
    conflicts of the src-size forms, rule 4 over the active lanes, each at its own source but a ``zeroed`` lane at none;
    in the rows ``apart_rows`` names, the ``zeroed`` lanes take no part in the sector moves and no source in the
    quarter-warp passes either (reference.py, rule 5)."""
    rows = rows[batch.srcsize[rows] | ((batch.zeroed[rows] & batch.mask[rows]) != 0)]
    if not len(rows):
        return
    quarter = shape_of(spec, arch, shape.access_bytes * 8, 0)
    every = np.arange(len(rows))
    addrs, src, zeroed = batch.addrs[rows], batch.src[rows], _lanes(batch.zeroed[rows])
    apart = apart_rows(batch, rows)  # sector moves of the lanes that copy data only
    if apart.any():
        moves = np.zeros((OUT_ROWS, len(rows)), dtype=np.int64)
        count_rows(np.where(zeroed, INACTIVE, addrs).astype(addrs.dtype), src, every, shape, arch, moves)
        out[0, rows[apart]] = out[1, rows[apart]] = moves[0, apart]
    q = np.zeros((OUT_ROWS, len(rows)), dtype=np.int64)
    count_rows(addrs, np.where(zeroed, INACTIVE, src), every, quarter, arch, q)
    conflicts, sourceless = q[0] - q[1], q[0].copy()
    count_rows(addrs, src, every, quarter, arch, q)
    added = np.where(apart, sourceless, np.where(batch.srcsize[rows], q[0], 0))
    out[0, rows] += added
    out[1, rows] += added - conflicts


def apart_rows(batch: InstructionBatch, rows: np.ndarray) -> np.ndarray:
    """Which LDGSTS .cg ``rows`` serve their ``zeroed`` lanes apart (reference.py, rule 5): the ``.ZFILL`` form under
    another predicate than P0, and the predicate form under another positive one where some lane zero-fills."""
    other, srcsize = batch.pred[rows] != PREDICATES.index("P0"), batch.srcsize[rows]
    positive = batch.pred[rows] == PREDICATES.index("other")
    return (srcsize & other) | (~srcsize & positive & (batch.zfill[rows] == 0) & ((batch.zeroed[rows] & batch.mask[rows]) != 0))


def count_rows(addrs: np.ndarray, src: np.ndarray, rows: np.ndarray, shape: Shape | list[Shape], arch: ArchConfig, out: np.ndarray,
               which: np.ndarray | None = None) -> None:
    """Count the instructions ``rows`` of ``addrs`` (all of one ``shape``, or of the shapes listed, ``which`` naming each
    row's) into ``out[:, rows]``.

    ``addrs`` is (n, 32) byte offsets, ``-1`` where a lane asks for nothing; ``src`` the same shape,
    LDGSTS global sources (read only where ``shape.source_positions``); ``out`` is (``OUT_ROWS``, n):
    wavefronts, ideal wavefronts, bytes, distinct units per group summed, active lanes, unit banks per phase summed.
    """
    if isinstance(shape, Shape) and shape.source_sector:
        line = shape.access_bytes * shape.source_positions
        _count_sector_moves(addrs, src, rows, shape.access_bytes, shape.source_sector, line, arch.phase_bytes, out)
        return
    shapes = [shape] if isinstance(shape, Shape) else shape
    assert all(s.group in (1, 2) and not s.source_sector for s in shapes), "sibling phases merge in pairs; .cg copies count alone"
    table = np.array([[s.lanes, *_divisor(s.words_per_lane * arch.bank_width), *_divisor(arch.banks // s.words_per_lane),
                       *_divisor(s.access_bytes), s.lanes_per_phase, s.group, s.broadcast, s.source_positions] for s in shapes], dtype=np.int64)
    positions = any(s.source_positions for s in shapes)
    _count_rows(addrs, src if positions else _NO_SOURCES, rows, np.zeros(len(rows), np.int64) if which is None else which, table, out)


#: What ``_count_rows`` gets for ``src`` where no form has sources (it reads none): one contiguous row,
#: so that a batch's read-only ``no_sources`` view never costs a compiled variant of its own.
_NO_SOURCES = np.full((1, LANES), INACTIVE, dtype=np.int64)


def _divisor(d: int) -> tuple[int, int]:
    """``(d, shift)``: shift is log2(d) for a power of two (divide by shifting), else -1."""
    return d, d.bit_length() - 1 if d & (d - 1) == 0 else -1


@compiled(inline="always", plain=True)
def _quot(a, d, shift):  # pragma: no cover - compiled
    return a >> shift if shift >= 0 else a // d


@compiled(inline="always", plain=True)
def _rem(a, d, shift):  # pragma: no cover - compiled
    return a & (d - 1) if shift >= 0 else a % d


@compiled(cache=True, nogil=True, plain=True)
def _count_rows(addrs, src, rows, which, shapes, out):  # pragma: no cover - compiled
    """Rows ``rows`` in order, row ``rows[r]`` of the shape ``shapes[which[r]]``: (lanes, unit bytes and shift, unit banks
    and shift, access bytes and shift, lanes per phase, group, broadcast, source positions) (``count_rows``)."""
    most = 0
    for s in range(len(shapes)):
        most = max(most, shapes[s, 0], shapes[s, 3])
    table = np.empty((most, most), dtype=np.int64)  # per unit bank: the distinct units it holds
    held = np.zeros(most, dtype=np.int64)  # distinct units each unit bank holds
    asks = np.zeros(most, dtype=np.int64)  # requests each unit bank gets
    lane_units = np.empty(most, dtype=np.int64)
    lane_banks = np.empty(most, dtype=np.int64)
    sunits = np.empty(most, dtype=np.int64)  # LDGSTS: a lane's source unit, and its position in the line
    swhere = np.empty(most, dtype=np.int64)
    for r in range(len(rows)):
        i = rows[r]
        shape = shapes[which[r]]
        width, per_phase, group, broadcast, positions = shape[0], shape[7], shape[8], shape[9] != 0, shape[10]
        phases = width // per_phase
        units, where = lane_units[:width], lane_banks[:width]  # a lane's unit, and its unit bank (-1: it asks for nothing)
        active = 0
        for j in range(width):
            a = np.int64(addrs[i, j])
            units[j] = _quot(a, shape[1], shape[2])
            where[j] = _rem(units[j], shape[3], shape[4]) if a >= 0 else -1
            active += a >= 0
            if positions > 0:
                sunits[j] = _quot(src[i, j], shape[5], shape[6])
                swhere[j] = sunits[j] % positions if a >= 0 and src[i, j] >= 0 else -2 - j  # (no source: a position of its own)
        wavefronts = 0
        ideal = 0
        distinct = 0
        touched = 0
        if group > 1 and _packed(units, where):
            for g0 in range(0, phases, group):  # each pair of sibling phases served together
                d, w, b = _phase(units, where, g0 * per_phase, (g0 + group) * per_phase, broadcast, table, held, asks)
                wavefronts += w
                ideal += d > 0
                distinct += d
                touched += b
        else:
            for p in range(phases):
                d, w, b = _phase(units, where, p * per_phase, (p + 1) * per_phase, broadcast, table, held, asks)
                if positions > 0:  # LDGSTS: the most lanes one lane conflicts with, at its source or its destination
                    w = _copy_passes(where, swhere, p * per_phase, (p + 1) * per_phase)
                wavefronts += w
                ideal += d > 0
                distinct += d
                touched += b
        out[0, i] = wavefronts
        out[1, i] = ideal
        out[3, i] = distinct
        out[4, i] = active
        out[5, i] = touched
        # one phase whose units are the accesses, or whose lanes each have a unit of their own: the bytes are counted
        if per_phase == width and (distinct == active or shape[1] == shape[5] and shape[3] == width):
            out[2, i] = distinct * shape[5]
            continue
        # bytes: distinct accesses, counted the same way with each access as a unit in `width` buckets
        for j in range(width):
            a = np.int64(addrs[i, j])
            units[j] = _quot(a, shape[5], shape[6])
            where[j] = units[j] % width if a >= 0 else -1
        out[2, i] = _phase(units, where, 0, width, True, table, held, asks)[0] * shape[5]


@compiled(cache=True, nogil=True, inline="always", plain=True)
def _phase(units, where, start, stop, broadcast, table, held, asks):  # pragma: no cover - compiled
    """Lanes ``start:stop``: distinct units asked, passes (the busiest unit bank's distinct units, or without
    ``broadcast`` its requests) and unit banks asked. ``held``/``asks`` are zero on entry and left zero."""
    distinct = 0
    passes = 0
    banks = 0
    for j in range(start, stop):
        b = where[j]
        if b < 0:
            continue
        u = units[j]
        banks += asks[b] == 0
        seen = False
        for s in range(held[b]):
            if table[b, s] == u:
                seen = True
                break
        if not seen:
            table[b, held[b]] = u
            held[b] += 1
            distinct += 1
        asks[b] += 1
        passes = max(passes, held[b] if broadcast else asks[b])
    for j in range(start, stop):
        if where[j] >= 0:
            held[where[j]] = 0
            asks[where[j]] = 0
    return distinct, passes, banks


@compiled(cache=True, nogil=True, plain=True)
def _count_sector_moves(addrs, src, rows, chunk, sector, line, row, out):  # pragma: no cover - compiled
    """LDGSTS .cg (reference.py, rule 5): wavefronts = distinct (round, source line, destination row,
    XOR value, halves) over the copies that are served; all ideal; bytes = chunks written."""
    n = addrs.shape[1]
    copies = np.empty(n, dtype=np.int64)  # lanes served: the lowest lane of each destination chunk
    key = np.empty((n, 5), dtype=np.int64)  # a copy's wavefront: round, line, row, XOR value, halves
    for i in rows:
        c = 0
        for j in range(n):
            if addrs[i, j] < 0:
                continue
            first = True
            for m in range(c):
                if addrs[i, copies[m]] // chunk == addrs[i, j] // chunk:
                    first = False
                    break
            if first:
                copies[c] = j
                c += 1
        for a in range(c):
            s, d = src[i, copies[a]], np.int64(addrs[i, copies[a]])
            later = 0
            for b in range(a + 1, c):
                s2, d2 = src[i, copies[b]], np.int64(addrs[i, copies[b]])
                if s2 // chunk == s // chunk and d2 // row == d // row and (s2 ^ d2) % sector // chunk == (s ^ d) % sector // chunk:
                    later += 1
            key[a, 0] = later
            key[a, 1] = s // line
            key[a, 2] = d // row
            key[a, 3] = (s ^ d) % (2 * sector) // chunk
            key[a, 4] = 0
        for a in range(c):  # halves: the source chunks of the copy's sector move
            s, d = src[i, copies[a]], np.int64(addrs[i, copies[a]])
            for b in range(c):
                s2, d2 = src[i, copies[b]], np.int64(addrs[i, copies[b]])
                if key[b, 0] == key[a, 0] and key[b, 3] == key[a, 3] and s2 // sector == s // sector and d2 // sector == d // sector:
                    key[a, 4] |= np.int64(1) << (s2 % sector // chunk)
        wavefronts = 0
        for a in range(c):
            new = True
            for b in range(a):
                same = True
                for f in range(5):
                    if key[b, f] != key[a, f]:
                        same = False
                        break
                if same:
                    new = False
                    break
            wavefronts += new
        out[0, i] = wavefronts
        out[1, i] = wavefronts
        out[2, i] = c * chunk
        out[3, i] = c
        out[4, i] = (addrs[i] >= 0).sum()


@compiled(cache=True, nogil=True, plain=True)
def _l1_conflicts(addrs, src, zeroed, bypass, rows, access, per_phase, line, classes, out):  # pragma: no cover - compiled
    """Rule 11 (reference.py): per row, the chains of each phase's passes (lines fill a pass, in lane order, until one's
    class is in it) and of its zeroed lanes, their wavefronts less one summed into ``out[8]``."""
    shift = np.int64(0)
    while (np.int64(1) << shift) < classes:
        shift += 1
    n = addrs.shape[1]
    group = np.empty(n, dtype=np.int64)  # a lane's pass; -1: zeroed; -2: no part
    after = np.zeros(n, dtype=np.int64)  # the wavefront a lane takes in its group
    for i in rows:
        conflicts = 0
        for p0 in range(0, n, per_phase):
            k = np.int64(0)  # the pass the phase's lines fill, and the classes it holds
            held = np.int64(0)
            for j in range(p0, p0 + per_phase):
                group[j] = -2
                if addrs[i, j] < 0:
                    continue
                if zeroed[i] >> np.uint32(j) & np.uint32(1):
                    group[j] = -1
                elif not bypass[i]:
                    lj = np.int64(src[i, j]) // line
                    group[j] = -3
                    for m in range(p0, j):  # a line met before: its pass
                        if group[m] >= 0 and np.int64(src[i, m]) // line == lj:
                            group[j] = group[m]
                            break
                    if group[j] == -3:  # a new line: into the pass, or opening the next where its class is in it
                        c = np.int64(1) << ((lj ^ (lj >> shift)) & (classes - 1))
                        if held & c:
                            k += 1
                            held = np.int64(0)
                        held |= c
                        group[j] = k
            most = np.zeros(per_phase + 1, dtype=np.int64)  # per group (pass k at k, zeroed at per_phase): its last wavefront
            for j in range(p0, p0 + per_phase):
                if group[j] < -1:
                    continue
                after[j] = 0
                bank = np.int64(addrs[i, j]) // access % per_phase
                for m in range(p0, j):
                    if group[m] != group[j]:
                        continue
                    clash = np.int64(addrs[i, m]) // access % per_phase == bank
                    if group[j] >= 0 and np.int64(src[i, m]) % line // access == np.int64(src[i, j]) % line // access:
                        clash = True
                    if clash and after[m] + 1 > after[j]:
                        after[j] = after[m] + 1
                g = group[j] if group[j] >= 0 else per_phase
                most[g] = max(most[g], after[j])
            conflicts += most.sum()
        out[8, i] = conflicts


@compiled(cache=True, nogil=True, inline="always", plain=True)
def _copy_passes(where, swhere, start, stop):  # pragma: no cover - compiled
    """Lanes ``start:stop`` of an LDGSTS: the largest set of lanes sharing one lane's destination bank
    or source position, that lane included (reference.py, rule 4)."""
    most = 0
    for j in range(start, stop):
        if where[j] < 0:
            continue
        n = 0
        for m in range(start, stop):
            if where[m] >= 0 and (where[m] == where[j] or swhere[m] == swhere[j]):
                n += 1
        most = max(most, n)
    return most


@compiled(cache=True, nogil=True, plain=True)
def _packed(units, where):  # pragma: no cover - compiled
    """Whether one partner pairing ``t ^ x`` fits the whole warp (reference.py, rule 3)."""
    for x in PACK_PARTNERS:
        fits = True
        for t in range(len(units)):
            if where[t] >= 0 and where[t ^ x] >= 0 and units[t] != units[t ^ x]:
                fits = False
                break
        if fits:
            return True
    return False
