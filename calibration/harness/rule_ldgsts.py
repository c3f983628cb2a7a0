"""The LDGSTS (cp.async) counting rules on H100 (``h100/RULES_v2.md``, "LDGSTS").

Standard library only. ``counts(row)`` -> (wavefronts, bank conflicts) under ncu's
``smsp__sass_l1tex_*_op_ldgsts`` counters, or None where no rule claims the row. From
``calibration/``::

    python3 -m harness.rule_ldgsts [CORPUS.json ...]   # every LDGSTS row: exact, misses

``.ca``: phases as for LDS/STS (4 B: the warp, 8 B: half-warps, 16 B: quarter-warps), never merged.
In a phase a lane *conflicts* with every lane whose source takes the same position of its 128-byte
global line, and with every lane whose destination takes the same bank (neither side broadcasts).
The phase takes as many wavefronts as the most lanes one lane conflicts with, itself included; bank
conflicts = wavefronts - active phases.

``.cg`` (BYPASS, 16 B; warp-wide, no phases; ``cg_wavefronts``): of the lanes writing one 16-byte
destination chunk only the lowest counts. A copy's *round* is how many later copies read its source
chunk into its destination row (128 bytes) with the same half order (bit 4 of source XOR
destination). Within a round, the copies from one source sector (32 bytes) to one destination sector
at one value of bits 4-5 of source XOR destination make a *sector move*, whose *mask* says which
16-byte halves of the source sector it reads. A wavefront carries the sector moves of one round,
source line, destination row, XOR and mask: wavefronts = the number of such distinct tuples. ncu
counts no bank conflicts for ``.cg``.
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
    """(wavefronts, bank conflicts) of an LDGSTS row, or None for any other row."""
    if row["sass"] == BYPASS:
        return cg_wavefronts(row), 0
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
BYPASS = "LDGSTS.E.BYPASS.128"


def cg_wavefronts(row: dict) -> int:
    """Wavefronts of a ``.cg`` row (see the module docstring)."""
    mask = _mask(row)
    kept: dict[int, int] = {}
    for lane in reversed(range(BANKS)):  # one write per destination chunk: the lowest lane's
        if mask >> lane & 1:
            kept[row["addrs"][lane] // CHUNK] = lane
    copies = [(row["src"][lane], row["addrs"][lane]) for lane in sorted(kept.values())]
    later = Counter((s // CHUNK, d // LINE, (s ^ d) // CHUNK % 2) for s, d in copies)
    moves: dict[tuple, int] = {}
    for s, d in copies:
        same = (s // CHUNK, d // LINE, (s ^ d) // CHUNK % 2)
        later[same] -= 1
        move = (later[same], s // LINE, d // LINE, (s ^ d) % (2 * SECTOR) // CHUNK, s // SECTOR, d // SECTOR)
        moves[move] = moves.get(move, 0) | 1 << (s // CHUNK % 2)
    return len({(*move[:4], halves) for move, halves in moves.items()})


def main(paths: list[str]) -> None:
    """Per corpus and SASS form: LDGSTS rows and rows exact; then the misses."""
    misses = []
    print(f"{'corpus':<20} {'sass':<22} {'rows':>5} {'exact':>6}")
    for path in paths:
        rows = [r for r in json.loads(Path(path).read_text())["patterns"] if r["sass"].startswith("LDGSTS")]
        for sass in sorted({r["sass"] for r in rows}):
            form = [r for r in rows if r["sass"] == sass]
            bad = [(r["name"], m, c) for r in form if (c := counts(r)) != (m := (r["ncu"][WAVEFRONTS], r["ncu"][CONFLICTS]))]
            misses += bad
            print(f"{Path(path).stem:<20} {sass:<22} {len(form):>5} {len(form) - len(bad):>6}")
    for name, measured, model in misses:
        print(f"  miss {name}: measured {measured}, rule {model}")


#: Every corpus with LDGSTS rows.
CORPORA = ("instructions_v2", "followup", "holdout", "holdout2", "ldgsts2", "ldgsts3")

if __name__ == "__main__":
    here = Path(__file__).resolve().parents[1] / "h100"
    main(sys.argv[1:] or [str(here / f"{n}.json") for n in CORPORA])
