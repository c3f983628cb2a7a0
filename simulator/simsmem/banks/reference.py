"""The bank model, instruction by instruction, written to be read.

The rule (it reproduces the H100 measurements in ``calibration/h100``; see ``RULES_v2.md`` there):

1. Split the active lanes into phases (``phases.py``). Each lane needs ``words_per_lane`` words.
2. A phase needs one pass per word a bank must deliver: the most *distinct words* any one bank holds
   (lanes wanting the same word share it: broadcast), or, for ops without broadcast (atomics), the
   most *lane requests* any one bank gets. Its ideal is one wavefront.
3. Loads serve sibling phases in pairs (the two half-warps of a 64-bit load; quarter-warps 0+1 and
   2+3 of a 128-bit load) when the warp's return registers *pack*: a wavefront returns 128 bytes, and
   two phases need 256, so each value must go to two lanes at once. That works for one fixed pairing
   of lanes, ``t`` with ``t ^ 1`` or ``t`` with ``t ^ 2``, for the whole warp: every two partner lanes
   that are both active read the same address. A packed pair takes as many passes as its busiest bank
   holds distinct words over the pair. Otherwise every phase is served alone (step 2).
4. Copies from global memory (LDGSTS, ``.ca``) serve each phase in as many passes as the most lanes
   that any one lane *conflicts with* (itself included): the lanes whose sources share its position
   in their 128-byte line, together with the lanes whose destinations share its bank (neither side
   broadcasts). A lane whose source conflicts with one lane and whose destination conflicts with
   another costs three passes, though two would carry them.
5. Copies that bypass L1 (LDGSTS ``.cg``, 16 bytes a lane) are served warp-wide, not by phases. Of the
   lanes writing one 16-byte destination *chunk* only the lowest is served. A copy's *round* is how
   many later copies read its source chunk into its destination row (``banks * bank_width`` bytes)
   in the same half order (``(src ^ dst) % sector // chunk``: bit 4 on H100). Within a round, the
   copies from one source sector to one destination sector with one value of
   ``(src ^ dst) % (2 * sector) // chunk`` (bits 4-5) form a *sector move*; its *halves* are the chunks
   of the source sector it reads. One wavefront carries the sector moves of one round, source line,
   destination row, XOR value and halves. ncu counts no bank conflicts for the plain ``.cg`` copy: every
   wavefront is ideal. (Sector moves of different halves do not share a wavefront even where the chunks would
   fit: chunks {0, 1, 2, 5} copied in place take 3.) A ``zfill`` lane's source is not read: the count
   takes its destination for it (measured: every lane of a ``.cg`` copy in the SASS form that takes src-size
   as a predicate, under ``P0``). A ``.ca`` copy's ``zeroed`` lane (src-size 0) has no source: in rule 4 it
   conflicts through its destination alone (``ho6_ca4_*``). That predicate form (lanes ``zfill``) is not
   served by sector moves: its wavefronts are rule 4's quarter-warp passes, each lane at its destination,
   that is each quarter-warp's most lanes writing one 16-byte column of the 128-byte rows, all ideal.
   The src-size forms (``calibration/realk``, the single-warp probes ``lg_cg16_*``, ``rule_cpa_cg16_*`` and
   ``ho_cg16_*``):
   the form that takes src-size in a register (``srcsize``, SASS ``.ZFILL``) adds to these wavefronts the
   passes rule 4 gives its active lanes (16 bytes a lane: quarter-warp phases), zero-filled ones included, and
   has the bank conflicts rule 4 gives its active lanes, a ``zeroed`` lane taking no source position (it
   conflicts through its destination alone). The predicate form has those bank conflicts where some of its
   active lanes are ``zeroed``, none where every lane copies. Under a predicate other than ``P0`` (``pred``:
   ``ho7_cg16_zf2_*``, ``cpasync_zfill``) the ``.ZFILL`` form's ``zeroed`` lanes take no part in its sector moves and
   no source in its quarter-warp passes; so are a predicate-form copy's under another positive predicate (``P1``...)
   where some lane zero-fills, which then also makes those passes (``ho5_cg16_two_*``, ``ho8_cg16_two_*``); under a
   negated one (``!P0``) it is counted as the plain copy (``ho4_cg16_neg_*``).
   Rule 4 reads each lane at its own source here, a ``zfill`` lane's too. The ``.ZFILL`` form's passes serve its
   lanes again, in groups after the sector moves; where lanes are ``zeroed``, its conflicts are not those groups'
   extra passes, and the predicate form's belong to no wavefront (ncu's two counters, not one schedule).
6. ncu's *bank conflicts* are wavefronts minus ideal wavefronts.
7. The compare-and-store of the compiler's atomic loops (``ATOMS.CAST.SPIN``) makes a single pass per
   phase, the first: a lane whose word that pass does not serve fails, and the loop tries it again.

ncu's L1-level LDGSTS bank conflicts (``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts``, which ncu's total
adds; not the SASS-level counter of rules 4-6), one warp's copy alone (``l1_bank_conflicts``):

11. Rule 4's phases of a ``.ca`` copy of the instruction's width (16 bytes a lane: quarter-warps, ``.cg`` too). In a
   phase, L1 serves the copying lanes in passes: a source line ``l`` (``src // source_line``) has the class
   ``(l ^ l >> log2(line_classes)) % line_classes``, and the phase's lines, in lane order, fill a pass until one whose
   class the pass holds opens the next. Each lane of a pass takes the wavefront after the latest earlier lane of the
   pass that reads its source position or writes its destination bank (a chain in lane order: not the fewest
   wavefronts that would carry them); the pass's conflicts are its wavefronts less one. The ``zeroed`` lanes are written apart, by the same chain over
   their destination banks alone. A ``.cg`` copy's copying lanes make no conflicts (its zeroed lanes do, as above).
   Exact on all 480 designed H100 ``.ca`` rows and all 1830 ``.cg`` rows (calibration/h100), and on 143 of the 144
   one-warp LDGSTS entries of calibration/realk; 98 of the 162 random H100 ``.ca`` rows, whose sources spread over
   32 KiB (runs/2026-11-29-l1ldgsts/NOTES.md: the misses, and what is not found for copies from many lines).

Bank reads and writes (ncu's ``l1tex__data_bank_reads`` / ``_writes``, this instruction's part: ncu's totals add the
kernel's global accesses through L1, ``kernel/l1.py``, and each SM reports its counts rounded to even; see
``calibration/bank_rw.py``, which holds this rule against every measured row):

8. A wavefront reads (loads: LDS, LDSM) or writes (stores: STS, STSM) each distinct word it serves once; a store
   narrower than a word also reads the words it writes part of. An atomic reads and writes each word once per lane
   (no broadcast), or, where lanes share words (``ATOMS.POPC.INC``, and ``ATOMS.CAST.SPIN``'s single pass), each
   word its wavefronts serve. An LDGSTS ``.cg`` copy writes its bytes into shared memory (L1 holds none of them);
   a ``.ca`` copy reads each lane's words out of L1 and writes them to shared memory (L1's fill of the sectors it
   reads is the global side's, as a load's: ``kernel/l1.py``, which knows what L1 holds). A ``zeroed`` lane (src-size
   0) of a ``.cg`` copy reads the words it zero-fills; of a ``.ca`` copy, one word. Not in the rule: lanes that copy
   fewer bytes than their access (no field says which) and the extra reads of a ``.ca`` copy whose phase takes
   several wavefronts (measured: more than the lanes' words, by no rule found).
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from ..config import ArchConfig, OpSpec
from ..traces.records import Instruction
from .phases import PACK_PARTNERS, Shape, shape_of


@attrs.frozen
class Request:
    """One lane's need of one bank word."""

    lane: int
    phase: int
    word: int
    bank: int


@attrs.frozen
class Wavefront:
    """One pass of the data path: the requests it serves (every lane that gets or gives data).

    ``group`` numbers what the hardware served as one unit (a phase, or a merged pair of sibling
    phases); each group with requests ideally takes one wavefront. ``round`` is 0, or for an op that
    takes several wavefronts per pass (compare-and-swap) the pass's later wavefronts.
    """

    group: int
    requests: tuple[Request, ...]
    round: int = 0

    @property
    def phases(self) -> tuple[int, ...]:
        return tuple(sorted({r.phase for r in self.requests}))


@attrs.frozen
class Schedule:
    """How one instruction is served: its wavefronts, in order, and what ncu makes of them."""

    shape: Shape
    wavefronts: tuple[Wavefront, ...]
    ideal: int  # ideal wavefronts
    bytes: int  # distinct bytes the instruction touches (ncu's smsp__sass_data_bytes_mem_shared)
    bank_reads: int = 0  # bank words read (rule 8)
    bank_writes: int = 0  # bank words written (rule 8)

    @property
    def bank_conflicts(self) -> int:
        return len(self.wavefronts) - self.ideal


def schedule(ins: Instruction, arch: ArchConfig) -> Schedule:
    """Serve one instruction the way the hardware does."""
    spec = arch.op(ins.op)
    shape = shape_of(spec, arch, ins.width, ins.num, ins.atom, ins.bypass)
    lanes = ins.active_lanes
    by_phase = _requests(ins, lanes, shape, arch)

    if shape.source_sector:  # .cg: one unit per wavefront, so none is a conflict but those of the src-size forms
        sourceless = lambda lane: None if ins.zeroed >> lane & 1 else ins.src[lane]  # noqa: E731 (a zeroed lane: no source)
        apart = _apart(ins)
        if ins.zfill & ins.mask:  # the predicate form: rule 4's quarter-warp passes, each zfill lane at its destination
            passes = _quarter_passes(ins, lanes, spec, arch, lambda lane: _source(ins, lane))[0]
        else:
            passes = _sector_moves([r for r in by_phase[0] if not (apart and ins.zeroed >> r.lane & 1)], ins, shape, arch)
        units = len(passes)
        if ins.srcsize or apart:  # the .ZFILL form serves its lanes again in quarter-warp passes (rule 5), after the sector moves
            added = _quarter_passes(ins, lanes, spec, arch, sourceless if apart else None)[0]
            passes += [attrs.evolve(w, group=units + w.group) for w in added]
            units += len(added)
        if ins.srcsize or ins.zeroed & ins.mask:  # conflicts: rule 4 over every lane, a zeroed one at no source
            served, quarters = _quarter_passes(ins, lanes, spec, arch, sourceless)
            units -= len(served) - quarters
    else:
        if shape.group > 1 and not ins.generic and _packed(ins):  # a generic load never packs (docs/bank-model.md, rule 9)
            groups = [[r for reqs in by_phase[p : p + shape.group] for r in reqs] for p in range(0, shape.phases, shape.group)]
        else:
            groups = by_phase
        if shape.source_positions:
            passes = [w for g, reqs in enumerate(groups) for w in _copy_passes(g, reqs, lambda lane: _source(ins, lane), shape)]
        else:
            passes = [w for g, reqs in enumerate(groups) for w in _passes(g, reqs, shape.broadcast)[: 1 if shape.single_pass else None]]
        units = sum(1 for reqs in groups if reqs)
    wavefronts = [attrs.evolve(w, round=r) for w in passes for r in range(shape.rounds)]
    ideal = units + (shape.rounds - 1) * len(passes)  # conflicts: one round's
    addrs = {ins.addrs[lane] for lane in lanes}
    nbytes = len(addrs) * shape.access_bytes + ins.elsewhere  # a generic one's bytes outside shared memory count too
    if ins.imm:  # an LDGSTS with an immediate offset: one lane's bytes (docs/bank-model.md, rule 10)
        nbytes = shape.access_bytes if lanes else 0
    if ins.op == "ATOMS" and ins.atom.startswith("unserved"):  # it fails: no bank traffic; a float one, no bytes either
        return Schedule(shape, tuple(wavefronts), ideal, 0 if ins.atom == "unserved_float" else nbytes)
    reads, writes = _bank_traffic(ins, spec.counter, shape, wavefronts, nbytes, arch)
    return Schedule(shape, tuple(wavefronts), ideal, nbytes, reads, writes)


def l1_bank_conflicts(ins: Instruction, arch: ArchConfig) -> int | None:
    """Rule 11: ncu's L1-level bank conflicts of an LDGSTS ``ins``, its warp alone (None: the arch has no rule)."""
    spec = arch.op(ins.op)
    if not spec.line_classes:
        return None
    shape = shape_of(spec, arch, ins.width, 0)  # .cg too: the phases of a .ca copy of 16 bytes a lane
    shift = spec.line_classes.bit_length() - 1
    conflicts = 0
    for first in range(0, arch.warp_size, shape.lanes_per_phase):
        lanes = [lane for lane in range(first, first + shape.lanes_per_phase) if lane in ins.active_lanes]
        zeroed = [lane for lane in lanes if ins.zeroed >> lane & 1]
        copying = [] if ins.bypass else [lane for lane in lanes if lane not in zeroed]
        line = {lane: ins.src[lane] // spec.source_line for lane in copying}
        turn: dict[int, int] = {}  # each line's pass: the phase's lines, in lane order, fill a pass until one's class is in it
        held: set[int] = set()
        k = 0
        for n in dict.fromkeys(line.values()):
            kind = (n ^ n >> shift) % spec.line_classes
            if kind in held:  # the line opens the next pass
                k, held = k + 1, set()
            held.add(kind)
            turn[n] = k
        passes = [[lane for lane in copying if turn[line[lane]] == j] for j in set(turn.values())]
        conflicts += sum(_chain(group, ins, shape, spec.source_line) - 1 for group in passes)
        conflicts += _chain(zeroed, ins, shape, None) - 1 if zeroed else 0
    return conflicts


def _chain(lanes: list[int], ins: Instruction, shape: Shape, line: int | None) -> int:
    """Wavefronts of ``lanes`` served in lane order, each one after the latest earlier lane that writes its destination
    bank or, with ``line``, reads its position in a ``line``-byte source line (rule 11)."""
    def clash(a: int, b: int) -> bool:
        bank = ins.addrs[a] // shape.access_bytes % shape.lanes_per_phase == ins.addrs[b] // shape.access_bytes % shape.lanes_per_phase
        return bank or line is not None and ins.src[a] % line // shape.access_bytes == ins.src[b] % line // shape.access_bytes

    after: dict[int, int] = {}
    for i, lane in enumerate(lanes):
        after[lane] = max((after[m] + 1 for m in lanes[:i] if clash(m, lane)), default=0)
    return max(after.values()) + 1


def _bank_traffic(ins: Instruction, counter: str, shape: Shape, wavefronts: list[Wavefront], nbytes: int, arch: ArchConfig) -> tuple[int, int]:
    """Rule 8: (bank words read, bank words written)."""
    served = sum(len({r.word for r in w.requests}) for w in wavefronts if w.round == 0)  # each wavefront's distinct words
    lanes = len(ins.active_lanes) * shape.words_per_lane  # every lane's words
    if counter == "ld":
        return served, 0
    if counter == "st":
        return (served if shape.access_bytes < arch.bank_width else 0), served
    if counter == "atom":
        n = served if shape.broadcast else lanes
        return n, n
    if counter != "ldgsts":  # no rule for another op class
        return 0, 0
    zeroed = bin(ins.zeroed & ins.mask).count("1")
    if shape.source_sector:  # LDGSTS .cg: a zeroed lane's words are read
        return zeroed * shape.words_per_lane, nbytes // arch.bank_width
    return lanes - zeroed * (shape.words_per_lane - 1), lanes  # .ca: a zeroed lane reads one word (L1's fill: kernel/l1.py)


def _packed(ins: Instruction) -> bool:
    """Whether one partner pairing (``t ^ x``) fits the whole warp: active partners read one address."""
    active = set(ins.active_lanes)
    return any(all(ins.addrs[t] == ins.addrs[t ^ x] for t in active if t ^ x in active) for x in PACK_PARTNERS)


def _requests(ins: Instruction, lanes: list[int], shape: Shape, arch: ArchConfig) -> list[list[Request]]:
    """Per phase of ``shape``, the requests of those of ``lanes`` in it."""
    by_phase: list[list[Request]] = [[] for _ in range(shape.phases)]
    for lane in lanes:
        phase = lane // shape.lanes_per_phase
        first = ins.addrs[lane] // arch.bank_width
        for word in range(first, first + shape.words_per_lane):
            by_phase[phase].append(Request(lane, phase, word, word % arch.banks))
    return by_phase


def _quarter_passes(ins: Instruction, lanes: list[int], spec: OpSpec, arch: ArchConfig,
                    source: Callable[[int], int | None] | None = None) -> tuple[list[Wavefront], int]:
    """An LDGSTS .cg's ``lanes`` served as a ``.ca`` copy of their width (rule 4: quarter-warp phases), each lane read
    from ``source(lane)`` (default: its own source; None: none): (the passes, the phases with lanes)."""
    shape = shape_of(spec, arch, ins.width, 0)
    phases = _requests(ins, lanes, shape, arch)
    passes = [w for p, reqs in enumerate(phases) for w in _copy_passes(p, reqs, source or ins.src.__getitem__, shape)]
    return passes, sum(1 for reqs in phases if reqs)


def _copy_passes(group: int, reqs: list[Request], source: Callable[[int], int | None], shape: Shape) -> list[Wavefront]:
    """LDGSTS: a lane conflicts with the lanes whose source takes its position in the line or whose
    destination takes its bank; the phase takes as many passes as the largest such set (the lane
    included). The measured counts fix only that number, not which lane goes where: here each lane
    goes to the first pass free of its conflicts, and where that needs fewer passes than the hardware
    takes, the last lanes of shared passes move to passes of their own. ``source``: a lane's source (None: a lane
    with none, which conflicts through its destination alone)."""
    positions = {r.lane: source(r.lane) for r in reqs}
    ends = {r.lane: (None if positions[r.lane] is None else positions[r.lane] // shape.access_bytes % shape.source_positions,
                     r.bank // shape.words_per_lane) for r in reqs}
    conflicts = {lane: {m for m, e in ends.items() if (s is not None and e[0] == s) or e[1] == d} for lane, (s, d) in ends.items()}
    passes: dict[int, int] = {}
    for lane in sorted(ends):
        taken = {passes[m] for m in conflicts[lane] if m in passes}
        passes[lane] = next(j for j in range(len(ends)) if j not in taken)
    needed = max((len(c) for c in conflicts.values()), default=0)
    used = len(set(passes.values()))
    for lane in sorted(ends, reverse=True):  # a lane alone in a pass conflicts with nothing
        if used == needed:
            break
        if sum(p == passes[lane] for p in passes.values()) > 1:
            passes[lane] = used
            used += 1
    return [Wavefront(group, tuple(r for r in reqs if passes[r.lane] == j)) for j in range(needed)]


def _apart(ins: Instruction) -> bool:
    """Whether an LDGSTS .cg serves its ``zeroed`` lanes apart (rule 5): the ``.ZFILL`` form under another predicate than
    P0, and the predicate form under another positive one where some lane zero-fills."""
    if ins.srcsize:
        return ins.pred != "P0"
    return ins.pred == "other" and not ins.zfill and bool(ins.zeroed & ins.mask)


def _source(ins: Instruction, lane: int) -> int | None:
    """The source the count reads for an LDGSTS lane: its own, for a ``zeroed`` lane of a ``.ca`` copy none, for
    another ``zfill`` lane its destination."""
    if not ins.bypass and ins.zeroed >> lane & 1:
        return None
    return ins.addrs[lane] if ins.zfill >> lane & 1 else ins.src[lane]


def _sector_moves(reqs: list[Request], ins: Instruction, shape: Shape, arch: ArchConfig) -> list[Wavefront]:
    """LDGSTS .cg (rule 5): one wavefront per (round, source line, destination row, XOR value, halves)
    of the sector moves of the lanes of ``reqs``, in order of their lowest lane. A lane whose destination
    chunk a lower lane writes rides in that lane's wavefront."""
    chunk, sector = shape.access_bytes, shape.source_sector
    line, row = chunk * shape.source_positions, arch.phase_bytes
    lanes = sorted({r.lane for r in reqs})
    served: dict[int, int] = {}  # destination chunk -> the lowest lane writing it
    for lane in lanes:
        served.setdefault(ins.addrs[lane] // chunk, lane)
    copies = sorted(served.values())

    def order(lane: int) -> tuple[int, int, int]:  # copies that wait for each other's rounds
        s, d = _source(ins, lane), ins.addrs[lane]
        return s // chunk, d // row, (s ^ d) % sector // chunk

    def move(lane: int) -> tuple[int, ...]:
        s, d = _source(ins, lane), ins.addrs[lane]
        later = sum(order(m) == order(lane) for m in copies if m > lane)
        return later, s // line, d // row, (s ^ d) % (2 * sector) // chunk, s // sector, d // sector

    halves: dict[tuple[int, ...], frozenset[int]] = {}
    for lane in copies:
        halves[move(lane)] = halves.get(move(lane), frozenset()) | {_source(ins, lane) % sector // chunk}
    key = {lane: (*move(lane)[:4], halves[move(lane)]) for lane in copies}
    keys = list(dict.fromkeys(key[lane] for lane in copies))
    of_lane = {lane: key[served[ins.addrs[lane] // chunk]] for lane in lanes}
    return [Wavefront(g, tuple(r for r in reqs if of_lane[r.lane] == k)) for g, k in enumerate(keys)]


def _keys_by_bank(reqs: list[Request], broadcast: bool) -> dict[int, list]:
    """For each bank, what it must deliver one at a time, in order of first request."""
    banks: dict[int, list] = {}
    for r in reqs:
        key = r.word if broadcast else (r.lane, r.word)
        keys = banks.setdefault(r.bank, [])
        if key not in keys:
            keys.append(key)
    return banks


def _passes_needed(reqs: list[Request], broadcast: bool) -> int:
    return max((len(k) for k in _keys_by_bank(reqs, broadcast).values()), default=0)


def _passes(group: int, reqs: list[Request], broadcast: bool) -> list[Wavefront]:
    """Pass j serves the j-th word (or lane request) of every bank."""
    banks = _keys_by_bank(reqs, broadcast)
    out = []
    for j in range(_passes_needed(reqs, broadcast)):
        served = {(bank, keys[j]) for bank, keys in banks.items() if j < len(keys)}
        out.append(Wavefront(group, tuple(r for r in reqs if (r.bank, r.word if broadcast else (r.lane, r.word)) in served)))
    return out
