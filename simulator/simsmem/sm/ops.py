"""What the timed SM needs of each SASS opcode: the pipe it issues on and what kind of instruction it is.

``kind_of(ins)`` is the one table: a kind says how the SM times the instruction (``core.SM``): ``shared`` goes
through the MIO queue and the data path, ``load``/``store``/``atomic`` to global (or local) memory through the
LSU queue, ``copy`` (LDGSTS) both, ``barrier``, ``exit``, ``branch`` and the waits (``depbar``, ``commit``,
``membar``) act on the warp; every other kind is an arithmetic instruction on its ``pipe``, whose result is ready
after the stall count ptxas gave it or, where ptxas made it wait on a scoreboard, after the kind's
``latency`` (``SM.latency`` in the config). Hopper's asynchronous units: ``gmma`` (wgmma, the sub-partition's
tensor pipe for N/2 cycles, ``size`` holding N/2) and ``gmma_wait`` (WARPGROUP.DEPBAR), ``tma``/``tma_store``
(the copy engine), ``expect`` (an mbarrier arrive that expects the copies after it) and ``mbarrier_wait``
(SYNCS.PHASECHK).
"""

from __future__ import annotations

import attrs

from ..kernel.sass import Instruction

SHARED = frozenset({"LDS", "STS", "LDSM", "STSM", "ATOMS"})
LOADS = frozenset({"LDG", "LD", "LDL"})
STORES = frozenset({"STG", "ST", "STL"})
ATOMICS = frozenset({"ATOMG", "ATOM", "RED", "REDG"})
BRANCHES = frozenset({"BRA", "JMP", "BRX", "JMX", "CALL", "RET", "BREAK", "BSSY", "BSYNC", "WARPSYNC", "KILL", "BPT", "NOP", "YIELD"})
ALU = frozenset({"LOP3", "IADD3", "LEA", "ISETP", "SHF", "SEL", "PRMT", "IABS", "IMNMX", "VIMNMX", "POPC", "FLO", "BMSK", "SGXT",
                 "MOV", "SHL", "SHR", "LOP", "IADD", "PLOP3", "P2R", "R2P", "FSEL", "FSETP", "FMNMX", "CS2R", "VOTE", "VOTEU",
                 "BREV", "ISCADD", "IDP", "IDP4A", "VABSDIFF", "VABSDIFF4", "LEPC", "ICMP", "FCHK", "HSETP2", "HMNMX2", "BFE", "BFI"})
IMAD = frozenset({"IMAD", "IMUL", "IMADSP", "IMNMX3"})
FMA = frozenset({"FFMA", "FADD", "FMUL", "FMNMX3", "HFMA2", "HADD2", "HMUL2", "FSWZADD", "FFMA32I", "FADD32I", "FMUL32I", "HFMA2.MMA"})
FP64 = frozenset({"DFMA", "DADD", "DMUL", "DSETP", "DMNMX"})
CONV = frozenset({"F2F", "F2I", "I2F", "FRND", "I2I", "F2FP", "I2FP", "F2IP", "DRND"})
TENSOR = frozenset({"HMMA", "IMMA", "DMMA", "BMMA"})
GMMA = frozenset({"HGMMA", "QGMMA", "IGMMA", "BGMMA"})


@attrs.frozen
class OpTiming:
    """How the timed SM treats one instruction: its ``kind``, the ``pipe`` it issues on and, for a tensor op, how many
    times an HMMA.16816's issue interval it holds the pipe (``size``)."""

    kind: str
    pipe: str
    size: float = 1.0


def _mma_size(ins: Instruction) -> float:
    """An MMA's multiply-adds over an m16n8k16's (``HMMA.1688``: half of it)."""
    shape = next((m for m in ins.mods if m.isdigit() and len(m) in (3, 4, 5)), "16816")
    dims = {"16816": 16 * 8 * 16, "1688": 16 * 8 * 8, "1684": 16 * 8 * 4, "16832": 16 * 8 * 32, "884": 8 * 8 * 4, "16864": 16 * 8 * 64}
    return dims.get(shape, 16 * 8 * 16) / (16 * 8 * 16)


def _gmma_n(ins: Instruction) -> int:
    """A wgmma's N (``HGMMA.64x128x16.F32``: 128)."""
    shape = next((m for m in ins.mods if m.startswith("64x")), "64x64x16")
    return int(shape.split("x")[1])


def kind_of(ins: Instruction) -> OpTiming:
    """The timing class of ``ins``."""
    name = ins.name
    if name in SHARED:
        return OpTiming("shared", "lsu")
    if name == "LDGSTS":
        return OpTiming("copy", "lsu")
    if name in LOADS:
        return OpTiming("load", "lsu")
    if name in STORES:
        return OpTiming("store", "lsu")
    if name in ATOMICS:
        return OpTiming("atomic", "lsu")
    if name in ("LDC", "ULDC"):
        return OpTiming("constant", "uniform" if name == "ULDC" else "lsu")
    if name == "SHFL":
        return OpTiming("shuffle", "lsu")
    if name in ("S2R", "S2UR", "B2R"):
        return OpTiming("special", "lsu")
    if name == "BAR":
        return OpTiming("barrier", "branch")
    if name == "EXIT":
        return OpTiming("exit", "branch")
    if name == "LDGDEPBAR":
        return OpTiming("commit", "lsu")
    if name == "DEPBAR":
        return OpTiming("depbar", "branch")
    if name in ("MEMBAR", "FENCE", "ERRBAR", "CCTL"):
        return OpTiming("membar", "lsu")
    if name in BRANCHES:
        return OpTiming("branch", "branch")
    if name == "MUFU":
        return OpTiming("mufu", "mufu")
    if name in GMMA:
        return OpTiming("gmma", "gmma", _gmma_n(ins) / 2)
    if name == "WARPGROUP":
        return OpTiming("gmma_wait" if "DEPBAR" in ins.mods else "alu", "uniform")
    if name in ("UTMALDG", "UBLKCP"):
        return OpTiming("tma", "uniform")
    if name == "UTMASTG":
        return OpTiming("tma_store", "uniform")
    if name == "UTMACMDFLUSH":
        return OpTiming("commit", "uniform")
    if name == "SYNCS":
        if "PHASECHK" in ins.mods:
            return OpTiming("mbarrier_wait", "lsu")
        return OpTiming("expect" if "ARRIVE" in ins.mods and "TRANS64" in ins.mods else "other", "lsu")
    if name in TENSOR:
        return OpTiming("tensor", "tensor", _mma_size(ins))
    if name in FP64:
        return OpTiming("fp64", "fp64")
    if name in CONV:
        return OpTiming("conv", "conv")
    if name in IMAD:
        return OpTiming("alu", "imad")
    if name in FMA or ins.opcode.startswith("HFMA2"):
        return OpTiming("alu", "fma")
    if name.startswith("U") or name in ("R2UR", "REDUX", "ELECT"):
        return OpTiming("alu", "uniform")
    if name in ALU:
        return OpTiming("alu", "alu")
    return OpTiming("other", "alu")
