"""measure_timing.sh's tarball -> {name: {metric: [run1, run2, ...]}} JSON files and a runs/ folder.

    python collect_timing.py realk_timing.tar.gz [--json timing_h200.json] [--runs runs/2026-11-29-timing]
                             [--tag probes=timing_probes_h200.json:runs/2026-11-29-timing-probes]

Run from calibration/realk. Every CSV ncu_runK_TAG[_SUFFIX].csv maps its rows, in order, onto the names of
ncu_runK_TAG[_SUFFIX].names (the launcher's --only list, in manifest order); a row is kept only when the launcher's
stdout of that ncu process has the entry's OK line and the row's kernel is the entry's. Values are ncu's, printed with
--print-units base (thousands separators removed; integers stay integers). Runs are listed in run order (K); an entry
missing from a run simply has one value fewer. A group (TAG) named with --tag goes to its own JSON and runs folder,
all others to --json / --runs. The CSVs are kept gzipped in the runs folder(s), with env.txt, log.txt, the metric
lists, the launcher's stdout of each ncu process (gzipped) and ncu's messages (its .log without the CSV it repeats). Checks (printed): smsp__inst_executed.sum against the H100's in
manifest.json / hopper.json where known.
"""
import argparse
import csv
import gzip
import io
import json
import re
import shutil
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from collect import number  # noqa: E402  (ncu's number text, as collect.py reads it)
_OK = re.compile(r"^OK (\d+) (\S+)$")
_CSV = re.compile(r"^ncu_run(\d+)_([A-Za-z0-9]+)(?:_(.+))?\.csv$")



def same_kernel(reported: str, kernel: str) -> bool:
    """Whether ncu's Kernel Name (demangled for a C++ kernel: ``void gemm_tn<...>(...)``) names the manifest's ``kernel``
    (its .entry name: a C++ kernel's mangled one, whose identifier appears length-prefixed)."""
    if reported == kernel:
        return True
    ident = reported.split("(")[0].split("<")[0].split()[-1].split("::")[-1]
    return kernel.startswith("_Z") and f"{len(ident)}{ident}" in kernel

def read_csv(path: Path):
    lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.startswith('"')]
    if not lines:
        return [], []
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    header = rows[0]
    return header, [dict(zip(header, r)) for r in rows[1:] if r and r[0].strip().isdigit()]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("tarball")
    ap.add_argument("--json", default="timing_h200.json")
    ap.add_argument("--runs", default="runs/2026-11-29-timing")
    ap.add_argument("--tag", action="append", default=[], help="TAG=JSON:RUNSDIR")
    a = ap.parse_args(argv)
    special = {}
    for t in a.tag:
        tag, rest = t.split("=", 1)
        js, rd = rest.split(":", 1)
        special[tag] = (js, rd)

    tmp = Path(tempfile.mkdtemp())
    with tarfile.open(a.tarball) as tf:
        tf.extractall(tmp)
    groups = {}  # tag -> manifest (from the log: "group TAG: MANIFEST (FILTER) N entries")
    for ln in (tmp / "log.txt").read_text().splitlines():
        m = re.search(r"group (\S+): (\S+) \((\S+)\) (\d+) entries", ln)
        if m:
            groups[m.group(1)] = m.group(2)
    requested = [ln.strip() for ln in (tmp / "metrics.txt").read_text().splitlines() if ln.strip()]
    manifests = {m: {e["name"]: e for e in json.loads((HERE / m).read_text())} for m in set(groups.values())}

    per = {}  # dest json -> name -> run -> row
    cols_of = {}
    problems = []
    for path in sorted(tmp.glob("ncu_run*.csv")):
        mm = _CSV.match(path.name)
        if not mm:
            continue
        k, tag = int(mm.group(1)), mm.group(2)
        if tag not in groups:
            problems.append(f"{path.name}: unknown group {tag}")
            continue
        entries = manifests[groups[tag]]
        names = path.with_suffix(".names").read_text().split()
        stdout = path.with_suffix(".stdout")
        oks = set()
        if stdout.exists():
            for ln in stdout.read_text(errors="replace").splitlines():
                o = _OK.match(ln.strip())
                if o:
                    oks.add(o.group(2))
        header, rows = read_csv(path)
        if len(rows) > len(names):
            problems.append(f"{path.name}: {len(rows)} rows for {len(names)} names")
        extra_file = tmp / f"metrics_{tag}.txt"
        req = requested + ([ln.strip() for ln in extra_file.read_text().splitlines() if ln.strip()] if extra_file.exists() else [])
        cols = [c for c in req if c in header]
        dest = special.get(tag, (a.json, a.runs))[0]
        cols_of.setdefault(dest, cols)
        for name, row in zip(names, rows):
            if row.get("Kernel Name") and not same_kernel(row["Kernel Name"], entries[name]["kernel"]):
                problems.append(f"{path.name}: row for {name} is kernel {row['Kernel Name']} (order broken; rest of file dropped)")
                break
            if name not in oks:
                problems.append(f"{path.name}: {name} has a row but no OK line (dropped)")
                continue
            per.setdefault(dest, {}).setdefault(name, {})[k] = {c: number(row[c]) for c in cols if c in row}

    # H100 instruction counts, to check the row mapping
    h100 = {}
    for f in ("manifest.json", "hopper.json"):
        for e in json.loads((HERE / f).read_text()):
            v = (e.get("ncu") or {}).get("smsp__inst_executed.sum")
            if v is not None:
                h100[e["name"]] = v
    for dest, by_name in per.items():
        out = {}
        order = []
        for tag, m in groups.items():
            if special.get(tag, (a.json, a.runs))[0] == dest:
                order += [n for n in manifests[m] if n in by_name and n not in order]
        same = diff = 0
        for name in order:
            runs = by_name[name]
            ks = sorted(runs)
            out[name] = {c: [runs[kk].get(c) for kk in ks] for c in cols_of[dest]}
            iv = out[name].get("smsp__inst_executed.sum", [])
            if name in h100 and iv:
                if all(x == h100[name] for x in iv):
                    same += 1
                else:
                    diff += 1
                    problems.append(f"{name}: smsp__inst_executed.sum {iv} vs H100 {h100[name]}")
        (HERE / dest).write_text(json.dumps(out, indent=1) + "\n")
        nruns = sorted({len(next(iter(v.values()))) for v in out.values()}) if out else []
        print(f"{dest}: {len(out)} entries, runs per entry {nruns}; inst_executed equal to the H100's: {same}, different: {diff}")

    # runs folders: CSVs gzipped + logs
    for tag in groups:
        rd = HERE / special.get(tag, (a.json, a.runs))[1]
        rd.mkdir(parents=True, exist_ok=True)
        for p in sorted(tmp.glob(f"ncu_run*_{tag}*")):
            mm = re.match(r"^ncu_run\d+_([A-Za-z0-9]+)", p.name)
            if not mm or mm.group(1) != tag:
                continue
            if p.suffix == ".csv":
                with open(p, "rb") as fi, open(rd / (p.name + ".gz"), "wb") as raw:
                    with gzip.GzipFile(filename=p.name, mode="wb", fileobj=raw, mtime=0) as fo:
                        shutil.copyfileobj(fi, fo)
            elif p.suffix == ".names":
                shutil.copy(p, rd / p.name)
            elif p.suffix == ".stdout":
                with open(p, "rb") as fi, open(rd / (p.name + ".gz"), "wb") as raw:
                    with gzip.GzipFile(filename=p.name, mode="wb", fileobj=raw, mtime=0) as fo:
                        shutil.copyfileobj(fi, fo)
            elif p.suffix == ".log":  # ncu's messages; its copy of the CSV (lines starting with '"') is left out
                keep = [ln for ln in p.read_text(errors="replace").splitlines(True) if not ln.startswith('"')]
                (rd / p.name).write_text("".join(keep))
        for f in ["env.txt", "log.txt", "metrics.txt", "metrics_dropped.txt", f"metrics_{tag}.txt"]:
            if (tmp / f).exists():
                shutil.copy(tmp / f, rd / f)
    shutil.rmtree(tmp)
    for p in problems:
        print("PROBLEM:", p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
