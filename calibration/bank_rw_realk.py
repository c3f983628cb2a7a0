"""simsmem's ``l1tex__data_bank_reads.sum`` / ``_writes.sum`` of whole kernels against every measured one: each entry
traced and counted as ``simsmem run`` does it (``results.metrics.bank_words``: the shared-memory instructions' words
per CTA, banks/reference.py rule 8, plus the global accesses' through L1, kernel/l1.py, each SM rounded to even),
held against the runs of realk/manifest.json (H100, five ncu runs), counters.json, hopper.json (H200, and its H100
runs) and spin.json (H200).

From ``calibration/`` (simsmem installed)::

    python3 bank_rw_realk.py [NAME...]       # every entry (or those named): measured runs, simsmem, its two sides, verdict
    python3 bank_rw_realk.py --file counters.json

An entry is ``within`` where each counter lies inside its runs (ncu_varies, else the one value), ``not modelled``
where simsmem says so (the reason), else ``off`` with the difference to the nearest run.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

from simsmem.config import load_arch
from simsmem.corpus import entry_launch
from simsmem.kernel.tracer import describe, select_ctas, trace_stream
from simsmem.results.analysis import analyse_stream
from simsmem.results.metrics import BANK_READS, BANK_WRITES

REALK = Path(__file__).resolve().parent / "realk"
#: measured files: (file, the entry's key of the measured counters, its key of the runs that varied, the machine)
MEASURED = (("manifest.json", "ncu", "ncu_varies", "H100"), ("counters.json", "ncu", "ncu_varies", "H200"),
            ("hopper.json", "ncu", "ncu_varies", "H200"), ("hopper.json", "ncu_h100", "ncu_h100_varies", "H100"),
            ("spin.json", "ncu", "ncu_varies", "H200"))
COUNTERS = (BANK_READS, BANK_WRITES)


def runs(entry: dict, key: str, varies: str, counter: str) -> list[int] | None:
    """The measured runs of ``counter`` (one value where they agreed); None: not measured."""
    value = (entry.get(key) or {}).get(counter)
    if value is None:
        return None
    return (entry.get(varies) or {}).get(counter) or [value]


def simulated(entry: dict, arch) -> tuple[dict, dict, dict]:
    """(simsmem's metrics, its not-modelled reasons, the trace's kernel header) of one entry."""
    program, launch = entry_launch(entry, REALK)
    ctas = select_ctas(launch, None)
    header = describe(program, launch, ctas, entry["args"], entry.get("smem", 0), entry.get("globals"))
    result = analyse_stream(trace_stream(program, launch, ctas, header), arch)
    return result.metrics, result.unmodelled, header


def verdict(metrics: dict, unknown: dict, measured: dict[str, list[int]]) -> str:
    parts = []
    for name in COUNTERS:
        short = "reads" if name == BANK_READS else "writes"
        if name in unknown:
            parts.append(f"{short} not modelled")
            continue
        lo, hi, v = min(measured[name]), max(measured[name]), metrics[name]
        parts.append(f"{short} within" if lo <= v <= hi else f"{short} off {v - (lo if v < lo else hi):+d}")
    return ", ".join(parts)


def report(names: list[str], files: list[str] | None) -> int:
    arch = load_arch("sm_90")
    tally: collections.Counter = collections.Counter()
    for file, key, varies, machine in MEASURED:
        if files and file not in files:
            continue
        for entry in json.loads((REALK / file).read_text()):
            if names and entry["name"] not in names:
                continue
            measured = {c: runs(entry, key, varies, c) for c in COUNTERS}
            if None in measured.values():
                continue
            try:
                metrics, unknown, header = simulated(entry, arch)
            except Exception as exc:  # noqa: BLE001 - an entry simsmem cannot trace: named, not scored
                tally[machine, "not traced"] += 1
                print(f"{machine} {file:<24} {entry['name']:<34} not traced: {str(exc)[:100]}")
                continue
            words = header.get("l1_words", [])
            g = [sum(w[k] for w in words) for k in (1, 2)]
            v = verdict(metrics, unknown, measured)
            for part in v.split(", "):
                tally[machine, part.split(" ")[0], "within" if "within" in part else "not modelled" if "not" in part else "off"] += 1
            shown = {c: metrics.get(c, "-") for c in COUNTERS}
            print(f"{machine} {file:<24} {entry['name']:<34} reads {min(measured[BANK_READS])}..{max(measured[BANK_READS])} "
                  f"simsmem {shown[BANK_READS]}  writes {min(measured[BANK_WRITES])}..{max(measured[BANK_WRITES])} simsmem "
                  f"{shown[BANK_WRITES]}  global {g[0]}/{g[1]}  [{v}]" + (f"  ({unknown.get(BANK_READS) or unknown.get(BANK_WRITES)})"
                                                                         if BANK_READS in unknown or BANK_WRITES in unknown else ""))
    for k, n in sorted(tally.items()):
        print(" ".join(k), n)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="entries to score (default: all)")
    ap.add_argument("--file", action="append", help="only this measured file (realk/NAME.json); repeatable")
    a = ap.parse_args(argv)
    return report(a.names, a.file)


if __name__ == "__main__":
    sys.exit(main())
