"""The chip probes' round 2 (runs/2026-11-29-chip): each warp's SM and clock64 around its loads, from the launcher's dumps
of pc_clock's record buffer (measure_timing.sh DUMP=arg2: dumps/ncu_runK_chip2/NAME.arg2.bin), as a table per probe: the
SMs' times (last warp's end less first warp's start on that SM, clock64), their spread, how an SM's time correlates from
run to run (Spearman over the SMs, median over pairs of runs), and within an SM the last warp's end after its median one.

    python chip_clocks.py DUMPS_DIR [--json chip_clocks_h200.json]"""
import argparse
import itertools
import json
import statistics
from pathlib import Path

import numpy as np


def per_sm(path: Path) -> tuple[dict[int, float], list[float]]:
    """An SM's time, and each SM's last warp's end after its median warp's end (from the SM's first start)."""
    rec = np.fromfile(path, dtype=np.uint64).reshape(-1, 4)
    times, tails = {}, []
    for sm in np.unique(rec[:, 0]):
        r = rec[rec[:, 0] == sm].astype(np.int64)
        start = r[:, 1].min()
        ends = r[:, 2] - start
        times[int(sm)] = float(ends.max())
        tails.append(float(ends.max() - np.median(ends)))
    return times, tails


def ranks(x: np.ndarray) -> np.ndarray:
    return np.argsort(np.argsort(x)).astype(float)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dumps", type=Path)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    runs = sorted(p for p in args.dumps.iterdir() if p.is_dir())
    names = sorted({f.name.split(".")[0] for r in runs for f in r.glob("*.arg2.bin")})
    out = {}
    for name in names:
        got = [per_sm(r / f"{name}.arg2.bin") for r in runs if (r / f"{name}.arg2.bin").exists()]
        sms = sorted(set.intersection(*(set(t) for t, _ in got)))
        table = np.array([[t[s] for s in sms] for t, _ in got])
        spread = [float(row.max() / np.median(row)) for row in table]
        corr = [float(np.corrcoef(ranks(a), ranks(b))[0, 1]) for a, b in itertools.combinations(table, 2)] if len(sms) > 2 else []
        slowest = [set(np.array(sms)[np.argsort(row)[-max(1, len(sms) // 10):]]) for row in table]
        overlap = [len(a & b) / len(a) for a, b in itertools.combinations(slowest, 2)]
        out[name] = {"runs": len(got), "sms": len(sms), "median_sm_time": [float(np.median(r)) for r in table],
                     "max_sm_time": [float(r.max()) for r in table], "min_sm_time": [float(r.min()) for r in table],
                     "spread": spread, "rank_correlation": statistics.median(corr) if corr else None,
                     "slowest_tenth_overlap": statistics.median(overlap) if overlap else None,
                     "last_warp_after_median": statistics.median(x for _, tails in got for x in tails)}
        o = out[name]
        print(f"{name:24s} runs {o['runs']} SMs {o['sms']:3d} SM time median {statistics.median(o['median_sm_time']):6.0f} "
              f"min {min(o['min_sm_time']):6.0f} max {max(o['max_sm_time']):6.0f} spread {min(spread):.2f}-{max(spread):.2f} "
              f"rank corr {o['rank_correlation'] if o['rank_correlation'] is None else round(o['rank_correlation'], 2)} "
              f"slowest tenth overlap {o['slowest_tenth_overlap'] if o['slowest_tenth_overlap'] is None else round(o['slowest_tenth_overlap'], 2)} "
              f"last warp after median {o['last_warp_after_median']:.0f}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
