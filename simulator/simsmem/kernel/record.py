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

from ..traces.kinds import pack_box
from ..traces.records import (
    ATOM_KINDS,
    FULL_MASK,
    GMMA_TYPES,
    INACTIVE,
    MATRIX_OPS,
    OPS,
    PREDICATES,
    InstructionBatch,
    no_sources,
)
from ..traces.stream import CHUNK
from ..traces.v1 import DTYPES, FIELDS, LANE_COLUMNS
from .machine import LANES, Machine
from .sass import Instruction


def _mask(lanes: np.ndarray) -> np.ndarray:
    """Each row of 32 booleans as a uint32 mask, lane 0 its lowest bit."""
    return np.packbits(lanes, axis=1, bitorder="little").view("<u4").reshape(len(lanes))


class Recorder:
    """Rows of the shared-memory instructions a machine executes."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.since = np.zeros(machine.n // LANES, dtype=np.int64)  # instructions each warp executed since its last shared one (this one included)
        self.parts: list[tuple[int, dict]] = []  # (rows, their columns: arrays, or one value for all of them)
        self.rows = 0
        self.static: dict[int, tuple[dict, bool]] = {}  # id(form) -> ``_static(form)`` (the forms live as long as the machine's steps)
        machine.on_step = self.step
        machine.on_shared = self.shared
        machine.on_gmma = self.gmma
        machine.on_copy = self.copy

    def step(self, ins: Instruction, warps: np.ndarray) -> None:
        self.since += warps

    def shared(self, ins: Instruction, form: dict, ex: np.ndarray, act: np.ndarray, addr: np.ndarray, src: np.ndarray | None,
               zfill: np.ndarray | None = None, zeroed: np.ndarray | None = None, elsewhere: np.ndarray | None = None) -> None:
        """Rows of one shared-memory instruction: ``act`` the threads that act on shared memory at ``addr``; an LDGSTS's
        sources ``src`` and lanes ``zfill``, ``zeroed``; ``elsewhere``, per warp, a generic one's bytes outside shared memory."""
        m = self.machine
        if ex is m.ex and len(m.ex_ix) == m.n:  # every thread of the machine executes it: every warp, each a row
            n, slots = len(self.since), slice(None)
            everyone = act is ex
            acts = act.reshape(-1, LANES)
            lanes = addr.reshape(-1, LANES).astype(np.int64) if everyone else np.where(acts, addr.reshape(-1, LANES), INACTIVE)
            issue = self.since - 1
            self.since[:] = 0
            warp = m.warp_id[::LANES]
        else:
            slots = np.flatnonzero(ex.reshape(-1, LANES).any(axis=1))
            n = len(slots)
            if not n:
                return
            everyone = False
            acts = act.reshape(-1, LANES)[slots]
            lanes = np.where(acts, addr.reshape(-1, LANES)[slots], INACTIVE)
            issue = self.since[slots] - 1
            self.since[slots] = 0
            warp = m.warp_id[slots * LANES]
        held = self.static.get(id(form))
        if held is None:
            held = self.static[id(form)] = self._static(form)
        static, matrix = held
        part = dict(static)
        if matrix:  # LDSM, STSM: the row addresses of lanes 0..8*num-1
            lanes[:, 8 * static["num"] :] = INACTIVE
            part["mask"] = FULL_MASK
        else:
            part["mask"] = FULL_MASK if everyone else _mask(acts)
        part["warp"], part["issue"], part["addrs"], part["pc"] = warp, issue, lanes, ins.pc
        if src is not None:
            part["src"] = src.reshape(-1, LANES).astype(np.int64) if everyone else np.where(acts, src.reshape(-1, LANES)[slots], INACTIVE)
        for name, lanes_of in (("zfill", zfill), ("zeroed", zeroed)):
            if lanes_of is not None:
                if everyone:  # every lane acts: lanes_of as it is
                    part[name] = FULL_MASK if lanes_of is act else _mask(lanes_of.reshape(-1, LANES)) if lanes_of.any() else 0
                else:
                    part[name] = _mask(lanes_of.reshape(-1, LANES)[slots] & acts)
        if elsewhere is not None:  # per warp: a generic instruction's distinct bytes outside shared memory
            part["elsewhere"] = elsewhere[slots]
        self.parts.append((n, part))
        self.rows += n

    @staticmethod
    def _static(form: dict) -> tuple[dict, bool]:
        """The columns of a shared-memory instruction's rows that its form fixes, and whether it is a matrix op."""
        op = form["op"]
        matrix = op in MATRIX_OPS
        return {
            "op": OPS.index(op),
            "width": 0 if matrix else form["width"],
            "num": form.get("num", 0) if matrix else 0,
            "trans": bool(form.get("trans", False)),
            "generic": bool(form.get("generic", False)),
            "atom": ATOM_KINDS.index(form["atom"]) if op == "ATOMS" else 0,
            "bypass": bool(form.get("bypass", False)),
            "srcsize": bool(form.get("srcsize", False)),
            "pred": PREDICATES.index(form.get("pred", "P0")),
            "imm": bool(form.get("imm", False)),
        }, matrix

    def _block(self, ins: Instruction, first: np.ndarray, warps: int, op: str, fields: dict) -> None:
        """A row for each block op (a warpgroup's wgmma, a copy) of ``warps`` warps from the slots ``first``, numbered by
        the first."""
        issue = self.since[first] - 1
        self.since[(first[:, None] + np.arange(warps)).reshape(-1)] = 0
        part = {"op": OPS.index(op), "warp": self.machine.warp_id[first * LANES], "issue": issue, "pc": ins.pc}
        self.parts.append((len(first), part | fields))
        self.rows += len(first)

    def gmma(self, ins: Instruction, groups: np.ndarray, info: dict) -> None:
        """Warpgroups' wgmma (``isa.gmma``; ``groups``: their first warp slots, ``info``'s descriptors one a group): a
        row for the four warps of each."""
        self._block(ins, groups, 4, "GMMA", {"n": info["n"], "gtype": GMMA_TYPES.index(info["type"]),
                                             "desc_a": 0 if info["a"] is None else info["a"], "desc_b": info["b"],
                                             "tnsp": info["trans_a"] + 2 * info["trans_b"], "sparse": info["sparse"]})

    def copy(self, ins: Instruction, slots: np.ndarray, infos: list[dict]) -> None:
        """One step's TMA or bulk copies (``isa.tma``), one instruction's: a row each, from the warp slots ``slots``;
        ``info["off"]``: its warp executed it with the guard false in every lane (mask 0, nothing copied)."""
        rows = []
        for info in infos:
            off = info.get("off", False)
            fields = {"smem": 0, "size": 0, "mask": 0} if off else {"smem": info["smem"], "size": info["bytes"]}
            if info["kind"] == "tma":
                fields |= ({"box": pack_box((1,)), "elem": 1} if off else
                           {"box": pack_box(info["box"]), "elem": info["elem"], "swizzle": (info["swizzle"] // 16).bit_length() - 1 if info["swizzle"] else 0})
            else:
                fields["store"] = info["dir"] == "store"
            rows.append(fields)
        info = infos[0]
        op = "UBLKCP" if info["kind"] != "tma" else "UTMALDG" if info["dir"] == "load" else "UTMASTG"
        names = set().union(*rows)
        self._block(ins, slots, 1, op, {name: np.array([r.get(name, FIELDS[name].default if name in FIELDS else 0) for r in rows])
                                        for name in names})

    def take(self, at_least: int = CHUNK) -> Iterator[InstructionBatch]:
        """Batches of the rows gathered so far, each of at least ``at_least`` rows (all of them if ``at_least`` is 0)."""
        while self.parts and (self.rows >= at_least or at_least == 0):
            held, k = 0, 0
            while k < len(self.parts) and (held < at_least or at_least == 0):
                held += self.parts[k][0]
                k += 1
            parts, self.parts = self.parts[:k], self.parts[k:]
            self.rows -= held
            yield batch_of(parts)


def batch_of(parts: list[tuple[int, dict]]) -> InstructionBatch:
    """One ``InstructionBatch`` of recorded parts; a column a part leaves out holds the field's default there."""
    counts = [n for n, _ in parts]
    ends = np.cumsum(counts).tolist()
    n = ends[-1] if ends else 0
    columns = {}
    present = set().union(*(p for _, p in parts))  # the columns some part holds
    for name, dtype in DTYPES.items():
        if name == "src" and "src" not in present:
            columns[name] = no_sources(n)
            continue
        default = FIELDS[name].default if name in FIELDS else 0
        if name not in LANE_COLUMNS and dtype is not np.str_ and name in present:
            values = [p.get(name, default) for _, p in parts]
            if not any(isinstance(v, np.ndarray) for v in values):  # one value a part: repeated over its rows
                columns[name] = np.repeat(np.array(values, dtype=dtype), counts)
                continue
        column = columns[name] = np.full((n, LANES) if name in LANE_COLUMNS else n, default, dtype=dtype)
        if name in present:
            for start, end, (_, p) in zip([0] + ends, ends, parts):
                if name in p:
                    column[start:end] = p[name]
    return InstructionBatch(**columns)
