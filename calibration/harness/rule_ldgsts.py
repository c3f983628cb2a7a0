"""The LDGSTS (cp.async) ``.ca`` counting rule on H100 (``h100/RULES_v2.md``, "LDGSTS"), and where it holds.

Standard library only. ``counts(row)`` -> (wavefronts, bank conflicts) under ncu's
``smsp__sass_l1tex_*_op_ldgsts`` counters, or None where the rule does not claim the row. From
``calibration/``::

    python3 -m harness.rule_ldgsts [CORPUS.json ...]   # every LDGSTS row: claimed, exact, misses

Phases as for LDS/STS (4 B: the warp, 8 B: half-warps, 16 B: quarter-warps), never merged. In a phase,
a lane reads the words of its source at their positions in its 128-byte global line and writes its
destination's bank words; neither side broadcasts. A phase takes max(most lanes on one source
position, most lanes on one destination bank); bank conflicts = wavefronts - active phases. Claimed
only for ``.ca`` and where, in every phase, one side is conflict-free: where both sides conflict the
hardware often takes more (the interaction is not pinned down); ``.cg`` (BYPASS) is not claimed.
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


def _busiest(starts: list[int], size: int) -> int:
    """Most lanes touching one bank, each lane covering ``size`` bytes from its start."""
    banks = Counter(b % BANKS for s in starts for b in range(s // WORD, (s + size) // WORD))
    return max(banks.values())


def counts(row: dict) -> tuple[int, int] | None:
    """(wavefronts, bank conflicts) of an LDGSTS row, or None where the rule does not claim it."""
    size = WIDTH.get(row["sass"])
    if size is None:
        return None
    mask = int(row["mask"], 16) if isinstance(row["mask"], str) else int(row["mask"])
    per_phase = LINE // size if size > WORD else BANKS
    wavefronts = phases = 0
    for first in range(0, BANKS, per_phase):
        lanes = [lane for lane in range(first, first + per_phase) if mask >> lane & 1]
        if not lanes:
            continue
        sources = _busiest([row["src"][lane] % LINE for lane in lanes], size)
        destinations = _busiest([row["addrs"][lane] for lane in lanes], size)
        if min(sources, destinations) > 1:
            return None
        wavefronts += max(sources, destinations)
        phases += 1
    return wavefronts, wavefronts - phases


def main(paths: list[str]) -> None:
    """Per corpus and SASS form: LDGSTS rows, rows claimed, claimed rows exact; then the misses."""
    misses = []
    print(f"{'corpus':<20} {'sass':<22} {'rows':>5} {'claimed':>8} {'exact':>6}")
    for path in paths:
        rows = [r for r in json.loads(Path(path).read_text())["patterns"] if r["sass"].startswith("LDGSTS")]
        for sass in sorted({r["sass"] for r in rows}):
            form = [r for r in rows if r["sass"] == sass]
            claimed = [(r, counts(r)) for r in form if counts(r) is not None]
            bad = [(r["name"], (r["ncu"][WAVEFRONTS], r["ncu"][CONFLICTS]), c) for r, c in claimed if c != (r["ncu"][WAVEFRONTS], r["ncu"][CONFLICTS])]
            misses += bad
            print(f"{Path(path).stem:<20} {sass:<22} {len(form):>5} {len(claimed):>8} {len(claimed) - len(bad):>6}")
    for name, measured, model in misses:
        print(f"  miss {name}: measured {measured}, rule {model}")


if __name__ == "__main__":
    here = Path(__file__).resolve().parents[1] / "h100"
    main(sys.argv[1:] or [str(here / f"{n}.json") for n in ("instructions_v2", "followup", "holdout", "holdout2")])
