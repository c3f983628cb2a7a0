"""What measure.sh brought back -> runs/DATE/ (its logs), out/NAME.argI.bin.gz (the dumped buffers), and each
manifest entry's ``measured``, ``launch_rc`` and ``ncu`` (the counters of the one ncu run).

    python3 collect.py isa_measure.tar.gz DATE
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
METRICS = ("smsp__inst_executed.sum", "smsp__thread_inst_executed.sum")  # what measure.sh asks ncu for


def counters(text: str) -> dict[str, dict[str, int]]:
    """ncu's raw CSV (mixed with the launcher's stdout): the metrics of each launch, by entry name in launch order."""
    rows = list(csv.reader(io.StringIO("".join(line for line in text.splitlines(True) if line.startswith('"')))))
    names = [line.split()[2] for line in text.splitlines() if line.startswith("ENTRY ")]
    head = rows[0]
    metrics = [c for c in head if c in METRICS]
    return {name: {c: int(r[head.index(c)].replace(",", "")) for c in metrics} for name, r in zip(names, rows[2:])}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tarball")
    ap.add_argument("date")
    args = ap.parse_args()
    run = HERE / "runs" / args.date
    run.mkdir(parents=True, exist_ok=True)
    (HERE / "out").mkdir(exist_ok=True)
    with tarfile.open(args.tarball) as tar:
        files = {Path(m.name).as_posix().lstrip("./"): tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
    for name, data in files.items():
        if name.startswith("dump/"):
            (HERE / "out" / f"{Path(name).name}.gz").write_bytes(gzip.compress(data, 9, mtime=0))
        else:
            (run / name).write_bytes(data)
    env = files["env.txt"].decode().splitlines()
    gpu = next(line for line in env if line.startswith("NVIDIA"))
    status = dict(line.split() for line in files["status.txt"].decode().splitlines() if not line.startswith("ncu "))
    measured = counters(files["ncu.csv"].decode())
    manifest = json.loads((HERE / "manifest.json").read_text())
    for e in manifest:
        e["measured"] = f"{gpu.split(',')[0]}, driver {gpu.split(',')[1].strip()}, {args.date} (runs/{args.date})"
        e["launch_rc"] = int(status[e["name"]])
        if e["name"] in measured:
            e["ncu"] = measured[e["name"]]
        print(e["name"], e["launch_rc"], e.get("ncu", {}))
    (HERE / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
