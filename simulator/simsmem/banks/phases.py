"""Phases: which lanes the hardware serves together, and which bank words each lane touches.

A *phase* moves at most one word from every bank (``banks * bank_width`` bytes, 128 on every NVIDIA
arch so far): a whole warp for 8/16/32-bit accesses, a half-warp for 64-bit, a quarter-warp for
128-bit, and one 8x8 b16 matrix (8 row addresses of 16 bytes) for LDSM/STSM; a cp.async ``.cg`` copy
(LDGSTS.E.BYPASS) is served warp-wide, in sector moves (``reference.py``, rule 5). Loads may serve
``merge_phases`` (2) sibling phases in one wavefront; a *merge group* is such a pair of siblings.
"""

from __future__ import annotations

import attrs

from ..config import ArchConfig, OpSpec

MATRIX_ROWS = 8  # lanes (row addresses) per 8x8 matrix
MATRIX_ROW_BYTES = 16  # 8 b16 elements
#: Lane pairings (``t`` with ``t ^ x``) under which a load's return registers pack, so that two sibling
#: phases share one wavefront (H100: calibration/h100/RULES_v2.md, rule R4).
PACK_PARTNERS = (1, 2)


@attrs.frozen
class Shape:
    """How one form of an instruction (op, width or matrix count) maps lanes to phases and words."""

    lanes: int  # lanes that give addresses (32, or 8 * num for matrix ops)
    lanes_per_phase: int
    access_bytes: int  # bytes each lane's address covers
    words_per_lane: int  # bank words each lane touches
    group: int  # phases per merge group (1: phases never share a wavefront)
    broadcast: bool  # lanes wanting one word share it (False: every lane is served alone)
    rounds: int = 1  # wavefronts per pass (compare-and-swap: 2); bank conflicts are one round's
    source_positions: int = 0  # LDGSTS: access-sized positions in a global source line (lanes on one serialize); 0: no sources
    source_sector: int = 0  # LDGSTS .cg: bytes of a global sector; the warp is served in sector moves (0: not .cg)
    single_pass: bool = False  # a phase's first pass only: lanes it leaves out fail (ATOMS.CAST.SPIN)

    @property
    def phases(self) -> int:
        return self.lanes // self.lanes_per_phase


def shape_of(spec: OpSpec, arch: ArchConfig, width: int, num: int, atom: str = "add", bypass: bool = False) -> Shape:
    """The shape of an instruction with access ``width`` bits (``bytes`` ops) or ``num`` matrices;
    ``atom`` picks the atomic operation of an op that has them (``ATOMS``), ``bypass`` an LDGSTS's ``.cg`` form."""
    if spec.phase == "matrix":
        lanes, per_phase, access = MATRIX_ROWS * num, MATRIX_ROWS, MATRIX_ROW_BYTES
    else:
        access = width // 8
        lanes = arch.warp_size
        per_phase = lanes if bypass else min(lanes, arch.phase_bytes // access)
    phases = lanes // per_phase
    kind = spec.atoms.get(atom)
    return Shape(
        lanes=lanes,
        lanes_per_phase=per_phase,
        access_bytes=access,
        words_per_lane=max(1, access // arch.bank_width),
        group=min(spec.merge_phases, phases),
        broadcast=bypass or (kind.broadcast if kind else spec.broadcast),  # .cg: lanes writing one chunk write it once
        rounds=kind.rounds if kind else 1,
        source_positions=spec.source_line // access if spec.source_line else 0,
        source_sector=spec.source_sector if bypass else 0,
        single_pass=bool(kind and kind.spin),
    )
