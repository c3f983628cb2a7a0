"""Read ``cuobjdump -sass`` output and check that every probe holds exactly its instruction.

A probe of kind ``memory`` passes when the only shared-memory instruction (``forms.SHARED_ROOTS``)
that can execute is its form's SASS opcode, once. Instructions guarded by ``@!PT`` never execute
(the compiler pads LDGSTS with three ``@!PT LDS RZ, [RZ]``); the report lists them apart. ``misc``
probes hold their key opcode ``count`` times and no shared-memory instruction but ``Form.shared``; ``loop`` forms only
record what the compiler emits (they are never launched).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .forms import FORMS, SHARED_ROOTS, Form

_FUNCTION = re.compile(r"^\s*Function : (\S+)")
_INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(?:(@!?U?P\w+)\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")


@dataclass(frozen=True)
class Instr:
    """One SASS instruction: address, guard predicate ('' if none), opcode, whole text."""

    address: str
    guard: str
    opcode: str
    text: str

    @property
    def never(self) -> bool:
        """Guarded by the constant-false predicate: never executes."""
        return self.guard == "@!PT"

    @property
    def shared(self) -> bool:
        return self.opcode.split(".")[0] in SHARED_ROOTS


def functions(dump: str) -> dict[str, list[Instr]]:
    """Each function's instructions (NOPs dropped), from a cuobjdump -sass dump."""
    out: dict[str, list[Instr]] = {}
    current: list[Instr] | None = None
    for line in dump.splitlines():
        if m := _FUNCTION.match(line):
            current = out.setdefault(m[1], [])
        elif current is not None and (m := _INSTRUCTION.match(line)) and m[3] != "NOP":
            text = f"{m[2] + ' ' if m[2] else ''}{m[3]}{m[4]}".strip()
            current.append(Instr(m[1], m[2] or "", m[3], text))
    return out


@dataclass(frozen=True)
class Verdict:
    """The check of one probe: passed or not, the opcode found, and the lines that show it."""

    form: Form
    ok: bool
    sass: str | None
    lines: tuple[str, ...]
    why: str


def check_form(form: Form, instrs: list[Instr]) -> Verdict:
    """Does the probe hold exactly its instruction (see the module docstring)?"""
    shared = [i for i in instrs if i.shared and not i.never]
    never = [i for i in instrs if i.shared and i.never]
    shown = tuple(f"/*{i.address}*/ {i.text}" + ("    (never executes)" if i.never else "") for i in shared + never)
    if form.kind == "memory":
        ok = len(shared) == 1 and shared[0].opcode == form.sass
        why = "" if ok else f"expected one executed {form.sass}, found {[i.opcode for i in shared]}"
        return Verdict(form, ok, shared[0].opcode if len(shared) == 1 else None, shown, why)
    if form.kind == "loop":
        body = tuple(f"/*{i.address}*/ {i.text}" for i in instrs if i.shared or i.opcode == "BRA")
        ok = any(i.opcode == form.sass for i in shared)
        return Verdict(form, ok, form.sass if ok else None, body, "" if ok else f"no {form.sass}")
    keys = [i for i in instrs if i.opcode == form.sass]
    ok = [i.opcode for i in shared] == list(form.shared) and len(keys) == form.count
    lines = tuple(f"/*{i.address}*/ {i.text}" for i in keys) + shown
    why = "" if ok else f"expected {form.count} x {form.sass} and shared instructions {list(form.shared)}"
    return Verdict(form, ok, form.sass, lines, why)


def check(dump: str) -> list[Verdict]:
    """Check every form against the dump; a probe missing from the dump fails, as does a stray one."""
    funcs = functions(dump)
    verdicts = []
    for form in FORMS:
        name = f"probe_{form.kernel}"
        if name not in funcs:
            verdicts.append(Verdict(form, False, None, (), "not in the binary"))
        else:
            verdicts.append(check_form(form, funcs[name]))
    known = {f"probe_{f.kernel}" for f in FORMS}
    strays = sorted(n for n in funcs if n.startswith("probe_") and n not in known)
    if strays:
        raise ValueError(f"probes in the binary that harness/forms.py does not know: {strays}")
    return verdicts


def report(verdicts: list[Verdict]) -> str:
    """The check as text: one block per probe (verdict, kernel, PTX, the instructions that decide it)."""
    bad = [v for v in verdicts if not v.ok]
    head = [
        "SASS check of calibration/probe.cu: each probe must hold exactly its shared-memory instruction",
        f"{len(verdicts)} probes, {len(verdicts) - len(bad)} pass, {len(bad)} fail",
        "",
    ]
    body = []
    for v in verdicts:
        status = "ok" if v.ok else f"FAIL ({v.why})"
        body.append(f"probe_{v.form.kernel} [{v.form.kind}] {v.form.ptx} -> {v.sass or '-'}: {status}")
        body.extend(f"    {line}" for line in v.lines)
    return "\n".join(head + body) + "\n"
