"""Stall cycles per SASS instruction: the timed SM's against ncu's Source page (its warp-state samples).

    python calibration/realk/source_stalls.py predict MANIFEST.json NAME[,NAME...] OUT.json
    python calibration/realk/source_stalls.py compare OUT.json SOURCE_DIR

``predict`` times each entry on ``sm_90_h200`` and writes, per SASS instruction (its offset and text), the warp states
ncu's sampler would take on the timed SM (``LaunchTiming.samples``: one of the SM's active warps every 32 cycles);
``compare`` reads ``source_NAME.csv(.gz)`` (``source_counters.sh`` with SAMPLING=0: one row per instruction, ncu's
``stall_*`` samples) and prints, per instruction, each side's share of the kernel's samples, the instructions that
differ most first, and the share of samples both put at the same instruction and state.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import sys
from pathlib import Path

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
        timed = with_launch(analyse_stream(stream, arch, keep="all"), sink.streams(), sink.resources, sampling=True)
        code = {16 * k: str(ins) for k, ins in enumerate(sink.streams().code)}
        result[name] = {"cycles": timed.metrics["sm__cycles_elapsed.max"],
                        "by_pc": {f"{pc:#06x}": {"sass": code.get(pc, ""), **{r: round(v, 2) for r, v in row.items()}}
                                  for pc, row in sorted(timed.launch.samples.items())}}
    Path(out).write_text(json.dumps(result, indent=1) + "\n")


def _rows(path: Path) -> list[dict[str, str]]:
    """``source_NAME.csv(.gz)``'s instruction rows, each with its ``pc`` (offset from the kernel's first instruction)."""
    with gzip.open(path, "rt") if path.suffix == ".gz" else open(path) as f:
        rows = list(csv.reader(io.StringIO(f.read())))
    head = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
    cols = rows[head]
    body = [dict(zip(cols, r)) for r in rows[head + 1:] if len(r) == len(cols)]
    base = min(int(r["Address"], 16) for r in body)
    return [{**r, "pc": int(r["Address"], 16) - base} for r in body]


def _source(path: Path) -> dict[int, tuple[str, dict[str, float]]]:
    """``source_NAME.csv``: instruction offset -> (text, samples by reason)."""
    return {r["pc"]: (r["Source"].strip(), {v: float(r.get(k) or 0) for k, v in COLUMNS.items()}) for r in _rows(path)}


def executed(path: Path) -> int:
    """The warp-instructions the kernel of ``source_NAME.csv`` executed (its Instructions Executed, summed)."""
    return sum(int(r["Instructions Executed"] or 0) for r in _rows(path))


def _top(shares: dict[str, float]) -> str:
    """The two largest states of an instruction's shares, in percent."""
    return ",".join(f"{r}:{100 * v:.1f}" for r, v in sorted(shares.items(), key=lambda kv: -kv[1])[:2])


def _shares(table: dict[int, dict[str, float]]) -> dict[tuple[int, str], float]:
    total = sum(sum(row.values()) for row in table.values()) or 1.0
    return {(pc, r): v / total for pc, row in table.items() for r, v in row.items() if v}


def compare(predicted: str, folder: str) -> None:
    pred = json.loads(Path(predicted).read_text())
    for name, p in pred.items():
        path = next((Path(folder) / f"source_{name}{s}" for s in (".csv.gz", ".csv") if (Path(folder) / f"source_{name}{s}").exists()), None)
        if path is None:
            continue
        measured = _source(path)
        hw = _shares({pc: row for pc, (_, row) in measured.items()})
        sim = _shares({int(pc, 16): {r: v for r, v in row.items() if r != "sass"} for pc, row in p["by_pc"].items()})
        both = sum(min(v, sim.get(key, 0.0)) for key, v in hw.items())
        by_reason = lambda shares: {r: sum(v for (_, q), v in shares.items() if q == r) for r in COLUMNS.values()}
        hr, sr = by_reason(hw), by_reason(sim)
        samples = sum(sum(row.values()) for _, row in measured.values())
        print(f"== {name}: {samples:.0f} samples measured, {sum(sum(v for r, v in row.items() if r != 'sass') for row in p['by_pc'].values()):.0f} "
              f"simulated ({p['cycles']} cycles); the same instruction and state: {100 * both:.0f}%, the same state: "
              f"{100 * sum(min(hr[r], sr[r]) for r in hr):.0f}%")
        print("   by state, measured / simulated %: " + ", ".join(f"{r} {100 * hr[r]:.0f}/{100 * sr[r]:.0f}" for r in sorted(hr, key=lambda r: -hr[r] - sr[r])
                                                                   if hr[r] + sr[r] > 0.02))
        pcs = {pc for pc, _ in hw} | {pc for pc, _ in sim}
        text = {pc: t for pc, (t, _) in measured.items()}
        rows = []
        for pc in pcs:
            h = {r: v for (q, r), v in hw.items() if q == pc}
            m = {r: v for (q, r), v in sim.items() if q == pc}
            line = (f"   {pc:#06x} {text.get(pc, '')[:40]:40s} hw {100 * sum(h.values()):5.1f}% [{_top(h)}]"
                    f"  sim {100 * sum(m.values()):5.1f}% [{_top(m)}]")
            rows.append((abs(sum(h.values()) - sum(m.values())), line))
        for _, line in sorted(rows, key=lambda x: -x[0])[:20]:
            print(line)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "predict":
        predict(sys.argv[2], sys.argv[3].split(","), sys.argv[4])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
