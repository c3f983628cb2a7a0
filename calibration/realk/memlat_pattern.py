"""DRAM's latency by address on the H200: the memory-latency probes' per-warp round trips (memlat_clocks_h200.json,
`warp_trips` of the cold probes on one SM; runs/2026-11-29-memlat/README.md, "DRAM's latency by address").

    python memlat_pattern.py

Run from calibration/realk. In round r, warp w of a probe with W warps and n loads a warp reads the buffer's bytes
((r W + w) s, (r W + w + 1) s), s = n x 128 (x 4 for wide loads; src/memlat_probes.cu). Rounds 1 to 15 (round 0 also
fetches the loop's code). A warp-round's trip is the median over the 8 runs; it is slow when above the midpoint of the
trips' 20th and 80th percentiles. Per probe: the modes (the median slow and fast trip), how often two spans d bytes
apart are in the same mode, the best 8 KiB alternation (the buffer's first `head` bytes far, then 8 KiB near, 8 KiB
far...) and how many warp-rounds it puts in their mode, how often each run's warp-round is on its median's side, and the
trips over 1,000 cycles: their share, and the gaps in a run between their clusters' starts. Probes loaded enough that
a fifth of their trips exceed 1,000 cycles (64 lines a warp, 256 an SM) are left out.
"""
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
BLOCK = 8192  # bytes: the alternation's block
SLOW = 1000  # cycles: a trip above this is in the tail, not in a mode


def probe(name: str) -> tuple[np.ndarray, int]:
    """(trips: runs x warps x rounds 1..15, bytes a warp's loads span in a round) of a cold probe on one SM."""
    entry = next(e for e in json.loads((HERE / "manifest_memlat.json").read_text()) if e["name"] == name)
    runs = json.loads((HERE / "memlat_clocks_h200.json").read_text())[name]["runs"]
    n, wide = int(entry["args"][2]), int(entry["args"][3])
    return np.array([r["warp_trips"] for r in runs], float)[:, :, 1:], n * (4 if wide else 1) * 128


def modes(trips: np.ndarray) -> tuple[float, float, float, np.ndarray]:
    """(threshold, fast mode, slow mode, slow: warps x rounds) of the warp-rounds' medians over the runs."""
    median = np.median(trips, axis=0)
    threshold = (np.percentile(median, 20) + np.percentile(median, 80)) / 2
    slow = median > threshold
    return threshold, float(np.median(median[~slow])), float(np.median(median[slow & (median < SLOW)])), slow


def same_mode(slow: np.ndarray, span: int, apart: int) -> float:
    """How often two warp-rounds ``apart`` bytes apart (a multiple of ``span``) are in the same mode."""
    seq = slow.T.ravel()  # in address order: round by round, warp by warp
    d = apart // span
    return float(np.mean(seq[:-d] == seq[d:]))


def far(offset: np.ndarray, head: int) -> np.ndarray:
    """Whether a buffer offset is in a far block: the first ``head`` bytes, then every other BLOCK bytes."""
    return (offset - head) // BLOCK % 2 == 1


def match(slow: np.ndarray, span: int, head: int) -> float:
    """The share of warp-rounds whose mode the 8 KiB alternation with ``head`` slow bytes first gives."""
    warps, rounds = slow.shape
    start = (np.arange(1, rounds + 1)[None, :] * warps + np.arange(warps)[:, None]) * span
    return float(np.mean((far(start, head) | far(start + span - 1, head)) == slow))


def alternation(slow: np.ndarray, span: int) -> tuple[float, int]:
    """(match, head) of the best 8 KiB alternation, its head in steps of 256 bytes."""
    return max((match(slow, span, h), h) for h in range(0, 2 * BLOCK, 256))


def agreement(trips: np.ndarray, threshold: float, slow: np.ndarray) -> list[float]:
    """Per run, the share of warp-rounds on the same side of ``threshold`` as their median."""
    return [float(np.mean((run > threshold) == slow)) for run in trips]


def tail_gaps(trips: np.ndarray, round0: np.ndarray) -> list[float]:
    """Cycles between the starts of a run's clusters of trips over SLOW (a cluster: starts within 800 cycles), each
    warp's round starts taken from its own trips (``round0``: runs x warps, its round 0)."""
    gaps = []
    for run, first in zip(trips, round0):
        starts = first[:, None] + np.concatenate([np.zeros((len(run), 1)), np.cumsum(run, axis=1)[:, :-1]], axis=1)
        events = np.sort(starts[run > SLOW])
        cluster = [t for i, t in enumerate(events) if i == 0 or t - events[i - 1] > 800]
        gaps += np.diff(cluster).tolist()
    return gaps


def main() -> int:
    clocks = json.loads((HERE / "memlat_clocks_h200.json").read_text())
    gaps, tail = [], []
    for name, v in clocks.items():
        if "warp_trips" not in v["runs"][0] or name.endswith("_bar"):
            continue
        trips, span = probe(name)
        if np.percentile(np.median(trips, axis=0), 80) > SLOW:  # loaded enough that its modes reach the tail
            continue
        threshold, fast, slow_mode, slow = modes(trips)
        match, head = alternation(slow, span)
        near = [f"{d}: {same_mode(slow, span, d):.2f}" for d in (1024, 2048, 4096, 8192) if d % span == 0 and d // span < slow.size]
        runs = agreement(trips, threshold, slow)
        print(f"{name:20s} {span:5d} B a warp  modes {fast:4.0f} / {slow_mode:4.0f} (+{slow_mode - fast:3.0f})  same mode at "
              f"{', '.join(near) or '-':38s} 8 KiB alternation {match:.2f} (head {head})  runs agree {min(runs):.2f}..{max(runs):.2f}")
        tail.append(float(np.mean(trips > SLOW)))
        round0 = np.array([r["warp_trips"] for r in v["runs"]], float)[:, :, 0]
        gaps += tail_gaps(trips, round0)
    print(f"trips over {SLOW}: {np.mean(tail):.1%} of warp-rounds; gaps between their clusters in a run: median {np.median(gaps):.0f} "
          f"(quartiles {np.percentile(gaps, 25):.0f}..{np.percentile(gaps, 75):.0f}, {len(gaps)} gaps)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
