"""The LDGSTS (cp.async) counting rules on H100 (``h100/RULES_v2.md``, "LDGSTS").

Standard library only. ``counts(row)`` -> (wavefronts, bank conflicts) under ncu's
``smsp__sass_l1tex_*_op_ldgsts`` counters, or None where no rule claims the row. From
``calibration/``::

    python3 -m harness.rule_ldgsts [CORPUS.json ...]   # every LDGSTS row: claimed, exact, misses

``.ca``: phases as for LDS/STS (4 B: the warp, 8 B: half-warps, 16 B: quarter-warps), never merged.
In a phase a lane *conflicts* with every lane whose source takes the same position of its 128-byte
global line, and with every lane whose destination takes the same bank (neither side broadcasts).
The phase takes as many wavefronts as the most lanes one lane conflicts with, itself included; bank
conflicts = wavefronts - active phases.

``.cg`` (BYPASS, 16 B; ``cg_counts``, not claimed by ``counts``: two measured rows disagree): lanes
writing one 16-byte destination count once (the lowest lane's source); the rest fall into groups by
source line, destination row (128 bytes each) and bits 4-5 of source XOR destination; a group takes
the larger of the most lanes reading one source chunk and the number of distinct half-masks among its
32-byte sectors (destination or source side, whichever has more); no bank conflicts are counted.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

BANKS = 32
WORD = 4
LINE = 128
#: bytes per lane of each ``.ca`` form
WIDTH = {"LDGSTS.E": 4, "LDGSTS.E.64": 8, "LDGSTS.E.128": 16}
WAVEFRONTS = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum"
CONFLICTS = "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum"


def _mask(row: dict) -> int:
    return int(row["mask"], 16) if isinstance(row["mask"], str) else int(row["mask"])


def counts(row: dict) -> tuple[int, int] | None:
    """(wavefronts, bank conflicts) of an LDGSTS ``.ca`` row, or None for any other row."""
    size = WIDTH.get(row["sass"])
    if size is None:
        return None
    mask = _mask(row)
    per_phase = LINE // size if size > WORD else BANKS
    wavefronts = phases = 0
    for first in range(0, BANKS, per_phase):
        lanes = [lane for lane in range(first, first + per_phase) if mask >> lane & 1]
        if not lanes:
            continue
        src = {lane: row["src"][lane] % LINE // size for lane in lanes}
        dst = {lane: row["addrs"][lane] // size % (LINE // size) for lane in lanes}
        wavefronts += max(sum(1 for m in lanes if src[m] == src[lane] or dst[m] == dst[lane]) for lane in lanes)
        phases += 1
    return wavefronts, wavefronts - phases


CHUNK, SECTOR = 16, 32


def cg_counts(row: dict) -> tuple[int, bool] | None:
    """(wavefronts, inside) of a ``.cg`` row by the candidate rule; ``inside`` is False where a group both
    reads a source chunk twice and mixes half-masks (the two measured misses are such rows)."""
    if row["sass"] != "LDGSTS.E.BYPASS.128":
        return None
    mask = _mask(row)
    kept: dict[int, int] = {}
    for lane in reversed(range(BANKS)):  # one write per destination chunk: the lowest lane's
        if mask >> lane & 1:
            kept[row["addrs"][lane] // CHUNK] = lane
    groups: dict[tuple[int, int, int], list[int]] = {}
    for lane in sorted(kept.values()):
        s, d = row["src"][lane], row["addrs"][lane]
        groups.setdefault((s // LINE, d // LINE, (s ^ d) & (SECTOR + CHUNK)), []).append(lane)
    wavefronts, inside = 0, True
    for lanes in groups.values():
        reads = max(Counter(row["src"][lane] // CHUNK for lane in lanes).values())
        halves = 1
        for side in ("addrs", "src"):
            masks: dict[int, int] = {}
            for lane in lanes:
                a = row[side][lane]
                masks[a // SECTOR] = masks.get(a // SECTOR, 0) | 1 << (a // CHUNK & 1)
            halves = max(halves, len(set(masks.values())))
        inside &= reads == 1 or halves == 1
        wavefronts += max(reads, halves)
    return wavefronts, inside


def main(paths: list[str]) -> None:
    """Per corpus and SASS form: LDGSTS rows, rows claimed, claimed rows exact (``.cg``: the candidate
    rule, inside its domain and outside it); then the misses."""
    misses = []
    print(f"{'corpus':<20} {'sass':<46} {'rows':>5} {'claimed':>8} {'exact':>6}")
    for path in paths:
        rows = [r for r in json.loads(Path(path).read_text())["patterns"] if r["sass"].startswith("LDGSTS")]
        for sass in sorted({r["sass"] for r in rows}):
            form = [r for r in rows if r["sass"] == sass]
            if sass in WIDTH:
                scored = [(r, counts(r), (r["ncu"][WAVEFRONTS], r["ncu"][CONFLICTS])) for r in form]
                label = sass
            else:  # .cg: the candidate rule's wavefronts, rows inside its domain
                scored = [(r, c[0], r["ncu"][WAVEFRONTS]) for r in form if (c := cg_counts(r))[1]]
                outside = [(r, cg_counts(r)[0], r["ncu"][WAVEFRONTS]) for r in form if not cg_counts(r)[1]]
                label = f"{sass} (inside; outside {sum(m == c for _, m, c in outside)}/{len(outside)})"
            bad = [(r["name"], measured, model) for r, model, measured in scored if model != measured]
            misses += bad
            print(f"{Path(path).stem:<20} {label:<46} {len(form):>5} {len(scored):>8} {len(scored) - len(bad):>6}")
    for name, measured, model in misses:
        print(f"  miss {name}: measured {measured}, rule {model}")


#: Every corpus with LDGSTS rows.
CORPORA = ("instructions_v2", "followup", "holdout", "holdout2", "ldgsts2")

if __name__ == "__main__":
    here = Path(__file__).resolve().parents[1] / "h100"
    main(sys.argv[1:] or [str(here / f"{n}.json") for n in CORPORA])
