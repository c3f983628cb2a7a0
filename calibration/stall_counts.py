"""Per-warp stall cycles of timing.cu's loop, from ``h100/runs/2026-11-25-stall`` (Nsight Compute).

    python3 calibration/stall_counts.py

Each launch of that run is timing.cu's ``thr`` kernel (LDS.32 1-way) with 4 to 16 warps, one CTA on each
of the 132 SMs. ncu's warp-state counters give, per reason, the warps in that state per issue cycle,
over all sub-partitions (``smsp__average_warps_issue_stalled_<reason>_per_issue_active``); times the
instructions issued (``smsp__inst_executed.sum``) that is the warp-cycles spent in the state, which
this divides per SM. With 4 warps every sub-partition holds one warp (a single); with 5 to 8, 1 to 4
of them hold two (a pair). Taking each single's share from the 4-warp launch, the rest is the pairs':
``pair_share`` gives the warp-cycles per pair warp per reason, for 1 to 4 sub-partitions with a pair.
The whole kernel counts (the zeroing of shared memory before the loop too), which the singles' share
cancels where the singles run it as in the 4-warp launch.
"""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUN = HERE / "h100" / "runs" / "2026-11-25-stall"
PREFIX, SUFFIX = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"
SMS = 132


def launches(run: Path = RUN) -> list[tuple[int, dict[str, float]]]:
    """(warps, reason -> warp-cycles in that state per SM) for each profiled launch of ``raw_a.csv.gz``."""
    with gzip.open(run / "raw_a.csv.gz", "rt") as f:
        rows = list(csv.reader(f))
    head, body = rows[0], rows[2:]  # the second row holds units
    col = {name: k for k, name in enumerate(head)}
    out = []
    for r in body:
        issued = float(r[col["smsp__inst_executed.sum"]].replace(",", ""))
        warps = int(r[col["Block Size"]].strip("()").split(",")[0]) // 32
        cycles = {name[len(PREFIX):-len(SUFFIX)]: float(r[k]) * issued / SMS
                  for name, k in col.items() if name.startswith(PREFIX) and name.endswith(SUFFIX)}
        out.append((warps, cycles))
    return out


def pair_share(rows: list[tuple[int, dict[str, float]]]) -> dict[int, dict[str, float]]:
    """Sub-partitions with a pair (1 to 4) -> reason -> warp-cycles per pair warp (the two launches of a
    warp count averaged)."""
    by = {}
    for warps, cycles in rows:
        by.setdefault(warps, []).append(cycles)
    mean = {w: {k: sum(c[k] for c in v) / len(v) for k in v[0]} for w, v in by.items()}
    single = {k: x / 4 for k, x in mean[4].items()}
    return {w - 4: {k: (mean[w][k] - (8 - w) * single[k]) / (2 * (w - 4)) for k in single} for w in range(5, 9) if w in mean}


def main() -> None:
    rows = launches()
    share = pair_share(rows)
    single = {k: x / 4 for k, x in next(c for w, c in rows if w == 4).items()}
    reasons = [k for k in single if max([single[k], *(s[k] for s in share.values())]) >= 20]
    print("warp-cycles per warp over the kernel (512 loads a warp), by stall reason")
    print(f"{'':26}" + "".join(f"{k[:9]:>10}" for k in reasons))
    print(f"{'single (4 warps)':26}" + "".join(f"{single[k]:10.0f}" for k in reasons))
    for n, s in share.items():
        print(f"{f'pair, {n} sub-partition(s)':26}" + "".join(f"{s[k]:10.0f}" for k in reasons))


if __name__ == "__main__":
    main()
