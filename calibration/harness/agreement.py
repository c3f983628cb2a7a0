"""Hold simsmem's bank model against a measured corpus: which rows it reproduces, which it does not.

For every row whose SASS opcode simsmem models (``simsmem.corpus.sass_form`` and an op the arch has),
the model's wavefronts and bank conflicts are compared with ncu's counters of the class that op
counts under (``ops.<OP>.wavefronts``/``bank_conflicts``: op_ld for LDS and LDSM, ...); rows of
forms the model lacks are listed as not compared.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from simsmem.banks import count
from simsmem.config import ArchConfig
from simsmem.corpus import corpus_trace
from simsmem.errors import TraceError
from simsmem.corpus import sass_form


@dataclass(frozen=True)
class Disagreement:
    """A row the model does not reproduce."""

    name: str
    sass: str
    measured: tuple[int, int]  # (wavefronts, bank conflicts) under the op's counter
    model: tuple[int, int]


def modelled(row: dict, arch: ArchConfig) -> bool:
    """Does the model claim this row: a shared-memory op (and atomic operation) the arch has?"""
    try:
        form = sass_form(row["sass"])
    except TraceError:
        return False
    spec = arch.ops.get(form["op"])
    if spec is None:
        return False
    if form["op"] == "ATOMS":
        kind = spec.atoms.get(form["atom"])
        return kind is not None and form["width"] in kind.widths
    return True


def compare(rows: list[dict], arch: ArchConfig) -> tuple[list[dict], list[Disagreement]]:
    """(rows compared, the disagreements among them)."""
    rows = [r for r in rows if modelled(r, arch)]
    if not rows:
        return [], []
    batch = corpus_trace(rows).instructions
    counts = count(batch, arch)
    out = []
    for i, r in enumerate(rows):
        spec = arch.op(sass_form(r["sass"])["op"])
        measured = (r["ncu"][spec.wavefronts], r["ncu"][spec.bank_conflicts])
        model = (int(counts.wavefronts[i]), int(counts.bank_conflicts[i]))
        if measured != model:
            out.append(Disagreement(r["name"], r["sass"], measured, model))
    return rows, out


def summary(rows: list[dict], all_rows: list[dict], bad: list[Disagreement]) -> str:
    """Per SASS opcode: rows compared and exact; then every disagreement; then what was not compared."""
    total = Counter(r["sass"] for r in rows)
    wrong = Counter(d.sass for d in bad)
    lines = [f"{'sass':<22} {'rows':>5} {'exact':>6}"]
    lines += [f"{s:<22} {n:>5} {n - wrong[s]:>6}" for s, n in sorted(total.items())]
    lines.append(f"{'all compared':<22} {len(rows):>5} {len(rows) - len(bad):>6}")
    if bad:
        lines.append("\ndisagreements (wavefronts, bank conflicts): measured vs model")
        lines += [f"  {d.name:<44} {d.sass:<16} {d.measured} vs {d.model}" for d in bad]
    compared = {r["name"] for r in rows}
    skipped = Counter(r["sass"] for r in all_rows if r["name"] not in compared)
    if skipped:
        lines.append("\nnot compared (forms the model lacks): " + ", ".join(f"{s} {n}" for s, n in sorted(skipped.items())))
    return "\n".join(lines) + "\n"
