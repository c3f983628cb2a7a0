"""Stall cycles per SASS instruction: the timed SM's against ncu's Source page (its warp-state samples).

    python calibration/realk/source_stalls.py predict MANIFEST.json NAME[,NAME...] OUT.json
    python calibration/realk/source_stalls.py compare OUT.json SOURCE_DIR

``predict`` times each entry on ``sm_90_h200`` and writes, per SASS instruction (its offset and text), the timed SM's stall
cycles by reason; ``compare`` reads ``source_NAME.csv(.gz)`` (``source_counters.sh``: one row per instruction, ncu's
``stall_*`` samples) and prints, per instruction, each side's share of the kernel's stalls, the instructions that differ
most first. Samples are taken every few cycles of each warp, so shares are what the two can be compared on.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import sys
from pathlib import Path

import attrs

HERE = Path(__file__).resolve().parent
#: ncu's Source page column -> the timed SM's stall reason (``simsmem.sm.REASONS``)
COLUMNS = {"stall_barrier": "barrier", "stall_branch_resolving": "branch_resolving", "stall_dispatch": "dispatch_stall",
           "stall_drain": "drain", "stall_imc": "imc_miss", "stall_lg": "lg_throttle", "stall_long_sb": "long_scoreboard",
           "stall_math": "math_pipe_throttle", "stall_membar": "membar", "stall_mio": "mio_throttle", "stall_misc": "misc",
           "stall_no_inst": "no_instruction", "stall_not_selected": "not_selected", "stall_selected": "selected",
           "stall_short_sb": "short_scoreboard", "stall_sleep": "sleeping", "stall_tex": "tex_throttle", "stall_wait": "wait"}


def predict(manifest: str, names: list[str], out: str) -> None:
    from simsmem.config import load_arch
    from simsmem.kernel.tracer import StreamSink, trace_kernel
    from simsmem.results.analysis import analyse_stream, with_launch

    arch = load_arch("sm_90_h200")
    entries = {e["name"]: e for e in json.loads((HERE / manifest).read_text())}
    result = {}
    for name in names:
        e = entries[name]
        sink = StreamSink(arch.sm.sms)
        stream = trace_kernel(HERE / e["ptx"], e["kernel"], tuple(e["grid"]), tuple(e["block"]), e["smem"], e["args"], base=HERE, sink=sink,
                              **({"cluster": tuple(e["cluster"])} if e.get("cluster") else {}))
        timed = with_launch(attrs.evolve(analyse_stream(stream, arch, keep="all")), sink.streams(), sink.resources)
        code = {16 * k: str(ins) for k, ins in enumerate(sink.streams().code)}
        result[name] = {"cycles": timed.metrics["sm__cycles_elapsed.max"],
                        "by_pc": {f"{pc:#06x}": {"sass": code.get(pc, ""), **row} for pc, row in sorted(timed.launch.by_pc.items())}}
    Path(out).write_text(json.dumps(result, indent=1) + "\n")


def _source(path: Path) -> dict[int, tuple[str, dict[str, float]]]:
    """``source_NAME.csv``: instruction offset -> (text, samples by reason)."""
    text = (gzip.open(path, "rt") if path.suffix == ".gz" else open(path)).read()
    rows = list(csv.reader(io.StringIO(text)))
    head = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
    cols = rows[head]
    body = [r for r in rows[head + 1:] if len(r) == len(cols)]
    base = min(int(r[0], 16) for r in body)
    out = {}
    for r in body:
        row = dict(zip(cols, r))
        out[int(r[0], 16) - base] = (row["Source"].strip(), {v: float(row.get(k) or 0) for k, v in COLUMNS.items()})
    return out


def compare(predicted: str, folder: str) -> None:
    pred = json.loads(Path(predicted).read_text())
    for name, p in pred.items():
        path = next((Path(folder) / f"source_{name}{s}" for s in (".csv.gz", ".csv") if (Path(folder) / f"source_{name}{s}").exists()), None)
        if path is None:
            continue
        hw = _source(path)
        sim = {int(pc, 16): row for pc, row in p["by_pc"].items()}
        hw_total = sum(sum(v for r, v in s.items() if r != "selected") for _, s in hw.values()) or 1
        sim_total = sum(sum(v for r, v in row.items() if r not in ("sass", "selected")) for row in sim.values()) or 1
        lines = []
        for pc in sorted(set(hw) | set(sim)):
            text, h = hw.get(pc, ("", {}))
            s = sim.get(pc, {})
            hs = {r: v / hw_total for r, v in h.items() if v and r != "selected"}
            ss = {r: v / sim_total for r, v in s.items() if r not in ("sass", "selected") and v}
            diff = sum(hs.values()) - sum(ss.values())
            top = lambda d: ",".join(f"{r}:{100 * v:.1f}" for r, v in sorted(d.items(), key=lambda kv: -kv[1])[:3])
            lines.append((abs(diff), f"{pc:#06x} {text[:44]:44s} hw {100 * sum(hs.values()):5.1f}% [{top(hs)}]  sim {100 * sum(ss.values()):5.1f}% [{top(ss)}]"))
        print(f"== {name}: simulated {p['cycles']} cycles")
        for _, line in sorted(lines, key=lambda x: -x[0])[:25]:
            print(line)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "predict":
        predict(sys.argv[2], sys.argv[3].split(","), sys.argv[4])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
