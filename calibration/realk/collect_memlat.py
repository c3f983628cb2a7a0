"""The memory-latency probes' clock64 records (measure_timing.sh with DUMP=arg0) -> memlat_clocks_h200.json.

    python collect_memlat.py realk_timing.tar.gz [--json memlat_clocks_h200.json] [--manifest manifest_memlat.json]

Run from calibration/realk. Each dumps/ncu_runK_TAG[_SUFFIX]/NAME.arg0.bin of a manifest_memlat.json entry holds, for the
warps of the CTAs b with b % 132 < 8, rounds + 2 words of 32 bits (src/memlat_probes.cu): the SM << 16 | the CTA, then
the low word of clock64 at each round's start and after the last. Per entry and run (K ascending): `trips`, each round's
round trip (the next record minus this one, mod 2**32) averaged over the recorded warps (rounds values: round 0 first);
`trip_min`/`trip_max`, the same rounds' smallest and largest over the warps; `sms`, the distinct SMs the recorded warps
ran on; `ctas_per_sm`, the most recorded CTAs one SM ran; `first_sm`, `trips` over the warps of the SM that ran CTA 0
only; `warp_trips` (a cold probe on one SM only: grid 1, hot 0), each recorded warp's round trips (warps in the order
of their records, rounds as `trips`), whose lines lie at known offsets in the buffer. A warp whose record is incomplete
(a clock word 0) is left out and counted in `incomplete`.
"""
import argparse
import json
import re
import tarfile
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
_DIR = re.compile(r"^ncu_run(\d+)_([A-Za-z0-9]+)(?:_(.+))?$")


def records(path: Path, rounds: int) -> np.ndarray:
    """(warps recorded, rounds + 2) uint32 words of one dump."""
    return np.fromfile(path, dtype=np.uint32).reshape(-1, rounds + 2)


def summary(rec: np.ndarray, per_warp: bool = False) -> dict:
    head, clocks = rec[:, 0], rec[:, 1:].astype(np.int64)
    done = (clocks != 0).all(axis=1)  # a slot no warp wrote is all zeros (SM 0 and CTA 0 make a head of 0 too)
    rec, head, clocks = rec[done], head[done], clocks[done]
    trips = np.mod(np.diff(clocks, axis=1), 2**32)
    sm, cta = head >> 16, head & 0xFFFF
    per_sm = {}
    for s, c in zip(sm.tolist(), cta.tolist()):
        per_sm.setdefault(s, set()).add(c)
    first = sm == sm[cta == 0][0] if (cta == 0).any() else np.zeros(len(sm), bool)
    return {"trips": [round(float(x), 1) for x in trips.mean(axis=0)], "trip_min": trips.min(axis=0).tolist(), "trip_max": trips.max(axis=0).tolist(),
            "first_sm": [round(float(x), 1) for x in trips[first].mean(axis=0)] if first.any() else [],
            "sms": len(per_sm), "ctas_per_sm": max((len(v) for v in per_sm.values()), default=0), "warps": int(len(rec)),
            "incomplete": int((~done).sum()), **({"warp_trips": trips.tolist()} if per_warp else {})}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("tarball")
    ap.add_argument("--json", default="memlat_clocks_h200.json")
    ap.add_argument("--manifest", default="manifest_memlat.json")
    a = ap.parse_args(argv)
    entries = {e["name"]: e for e in json.loads((HERE / a.manifest).read_text())}
    out: dict[str, dict[int, dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(a.tarball) as tf:
            tf.extractall(tmp, filter="data")
        for d in sorted((Path(tmp) / "dumps").glob("*")):
            m = _DIR.match(d.name)
            if not m:
                continue
            k = int(m.group(1))
            for f in sorted(d.glob("*.arg0.bin")):
                name = f.name[: -len(".arg0.bin")]
                e = entries.get(name)
                if e is None:
                    continue
                rounds = int(e["args"][5])
                one_sm_cold = e["grid"][0] == 1 and e["args"][4] == "0"
                out.setdefault(name, {})[k] = summary(records(f, rounds), one_sm_cold)
    result = {n: {"runs": [out[n][k] for k in sorted(out[n])]} for n in entries if n in out}
    (HERE / a.json).write_text("{\n" + ",\n".join(f"{json.dumps(n)}: {json.dumps(v)}" for n, v in result.items()) + "\n}\n")  # an entry a line
    print(f"{a.json}: {len(result)} of {len(entries)} entries, runs per entry {sorted({len(v['runs']) for v in result.values()})}")
    for n, v in result.items():
        later = [float(np.mean(r["trips"][1:])) for r in v["runs"]]
        print(f"{n:28s} round 0 {np.median([r['trips'][0] for r in v['runs']]):7.0f}  later rounds {np.median(later):7.0f} "
              f"(runs {min(later):.0f}..{max(later):.0f})  SMs {v['runs'][0]['sms']} CTAs/SM {v['runs'][0]['ctas_per_sm']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
