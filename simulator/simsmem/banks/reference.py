"""The bank model, instruction by instruction, written to be read.

The rule (it reproduces every H100 measurement in ``calibration/h100``):

1. Split the active lanes into phases (``phases.py``). Each lane needs ``words_per_lane`` words.
2. A phase needs one pass per word a bank must deliver: the most *distinct words* any one bank holds
   (lanes wanting the same word share it: broadcast), or, for ops without broadcast (atomics), the
   most *lane requests* any one bank gets.
3. Loads try to serve a merge group of sibling phases (two half-warps of a 64-bit load, each pair of
   quarter-warps of a 128-bit load) in one wavefront. It works when no bank holds two distinct words
   across the group and the group's phases together need at most ``banks`` words, counting a word
   once per phase that wants it. Otherwise each phase takes its own passes.
4. ncu's *bank conflicts* are wavefronts beyond the ideal: a group ideally needs one wavefront per
   ``banks`` words it asks for (counted per phase), rounded up.
"""

from __future__ import annotations

import math

import attrs

from ..config import ArchConfig
from ..trace.records import Instruction
from .phases import Shape, shape_of


@attrs.frozen
class Request:
    """One lane's need of one bank word."""

    lane: int
    phase: int
    word: int
    bank: int


@attrs.frozen
class Wavefront:
    """One pass of the data path: the requests it serves (every lane that gets or gives data)."""

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
    by_phase: list[list[Request]] = [[] for _ in range(shape.phases)]
    for lane in ins.active_lanes:
        phase = lane // shape.lanes_per_phase
        first = ins.addrs[lane] // arch.bank_width
        for word in range(first, first + shape.words_per_lane):
            by_phase[phase].append(Request(lane, phase, word, word % arch.banks))

    wavefronts: list[Wavefront] = []
    ideal = 0
    for g in range(0, shape.phases, shape.group):
        group = by_phase[g : g + shape.group]
        words_asked = sum(len({r.word for r in reqs}) for reqs in group)
        ideal += math.ceil(words_asked / arch.banks)
        union = [r for reqs in group for r in reqs]
        if shape.group > 1 and union and words_asked <= arch.banks and _passes_needed(union, True) == 1:
            wavefronts.append(Wavefront(tuple(union)))
        else:
            for reqs in group:
                wavefronts.extend(_passes(reqs, shape.broadcast))
    addrs = {ins.addrs[lane] for lane in ins.active_lanes}
    return Schedule(shape, tuple(wavefronts), ideal, len(addrs) * shape.access_bytes)


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


def _passes(reqs: list[Request], broadcast: bool) -> list[Wavefront]:
    """Pass j serves the j-th word (or lane request) of every bank."""
    banks = _keys_by_bank(reqs, broadcast)
    out = []
    for j in range(_passes_needed(reqs, broadcast)):
        served = {(bank, keys[j]) for bank, keys in banks.items() if j < len(keys)}
        out.append(Wavefront(tuple(r for r in reqs if (r.bank, r.word if broadcast else (r.lane, r.word)) in served)))
    return out
