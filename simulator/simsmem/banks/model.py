"""The bank model, vectorised across instructions with numpy.

Same rule as ``reference.py`` (read that first); this version counts every instruction of one shape
(op, width or matrix count) at once: lanes' words are laid out as rows of one phase (or one merge
group), sorted, and distinct words are counted per bank with one ``bincount``.
"""

from __future__ import annotations

import attrs
import numpy as np

from ..config import ArchConfig
from ..trace.records import OPS, InstructionBatch
from .phases import Shape, shape_of


@attrs.frozen(eq=False)
class Counts:
    """Per-instruction results, one entry per instruction of the batch counted."""

    wavefronts: np.ndarray  # int64
    bank_conflicts: np.ndarray  # int64: wavefronts - ideal
    ideal: np.ndarray  # int64: ideal wavefronts
    bytes: np.ndarray  # int64: distinct bytes touched


def count(batch: InstructionBatch, arch: ArchConfig) -> Counts:
    """Wavefronts, ideal wavefronts, bank conflicts and bytes of every instruction in ``batch``."""
    n = len(batch)
    wavefronts = np.zeros(n, dtype=np.int64)
    ideal = np.zeros(n, dtype=np.int64)
    nbytes = np.zeros(n, dtype=np.int64)
    form = batch.op.astype(np.int64) << 16 | batch.width.astype(np.int64) << 8 | batch.num
    for key in np.unique(form):
        rows = np.flatnonzero(form == key)
        spec = arch.op(OPS[key >> 16])
        shape = shape_of(spec, arch, int(key >> 8 & 0xFF), int(key & 0xFF))
        wavefronts[rows], ideal[rows], nbytes[rows] = _count_shape(batch.addrs[rows], shape, arch)
    return Counts(wavefronts, wavefronts - ideal, ideal, nbytes)


def _count_shape(addrs: np.ndarray, shape: Shape, arch: ArchConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    m = len(addrs)
    lanes = addrs[:, : shape.lanes].astype(np.int64)
    active = lanes >= 0
    k = shape.words_per_lane
    words = (lanes // arch.bank_width)[:, :, None] + np.arange(k)
    words = np.where(active[:, :, None], words, -1)
    phases = shape.phases
    per_phase = words.reshape(m * phases, shape.lanes_per_phase * k)
    distinct, phase_passes = _distinct_and_passes(per_phase, arch.banks, shape.broadcast)
    g = shape.group
    groups = phases // g
    asked = distinct.reshape(m, groups, g).sum(axis=2)  # words asked per group, once per phase
    if g > 1:
        union = words.reshape(m * groups, g * shape.lanes_per_phase * k)
        _, union_passes = _distinct_and_passes(union, arch.banks, True)
        merged = (union_passes.reshape(m, groups) <= 1) & (asked <= arch.banks) & (asked > 0)
        group_passes = np.where(merged, 1, phase_passes.reshape(m, groups, g).sum(axis=2))
    else:
        group_passes = phase_passes.reshape(m, groups)
    ideal = -(-asked // arch.banks)  # ceil
    distinct_addrs, _ = _distinct_and_passes(np.where(active, lanes, -1), 1, True)
    return group_passes.sum(axis=1), ideal.sum(axis=1), distinct_addrs * shape.access_bytes


def _distinct_and_passes(rows: np.ndarray, banks: int, broadcast: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per row (``-1`` marks no request): distinct words, and passes = the busiest bank's load."""
    s = np.sort(rows, axis=1)
    valid = s >= 0
    new = valid.copy()
    new[:, 1:] &= s[:, 1:] != s[:, :-1]
    distinct = new.sum(axis=1)
    load = new if broadcast else valid
    index = np.arange(len(rows))[:, None] * banks + s % banks
    per_bank = np.bincount(index[load], minlength=len(rows) * banks).reshape(len(rows), banks)
    return distinct, per_bank.max(axis=1, initial=0)
