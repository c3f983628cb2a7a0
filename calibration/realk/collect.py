"""Turn a measure.sh tarball into manifest.json entries (the ../shared/realk format), run here, no GPU needed.

    python3 collect.py realk_measure.tar.gz [--dry-run] [--runs-dir runs/STAMP]

For every entry of every manifest the tarball measured (manifests.txt: manifest_new.json, maybe
manifest_triton.json), whose plain run passed and which has ncu rows:
  ncu          run 1's counters as numbers (the order of the CSV's columns)
  ncu_runs     the number of runs with a row for it
  ncu_varies   every counter not identical in all those runs, with all values (run order)
  jit          driver_regs / driver_static_smem / driver_local from the launcher's ATTR line, then
               ptxas_regs / ptxas_shared_section / ptxas_local / nv_shared_section_bytes (build.py's, checked
               against the H100 machine's cuobjdump -res-usage; from that alone for entries build.py did not make)
  sass_shared  as in the input manifest (build.py's static counts)
  outputs      the plain run's BUF lines: {"argI": {"dir", "bytes", "nonzero", "fnv"}}
  output_check ref.py's reference against the dumped outputs: max_rel_err_or_mismatches, tol, ok (null where
               ref.py has none), identical_in_all_ncu_runs (every ncu run's BUF hashes equal the plain run's)
  measured     "realk_measure.tar.gz, DATE, GPU" (DATE and the GPU's name from env.txt)
The entries are written to manifest.json after the entries already there whose names are not being replaced
(the 8 copied from ../shared/realk stay as they are), in the measured manifests' order. Also: the ncu CSVs go
to ncu/ (named as in the tarball), every output dump to out/NAME.argI.bin.gz, and the run's text files (env,
log, status, plain-run log, metrics, machine SASS) to runs/STAMP/ (default: the date of env.txt).
Entries that failed or were not profiled are listed and left out (they stay in their input manifest).
"""

from __future__ import annotations

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

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import ref  # noqa: E402

_BUF = re.compile(r"^BUF (\S+) arg(\d+) (in|out) bytes=(\d+) nonzero=(\d+) fnv=([0-9a-f]{16})$")
_ATTR = re.compile(r"^ATTR (\S+) regs=(-?\d+) static_smem=(-?\d+) local=(-?\d+) max_threads=(-?\d+)$")
_OK = re.compile(r"^OK (\d+) (\S+)$")


def number(s: str):
    t = s.replace(",", "").strip()
    if t in ("", "n/a", "N/A"):
        return None
    try:
        return int(t)
    except ValueError:
        try:
            return float(t)
        except ValueError:
            return t


def read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """ncu --csv --page raw: header row, units row, then one row per profiled kernel (lines not starting with '"'
    -- ncu's own messages -- are skipped)."""
    lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.startswith('"')]
    if not lines:
        return [], []
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    header = rows[0]
    body = [r for r in rows[1:] if r and r[0].strip().isdigit()]
    return header, [dict(zip(header, r)) for r in body]


def parse_log(text: str):
    bufs: dict[str, dict[str, dict]] = {}
    attrs: dict[str, dict[str, int]] = {}
    oks: list[str] = []
    for ln in text.splitlines():
        if m := _BUF.match(ln):
            bufs.setdefault(m[1], {})[f"arg{m[2]}"] = {"dir": m[3], "bytes": int(m[4]), "nonzero": int(m[5]),
                                                       "fnv": m[6]}
        elif m := _ATTR.match(ln):
            attrs[m[1]] = {"regs": int(m[2]), "static_smem": int(m[3]), "local": int(m[4])}
        elif m := _OK.match(ln):
            oks.append(m[2])
    return bufs, attrs, oks


def res_usage(text: str) -> dict[str, dict[str, int]]:
    out, cur = {}, None
    for line in text.splitlines():
        if m := re.match(r"\s*Function (\S+):", line):
            cur = m[1]
        elif cur and "REG:" in line:
            out[cur] = {k: int(v) for k, v in re.findall(r"(\w+(?:\[\d+\])?):(\d+)", line)}
            cur = None
    return out


def metric_columns(header: list[str], requested: list[str]) -> list[str]:
    """The requested metrics the CSV has, in the requested order (ncu_metrics.txt's, then the extra ones): ncu's
    raw page also holds every device__attribute_* and launch context column, which are left out."""
    if requested:
        return [m for m in requested if m in header]
    skip = ("device__", "c2clink__", "nvlink__", "pcie__", "profiler__")
    return [h for h in header if "__" in h and not h.startswith(skip)]


def trimmed_csv(path: Path, requested: list[str]) -> str:
    """The CSV with only ID, Kernel Name, Block Size, Grid Size and the requested metrics (as ../shared/realk/ncu)."""
    lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.startswith('"')]
    if not lines:
        return ""
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    keep_names = ["ID", "Kernel Name", "Block Size", "Grid Size"] + metric_columns(rows[0], requested)
    idx = [rows[0].index(k) for k in keep_names if k in rows[0]]
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    for r in rows:
        w.writerow([r[i] if i < len(r) else "" for i in idx])
    return out.getvalue()


def load_inputs(e: dict, base: Path, dumps: dict[str, bytes]) -> tuple[dict[int, bytes], dict[int, bytes]]:
    """The bytes the launcher gave each buffer argument, and the dumped outputs."""
    inp, got = {}, {}
    for i, a in enumerate(e["args"]):
        if a.startswith("npy:"):
            arr = np.load(base / a[4:])
            inp[i] = np.ascontiguousarray(arr).tobytes()
        elif a.startswith("zeros:"):
            inp[i] = bytes(int(a[6:], 0))
            key = f"{e['name']}.arg{i}.bin"
            if key in dumps:
                got[i] = dumps[key]
    return inp, got


def check_outputs(e: dict, base: Path, dumps: dict[str, bytes]) -> dict:
    f = ref.REFS.get(e["name"])
    if f is None:
        return {"max_rel_err_or_mismatches": None, "tol": None, "ok": None,
                "note": "no host reference (ref.py): the GPU's output is the reference"}
    inp, got = load_inputs(e, base, dumps)
    want = f(e, inp)
    worst, tol_used, ok, alt = 0, 0, True, None
    for arg, (w, tol) in want.items():
        if arg not in got:
            return {"max_rel_err_or_mismatches": None, "tol": tol, "ok": False, "note": f"arg{arg} not dumped"}
        err, good, k = ref.compare(np.frombuffer(got[arg], np.uint8), w, tol)
        ok &= bool(good)
        worst = max(worst, err)
        tol_used = max(tol_used, tol)
        if isinstance(w, list):
            alt = k
    out = {"max_rel_err_or_mismatches": worst, "tol": tol_used, "ok": ok}
    if alt is not None:
        out["matched_alternative"] = alt
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tarball", help="realk_measure.tar.gz from measure.sh (or its unpacked folder)")
    ap.add_argument("--dry-run", action="store_true", help="print the summary, write nothing")
    ap.add_argument("--runs-dir", help="where the run's text files go (default runs/DATE)")
    ap.add_argument("--dest", default=str(HERE), help="the corpus folder written to: DEST/manifest.json (updated), "
                    "DEST/ncu, DEST/out, DEST/runs (default: this folder)")
    a = ap.parse_args(argv)

    src = Path(a.tarball)
    tmp = None
    if src.is_dir():
        W = src
    else:
        tmp = tempfile.TemporaryDirectory()
        with tarfile.open(src) as t:
            t.extractall(tmp.name, filter="data") if sys.version_info >= (3, 12) else t.extractall(tmp.name)
        W = Path(tmp.name)

    env = (W / "env.txt").read_text() if (W / "env.txt").exists() else ""
    m = re.search(r"date: (\d{4}-\d{2}-\d{2})", env)
    date = m[1] if m else "unknown-date"
    g = re.search(r"^(NVIDIA [^,]+), \d", env, re.M)  # nvidia-smi's CSV row: name, driver, ...
    gpu = g[1] if g else "unknown GPU"
    manifests = [ln.strip() for ln in (W / "manifests.txt").read_text().splitlines() if ln.strip()]
    status = {}
    for ln in (W / "status.txt").read_text().splitlines():
        p = ln.split()
        if len(p) >= 3:
            status[(p[0], p[1])] = p[2]
    requested = ([ln.strip() for ln in (W / "metrics.txt").read_text().splitlines() if ln.strip()]
                 if (W / "metrics.txt").exists() else [])
    plain_bufs, plain_attrs, _ = parse_log((W / "launch_plain.log").read_text(errors="replace"))
    dumps = {p.name: p.read_bytes() for p in (W / "dump").glob("*.bin")} if (W / "dump").is_dir() else {}
    machine_res: dict[str, dict[str, int]] = {}
    for p in sorted((W / "sass_machine").glob("*.res")) if (W / "sass_machine").is_dir() else []:
        for k, v in res_usage(p.read_text()).items():
            machine_res[f"ptx/{p.stem}.ptx::{k}"] = v

    new_entries, problems = [], []
    for mf in manifests:
        mb = Path(mf).stem
        entries = json.loads((HERE / mf).read_text())
        # rows per run: the main CSV maps, in order, onto the entries that passed; retries hold one entry each
        per_entry_rows: dict[str, list[tuple[int, dict]]] = {}
        header_order: list[str] = []
        ok_list = [e["name"] for e in entries if status.get((mf, e["name"])) == "ok"]
        run_bufs: dict[str, list[dict]] = {}
        for k in range(1, 100):
            main_csv = W / f"ncu_run{k}_{mb}.csv"
            if not main_csv.exists():
                if k > 1 and not list(W.glob(f"ncu_run{k}_{mb}_*.csv")):
                    break
            sources = []
            if main_csv.exists():
                sources.append((main_csv, ok_list))
            for r in sorted(W.glob(f"ncu_run{k}_{mb}_*.csv")):
                name = r.stem[len(f"ncu_run{k}_{mb}_"):]
                if any(x["name"] == name for x in entries):  # (not another manifest's CSV whose name starts as this one's)
                    sources.append((r, [name]))
            for path, names in sources:
                header, rows = read_csv(path)
                if not header_order and header:
                    header_order = metric_columns(header, requested)
                stdout = path.with_suffix(".stdout")
                bufs, _, oks = parse_log(stdout.read_text(errors="replace")) if stdout.exists() else ({}, {}, [])
                for name, row in zip(names, rows):
                    e = next(x for x in entries if x["name"] == name)
                    if row.get("Kernel Name") and row["Kernel Name"] != e["kernel"]:
                        problems.append(f"{path.name}: row for {name} is kernel {row['Kernel Name']} (order broken)")
                        break
                    if name not in oks:
                        continue  # the launcher died at this entry under ncu: its row is not trusted
                    per_entry_rows.setdefault(name, []).append((k, row))
                    if name in bufs:
                        run_bufs.setdefault(name, []).append(bufs[name])
        for e in entries:
            name = e["name"]
            st = status.get((mf, name))
            if st != "ok":
                problems.append(f"{mf} {name}: plain run {st or 'missing'}")
                continue
            rows = per_entry_rows.get(name, [])
            if not rows:
                problems.append(f"{mf} {name}: no ncu row")
                continue
            cols = [c for c in header_order if c in rows[0][1]]
            vals = {c: [number(r[c]) for _, r in rows] for c in cols}
            ent = {k: e[k] for k in ("name", "origin", "source", "ptx", "kernel", "grid", "block", "smem", "args",
                                     "problem")}
            for key in ("globals", "cluster"):  # the module variables the launcher filled, the launch's clusters: the launch
                if key in e:                      # is not whole without them
                    ent[key] = e[key]
            ent["ncu"] = {c: v[0] for c, v in vals.items()}
            ent["ncu_runs"] = len(rows)
            ent["ncu_varies"] = {c: v for c, v in vals.items() if len(set(map(str, v))) > 1}
            at = plain_attrs.get(name, {})
            jit = {"driver_regs": at.get("regs"), "driver_static_smem": at.get("static_smem"),
                   "driver_local": at.get("local")}
            pj = dict(e.get("jit", {}))
            mr = machine_res.get(f"{e['ptx']}::{e['kernel']}")
            if mr:
                mine = {"ptxas_regs": mr["REG"], "ptxas_shared_section": mr["SHARED"], "ptxas_local": mr["LOCAL"]}
                for kk, vv in mine.items():
                    if kk in pj and pj[kk] != vv:
                        problems.append(f"{name}: {kk} here {pj[kk]}, on the H100 machine {vv} (machine's kept)")
                    pj[kk] = vv
                pj.setdefault("nv_shared_section_bytes", mr["SHARED"])
                if mr.get("STACK"):
                    pj.setdefault("ptxas_stack", mr["STACK"])
            for kk in ("ptxas_regs", "ptxas_shared_section", "ptxas_local", "nv_shared_section_bytes"):
                jit[kk] = pj.get(kk)
            if pj.get("ptxas_stack"):
                jit["ptxas_stack"] = pj["ptxas_stack"]
            ent["jit"] = jit
            ent["sass_shared"] = e.get("sass_shared", {})
            ent["outputs"] = plain_bufs.get(name, {})
            oc = check_outputs(e, (HERE / mf).parent, dumps)
            outs_plain = {k: v["fnv"] for k, v in ent["outputs"].items() if v["dir"] == "out"}
            seen = run_bufs.get(name, [])
            oc["identical_in_all_ncu_runs"] = bool(seen) and len(seen) == len(rows) and all(
                {k: v["fnv"] for k, v in b.items() if v["dir"] == "out"} == outs_plain for b in seen)
            ent["output_check"] = oc
            ent["measured"] = f"realk_measure.tar.gz, {date}, {gpu}"
            new_entries.append(ent)

    print(f"measured {len(new_entries)} entries from {', '.join(manifests)} ({date})")
    for e in new_entries:
        oc = e["output_check"]
        v = sorted(e["ncu_varies"])
        vs = ", ".join(v) if len(v) <= 3 else f"{len(v)} counters"
        print(f"  {e['name']:32s} runs={e['ncu_runs']} varies=[{vs}] "
              f"ok={oc['ok']} err={oc['max_rel_err_or_mismatches']} same_in_ncu={oc['identical_in_all_ncu_runs']}")
    for p in problems:
        print("  PROBLEM: " + p)
    if a.dry_run:
        return 0

    dest = Path(a.dest)
    mpath = dest / "manifest.json"
    old = json.loads(mpath.read_text()) if mpath.exists() else []
    names = {e["name"] for e in new_entries}
    merged = [e for e in old if e["name"] not in names] + new_entries
    mpath.write_text(json.dumps(merged, indent=1) + "\n")
    print(f"{mpath}: {len(merged)} entries")
    (dest / "ncu").mkdir(exist_ok=True)
    rd = Path(a.runs_dir) if a.runs_dir else dest / "runs" / date
    rd.mkdir(parents=True, exist_ok=True)
    for p in sorted(W.glob("ncu_run*.csv")):
        (dest / "ncu" / p.name).write_text(trimmed_csv(p, requested))
        with open(rd / f"{p.name}.gz", "wb") as fo, gzip.GzipFile(p.name, "wb", 9, fo, mtime=0) as f:
            f.write(p.read_bytes())  # the raw page as ncu wrote it
    (dest / "out").mkdir(exist_ok=True)
    for name, data in dumps.items():
        with open(dest / "out" / f"{name}.gz", "wb") as fo, gzip.GzipFile(name, "wb", 9, fo, mtime=0) as f:
            f.write(data)
    for fn in ("env.txt", "log.txt", "status.txt", "entries.txt", "manifests.txt", "launch_plain.log",
               "metrics.txt", "metrics_dropped.txt"):
        if (W / fn).exists():
            shutil.copyfile(W / fn, rd / fn)
    for p in sorted(W.glob("ncu_run*.stdout")) + sorted(W.glob("ncu_run*.log")):
        shutil.copyfile(p, rd / p.name)
    if (W / "sass_machine").is_dir():
        with tarfile.open(rd / "sass_machine.tar.gz", "w:gz") as t:
            t.add(W / "sass_machine", arcname="sass_machine")
            if (W / "ptx_machine").is_dir():
                t.add(W / "ptx_machine", arcname="ptx_machine")
    print(f"ncu CSVs (trimmed) -> ncu/, {len(dumps)} dumps -> out/, run files (raw CSVs too) -> {rd}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
