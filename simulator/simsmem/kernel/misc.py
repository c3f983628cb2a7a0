"""ncu's op_misc wavefronts (``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum``) as a kernel's execution makes them.

The rule, from the H100's op_misc probes (calibration/h100/op_misc*.json), the corpus (calibration/realk manifest.json:
248 of 248 kernels) and the H200's probes of calibration/realk/runs/2026-11-29-op-misc (16 of 16, predicted before they
ran), one wavefront for each of:

- a warp: its exit, once, however many parts its lanes exit in;
- a SHFL a warp executes; a MEMBAR of CTA scope (two for GPU scope);
- a memory instruction (shared, global, generic or local) a warp executes with its guard false in every lane, such as
  the ``@!PT LDS RZ, [RZ]`` ptxas puts before LDGSTS groups;
- a read of a thread's special register (S2R of ``SR_TID.*`` or ``SR_LANEID``) but a warp's first of ``SR_TID.X``;
  reads of ``SR_CTAID.*``, ``SR_CgaCtaId``, ``SR_SWINHI`` and the clocks make none (om_sr2..om_sr8, om_clk);
- a run of a CTA's barriers: a barrier counts unless none of the CTA's warps executed a memory instruction (or SHFL or
  MEMBAR) since the CTA's last one (om_bar0..3; lg_*_nold's back-to-back barriers);
- a generic atomic on shared memory that the shared path does not serve (kernel/isa/memory.py's ``unserved``).

What else may make them is not measured, so a kernel that executes it leaves the counter unknown (``MiscWavefronts.unknown``):
Hopper's asynchronous instructions (mbarriers, TMA, wgmma, clusters), cache control, error barriers and proxy fences,
local memory, other special registers and fence scopes. ncu's count also varies run to run where CTAs of different
waves share an SM (scale_* on the H200); the analysis leaves it unknown there (``results/metrics.py``).
"""

from __future__ import annotations

import numpy as np

from .sass import Instruction

MISC = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum"
#: Instructions that pass the LSU: a predicated-off one makes a wavefront, and any one ends a run of barriers.
MEMORY = frozenset({"LDS", "STS", "ATOMS", "LDSM", "STSM", "LDGSTS", "LD", "ST", "ATOM", "RED", "LDG", "STG", "ATOMG", "REDG"})
#: Special registers read per thread, whose reads make a wavefront (but a warp's first of SR_TID.X), and those read free.
THREAD_REGISTERS = frozenset({"SR_TID.X", "SR_TID.Y", "SR_TID.Z", "SR_LANEID"})
FREE_REGISTERS = frozenset({"SR_CTAID.X", "SR_CTAID.Y", "SR_CTAID.Z", "SR_CgaCtaId", "SR_SWINHI", "SR_CLOCKLO", "SR_CLOCKHI"})
MEMBAR_SCOPES = {"CTA": 1, "GPU": 2}
#: Opcodes whose op_misc wavefronts are not measured, and what they are.
UNMEASURED = {"CCTL": "cache control", "CCTLL": "cache control", "ERRBAR": "an error barrier", "FENCE": "a proxy fence",
              "LDL": "local memory", "STL": "local memory", "PREEXIT": "PREEXIT", "USETMAXREG": "setmaxnreg"}
#: What an instruction adds (``MiscWavefronts.kind``): none; its weight a warp; one a warp whose lanes all have their guard
#: false; one a warp that read SR_TID.X before; one a warp; nothing measured (the count is unknown).
_NONE, _EACH, _MEMORY, _TID_X, _THREAD, _UNKNOWN = range(6)


class MiscWavefronts:
    """Adds a machine's op_misc wavefronts to its ``counted`` (under ``MISC``) as it runs ``code`` (``alive``: its
    threads that exist)."""

    def __init__(self, code: list[Instruction], alive: np.ndarray, cluster_size: int, counted: dict[str, int]) -> None:
        from .isa import guard, registry

        opcodes = registry()
        self.kind: list[int] = []
        self.weight: list[int] = []
        self._guards: list = []
        self._what: list[str] = []  # an instruction of kind _UNKNOWN: what it is
        self._why: set[str] = {"clusters"} if cluster_size > 1 else set()
        for ins in code:
            kind, weight, name, what = _NONE, 0, ins.name, ""
            if name in opcodes and opcodes[name].hopper:
                kind, what = _UNKNOWN, opcodes[name].hopper
            elif name in UNMEASURED:
                kind, what = _UNKNOWN, UNMEASURED[name]
            elif name == "SHFL":
                kind, weight = _EACH, 1
            elif name == "MEMBAR":
                scope = next((s for s in ins.mods if s in MEMBAR_SCOPES), None)
                kind, weight, what = (_EACH, MEMBAR_SCOPES[scope], "") if scope else (_UNKNOWN, 0, ins.opcode)
            elif name in MEMORY:
                kind = _MEMORY
            elif name in ("S2R", "S2UR"):
                register = ins.operands[-1].text
                if register == "SR_TID.X":
                    kind = _TID_X
                elif register in THREAD_REGISTERS:
                    kind = _THREAD
                elif register not in FREE_REGISTERS:
                    kind, what = _UNKNOWN, f"reads of {register}"
            self.kind.append(kind)
            self.weight.append(weight)
            self._what.append(what)
            self._guards.append(guard(ins) if kind == _MEMORY and ins.guard is not None else None)
        warps = alive.reshape(-1, 32).any(axis=1)
        self._counted = counted
        self._add(int(warps.sum()))  # each warp's exit
        self._tid_x = np.zeros(len(warps), dtype=bool)  # the warps that read SR_TID.X
        self._since = np.ones(len(warps), dtype=bool)  # the warps with a memory instruction since their CTA's last barrier

    def step(self, at: int, m, ex: np.ndarray, warps: np.ndarray) -> None:
        """Instruction ``at`` executed by threads ``ex`` (``warps``: per warp slot, any of them) of machine ``m``."""
        kind = self.kind[at]
        if kind == _MEMORY:
            self._since |= warps
            g = self._guards[at]
            if g is not None:
                acting = np.packbits(g(m, ex)).view(np.uint32) != 0
                self._add(int(np.count_nonzero(warps & ~acting)))
        elif kind == _EACH:
            self._since |= warps
            self._add(self.weight[at] * int(np.count_nonzero(warps)))
        elif kind == _TID_X:
            self._add(int(np.count_nonzero(warps & self._tid_x)))
            self._tid_x |= warps
        elif kind == _THREAD:
            self._add(int(np.count_nonzero(warps)))
        elif kind == _UNKNOWN:
            self._why.add(self._what[at])

    @property
    def unknown(self) -> str:
        """Why the count is not the kernel's: what the machine ran whose op_misc wavefronts are not measured ("": none)."""
        return "; ".join(sorted(self._why))

    def barrier(self, released: np.ndarray) -> None:
        """A barrier let the threads ``released`` (one CTA's) go on."""
        warps = released.reshape(-1, 32).any(axis=1)
        if (self._since & warps).any():
            self._add(1)
        self._since &= ~warps

    def _add(self, n: int) -> None:
        if n:
            self._counted[MISC] = self._counted.get(MISC, 0) + n
