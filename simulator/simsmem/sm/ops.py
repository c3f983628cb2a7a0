"""What the timed SM needs of each SASS opcode: the pipe it issues on and what kind of instruction it is.

``kind_of(ins)`` is the one table: a kind says how the SM times the instruction (``core.SM``): ``shared`` goes
through the MIO queue and the data path, ``load``/``store``/``atomic`` to global (or local) memory through the
LSU queue, ``copy`` (LDGSTS) both, ``barrier``, ``exit``, ``branch`` and the waits (``depbar``, ``commit``,
``membar``) act on the warp; every other kind is an arithmetic instruction on its ``pipe``, whose result is ready
after the stall count ptxas gave it or, where ptxas made it wait on a scoreboard, after the kind's
``latency`` (``SM.latency`` in the config). Hopper's asynchronous units: ``gmma`` (wgmma, the sub-partition's
tensor pipe for N/2 cycles, ``size`` holding N/2) and ``gmma_wait`` (WARPGROUP.DEPBAR), ``tma``/``tma_store``
(the copy engine), ``expect`` (an mbarrier arrive that expects the copies after it) and ``mbarrier_wait``
(SYNCS.PHASECHK); ``regalloc`` and ``regfree`` (USETMAXREG.TRY_ALLOC and .DEALLOC: setmaxnreg's register pool).
"""

from __future__ import annotations

import attrs

from ..kernel.sass import Instruction

SHARED = frozenset({"LDS", "STS", "LDSM", "STSM", "ATOMS"})
LOADS = frozenset({"LDG", "LD", "LDL"})
STORES = frozenset({"STG", "ST", "STL"})
ATOMICS = frozenset({"ATOMG", "ATOM", "RED", "REDG"})
BRANCHES = frozenset({"BRA", "JMP", "BRX", "JMX", "CALL", "RET", "BREAK", "BSSY", "BSYNC", "WARPSYNC", "KILL", "BPT", "NOP", "YIELD",
                      "ENDCOLLECTIVE"})
ALU = frozenset({"LOP3", "IADD3", "LEA", "ISETP", "SHF", "SEL", "PRMT", "IABS", "IMNMX", "VIMNMX", "FLO", "BMSK", "SGXT",
                 "MOV", "SHL", "SHR", "LOP", "IADD", "PLOP3", "P2R", "R2P", "FSEL", "FSETP", "FMNMX", "CS2R", "VOTE", "VOTEU",
                 "BREV", "ISCADD", "IDP", "IDP4A", "VABSDIFF", "VABSDIFF4", "LEPC", "ICMP", "FCHK", "HSETP2", "HSET2", "HMNMX2", "BFE", "BFI",
                 "F2FP"})
IMAD = frozenset({"IMAD", "IMUL", "IMADSP", "IMNMX3"})
FMA = frozenset({"FFMA", "FADD", "FMUL", "FMNMX3", "HFMA2", "HADD2", "HMUL2", "FSWZADD", "FFMA32I", "FADD32I", "FMUL32I", "VIADD",
                 "VIADDMNMX", "I2FP", "F2IP"})
FP64 = frozenset({"DFMA", "DADD", "DMUL", "DSETP", "DMNMX"})
CONV = frozenset({"F2F", "F2I", "I2F", "FRND", "I2I", "DRND"})  # on the XU; Hopper's I2FP and F2IP run on the FMA pipe, F2FP on the ALU
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


#: The (kind, pipe) of every opcode whose name alone decides it.
_BY_NAME: dict[str, tuple[str, str]] = {
    **dict.fromkeys(SHARED, ("shared", "lsu")), "LDGSTS": ("copy", "lsu"), **dict.fromkeys(LOADS, ("load", "lsu")),
    **dict.fromkeys(STORES, ("store", "lsu")), **dict.fromkeys(ATOMICS, ("atomic", "lsu")), "LDC": ("constant", "ldc"),
    "ULDC": ("constant", "uniform"), "SHFL": ("shuffle", "lsu"), **dict.fromkeys(("S2R", "S2UR", "B2R", "MATCH"), ("special", "s2r")),
    "BAR": ("barrier", "branch"), "UCGABAR_ARV": ("cluster_arrive", "branch"), "UCGABAR_WAIT": ("cluster_wait", "branch"), "EXIT": ("exit", "branch"), "LDGDEPBAR": ("commit", "lsu"), "DEPBAR": ("depbar", "branch"),
    **dict.fromkeys(("MEMBAR", "FENCE", "ERRBAR", "CCTL"), ("membar", "lsu")), **dict.fromkeys(BRANCHES, ("branch", "branch")),
    **dict.fromkeys(("MUFU", "POPC"), ("mufu", "mufu")),  # POPC on the XU too: H200 pipe probes, 17 a step, 8.1 an instruction
    **dict.fromkeys(FP64, ("fp64", "fp64")), **dict.fromkeys(CONV, ("conv", "conv")),
    **dict.fromkeys(IMAD, ("alu", "imad")), **dict.fromkeys(FMA, ("alu", "fma")), **dict.fromkeys(("R2UR", "REDUX", "ELECT"), ("alu", "uniform")),
    **dict.fromkeys(ALU, ("alu", "alu")), **dict.fromkeys(("UTMALDG", "UBLKCP"), ("tma", "uniform")), "UTMASTG": ("tma_store", "uniform"),
    "UTMACMDFLUSH": ("commit", "uniform"),
}


def kind_of(ins: Instruction) -> OpTiming:
    """The timing class of ``ins``."""
    name = ins.name
    if name in GMMA:
        return OpTiming("gmma", "gmma", _gmma_n(ins) / 2)
    if name in TENSOR:
        return OpTiming("tensor", "tensor", _mma_size(ins))
    if name == "WARPGROUP":
        return OpTiming("gmma_wait" if "DEPBAR" in ins.mods else "alu", "uniform")
    if name == "SYNCS":
        if "PHASECHK" in ins.mods:
            return OpTiming("mbarrier_wait", "lsu")
        return OpTiming("expect" if "ARRIVE" in ins.mods and "TRANS64" in ins.mods else "other", "lsu")
    if name == "USETMAXREG":  # setmaxnreg: .TRY_ALLOC takes registers from the CTA's pool (its loop retries until it can), .DEALLOC gives them
        return OpTiming("regalloc" if "TRY_ALLOC" in ins.mods else "regfree", "uniform")
    if name in _BY_NAME:
        return OpTiming(*_BY_NAME[name])
    if ins.opcode.startswith("HFMA2"):
        return OpTiming("alu", "fma")
    return OpTiming("alu", "uniform") if name.startswith("U") else OpTiming("other", "alu")
