"""ncu's op_misc wavefronts (``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum``) as a kernel's execution makes them.

The rule, from the H100's op_misc probes (calibration/h100/op_misc*.json), the corpus (calibration/realk manifest.json:
248 of 248 kernels) and the H200's probes of calibration/realk/runs/2026-11-29-op-misc (16 of 16 in round 1, 6 of 8 in
round 2, each predicted before it ran), one wavefront for each of:

- a warp: its exit, once, however many parts its lanes exit in;
- a SHFL a warp executes; a MEMBAR of CTA scope (two for GPU and system scope: om2_fence_*, where ptxas follows it with
  ERRBAR, CGAERRBAR and CCTL.IVALL, which make none of their own, as CCTL.IVALL alone in hop_tma_st_*);
- a memory instruction (shared, global, generic or local) a warp executes with its guard false in every lane, such as
  the ``@!PT LDS RZ, [RZ]`` ptxas puts before LDGSTS groups (local memory's LDL and STL make none otherwise: om2_local;
  a predicated-off one is taken to count as the others do, not measured);
- a read of a thread's special register (S2R of ``SR_TID.*`` or ``SR_LANEID``) but a warp's first of ``SR_TID.X``;
  reads of ``SR_CTAID.*``, ``SR_CgaCtaId``, ``SR_SWINHI`` and the clocks make none (om_sr2..om_sr8, om_clk);
- a run of a CTA's barriers: a barrier counts unless none of the CTA's warps executed a memory instruction (or SHFL or
  MEMBAR) since the CTA's last one (om_bar0..3; lg_*_nold's back-to-back barriers);
- a generic atomic on shared memory that the shared path does not serve (kernel/isa/memory.py's ``unserved``);
- a ``FENCE.VIEW.ASYNC.S`` (fence.proxy.async.shared::cta) a warp executes.

Hopper's instructions, from the H200's runs of calibration/realk/hopper.json and the issue-37 sets (runs/2026-11-29-op-misc,
the addendum: rules fitted on the hop_* probes predicted the hold_* and issue-37 kernels they cover, 0 outside): the proxy
fence makes one a warp (after a MEMBAR: hop_wg_*, 13 = 4 exits + 1 barrier + 4 MEMBAR + 4 fences; alone: ist_*, 90 = 86
+ 4); wgmma with A in shared memory, WARPGROUP.ARRIVE/DEPBAR, mbarrier init, arrive, try_wait and invalidation, TMA
loads, bulk copies into shared memory and tensor-map prefetches make none (``HOPPER_NONE``; triton_matmul_*_sm90,
hopper_gemm_n128_stg, hop_tma_ld_*, hop_bulk_ld_*, tmap_by_pointer exactly the rule's count without them), and none of
them ends a run of barriers (hopper_gemm_n128_stg's k-loop barriers count none).

What else may make them is not measured, so a kernel that executes it leaves the counter unknown (``MiscWavefronts.unknown``):
Hopper's TMA and bulk stores (13 or 14 in hop_tma_st_*/hop_bulk_st_* of one rule's count, by no rule found: one kernel
varies between them), wgmma with A in registers (one more a CTA in the six one-instruction kernels: how it scales is not
measured), a fence (MEMBAR or proxy fence) by a warp after its wgmma (hopper_gemm_n64 and triton_tma_persistent count
fewer than one a warp for their epilogue's fences), a barrier with only proxy fences since the CTA's last (tmap_built
fits a proxy fence that ends a run, or a UTMACCTL.IV of one a warp), mbarrier test_waits, remote and transaction-count
arrives, multicast TMA, clusters, cache control but CCTL.IVALL, other proxy fences, other special registers (reading
%smid and %warpid, SR_VIRTUALSMID and SR_VIRTID, makes one a warp between them: om2_sreg), other fence scopes, setmaxnreg. ncu's count also varies run to run where CTAs of different waves share an SM
(scale_* on the H200); the analysis leaves it unknown there (``results/metrics.py``).
"""

from __future__ import annotations

import numpy as np

from .sass import Instruction

MISC = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum"
#: Instructions that pass the LSU: a predicated-off one makes a wavefront, and any one ends a run of barriers.
MEMORY = frozenset({"LDS", "STS", "ATOMS", "LDSM", "STSM", "LDGSTS", "LD", "ST", "ATOM", "RED", "LDG", "STG", "ATOMG", "REDG", "LDL",
                    "STL"})
#: Special registers read per thread, whose reads make a wavefront (but a warp's first of SR_TID.X), and those read free.
THREAD_REGISTERS = frozenset({"SR_TID.X", "SR_TID.Y", "SR_TID.Z", "SR_LANEID"})
FREE_REGISTERS = frozenset({"SR_CTAID.X", "SR_CTAID.Y", "SR_CTAID.Z", "SR_CgaCtaId", "SR_SWINHI", "SR_CLOCKLO", "SR_CLOCKHI"})
MEMBAR_SCOPES = {"CTA": 1, "GPU": 2, "SYS": 2}
#: What follows a MEMBAR of GPU or system scope (a PTX fence): none of their own (om2_fence_gpu_*, om2_fence_sys_w1).
FENCE_TAIL = frozenset({"ERRBAR", "CGAERRBAR", "CCTL.IVALL"})
#: Opcodes besides computations whose op_misc wavefronts are not measured, and what they are.
UNMEASURED = {"CCTL": "cache control", "CCTLL": "cache control", "FENCE": "a proxy fence", "PREEXIT": "PREEXIT",
              "USETMAXREG": "setmaxnreg", "ACQBULK": "ACQBULK", "ACQSHMINIT": "ACQSHMINIT", "PMTRIG": "a performance trigger",
              "UCGABAR": "a cluster barrier"}
#: What an instruction adds (``MiscWavefronts.kind``): none; its weight a warp; one a warp whose lanes all have their guard
#: false; one a warp that read SR_TID.X before; one a warp; nothing measured (the count is unknown); a fence's weight a
#: warp (unknown once the warp has executed a wgmma); none, but the warp has executed a wgmma.
_NONE, _EACH, _MEMORY, _TID_X, _THREAD, _UNKNOWN, _FENCE, _GMMA = range(8)
#: Why a fence after a wgmma, and a barrier with only proxy fences since the CTA's last, leave the count unknown.
AFTER_GMMA = "a fence after a wgmma"
FENCED_BARRIER = "a barrier with only proxy fences since the last"


#: Hopper instructions whose op_misc the H200's runs pin at none (runs/2026-11-29-op-misc, the addendum): the wgmma fence
#: and wait (hop_wg_*), mbarrier init, arrive (with expect-tx or not), try_wait and invalidation (hop_tma_ld_*, ist_*), TMA
#: loads (1D, 2D, 3D, 5D) and bulk copies into shared memory (hop_tma_ld_*, hop_bulk_ld_*), tensor-map prefetch (tmap_by_pointer).
#: Their predicated-off executions make none either (hop_tma_ld_*'s SYNCS.EXCH, tmap_by_pointer's UTMALDG).
HOPPER_NONE = frozenset({"WARPGROUP.ARRIVE", "WARPGROUP.DEPBAR.LE", "SYNCS.EXCH.64", "SYNCS.ARRIVE.TRANS64", "SYNCS.ARRIVE.TRANS64.A1T0",
                         "SYNCS.PHASECHK.TRANS64.TRYWAIT", "SYNCS.CCTL.IV", "UBLKCP.S.G", "UTMACCTL.PF",
                         "UTMALDG.1D", "UTMALDG.2D", "UTMALDG.3D", "UTMALDG.5D"})  # (no kernel measured has a 4D one)


def hopper_kind(ins: Instruction) -> tuple[int, int, str] | None:
    """The kind, weight and what-it-is of a Hopper instruction whose op_misc the H200's runs pin; None: not measured."""
    if ins.opcode in HOPPER_NONE:
        return _NONE, 0, ""
    if ins.name in ("HGMMA", "IGMMA", "QGMMA"):
        # A from shared memory (a descriptor): none (hop_wg_*, the Triton and TMA GEMMs), but the warp's later fences are not
        # measured. A from registers makes one more a CTA in each of the six kernels with one (hop_wg_rs_*, hold_wg_rs_*),
        # how that scales with more is not measured
        rs = len(ins.operands) > 1 and ins.operands[1].text.startswith("R")
        return None if rs else (_GMMA, 0, "")
    return None


class MiscWavefronts:
    """Adds a machine's op_misc wavefronts to its ``counted`` (under ``MISC``) as it runs ``code`` (``alive``: its
    threads that exist)."""

    def __init__(self, code: list[Instruction], alive: np.ndarray, cluster_size: int, counted: dict[str, int]) -> None:
        from .isa import guard, registry
        from .machine import any_lane  # (the machine imports this module)

        opcodes = registry()
        self._any_lane = any_lane
        self.kind: list[int] = []
        self.weight: list[int] = []
        self._guards: list = []
        self._what: list[str] = []  # an instruction of kind _UNKNOWN (or _FENCE): what it is
        self._why: set[str] = {"clusters"} if cluster_size > 1 else set()
        self._proxy: list[bool] = []  # a proxy fence (FENCE.VIEW.ASYNC.S), which a MEMBAR is not
        for ins in code:
            kind, weight, name, what = _NONE, 0, ins.name, ""
            if name in opcodes and opcodes[name].hopper:
                kind, weight, what = hopper_kind(ins) or (_UNKNOWN, 0, opcodes[name].hopper)
            elif ins.opcode == "FENCE.VIEW.ASYNC.S":  # the shared-memory proxy fence: one a warp
                kind, weight, what = _FENCE, 1, AFTER_GMMA
            elif ins.opcode in FENCE_TAIL:
                pass
            elif name in UNMEASURED:
                kind, what = _UNKNOWN, UNMEASURED[name]
            elif name == "SHFL":
                kind, weight = _EACH, 1
            elif name == "MEMBAR":
                scope = next((s for s in ins.mods if s in MEMBAR_SCOPES), None)
                kind, weight, what = (_FENCE, MEMBAR_SCOPES[scope], AFTER_GMMA) if scope else (_UNKNOWN, 0, ins.opcode)
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
            self._proxy.append(name == "FENCE")
        warps = any_lane(alive)
        self._counted = counted
        self._add(int(warps.sum()))  # each warp's exit
        self._tid_x = np.zeros(len(warps), dtype=bool)  # the warps that read SR_TID.X
        self._since = np.ones(len(warps), dtype=bool)  # the warps with a memory instruction since their CTA's last barrier
        self._gmma = np.zeros(len(warps), dtype=bool)  # the warps that executed a wgmma
        self._fenced = np.zeros(len(warps), dtype=bool)  # the warps with a proxy fence since their CTA's last barrier

    def step(self, at: int, m, ex: np.ndarray, warps: np.ndarray) -> None:
        """Instruction ``at`` executed by threads ``ex`` (``warps``: per warp slot, any of them) of machine ``m``."""
        kind = self.kind[at]
        if kind == _MEMORY:
            self._since |= warps
            g = self._guards[at]
            if g is not None:
                self._add(int(np.count_nonzero(warps & ~self._any_lane(g(m, ex)))))
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
        elif kind == _FENCE:
            if self._proxy[at]:
                self._fenced |= warps
            else:
                self._since |= warps
            self._add(self.weight[at] * int(np.count_nonzero(warps)))
            if (warps & self._gmma).any():
                self._why.add(self._what[at])
        elif kind == _GMMA:
            self._gmma |= warps

    @property
    def unknown(self) -> str:
        """Why the count is not the kernel's: what the machine ran whose op_misc wavefronts are not measured ("": none)."""
        return "; ".join(sorted(self._why))

    def barrier(self, released: np.ndarray) -> None:
        """A barrier let the threads ``released`` (one CTA's) go on."""
        warps = self._any_lane(released)
        if (self._since & warps).any():
            self._add(1)
        elif (self._fenced & warps).any():  # whether a proxy fence ends a run is not measured (tmap_built: it does, or
            self._why.add(FENCED_BARRIER)   # UTMACCTL.IV makes one)
        self._since &= ~warps
        self._fenced &= ~warps

    def _add(self, n: int) -> None:
        if n:
            self._counted[MISC] = self._counted.get(MISC, 0) + n
