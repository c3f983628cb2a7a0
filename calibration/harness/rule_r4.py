"""Rule R4 for LDS.64 / LDS.128 on H100 (``h100/RULES_v2.md``), and R3 beside it for comparison.

Standard library only. ``counts(addrs, mask, sass)`` -> (wavefronts, bank conflicts) under ncu's op_ld
counters; ``r3_counts`` the same under rule R3. From ``calibration/``::

    python3 -m harness.rule_r4 [CORPUS.json ...]     # every LDS.64/LDS.128 row: R3 and R4 scores, R4's misses

R4 (the return path packs registers): a wavefront returns 128 bytes to the register file (one 32-bit
register for 32 lanes). Sibling phases (the half-warps of LDS.64; quarter-warps 0+1 and 2+3 of LDS.128)
are served in one wavefront only when the returned values can be packed two lanes to a value: for one
lane pairing P of the whole warp, t <-> t^1 or t <-> t^2, every pair of active lanes reads the same
address (a lane whose partner is inactive is free). Then each pair of sibling phases is served as one
group, else every phase alone; a group takes as many wavefronts as its busiest bank holds distinct
32-bit words; ideal = groups with an active lane; bank conflicts = wavefronts - ideal.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

BANKS = 32
WORD = 4
#: lane pairings the return path can pack (t <-> t ^ x)
PAIRINGS = (1, 2)
WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"


def geometry(sass: str) -> tuple[int, int]:
    """(lanes per phase, bytes per lane) of LDS.64 / LDS.128."""
    if sass == "LDS.64":
        return 16, 8
    if sass == "LDS.128":
        return 8, 16
    raise ValueError(f"rule R4 is about LDS.64 and LDS.128, not {sass}")


def _mask(mask) -> int:
    return int(mask, 16) if isinstance(mask, str) else int(mask)


def passes(lanes, addrs, size: int) -> int:
    """Wavefronts one group of lanes takes: the most distinct words any bank holds (0 for no lane)."""
    words: dict[int, set[int]] = {}
    for lane in lanes:
        first = addrs[lane] // WORD
        for w in range(first, first + size // WORD):
            words.setdefault(w % BANKS, set()).add(w)
    return max((len(s) for s in words.values()), default=0)


def packs(addrs, active: set[int], x: int, lanes=range(32)) -> bool:
    """Do all active lane pairs (t, t^x) among ``lanes`` read the same address?"""
    return all(addrs[t] == addrs[t ^ x] for t in lanes if t in active and (t ^ x) in active)


def _count(groups, addrs, size) -> tuple[int, int]:
    wavefronts = sum(passes(g, addrs, size) for g in groups)
    return wavefronts, wavefronts - sum(1 for g in groups if g)


def counts(addrs, mask, sass: str, pairings=PAIRINGS, scope: str = "warp") -> tuple[int, int]:
    """(wavefronts, bank conflicts) of one LDS.64 / LDS.128 under R4.

    ``scope`` "warp" (the rule): one pairing must hold over the whole warp. "pair" (a variant tested
    by the r4 set): each pair of sibling phases may use its own pairing, but all pairs must pack.
    """
    per, size = geometry(sass)
    active = {lane for lane in range(32) if _mask(mask) >> lane & 1}
    phases = [[lane for lane in range(p * per, (p + 1) * per) if lane in active] for p in range(32 // per)]
    if scope == "warp":
        merged = any(packs(addrs, active, x) for x in pairings)
    elif scope == "quad":  # a variant: each lane quad may use its own pairing
        merged = all(any(packs(addrs, active, x, range(q, q + 4)) for x in pairings) for q in range(0, 32, 4))
    elif scope == "pair":
        merged = all(any(packs(addrs, active, x, range(p * per, (p + 2) * per)) for x in pairings)
                     for p in range(0, len(phases), 2))
    else:
        raise ValueError(scope)
    groups = [phases[p] + phases[p + 1] for p in range(0, len(phases), 2)] if merged else phases
    return _count(groups, addrs, size)


def r3_counts(addrs, mask, sass: str) -> tuple[int, int]:
    """(wavefronts, bank conflicts) under rule R3 (partner lanes i, i+per pair slots one-to-one; quads <= 2 addresses)."""
    per, size = geometry(sass)
    slots = 128 // size
    active = {lane for lane in range(32) if _mask(mask) >> lane & 1}
    phases = [[lane for lane in range(p * per, (p + 1) * per) if lane in active] for p in range(32 // per)]

    def mergeable(p: int) -> bool:
        if not phases[p] or not phases[p + 1]:
            return True
        seen: dict[tuple[int, int], int] = {}
        for i in range(per):
            x, y = p * per + i, (p + 1) * per + i
            if x in active and y in active:
                sx, sy = addrs[x] // size % slots, addrs[y] // size % slots
                if seen.setdefault((0, sx), sy) != sy or seen.setdefault((1, sy), sx) != sx:
                    return False
        return all(len({addrs[t] for t in range(q, q + 4) if t in active}) <= 2 for q in range(p * per, (p + 2) * per, 4))

    if all(mergeable(p) for p in range(0, len(phases), 2)):
        groups = [phases[p] + phases[p + 1] for p in range(0, len(phases), 2)]
    else:
        groups = phases
    return _count(groups, addrs, size)


def measured(row: dict) -> tuple[int, int]:
    return row["ncu"][WAVEFRONTS], row["ncu"][CONFLICTS]


def score(paths) -> str:
    """Per corpus: LDS.64/LDS.128 rows, exact under R3, exact under R4; then R4's misses."""
    lines = [f"{'corpus':<28} {'sass':<8} {'rows':>5} {'R3':>5} {'R4':>5}"]
    misses = []
    for path in paths:
        rows = [r for r in json.loads(Path(path).read_text())["patterns"] if r["sass"] in ("LDS.64", "LDS.128")]
        for sass in ("LDS.64", "LDS.128"):
            rs = [r for r in rows if r["sass"] == sass]
            if not rs:
                continue
            ok3 = sum(r3_counts(r["addrs"], r["mask"], sass) == measured(r) for r in rs)
            ok4 = 0
            for r in rs:
                got = counts(r["addrs"], r["mask"], sass)
                if got == measured(r):
                    ok4 += 1
                else:
                    misses.append(f"  {Path(path).name}: {r['name']} measured {measured(r)}, R4 {got}")
            lines.append(f"{Path(path).name:<28} {sass:<8} {len(rs):>5} {ok3:>5} {ok4:>5}")
    return "\n".join(lines + (["R4 misses:"] + misses if misses else ["R4 misses: none"])) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    here = Path(__file__).resolve().parent.parent / "h100"
    paths = argv or [here / n for n in ("instructions.json", "instructions_v2.json", "followup.json", "holdout.json",
                                        "holdout2.json", "r4.json", "holdout3.json") if (here / n).exists()]
    print(score(paths), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
