"""Each warp's instructions in the order it executed them: what the timed SM issues.

A ``StreamRecorder`` listens to a machine beside the trace's ``Recorder``: every step (which warps executed
which instruction), every trace row the recorder writes (so that a row's wavefronts can be put on the warp's
instruction that made it), and every global access (its 32-byte sectors). ``streams()`` gives the chosen CTAs'
warps as ``WarpStreams``.
"""

from __future__ import annotations

import attrs
import numpy as np

from .machine import LANES, Machine
from .sass import Control, Instruction


@attrs.frozen(eq=False)
class WarpStreams:
    """The executed instructions of some CTAs' warps, warp by warp (warps of one CTA together, CTAs in ``ctas`` order).

    ``pcs[w]``: the code index of each instruction warp ``w`` executed; ``rows[w]``: the trace row it made (-1: none);
    ``sectors[w]``: the index in ``sector_sets`` of the 32-byte global sectors it accessed (-1: none); ``active[w]``:
    how many of its threads executed it (fewer than the warp's after a branch split it)."""

    code: tuple[Instruction, ...]
    control: tuple[Control, ...]
    ctas: tuple[int, ...]  # linear CTA indices
    warps_per_cta: int
    pcs: tuple[np.ndarray, ...]
    rows: tuple[np.ndarray, ...]
    sectors: tuple[np.ndarray, ...]
    sector_sets: tuple[np.ndarray, ...]
    active: tuple[np.ndarray, ...] = ()

    @property
    def instructions(self) -> int:
        return sum(len(p) for p in self.pcs)


class StreamRecorder:
    """Records, for the CTA slots ``keep`` of ``machine``, what ``WarpStreams`` holds; ``first_row``: the trace index of
    the first row the machine's ``Recorder`` writes."""

    def __init__(self, machine: Machine, keep: list[int], first_row: int) -> None:
        self.machine = machine
        self.keep = keep
        self.row = first_row
        self.steps: list[tuple[int, np.ndarray, np.ndarray]] = []  # (code index, warp slots, threads executing in each)
        self.placed: list[tuple[int, np.ndarray, int]] = []  # (step, warp slots, first row): rows in slot order
        self.global_events: list[tuple[int, np.ndarray, np.ndarray]] = []  # (step, warp slot per sector, sector)
        for hook in ("on_step", "on_shared", "on_gmma", "on_copy"):
            setattr(machine, hook, self._chain(hook, getattr(machine, hook, None)))
        machine.on_global = self._global

    def _chain(self, hook: str, then):
        mine = getattr(self, "_" + hook[3:])

        def both(*args):
            mine(*args)
            if then is not None:
                then(*args)
        return both

    def _step(self, ins: Instruction, warps: np.ndarray) -> None:
        slots = np.flatnonzero(warps)
        self.steps.append((ins.pc // 16, slots, self.machine.ex.reshape(-1, LANES)[slots].sum(axis=1)))

    def _place(self, slots: np.ndarray) -> None:
        self.placed.append((len(self.steps) - 1, slots, self.row))
        self.row += len(slots)

    def _shared(self, ins, form, ex, act, *rest) -> None:
        self._place(np.flatnonzero(ex.reshape(-1, LANES).any(axis=1)))

    def _gmma(self, ins, groups, info) -> None:
        self._place(np.asarray(groups))

    def _copy(self, ins, slots, infos) -> None:
        self._place(np.asarray(slots))

    def _global(self, threads: np.ndarray, addr: np.ndarray, size: int) -> None:
        warp = threads // LANES
        first = addr >> np.uint64(5)
        last = (addr + np.uint64(size - 1)) >> np.uint64(5)
        w = np.concatenate([warp, warp[last != first]])
        s = np.concatenate([first, last[last != first]]).astype(np.int64)
        key = np.unique(np.stack([w, s]), axis=1)
        self.global_events.append((len(self.steps) - 1, key[0], key[1]))

    def streams(self) -> WarpStreams:
        """The recorded warps of the kept CTAs."""
        m = self.machine
        wpc = m.warps_per_cta
        warps = np.concatenate([np.arange(c * wpc, (c + 1) * wpc) for c in self.keep]) if self.keep else np.zeros(0, np.int64)
        nsteps = len(self.steps)
        at = np.array([a for a, _, _ in self.steps], dtype=np.int32)
        step_of = np.concatenate([np.full(len(s), k, np.int64) for k, (_, s, _) in enumerate(self.steps)]) if nsteps else np.zeros(0, np.int64)
        warp_of = np.concatenate([s for _, s, _ in self.steps]) if nsteps else np.zeros(0, np.int64)
        active = np.concatenate([n for _, _, n in self.steps]) if nsteps else np.zeros(0, np.int64)
        key = warp_of * max(nsteps, 1) + step_of
        order = np.argsort(key, kind="stable")
        key = key[order]
        rows = np.full(len(key), -1, dtype=np.int64)
        for step, slots, first in self.placed:
            rows[np.searchsorted(key, slots * max(nsteps, 1) + step)] = first + np.arange(len(slots))
        sectors = np.full(len(key), -1, dtype=np.int64)
        sets: list[np.ndarray] = []
        for step, wslots, secs in self.global_events:
            for w in np.unique(wslots):
                sectors[np.searchsorted(key, w * max(nsteps, 1) + step)] = len(sets)
                sets.append(secs[wslots == w])
        bounds = np.searchsorted(key // max(nsteps, 1), np.stack([warps, warps + 1]))
        pcs = tuple(at[step_of[order][a:b]] for a, b in bounds.T)
        active = active[order]
        return WarpStreams(tuple(m.code), (), tuple(int(c) for c in m.ctas[self.keep]), wpc, pcs,
                           tuple(rows[a:b] for a, b in bounds.T), tuple(sectors[a:b] for a, b in bounds.T), tuple(sets),
                           tuple(active[a:b] for a, b in bounds.T))
