"""The trace a kernel's execution leaves: one trace-v1 row per warp per shared-memory instruction.

The machine tells the ``Recorder`` of every step (which warps executed an instruction) and of every
shared-memory instruction (which threads executed it, which acted, and where). A row's ``issue`` is
the number of other instructions its warp executed since its previous shared-memory instruction.
Rows gather into ``InstructionBatch`` es of about ``CHUNK`` rows, in execution order: the warps at
one instruction in warp order, then the next instruction.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..trace.records import ATOM_KINDS, FULL_MASK, INACTIVE, MATRIX_OPS, OPS, InstructionBatch, no_sources
from ..trace.stream import CHUNK
from .machine import LANES, Machine
from .sass import Instruction

_BITS = np.uint64(1) << np.arange(LANES, dtype=np.uint64)


class Recorder:
    """Rows of the shared-memory instructions a machine executes."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.since = np.zeros(machine.n // LANES, dtype=np.int64)  # instructions each warp executed since its last shared one (this one included)
        self.parts: list[dict[str, np.ndarray]] = []
        self.rows = 0
        machine.on_step = self.step
        machine.on_shared = self.shared

    def step(self, ins: Instruction, warps: np.ndarray) -> None:
        self.since[warps] += 1

    def shared(self, ins: Instruction, form: dict, ex: np.ndarray, act: np.ndarray, addr: np.ndarray, src: np.ndarray | None,
               zfill: np.ndarray | None = None) -> None:
        m = self.machine
        slots = np.flatnonzero(ex.reshape(-1, LANES).any(axis=1))
        n = len(slots)
        if not n:
            return
        acts = act.reshape(-1, LANES)[slots]
        lanes = np.where(acts, addr.reshape(-1, LANES)[slots], INACTIVE).astype(np.int32)
        op = form["op"]
        matrix = op in MATRIX_OPS
        if matrix:
            lanes[:, 8 * form["num"] :] = INACTIVE
            mask = np.full(n, FULL_MASK, dtype=np.uint32)
        else:
            mask = (acts.astype(np.uint64) * _BITS).sum(axis=1).astype(np.uint32)
        issue = self.since[slots] - 1
        self.since[slots] = 0
        part = {
            "op": np.full(n, OPS.index(op), dtype=np.uint8),
            "width": np.full(n, 0 if matrix else form["width"], dtype=np.uint8),
            "num": np.full(n, form.get("num", 0) if matrix else 0, dtype=np.uint8),
            "trans": np.full(n, bool(form.get("trans", False)), dtype=bool),
            "mask": mask,
            "warp": m.warp_id[slots * LANES].astype(np.int32),
            "issue": issue.astype(np.int32),
            "generic": np.full(n, bool(form.get("generic", False)), dtype=bool),
            "atom": np.full(n, ATOM_KINDS.index(form["atom"]) if op == "ATOMS" else 0, dtype=np.uint8),
            "bypass": np.full(n, bool(form.get("bypass", False)), dtype=bool),
            "addrs": lanes,
            "pc": np.full(n, ins.pc, dtype=np.int32),
        }
        if src is not None:
            part["src"] = np.where(acts, src.reshape(-1, LANES)[slots], INACTIVE).astype(np.int64)
        if zfill is not None:
            part["zfill"] = ((zfill.reshape(-1, LANES)[slots] & acts).astype(np.uint64) * _BITS).sum(axis=1).astype(np.uint32)
        self.parts.append(part)
        self.rows += n

    def take(self, at_least: int = CHUNK) -> Iterator[InstructionBatch]:
        """Batches of the rows gathered so far, each of at least ``at_least`` rows (all of them if ``at_least`` is 0)."""
        while self.parts and (self.rows >= at_least or at_least == 0):
            held, k = 0, 0
            while k < len(self.parts) and (held < at_least or at_least == 0):
                held += len(self.parts[k]["op"])
                k += 1
            parts, self.parts = self.parts[:k], self.parts[k:]
            self.rows -= held
            yield batch_of(parts)


def batch_of(parts: list[dict[str, np.ndarray]]) -> InstructionBatch:
    """One ``InstructionBatch`` of recorded parts."""
    n = sum(len(p["op"]) for p in parts)
    columns = {name: np.concatenate([p[name] for p in parts]) for name in parts[0] if name not in ("src", "zfill")}
    columns["zfill"] = np.concatenate([p["zfill"] if "zfill" in p else np.zeros(len(p["op"]), dtype=np.uint32) for p in parts])
    if any("src" in p for p in parts):
        columns["src"] = np.concatenate([p["src"] if "src" in p else np.full((len(p["op"]), LANES), INACTIVE, dtype=np.int64) for p in parts])
    else:
        columns["src"] = no_sources(n)
    zeros = np.zeros(n, dtype=np.int32)
    return InstructionBatch(**columns, wait=np.full(n, -1, dtype=np.int32), delay=np.zeros(n, dtype=np.int64), early=zeros, early_alu=zeros,
                            issue_alu=zeros)
