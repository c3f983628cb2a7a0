"""The instruction forms ``probe.cu`` holds: kernel name, the PTX it runs, the SASS it must compile to.

Every ``PROBE(name)`` in ``probe.cu`` has one ``Form`` here, and ``sass.check`` holds the two together:
a probe whose disassembly does not hold exactly its SASS opcode (once, executed) fails the check.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: SASS opcode roots of instructions that access shared memory (the ones a probe may hold once).
SHARED_ROOTS = frozenset({"LDS", "STS", "ATOMS", "LDSM", "STSM", "LDGSTS"})


@dataclass(frozen=True)
class Form:
    """One probe kernel (``probe_<kernel>``)."""

    kernel: str
    ptx: str  # what the probe executes, as PTX (or CUDA for misc probes)
    sass: str | None  # the SASS opcode it must hold; None: no key instruction (misc_exit)
    kind: str  # "memory": one shared instruction; "misc": none, `count` x sass; "loop": compiled, never launched
    count: int = 1  # how often `sass` occurs (misc probes)
    shared: tuple[str, ...] = ()  # misc probes: the shared-memory instructions they hold beside it
    extra: dict = field(default_factory=dict)  # extra corpus-row fields (atom kind)

    @property
    def lanes_all(self) -> bool:
        """LDSM/STSM run on all 32 lanes: their rows take no mask."""
        return self.kernel.startswith(("ldsm", "stsm"))


def _memory(kernel: str, ptx: str, sass: str, **extra) -> Form:
    return Form(kernel, ptx, sass, "memory", extra=extra)


def _atom(kernel: str, ptx: str, sass: str) -> Form:
    return _memory(kernel, ptx, sass, atom=ptx.split(".")[2])


FORMS: tuple[Form, ...] = (
    _memory("lds8", "ld.shared.u8", "LDS.U8"),
    _memory("lds8s", "ld.shared.s8", "LDS.S8"),
    _memory("lds16", "ld.shared.u16", "LDS.U16"),
    _memory("lds16s", "ld.shared.s16", "LDS.S16"),
    _memory("lds32", "ld.shared.u32", "LDS"),
    _memory("lds64", "ld.shared.v2.u32", "LDS.64"),
    _memory("lds128", "ld.shared.v4.u32", "LDS.128"),
    _memory("lds32_pred", "@p ld.shared.u32 (predicated, not branched around)", "LDS"),
    _memory("sts8", "st.shared.u8", "STS.U8"),
    _memory("sts16", "st.shared.u16", "STS.U16"),
    _memory("sts32", "st.shared.u32", "STS"),
    _memory("sts64", "st.shared.v2.u32", "STS.64"),
    _memory("sts128", "st.shared.v4.u32", "STS.128"),
    _memory("ldsm1", "ldmatrix.sync.aligned.m8n8.x1.shared.b16", "LDSM.16.M88"),
    _memory("ldsm2", "ldmatrix.sync.aligned.m8n8.x2.shared.b16", "LDSM.16.M88.2"),
    _memory("ldsm4", "ldmatrix.sync.aligned.m8n8.x4.shared.b16", "LDSM.16.M88.4"),
    _memory("ldsm1t", "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16", "LDSM.16.MT88"),
    _memory("ldsm2t", "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16", "LDSM.16.MT88.2"),
    _memory("ldsm4t", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "LDSM.16.MT88.4"),
    _memory("stsm1", "stmatrix.sync.aligned.m8n8.x1.shared.b16", "STSM.16.M88"),
    _memory("stsm2", "stmatrix.sync.aligned.m8n8.x2.shared.b16", "STSM.16.M88.2"),
    _memory("stsm4", "stmatrix.sync.aligned.m8n8.x4.shared.b16", "STSM.16.M88.4"),
    _memory("stsm1t", "stmatrix.sync.aligned.m8n8.x1.trans.shared.b16", "STSM.16.MT88"),
    _memory("stsm2t", "stmatrix.sync.aligned.m8n8.x2.trans.shared.b16", "STSM.16.MT88.2"),
    _memory("stsm4t", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "STSM.16.MT88.4"),
    _atom("atom_add", "atom.shared.add.u32", "ATOMS.ADD"),
    _atom("atom_exch", "atom.shared.exch.b32", "ATOMS.EXCH"),
    _atom("atom_min", "atom.shared.min.u32", "ATOMS.MIN"),
    _atom("atom_min_s", "atom.shared.min.s32", "ATOMS.MIN.S32"),
    _atom("atom_max", "atom.shared.max.u32", "ATOMS.MAX"),
    _atom("atom_max_s", "atom.shared.max.s32", "ATOMS.MAX.S32"),
    _atom("atom_inc", "atom.shared.inc.u32", "ATOMS.INC"),
    _atom("atom_dec", "atom.shared.dec.u32", "ATOMS.DEC"),
    _atom("atom_and", "atom.shared.and.b32", "ATOMS.AND"),
    _atom("atom_or", "atom.shared.or.b32", "ATOMS.OR"),
    _atom("atom_xor", "atom.shared.xor.b32", "ATOMS.XOR"),
    _atom("atom_cas", "atom.shared.cas.b32", "ATOMS.CAS"),
    _atom("atom_exch64", "atom.shared.exch.b64", "ATOMS.EXCH.64"),
    _atom("atom_cas64", "atom.shared.cas.b64", "ATOMS.CAS.64"),
    _atom("red_add", "red.shared.add.u32", "ATOMS.ADD"),
    _atom("red_min", "red.shared.min.u32", "ATOMS.MIN"),
    _atom("red_max", "red.shared.max.u32", "ATOMS.MAX"),
    _atom("red_inc", "red.shared.inc.u32", "ATOMS.INC"),
    _atom("red_and", "red.shared.and.b32", "ATOMS.AND"),
    _atom("red_or", "red.shared.or.b32", "ATOMS.OR"),
    _atom("red_xor", "red.shared.xor.b32", "ATOMS.XOR"),
    _atom("red_add1", "red.shared.add.u32 1", "ATOMS.POPC.INC.32"),
    _memory("ldgsts_ca4", "cp.async.ca.shared.global 4", "LDGSTS.E"),
    _memory("ldgsts_ca8", "cp.async.ca.shared.global 8", "LDGSTS.E.64"),
    _memory("ldgsts_ca16", "cp.async.ca.shared.global 16", "LDGSTS.E.128"),
    _memory("ldgsts_cg16", "cp.async.cg.shared.global 16", "LDGSTS.E.BYPASS.128"),
    Form("loop_atom_add64", "atom.shared.add.u64", "ATOMS.CAST.SPIN.64", "loop"),
    Form("loop_atom_min64", "atom.shared.min.u64", "ATOMS.CAST.SPIN.64", "loop"),
    Form("loop_atom_and64", "atom.shared.and.b64", "ATOMS.CAST.SPIN.64", "loop"),
    Form("loop_red_add64", "red.shared.add.u64", "ATOMS.CAST.SPIN.64", "loop"),
    Form("loop_atom_addf32", "atom.shared.add.f32", "ATOMS.CAST.SPIN", "loop"),
    Form("misc_exit", "(nothing: global load, global store, exit)", None, "misc", 0),
    Form("misc_bar", "bar.sync 0", "BAR.SYNC.DEFER_BLOCKING", "misc"),
    Form("misc_bar2", "bar.sync 0; bar.sync 0", "BAR.SYNC.DEFER_BLOCKING", "misc", 2),
    Form("misc_bar_red", "__syncthreads_count", "BAR.RED.POPC.DEFER_BLOCKING", "misc"),
    Form("misc_bar_named", "bar.sync 1, 32", "BAR.SYNC.DEFER_BLOCKING", "misc"),
    Form("misc_shfl_idx", "shfl.sync.idx", "SHFL.IDX", "misc"),
    Form("misc_shfl_idx2", "shfl.sync.idx twice", "SHFL.IDX", "misc", 2),
    Form("misc_shfl_bfly", "shfl.sync.bfly", "SHFL.BFLY", "misc"),
    Form("misc_shfl_up", "shfl.sync.up", "SHFL.UP", "misc"),
    Form("misc_shfl_down", "shfl.sync.down", "SHFL.DOWN", "misc"),
    Form("misc_shfl_masked", "shfl.sync.idx with the pattern's mask", "SHFL.IDX", "misc"),
    Form("misc_vote_ballot", "vote.sync.ballot", "VOTE.ANY", "misc"),
    Form("misc_vote_all", "vote.sync.all", "VOTE.ALL", "misc"),
    Form("misc_match_any", "match.sync.any", "MATCH.ANY", "misc"),
    Form("misc_redux_add", "redux.sync.add", "REDUX.SUM", "misc"),
    Form("misc_fence_cta", "__threadfence_block", "MEMBAR.SC.CTA", "misc"),
    Form("misc_fence_gpu", "__threadfence", "MEMBAR.SC.GPU", "misc"),
    Form("misc_nanosleep", "nanosleep", "NANOSLEEP", "misc"),
    Form("misc_ldgdepbar", "cp.async.commit_group", "LDGDEPBAR", "misc"),
    Form("misc_depbar", "cp.async.wait_all", "DEPBAR.LE", "misc"),
    Form("misc_sts_bar", "st.shared.u32; bar.sync 0", "BAR.SYNC.DEFER_BLOCKING", "misc", shared=("STS",)),
    Form("misc_sts128_bar", "st.shared.v4.u32; bar.sync 0", "BAR.SYNC.DEFER_BLOCKING", "misc", shared=("STS.128",)),
    Form("misc_lds_bar", "ld.shared.u32; bar.sync 0", "BAR.SYNC.DEFER_BLOCKING", "misc", shared=("LDS",)),
)

BY_KERNEL: dict[str, Form] = {f.kernel: f for f in FORMS}
