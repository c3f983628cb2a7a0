"""The bank model, instruction by instruction, written to be read.

The rule (it reproduces the H100 measurements in ``calibration/h100``; see ``RULES_v2.md`` there):

1. Split the active lanes into phases (``phases.py``). Each lane needs ``words_per_lane`` words.
2. A phase needs one pass per word a bank must deliver: the most *distinct words* any one bank holds
   (lanes wanting the same word share it: broadcast), or, for ops without broadcast (atomics), the
   most *lane requests* any one bank gets. Its ideal is one wavefront.
3. Loads serve sibling phases in pairs (the two half-warps of a 64-bit load; quarter-warps 0+1 and
   2+3 of a 128-bit load) when every pair of the instruction is *mergeable*: one of its phases has no
   active lane, or both
   a. partner lanes (the same position in the two phases) pair their *slots* (a lane's position in
      its 128-byte row) one-to-one: no slot of one phase meets two different slots of the other; and
   b. no lane quad (lanes 4k..4k+3) reads more than two distinct addresses.
   A merged pair takes as many passes as its busiest bank holds distinct words over the pair, and
   ideally one. If any pair is not mergeable, every phase is served alone (step 2).
4. ncu's *bank conflicts* are wavefronts minus ideal wavefronts.
"""

from __future__ import annotations

import attrs

from ..config import ArchConfig
from ..trace.records import Instruction
from .phases import QUAD_ADDRESSES, QUAD_LANES, Shape, shape_of


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
    phases); each group with requests ideally takes one wavefront.
    """

    group: int
    requests: tuple[Request, ...]

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

    @property
    def bank_conflicts(self) -> int:
        return len(self.wavefronts) - self.ideal


def schedule(ins: Instruction, arch: ArchConfig) -> Schedule:
    """Serve one instruction the way the hardware does."""
    spec = arch.op(ins.op)
    shape = shape_of(spec, arch, ins.width, ins.num)
    lanes = ins.active_lanes
    by_phase: list[list[Request]] = [[] for _ in range(shape.phases)]
    for lane in lanes:
        phase = lane // shape.lanes_per_phase
        first = ins.addrs[lane] // arch.bank_width
        for word in range(first, first + shape.words_per_lane):
            by_phase[phase].append(Request(lane, phase, word, word % arch.banks))

    pairs = [by_phase[p : p + shape.group] for p in range(0, shape.phases, shape.group)]
    if shape.group > 1 and all(_mergeable(ins, shape, arch, p) for p in range(0, shape.phases, shape.group)):
        groups = [[r for reqs in pair for r in reqs] for pair in pairs]  # each pair served as one phase
    else:
        groups = by_phase
    wavefronts = [w for g, reqs in enumerate(groups) for w in _passes(g, reqs, shape.broadcast)]
    ideal = sum(1 for reqs in groups if reqs)
    addrs = {ins.addrs[lane] for lane in lanes}
    return Schedule(shape, tuple(wavefronts), ideal, len(addrs) * shape.access_bytes)


def _mergeable(ins: Instruction, shape: Shape, arch: ArchConfig, first: int) -> bool:
    """Whether sibling phases ``first`` and ``first + 1`` can be served together (rule 3)."""
    per = shape.lanes_per_phase
    active = set(ins.active_lanes)
    a = [lane for lane in range(first * per, (first + 1) * per)]
    b = [lane + per for lane in a]
    if not active.intersection(a) or not active.intersection(b):
        return True
    slot_bytes = shape.words_per_lane * arch.bank_width
    slots_per_row = arch.banks // shape.words_per_lane
    partner_of: dict[tuple[int, int], int] = {}  # (side, slot) -> the slot it meets on the other side
    for x, y in zip(a, b):
        if x in active and y in active:
            sx = ins.addrs[x] // slot_bytes % slots_per_row
            sy = ins.addrs[y] // slot_bytes % slots_per_row
            if partner_of.setdefault((0, sx), sy) != sy or partner_of.setdefault((1, sy), sx) != sx:
                return False
    for quad in range(a[0], b[-1] + 1, QUAD_LANES):
        if len({ins.addrs[lane] for lane in range(quad, quad + QUAD_LANES) if lane in active}) > QUAD_ADDRESSES:
            return False
    return True


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
