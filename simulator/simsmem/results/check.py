"""A bound on bank conflicts, for CI: does a kernel (or a trace) stay under it, and which instruction is the worst.

``check(result, bound)`` judges the kernel's total bank conflicts (ncu's ``l1tex__data_bank_conflicts_..._op_*``
summed over the chosen ops); ``per_instruction`` judges each SASS instruction's instead. The worst instruction is
named by its source line where the trace has one (a traced kernel's header), else by its place in the trace.
"""

from __future__ import annotations

import attrs

from ..traces.records import sass_at
from .analysis import Result


@attrs.frozen
class Offender:
    """The instruction with the most bank conflicts among the chosen ops."""

    sass: str
    where: str  # "kernel.cu:42 (kernel.ptx:120)", or "trace instruction 17, warp 3"
    bank_conflicts: int


@attrs.frozen
class Verdict:
    """What ``check`` found."""

    bound: int
    ops: tuple[str, ...]  # empty: every op
    per_instruction: bool
    total: int  # bank conflicts of the chosen ops, whole kernel
    worst: Offender | None  # None: no instruction of the chosen ops has any

    @property
    def passed(self) -> bool:
        judged = (self.worst.bank_conflicts if self.worst else 0) if self.per_instruction else self.total
        return judged <= self.bound

    def line(self) -> str:
        """One line: the verdict, the figure judged against the bound, and the worst instruction."""
        of = "/".join(self.ops) if self.ops else "shared-memory"
        judged = f"worst {of} instruction has" if self.per_instruction else f"{of} instructions have"
        count = (self.worst.bank_conflicts if self.worst else 0) if self.per_instruction else self.total
        verdict = "ok" if self.passed else "too many bank conflicts"
        text = f"{verdict}: the {judged} {count:,} bank conflicts ({'at most' if self.passed else 'more than'} {self.bound:,} allowed)"
        if self.worst is not None:
            text += f"; worst: {self.worst.sass} at {self.worst.where}, {self.worst.bank_conflicts:,}"
        return text


def _op(sass: str) -> str:
    """The opcode without modifiers or guard: ``@!P0 LDS.U8 R1, [R2]`` -> ``LDS``."""
    words = sass.split()
    head = words[1] if words and words[0].startswith("@") and len(words) > 1 else (words[0] if words else "")
    return head.split(".", 1)[0]


def check(result: Result, bound: int, ops: tuple[str, ...] = (), per_instruction: bool = False) -> Verdict:
    """Judge ``result``'s bank conflicts of ``ops`` (SASS opcodes: LDS, STS, LDSM, ...; empty: all) against ``bound``."""
    chosen = (lambda sass: _op(sass) in ops) if ops else (lambda sass: True)
    worst: Offender | None = None
    if result.by_pc:  # a traced kernel: per SASS instruction, whole grid
        total = 0
        for pc, (_, _, _, conflicts) in sorted(result.by_pc.items()):
            code = sass_at(result.kernel, pc)
            sass = code.get("sass", f"SASS {pc:#06x}")
            if not chosen(sass):
                continue
            total += conflicts
            if conflicts and (worst is None or conflicts > worst.bank_conflicts):
                worst = Offender(sass, code.get("line") or f"SASS {pc:#06x}", int(conflicts))
    else:  # a trace of its own: per form for the total, per trace instruction for the worst (one CTA, times the CTAs)
        total = sum(int(v[3]) for label, v in result.forms.items() if chosen(label)) * result.ctas
        for w in result.worst:
            if chosen(w.sass):
                worst = Offender(w.sass, f"trace instruction {w.index}, warp {w.warp}", w.bank_conflicts * result.ctas)
                break
    return Verdict(bound, tuple(ops), per_instruction, total, worst)
