"""Why an instruction has bank conflicts: its wavefronts bank by bank, a one-line diagnosis, and a fix in the
kernel author's terms, found by trying changes of the instruction's shared arrays through the model.

The reference model (``simsmem.banks.schedule``) says which lanes each wavefront serves from which
bank. A *merge group* (an 8x8 matrix, the warp, a half- or quarter-warp) that takes more wavefronts
than ideal has a conflict: the lanes of its different wavefronts use the same banks for different
words. The fixes are those of ``simsmem.explain.fixes`` for the arrays the instruction touches (``simsmem.explain.arrays``): a
declaration, a padding or a swizzle, each counted over the whole trace and ranked by the kernel's wavefronts (its
cycles where it is timed); none that leaves the kernel's total as it is.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable

import attrs
import numpy as np
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..banks import Schedule, schedule
from ..errors import SimsmemError
from ..results.metrics import op_label
from ..results.report import SM
from ..traces import MATRIX_OPS, Instruction
from ..traces.records import sass_at
from .arrays import Array, arrays_of
from .distinct import Distinct
from .fixes import Fix, search


@attrs.frozen
class Conflict:
    """A merge group that took more wavefronts than ideal, and who collided in it."""

    group: int
    lanes: tuple[tuple[int, ...], ...]  # per wavefront of the group, its lanes on the shared banks
    banks: tuple[int, ...]  # banks that serve in more than one of them
    extra: int  # wavefronts beyond the group's ideal
    same_word: bool  # some bank serves one word several times (no broadcast: atomics)


@attrs.frozen
class Explanation:
    """One instruction of a trace: how it is served, why, and what would fix it."""

    index: int
    instruction: Instruction
    schedule: Schedule
    conflicts: tuple[Conflict, ...]
    arrays: tuple[Array, ...]  # the shared arrays it touches
    fixes: tuple[Fix, ...]  # of those arrays, best for the whole kernel first
    after: tuple[int, ...]  # this instruction's bank conflicts after each fix
    twins: int  # other instructions of the trace with the same pattern (addresses shifted by whole words)
    diagnosis: str
    where: str = ""  # traced kernels: the SASS instruction and the PTX (and source) line it came from
    stalls: dict[str, int] = attrs.field(factory=dict)  # timed launches: its SASS instruction's stall cycles by reason (all warps)

    @property
    def label(self) -> str:
        i = self.instruction
        return op_label(i.op, i.width, i.num, i.trans, i.atom, i.bypass, i.store)


def choose(d: Distinct, index: int | None, worst: int) -> list[tuple[int, int]]:
    """``(index, twins)`` of the instructions to explain: ``index``, or the first instruction of each of
    the ``worst`` patterns with the most bank conflicts (none when the trace has no conflicts);
    ``twins`` counts the other instructions with the same pattern. Works on the trace's distinct rows."""
    n, c = d.instructions, d.counts.bank_conflicts
    if not n:
        raise SimsmemError(d.name or "trace", "the trace has no instructions")
    keys = _pattern_keys(d.batch)
    if index is not None:
        if not 0 <= index < n:
            raise SimsmemError("--index", f"no instruction {index}: the trace has {n} (0..{n - 1})")
        return [(index, int(d.weight[(keys == keys[d.position(index)]).all(axis=1)].sum()) - 1)]
    if worst < 1:
        raise SimsmemError("--worst", f"expected a positive count, got {worst}")
    rows = np.flatnonzero(c > 0)
    rows = rows[np.argsort(d.first[rows], kind="stable")]  # trace order: a pattern's first row is its earliest
    _, first, inverse = np.unique(keys[rows], axis=0, return_index=True, return_inverse=True)
    counts = np.bincount(inverse.ravel(), weights=d.weight[rows]).astype(np.int64)
    order = sorted(range(len(first)), key=lambda k: (-c[rows[first[k]]], d.first[rows[first[k]]]))[:worst]
    return [(int(d.first[rows[first[k]]]), int(counts[k] - 1)) for k in order]


def _pattern_keys(batch) -> np.ndarray:
    """One row per instruction, equal for instructions whose lanes' addresses differ by one shift of
    whole words (the same conflicts, on banks rotated by the shift)."""
    active = batch.addrs >= 0
    base = np.where(active, batch.addrs, np.iinfo(np.int32).max).min(axis=1, initial=np.iinfo(np.int32).max)
    base = np.where(active.any(axis=1), base // 4 * 4, 0)
    relative = np.where(active, batch.addrs - base[:, None], -1)
    return np.column_stack([batch.op, batch.width, batch.num, batch.trans, batch.bypass, batch.mask, relative])


def explain(d: Distinct, index: int, twins: int = 0, timing: Callable[[np.ndarray], float] | None = None, top: int = 3,
            stalls: dict[int, dict[str, int]] | None = None) -> Explanation:
    """Schedule instruction ``index`` with the reference model, find its conflicts and the ``top`` fixes of its arrays
    (``timing``: the kernel's cycles for given wavefronts of each distinct row, where it is timed; ``stalls``: the
    timed launch's stall cycles per SASS instruction, ``LaunchTiming.by_pc``)."""
    ins = d.row(index)
    s = schedule(ins, d.arch)
    conflicts = conflicts_of(s)
    addrs = np.array([a for a in ins.addrs if a is not None and a >= 0])
    touched = tuple(a for a in arrays_of(d.cta) if addrs.size and a.holds(addrs).any())
    fixes, after = (), ()
    if conflicts and touched:
        c = d.counts
        fixes = tuple(search(d.batch, c.wavefronts, c.bank_conflicts, touched, d.arch, timing, top, d.weight))
        one = d.batch.take(np.array([d.position(index)]))
        after = tuple(schedule(f.apply(one)[0], d.arch).bank_conflicts for f in fixes)
    code = sass_at(d.kernel, ins.pc)
    where = f"SASS {ins.pc:#06x} {code.get('sass', '')}" + (f", from {code['line']}" if code.get("line") else "") if code else ""
    return Explanation(index, ins, s, conflicts, touched, fixes, after, twins, diagnose(ins, s, conflicts, touched, fixes), where,
                       (stalls or {}).get(ins.pc, {}))


def conflicts_of(s: Schedule) -> tuple[Conflict, ...]:
    """The groups of a schedule (phases, or merged sibling pairs) that took more than one wavefront."""
    groups: dict[int, list] = {}
    for w in s.wavefronts:
        if w.round == 0:
            groups.setdefault(w.group, []).append(w)
    out = []
    for g, waves in groups.items():
        extra = len(waves) - 1
        if extra <= 0:
            continue
        per_bank: dict[int, list[int]] = {}
        for w in waves:
            for bank, reqs in itertools.groupby(sorted(w.requests, key=lambda r: r.bank), key=lambda r: r.bank):
                per_bank.setdefault(bank, []).append(next(reqs).word)
        shared = {bank: ws for bank, ws in per_bank.items() if len(ws) > 1}
        lanes = tuple(tuple(sorted({r.lane for r in w.requests if r.bank in shared})) for w in waves)
        same_word = any(len(set(ws)) < len(ws) for ws in shared.values())
        out.append(Conflict(g, lanes, tuple(sorted(shared)), extra, same_word))
    return tuple(out)


def diagnose(ins: Instruction, s: Schedule, conflicts: Iterable[Conflict], arrays: Iterable[Array], fixes: Iterable[Fix]) -> str:
    """One line: the conflict's degree and where, which lanes share which banks, and the best fix of the instruction's
    ``arrays`` for the whole kernel."""
    conflicts, arrays, fixes = list(conflicts), list(arrays), list(fixes)
    n = len(s.wavefronts)
    if not conflicts:
        return f"no bank conflicts: {n} wavefront{'s' * (n != 1)}, as ideal"
    matrix = ins.op in MATRIX_OPS
    span = s.shape.lanes_per_phase * s.shape.group  # lanes per merge group
    noun = "8x8 matrix" if matrix else {32: "warp", 16: "half-warp", 8: "quarter-warp"}.get(span, f"{span}-lane group")
    worst = max(conflicts, key=lambda c: c.extra)
    groups = len({w.phases[0] // s.shape.group for w in s.wavefronts})
    relative = {tuple(tuple(lane - c.group * span for lane in ls) for ls in c.lanes) for c in conflicts}
    each = groups > 1 and len(conflicts) == groups and len(relative) == 1
    if groups == 1:
        where = f"the {noun}"
    elif each:
        where = f"each {noun}"
    else:
        where = f"{noun} {worst.group}" + (f" (and {len(conflicts) - 1} more)" if len(conflicts) > 1 else "")
    if not worst.banks and s.shape.source_positions:  # cp.async: the lanes' global sources collide, not their banks
        lanes = sorted({r.lane for w in s.wavefronts if w.group == worst.group for r in w.requests})
        return f"{len(worst.lanes)}-way conflict in {where}: {_source_clash(ins, s.shape, lanes)} -> " + (
            "the shared-memory layout does not change that: give the lanes of each group distinct positions in their lines"
            + (f" (destinations: {_remedy(arrays, fixes)})" if fixes else ""))
    base = worst.group * span if matrix else 0
    who = _who([[lane - base for lane in ls] for ls in worst.lanes], "row" if matrix else "lane")
    banks = f"the same bank{'s' * (len(worst.banks) > 1)} ({ranges(worst.banks)}"
    if each and len({c.banks for c in conflicts}) > 1:
        banks += f" in {noun} {worst.group}"
    sep = ", e.g. " if each and not matrix else ": "
    line = f"{len(worst.lanes)}-way conflict in {where}{sep}{who} use {banks})"
    if worst.same_word:
        line += ", and lanes updating one word serialize (no broadcast)"
    return line + " -> " + _remedy(arrays, fixes)


def _source_clash(ins: Instruction, shape, group: list[int]) -> str:
    """Which lanes of a group (``group``: its lanes) read one position of different global lines (cp.async)."""
    line = shape.access_bytes * shape.source_positions
    at: dict[int, list[int]] = {}
    for lane in group:
        if ins.src is not None and ins.src[lane] is not None:
            at.setdefault(ins.src[lane] % line // shape.access_bytes, []).append(lane)
    position, lanes = max(at.items(), key=lambda kv: (len(kv[1]), -kv[0]))
    return (f"lanes {ranges(lanes)} copy from byte {position * shape.access_bytes} of {len({ins.src[lane] // line for lane in lanes})} "
            f"different {line}-byte global lines (a cp.async serializes lanes on one source position)")


def _who(lane_groups: list[list[int]], word: str) -> str:
    if len(lane_groups) > 3 and all(len(g) == 1 for g in lane_groups):
        return f"{word}s {ranges(sorted(g[0] for g in lane_groups))} (one per wavefront)"
    parts = [ranges(g) for g in lane_groups]
    if len(parts) > 3:
        return f"{len(parts)} groups of {word}s ({parts[0]}; {parts[1]}; ...; {parts[-1]})"
    return f"{word}s " + (", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0])


def _remedy(arrays: list[Array], fixes: list[Fix]) -> str:
    if not fixes:
        names = " or ".join(a.name for a in arrays) or "the arrays it touches"
        return f"no padding or swizzle of {names} lowers the kernel's wavefronts"
    best = fixes[0]
    return f"{best.array.name}{best.array.shape()}: {best.statement} ({best.effect()})"


def ranges(values: Iterable[int]) -> str:
    """Integers as runs: ``[0, 1, 2, 3, 8, 9]`` -> ``"0-3, 8-9"``."""
    runs = [list(g) for _, g in itertools.groupby(sorted(values), key=lambda v, c=itertools.count(): v - next(c))]
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def print_explanation(ex: Explanation, console: Console) -> None:
    """The instruction's wavefronts bank by bank (lanes and word addresses), then diagnosis and fixes."""
    s = ex.schedule
    head = f"instruction {ex.index} (warp {ex.instruction.warp}): {ex.label}: {len(s.wavefronts)} wavefronts, ideal {s.ideal}, {s.bank_conflicts} bank conflicts"
    if ex.twins:
        head += f"; {ex.twins} more of the trace {'access' if ex.twins > 1 else 'accesses'} the same pattern, shifted"
    console.print(Text(head, style="bold"), soft_wrap=True)
    if ex.where:
        console.print(Text("at: ", style="bold") + Text(ex.where), soft_wrap=True)
    waiting = sorted(((r, v) for r, v in ex.stalls.items() if r != "selected" and v), key=lambda rv: -rv[1])
    if ex.stalls:
        by = ", ".join(f"{r} {v:,}" for r, v in waiting) or "none"
        console.print(Text("stalls: ", style="bold") + Text(f"{sum(v for _, v in waiting):,} cycles of the launch's warps at this SASS "
                                                             f"instruction ({SM}): {by}"), soft_wrap=True)
    if s.wavefronts:
        for table in _bank_tables(ex, console.width):
            console.print(table)
        console.print(Text("cell: lanes served and the byte address of the word (of the first bank of a row); L0-3 across banks"
                           " 0-3: one lane per bank, in order; L0-3*: broadcast, the lanes share the word; red: a bank"
                           " serving different words in several wavefronts of one group (the conflict)", style="dim"))
    console.print(Text("diagnosis: ", style="bold") + Text(ex.diagnosis), soft_wrap=True)  # one line, for grep
    for f, after in zip(ex.fixes, ex.after):
        flat = f" (or {f.change.index})" if f.change.kind == "declaration" else ""
        console.print(f"  {f.statement}{flat}: {f.effect()}; this instruction {s.bank_conflicts} -> {after} bank conflicts ({f.change.what})",
                      soft_wrap=True, markup=False)


Cell = tuple[tuple[int, ...], int]  # lanes a bank serves in one wavefront, and the word


def _bank_tables(ex: Explanation, width: int) -> list[Table]:
    """Rows: runs of banks; columns: wavefronts (split to fit ``width``); cells: lanes and word address."""
    s = ex.schedule
    groups = [w.phases[0] // s.shape.group for w in s.wavefronts]
    red = {(c.group, b) for c in ex.conflicts for b in c.banks}
    cells: dict[int, list[Cell | None]] = {}
    for j, w in enumerate(s.wavefronts):
        for bank, reqs in itertools.groupby(sorted(w.requests, key=lambda r: r.bank), key=lambda r: r.bank):
            reqs = list(reqs)
            cells.setdefault(bank, [None] * len(s.wavefronts))[j] = (tuple(sorted({r.lane for r in reqs})), reqs[0].word)
    runs: list[list[int]] = []
    for bank in sorted(cells):
        prev = runs[-1][-1] if runs else None
        if prev == bank - 1 and all(_continues(a, b, (g, prev) in red, (g, bank) in red) for a, b, g in zip(cells[prev], cells[bank], groups)):
            runs[-1].append(bank)
        else:
            runs.append([bank])
    per_table = max(1, (width - 12) // 12)
    tables = []
    for start in range(0, len(s.wavefronts), per_table):
        cols = range(start, min(start + per_table, len(s.wavefronts)))
        t = Table(show_lines=True, pad_edge=False)
        t.add_column("banks", justify="right")
        for j in cols:
            t.add_column(f"W{j}\nphase {'+'.join(map(str, s.wavefronts[j].phases))}", justify="left")
        for run in runs:
            row = [Text(ranges(run))]
            for j in cols:
                first = cells[run[0]][j]
                if first is None:
                    row.append(Text("·", style="dim"))
                    continue
                lanes = {lane for b in run for lane in cells[b][j][0]}
                shared = len(first[0]) > 1
                style = "bold red" if (groups[j], run[0]) in red else ("cyan" if shared else "")
                row.append(Text(f"L{ranges(lanes)}{'*' * shared}\n{first[1] * 4:#06x}", style=style))
            t.add_row(*row)
        tables.append(t)
    return tables


def _continues(a: Cell | None, b: Cell | None, a_red: bool, b_red: bool) -> bool:
    """Cell ``b`` of the next bank continues cell ``a``: the next word, for the same lanes or the next
    single lane, in the same colour (or both empty)."""
    if a is None or b is None:
        return a is b
    same = a[0] == b[0] or (len(a[0]) == len(b[0]) == 1 and b[0][0] == a[0][0] + 1)
    return same and b[1] == a[1] + 1 and a_red == b_red
