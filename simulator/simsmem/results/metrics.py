"""Counters named as Nsight Compute names them, summed over a trace's instructions and CTAs."""

from __future__ import annotations

import numpy as np

from ..banks import Counts
from ..banks.blocks import block_bytes
from ..config import BANK_CONFLICTS, ArchConfig
from ..kernel.l1 import UNRULED
from ..kernel.misc import MISC
from ..sm.core import occupancy
from ..traces import MATRIX_OPS, OPS, InstructionBatch, Trace
from ..traces.lanes import INACTIVE
from ..traces.records import ATOM_KINDS, BLOCK_OPS, IS_MATRIX, Form
from .kept import warps_per_cta

TOTAL_BANK_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
DATA_BYTES = "smsp__sass_data_bytes_mem_shared.sum"
#: ncu's per-op byte counters (SASS op, not the wavefront counter class).
DATA_BYTES_OP = {
    "LDS": "smsp__sass_data_bytes_mem_shared_op_ld.sum",
    "STS": "smsp__sass_data_bytes_mem_shared_op_st.sum",
    "ATOMS": "smsp__sass_data_bytes_mem_shared_op_atom.sum",
    "LDSM": "smsp__sass_data_bytes_mem_shared_op_ldsm.sum",
    "STSM": "smsp__sass_data_bytes_mem_shared_op_stsm.sum",
    "LDGSTS": "smsp__sass_data_bytes_mem_shared_op_ldgsts.sum",
}
#: ncu's shared-memory wavefronts: the total, and its parts by op (``l1tex__..._op_ld.sum``, ``_op_misc.sum``...).
WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared"
TOTAL_WAVEFRONTS = f"{WAVEFRONTS}.sum"
WAVEFRONTS_OP = f"{WAVEFRONTS}_op_"
MISC_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_misc.sum"
#: Why op_misc (kernel/misc.py) and the total are unknown for a trace: only a kernel's execution makes them.
NO_EXECUTION = "only a kernel's execution makes op_misc wavefronts (exits, barriers, shuffles...): simsmem trace counts them"
OLD_HEADER = "the trace's header predates the op_misc rule: trace the kernel again"
WAVES = ("more CTAs than SMs, two or more an SM at once: where CTAs share an SM, ncu's op_misc count varies run to run, above or below the rule's (H200, "
         "calibration/realk/runs/2026-11-29-scale: scale_transpose_smem_naive_512, 2 CTAs an SM, 4,346-4,352 against 4,352; "
         "scale_hgemm_cpasync_plain_2048 65,113-65,171 against 64,512); in waves of one CTA an SM it is the rule's (*_occ1)")
#: ncu's wavefronts by command: reads (the ops' loads, atomics and wgmma operand reads) and writes (stores and atomics);
#: 252 of 253 corpus kernels on the H100 and 162 of 171 Hopper ones on the H200 (the misses: CAS retries that vary, and
#: distributed shared memory's atomics, which the reading CTA does not count).
COMMANDS = {f"{WAVEFRONTS}_cmd_read.sum": ("ld", "atom", "gmma"), f"{WAVEFRONTS}_cmd_write.sum": ("st", "atom")}
CLUSTER_COMMANDS = "a CTA's atomics on another CTA's shared memory count as writes only (H200, hopper.json: dsm_atom_*, dsm_red_*)"
LDGSTS_TOTAL = ("the total holds part of the LDGSTS copies' L1-level wavefronts, by no rule found (all of CuTe's, part of Triton's: "
                "docs/hopper.md)")


#: ncu's L1TEX data-bank counters (4-byte bank words read and written): a traced kernel's shared-memory instructions'
#: words (``banks/reference.py`` rule 8; a wgmma's and a TMA copy's bytes, ``banks/blocks.py``) and its global accesses'
#: through L1 (``kernel/l1.py``, the header's ``l1_words``), each SM's sum rounded to even, reads down and writes up
#: (calibration/bank_rw.py, runs/2026-11-29-bankrw): ``bank_words``.
BANK_READS = "l1tex__data_bank_reads.sum"
BANK_WRITES = "l1tex__data_bank_writes.sum"
NO_GLOBAL_SIDE = "ncu adds the kernel's global accesses through L1, which only a traced kernel's header holds (l1_words: simsmem trace writes it)"
#: Shared-memory instructions whose bank words vary run to run (H100, calibration/realk/runs/2026-11-29-bankrw/NOTES.md).
CA_PHASES = ("an LDGSTS .ca copy reads more than its lanes' words where its phase takes several wavefronts (by no rule found) or "
             "its CTA has several warps (hgemm_cpasync_*: 2,136 to 4,600 more of 184,000, varying run to run)")
BYTE_STORES = "byte stores (STS.U8) of a CTA of several warps read more than their words, varying run to run (transpose_u8_*: 16 to 160)"
SPIN_CAS = "ATOMS.CAST.SPIN loops of several warps retry as the hardware orders the warps, not the trace (smem_atomic_cas_spread4)"


def bank_unknown(kernel: dict | None, arch: ArchConfig) -> str:
    """Why a trace's ``BANK_READS`` and ``BANK_WRITES`` are unknown from its header alone ("": they are not)."""
    if kernel and kernel.get("l1_unknown"):
        return f"not modelled in a kernel with {kernel['l1_unknown']} (calibration/realk/runs/2026-11-29-bankrw)"
    if not kernel or "l1_words" not in kernel:
        return NO_GLOBAL_SIDE
    if len(kernel["l1_words"]) > (arch.sm.sms if arch.sm else 1):
        return ("more CTAs than SMs: CTAs that share an SM share its L1 and its rounding, in an order the trace does not have "
                "(H200 pg16_thread_256: 61,440 fewer writes than one L1 a CTA)")
    return ""


def misc_unknown(kernel: dict | None, arch: ArchConfig) -> str:
    """Why a trace's op_misc wavefronts (``kernel/misc.py``) are unknown ("": its header has them)."""
    if not kernel or not isinstance(kernel.get("executed"), int):
        return NO_EXECUTION
    if kernel.get("misc_unknown"):
        return f"not modelled in a kernel with {kernel['misc_unknown']} (calibration/realk/runs/2026-11-29-op-misc)"
    if MISC not in kernel.get("counted", {}):
        return OLD_HEADER
    if isinstance(kernel.get("grid"), list) and int(np.prod(kernel["grid"])) > (arch.sm.sms if arch.sm else 1) and _shares(kernel, arch):
        return WAVES
    return ""


def _shares(kernel: dict, arch: ArchConfig) -> bool:
    """Whether an SM may hold two of a traced kernel's CTAs at once (its header's registers and shared bytes against the
    timed SM's ``occupancy``; unknown without them: yes)."""
    registers, shared = kernel.get("registers"), kernel.get("shared_bytes")
    if not isinstance(registers, int) or not isinstance(shared, int) or arch.sm is None:
        return True
    return occupancy(arch.sm, arch, warps_per_cta(kernel) or 1, registers, shared) > 1


def with_total(metrics: dict[str, int], unknown: dict[str, str], kernel: dict | None, arch: ArchConfig) -> tuple[dict[str, int], dict[str, str]]:
    """``metrics`` and ``unknown`` with op_misc, ``TOTAL_WAVEFRONTS`` (the sum of the ops' wavefronts where each is known
    and no LDGSTS ran: each known kernel of calibration/realk manifest.json without LDGSTS sums so on the H100) and the
    wavefronts by command (``COMMANDS``), else the reason in ``unknown``."""
    why = misc_unknown(kernel, arch)
    unknown = {**unknown, MISC: why, MISC_CONFLICTS: why} if why else dict(unknown)
    if not why:  # 0 in every corpus kernel (isa_warp: 0 in four runs of five, 4 in one)
        metrics = {**metrics, MISC_CONFLICTS: 0}
    metrics = {k: v for k, v in metrics.items() if k not in unknown}
    if "LDGSTS" in arch.ops and metrics.get(arch.op("LDGSTS").instructions, 0):
        unknown[TOTAL_WAVEFRONTS] = unknown.get(TOTAL_WAVEFRONTS, LDGSTS_TOTAL)
    parts = [k for k in unknown if k.startswith(WAVEFRONTS_OP)]
    if parts:
        unknown[TOTAL_WAVEFRONTS] = unknown.get(TOTAL_WAVEFRONTS, unknown[parts[0]])
    if TOTAL_WAVEFRONTS not in unknown:
        metrics[TOTAL_WAVEFRONTS] = sum(v for k, v in metrics.items() if k.startswith(WAVEFRONTS_OP))
    for name, ops in COMMANDS.items():
        parts = [f"{WAVEFRONTS_OP}{op}.sum" for op in ops]
        if kernel and kernel.get("cluster"):
            unknown[name] = CLUSTER_COMMANDS
        elif any(p in unknown for p in parts):
            unknown[name] = next(unknown[p] for p in parts if p in unknown)
        else:
            metrics[name] = sum(metrics.get(p, 0) for p in parts)
    return dict(sorted(metrics.items())), unknown


def bank_unmodelled(b: InstructionBatch, counts: Counts, kernel: dict | None) -> dict[str, str]:
    """``BANK_READS`` or ``BANK_WRITES`` that instructions ``b`` (``counts``: theirs) leave unknown, and why."""
    out = {}
    several = (warps_per_cta(kernel) or 1) > 1
    ca = (b.op == OPS.index("LDGSTS")) & ~b.bypass
    if (ca & ((counts.wavefronts > counts.ideal) | several)).any():
        out[BANK_READS] = CA_PHASES
    if several and ((b.op == OPS.index("STS")) & (b.width == 8)).any():
        out[BANK_READS] = BYTE_STORES
    if several and ((b.op == OPS.index("ATOMS")) & (b.atom == ATOM_KINDS.index("cast"))).any():
        out[BANK_READS] = out[BANK_WRITES] = SPIN_CAS
    return out


def bank_metrics(trace: Trace, counts: Counts) -> dict[str, int]:
    """The shared-memory instructions' part of ``BANK_READS`` and ``BANK_WRITES``, times ``trace.ctas``."""
    return {BANK_READS: int(counts.bank_reads.sum()) * trace.ctas, BANK_WRITES: int(counts.bank_writes.sum()) * trace.ctas}


def bank_words(shared: dict[int, np.ndarray], kernel: dict | None, arch: ArchConfig) -> dict[str, int]:
    """``BANK_READS`` and ``BANK_WRITES`` of a traced kernel of at most one CTA an SM: each CTA's shared-memory
    instructions' words (``shared``: linear CTA -> [read, written]) plus its global accesses' (``kernel["l1_words"]``),
    its reads rounded down and its writes up to even, as its SM reports them. Empty where ``bank_unknown`` says why."""
    if bank_unknown(kernel, arch):
        return {}
    words = np.array([[r, w] for _, r, w in kernel["l1_words"]] or [[0, 0]], dtype=np.int64)
    words += np.array([shared.get(cta, np.zeros(2, np.int64)) for cta, _, _ in kernel["l1_words"]] or [[0, 0]], dtype=np.int64)
    return {BANK_READS: int((words[:, 0] // 2 * 2).sum()), BANK_WRITES: int(((words[:, 1] + 1) // 2 * 2).sum())}


#: What ``reported`` writes in place of a number simsmem does not model for a trace.
NOT_MODELLED_MARK = "not modelled"


#: Why ``TOTAL_BANK_CONFLICTS`` is unknown in a kernel with an mbarrier: ncu's total holds op_misc's bank conflicts too.
MBARRIER_CONFLICTS = ("the total holds op_misc's bank conflicts, which simsmem does not model: an mbarrier's traffic (try_wait loops, "
                      "arrives, invalidations) made 125-131 in triton_tma_attention (H200, runs/2026-11-29-triton-tma), 0 in every "
                      "other measured Hopper kernel (hopper.json, the two TMA matmuls)")


GENERIC_SHARED = ("a generic access counts as a shared one where a lane acted on the CTA's own shared memory, which only a "
                  "kernel's execution tells (simsmem trace writes it in the header)")


def settled(unknown: dict[str, str], kernel: dict | None) -> dict[str, str]:
    """``unknown`` once a trace has been read to its end: a traced kernel's header then holds what generic accesses left
    unknown (``kernel.counted``) and whether the kernel has an mbarrier (``l1_unknown`` names it), which the chunks, counted
    before the header was complete, could not see."""
    out = {k: v for k, v in unknown.items() if not (v == GENERIC_SHARED and kernel and "counted" in kernel)}
    if kernel and UNRULED["SYNCS"] in kernel.get("l1_unknown", ""):
        out[TOTAL_BANK_CONFLICTS] = out.get(TOTAL_BANK_CONFLICTS, MBARRIER_CONFLICTS)
    return out


def unmodelled(b: InstructionBatch, kernel: dict | None, arch: ArchConfig) -> dict[str, str]:
    """The counters of ``kernel_metrics`` that instructions ``b`` of a trace (``kernel``: its header) leave unknown, and why
    (calibration/realk/runs/2026-11-29-counters): the two LDGSTS rules ncu's counters follow only in part."""
    ldgsts = b.op == OPS.index("LDGSTS")
    out = {}
    if b.generic.any() and not (kernel and "counted" in kernel):
        for name in {OPS[op] for op in np.unique(b.op[b.generic])} & {n for n, spec in arch.ops.items() if spec.sass_instructions}:
            out[arch.ops[name].sass_instructions] = GENERIC_SHARED
    if ldgsts.any():
        spec = arch.op("LDGSTS")
        why = "" if spec.line_classes else f"no rule for {arch.name}'s L1-level LDGSTS bank conflicts (line_classes)"
        if not why and _shared(kernel, arch, 1):
            why = ("several warps may copy at once (LDGSTS): ncu's L1-level LDGSTS bank conflicts then vary run to run above the "
                   "one-warp rule simsmem counts (0-633 on the Triton matmuls, 65,547-65,647 on pg16_thread_256)")
        if why:
            out[TOTAL_BANK_CONFLICTS] = out[BANK_CONFLICTS.format(spec.counter)] = why
    if (ldgsts & b.imm).any() and _shared(kernel, arch, arch.sub_partitions):
        out[DATA_BYTES] = out[DATA_BYTES_OP["LDGSTS"]] = ("an LDGSTS with an immediate offset counts one lane's bytes when its warp has its "
                                                          "sub-partition to itself; with several warps to one, more, varying run to run")
    return out


def _shared(kernel: dict | None, arch: ArchConfig, room: int) -> bool:
    """Whether a traced kernel's warps may share what ``room`` warps have to themselves (1: an SM's L1; the sub-partitions'
    count: a sub-partition): more warps a CTA than ``room``, or more CTAs than SMs (unknown without a kernel header: yes)."""
    if not kernel or not isinstance(kernel.get("block"), list) or not isinstance(kernel.get("grid"), list):
        return True
    warps = -(-int(np.prod(kernel["block"])) // arch.warp_size)
    return warps > room or int(np.prod(kernel["grid"])) > (arch.sm.sms if arch.sm else 1)


def reported(metrics: dict[str, int], unknown: dict[str, str]) -> dict[str, int | str]:
    """``metrics`` with ``NOT_MODELLED_MARK`` for each counter of ``unknown`` (``unmodelled``), as the outputs write them."""
    return {**metrics, **dict.fromkeys(unknown, NOT_MODELLED_MARK)}


#: ncu's SASS-level instruction counters count a warp's instruction only where its guard holds in a lane; the warp-level
#: ones (``smsp__inst_executed_*``) wherever the warp executes it (H200, runs/2026-11-29-hopper-ws: tmap_by_pointer's
#: ``@!UP1 UTMALDG``, executed by the three warps that do not copy too: 10 warp-level, 4 SASS-level).
SASS_LEVEL = "smsp__sass_inst_executed"


#: ncu's count of every warp-level SASS instruction executed: ``simsmem trace`` counts it (header ``kernel.executed``).
INST_EXECUTED = "smsp__inst_executed.sum"


def kernel_counters(kernel: dict | None) -> dict[str, int]:
    """Counters a traced kernel's header gives beyond its shared-memory rows: every instruction executed, and the
    generic and global memory instructions (``counted``; kernel/isa/memory.py: a generic access's part of the SASS-level
    shared counters is there too, as only execution tells it)."""
    if not kernel or not isinstance(kernel.get("executed"), int):
        return {}
    return {INST_EXECUTED: kernel["executed"], **kernel.get("counted", {})}


def with_kernel_counters(metrics: dict[str, int], kernel: dict | None) -> dict[str, int]:
    """``metrics`` plus ``kernel_counters`` (a counter in both: the sum)."""
    out = dict(metrics)
    for name, n in kernel_counters(kernel).items():
        out[name] = out.get(name, 0) + n
    return dict(sorted(out.items()))


def acted(b: InstructionBatch) -> np.ndarray:
    """The rows a lane executed with its guard true (a mask of 0, or an ldmatrix row without an address, is a warp that
    executed the instruction with its guard false in every lane): what ncu's SASS-level counters (``SASS_LEVEL``) count,
    the warp-level ones every row (H100, calibration/realk manifest.json: the @!PT LDS ptxas pads LDGSTS with, triton_*'s
    predicated-off loads; H200, counters.json cpc_*_fresh: a predicated LDGSTS; hopper.json tmap_*: @!UP1 UTMALDG)."""
    out = b.mask != 0
    matrix = IS_MATRIX[b.op]
    if matrix.any():
        out[matrix] = (b.addrs[matrix] != INACTIVE).any(axis=1)
    return out


def unit(metric: str) -> str:
    """The unit ncu prints for ``metric`` in its CSV."""
    if metric.startswith(("smsp__inst_executed", "smsp__sass_inst_executed")):
        return "inst"
    if "data_bytes" in metric:
        return "byte"
    if "cycles" in metric:
        return "cycle"
    return ""


def instructions(batch: InstructionBatch, arch: ArchConfig) -> np.ndarray:
    """The warp-level instructions each row stands for (a warpgroup's wgmma: 4; every other row: 1)."""
    per = np.ones(len(OPS), dtype=np.int64)
    for name, block in arch.block_ops.items():
        per[OPS.index(name)] = block.per_row
    return per[batch.op]


def kernel_metrics(trace: Trace, counts: Counts, arch: ArchConfig) -> dict[str, int]:
    """Kernel totals: per-CTA sums over the trace's instructions, times ``trace.ctas``."""
    b = trace.instructions
    per_op = {name: np.flatnonzero(b.op == OPS.index(name)) for name in OPS}
    out: dict[str, int] = {}
    on = acted(b) & ~b.generic  # a generic row's SASS-level count comes from the kernel's header (``kernel_counters``)
    for name, spec in arch.ops.items():
        rows = per_op.get(name, np.empty(0, dtype=np.int64))
        out[spec.instructions] = out.get(spec.instructions, 0) + int((~b.generic[rows]).sum())
        if spec.sass_instructions:
            out[spec.sass_instructions] = out.get(spec.sass_instructions, 0) + int(on[rows].sum())
        for key, values in ((spec.wavefronts, counts.wavefronts), (spec.bank_conflicts, counts.bank_conflicts)):
            out[key] = out.get(key, 0) + int(values[rows].sum())
        if name in DATA_BYTES_OP:
            out[DATA_BYTES_OP[name]] = int(counts.bytes[rows].sum())
        l1 = int(counts.l1_bank_conflicts[rows].sum())
        if spec.bank_conflicts != BANK_CONFLICTS.format(spec.counter):  # LDGSTS: ncu's L1-level counter is another (rule 11)
            out[BANK_CONFLICTS.format(spec.counter)] = out.get(BANK_CONFLICTS.format(spec.counter), 0) + l1
        out[TOTAL_BANK_CONFLICTS] = out.get(TOTAL_BANK_CONFLICTS, 0) + l1  # the total sums the l1tex__ per-op counters
    for name, block in arch.block_ops.items():
        rows = per_op[name]
        store, copied = b.store[rows], on[rows]  # a copy's mask 0: its guard was false in every lane
        for metrics, kind in ((block.instructions, ~store), (block.store_instructions or block.instructions, store)):
            for metric in metrics:
                n = int((kind & copied).sum() if metric.startswith(SASS_LEVEL) else kind.sum())
                out[metric] = out.get(metric, 0) + n * block.per_row
        if block.wavefronts:
            out[block.wavefronts] = out.get(block.wavefronts, 0) + int(counts.wavefronts[rows].sum())
            out[block.bank_conflicts] = out.get(block.bank_conflicts, 0) + int(counts.bank_conflicts[rows].sum())
        if block.data_bytes:
            out[block.data_bytes] = out.get(block.data_bytes, 0) + int(block_bytes(b, rows).sum())
    out[DATA_BYTES] = int(counts.bytes.sum())
    return {k: v * trace.ctas for k, v in sorted(out.items())}


def op_label(op: str, width: int, num: int, trans: bool, atom: str = "add", bypass: bool = False, store: bool = False) -> str:
    """The SASS spelling of an instruction form: ``LDS.128``, ``LDSM.16.MT88.4``, ``ATOMS.CAS.64``, ``LDGSTS.E.BYPASS.128``,
    ``UBLKCP.S.G`` (a bulk copy into shared memory); a wgmma (HGMMA, QGMMA, IGMMA) is ``GMMA``."""
    if op == "UBLKCP":
        return "UBLKCP.G.S" if store else "UBLKCP.S.G"
    if op in BLOCK_OPS:
        return op
    if op in MATRIX_OPS:
        return f"{op}.16.{'MT88' if trans else 'M88'}" + (f".{num}" if num > 1 else "")
    if op == "LDGSTS":
        return "LDGSTS.E" + (".BYPASS" if bypass else "") + {32: "", 64: ".64", 128: ".128"}[width]
    if op == "ATOMS":
        return "ATOMS." + {"popc_inc": "POPC.INC", "cast": "CAST.SPIN"}.get(atom, atom.upper()) + (".64" if width == 64 else "")
    suffix = {8: ".U8", 16: ".U16", 32: "", 64: ".64", 128: ".128"}[width]
    return op + suffix


def labels(batch: InstructionBatch) -> np.ndarray:
    """``op_label`` of every instruction (computed once per distinct form)."""
    form = batch.forms()
    out = np.empty(len(batch), dtype=object)
    for key in np.unique(form):
        f = Form.of(key)
        out[form == key] = op_label(f.op, f.width, f.num, f.trans, f.atom, f.bypass, f.store)
    return out
