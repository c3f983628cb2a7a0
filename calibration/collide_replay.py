"""Replay the launches of ``h100/runs/2026-11-24-collide`` (``h100/src/timing_collide.cu``) through the timing engine.

    python3 calibration/collide_replay.py [--run NAME] [--family NAME] [--show N]

Each active warp's code from its start clock to its end clock is read from the run's SASS (control
codes included) and written as trace instructions: its loads, with the instructions between them one by
one (``others``: pipe, stall count, scoreboard wait on a load) and their own wait and stall (as
``timing_traces.project`` does for the loops), the warp starting at its measured start. The mid and end clocks are read
off an in-order walk of the segment: each instruction issues its predecessor's stall count later, and
not before the loads whose scoreboards it waits on have completed, nor before a global store it waits
on has read its registers (``READ_RELEASE``). Printed: per family (``family``), how many warps' cycles
(end - start) the simulation gives exactly, within 2 and 5 cycles, the mean error, and how many
warps' mid clocks (the last load's issue) it gives exactly.

Other warps' code before their start clock (the spin on clock64 and the pad of FADDs) is not
replayed: where warps share a sub-partition (``pair-same``, ``one``, ``eight``) it takes issue slots
the replay leaves free.
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from pathlib import Path

import numpy as np
from simsmem.banks import count
from simsmem.config import load_arch
from simsmem.engine import simulate
from simsmem.traces import NO_WAIT, InstructionBatch
from simsmem.traces.others import Other, unparse
from simsmem.traces.records import Instruction

from calibration.timing_traces import Sass, read_sass

HERE = Path(__file__).resolve().parent
RUN = HERE / "h100" / "runs" / "2026-11-24-collide"
SPECS = HERE / "patterns" / "collide.txt"
#: the runs of the same binary: name -> (run folder, launch list); ``collide_specs.py --list NAME`` wrote the others
RUNS = {"collide": (RUN, SPECS)} | {name: (HERE / "h100" / "runs" / f"2026-11-24-{name}", HERE / "patterns" / f"collide_{name}.txt")
                                    for name in ("aligned", "replays", "backlog")}
#: form number -> (op, width, num) of its loads
FORMS = {0: ("LDS", 32, 0), 1: ("LDS", 64, 0), 2: ("LDS", 128, 0), 3: ("LDSM", 0, 4)}
SASS_FORM = {"LDS": 0, "LDS.64": 1, "LDS.128": 2, "LDSM.16.M88.4": 3}
#: Cycles from a global store's issue until it releases its read scoreboard (the end clock waits on it
#: where their registers overlap); fitted to the ``alone`` family (LDS.64 and LDS.128 paths).
READ_RELEASE = 13


def segments(path: Path = RUN / "timing_collide.sass") -> dict[tuple[int, int, int], list[Sass]]:
    """(loads per warp, k, form) -> the instructions from the start clock read through the end one (the
    third: one follows the loads), predicates dropped."""
    out = {}
    for name, body in read_sass(path).items():
        m = re.match(r"_Z7collideILi(\d+)ELi(n?)(\d+)E", name)
        if not m:
            continue
        nl, k = int(m[1]), -int(m[3]) if m[2] else int(m[3])
        body = [Sass(re.sub(r"^@!?P\d\s+", "", s.text), s.stall, s.sets, s.waits, s.reads) for s in body]
        for j, ins in enumerate(body):
            if "SR_CLOCKLO" not in ins.text:
                continue
            clocks = [p for p in range(j, len(body)) if "SR_CLOCKLO" in body[p].text][:3]
            loads = [s for s in body[j + 1 : clocks[-1]] if s.shared]
            if len(clocks) == 3 and len(loads) == nl and all(s.text.split()[0] in SASS_FORM for s in loads):
                out[nl, k, SASS_FORM[loads[0].text.split()[0]]] = body[j : clocks[2] + 1]
    return out


def program(seg: list[Sass]) -> tuple[list[tuple[str, int, int]], list[list[tuple[str, int]]]]:
    """The loads of a straight-line segment as ``(others, wait, stall)`` (``timing_traces.project`` for code that
    runs once; the start clock read, instruction 0, is no trace instruction), and for each instruction what it
    waits on: ``("load", j)``, the completion of the segment's j-th load, or ``("read", p)``, instruction p's
    release of its read scoreboard (a scoreboard counts every producer that set it since it was last waited on)."""
    loads = [k for k, s in enumerate(seg) if s.shared]
    pending: dict[int, list[tuple[str, int]]] = defaultdict(list)  # scoreboard -> its producers
    waits_on = []
    for k, s in enumerate(seg):
        waits_on.append([event for sb in range(6) if s.waits >> sb & 1 for event in pending.pop(sb, [])])
        if s.sets is not None:
            if not s.shared:
                raise ValueError(f"{s.text}: a variable-latency instruction the replay does not time")
            pending[s.sets].append(("load", loads.index(k)))
        if s.reads is not None:
            pending[s.reads].append(("read", k))

    def wait(p: int, issued: int) -> int | None:  # at most this many of the ``issued`` loads before p in flight
        latest = max((i for kind, i in waits_on[p] if kind == "load"), default=None)
        return None if latest is None else issued - latest - 1

    out = []
    for j, k in enumerate(loads):
        prev = loads[j - 1] if j else 0
        others = tuple(Other(seg[p].pipe, seg[p].stall, wait(p, j)) for p in range(prev + 1, k))
        own = wait(k, j)
        out.append((unparse(others), NO_WAIT if own is None else own, seg[k].stall))
    return out, waits_on


def launches(specs: Path = SPECS) -> list[tuple[int, int, dict[int, tuple[int, list[int]]]]]:
    """Each spec line: (loads per warp, k, warp -> (form, lane offsets))."""
    out = []
    for line in specs.read_text().splitlines():
        nl, k, *warps = line.split()
        spec = {}
        for w in warps:
            n, f, _, _, lanes = w.split(":")
            spec[int(n)] = (int(f), [int(x) for x in lanes.split(",")])
        out.append((int(nl), int(k), spec))
    return out


def measured(run: Path = RUN) -> dict[int, list[dict[int, tuple[int, int, int]]]]:
    """Spec line number -> per timed repetition (rep 0 warms the instruction cache), warp -> (start,
    mid, end) clocks."""
    out = defaultdict(list)
    for line in (run / "timing_collide.txt").read_text().splitlines():
        m = re.match(r"C (\d+) nl=\d+ k=-?\d+ rep=(\d) (.*)", line)
        if int(m[2]):
            out[int(m[1])].append({int(w): (int(s), int(c), int(e)) for w, s, c, e in (x.split(":") for x in m[3].split())})
    return out


def family(nl: int, spec: dict) -> str:
    """The family of ``collide_specs.py`` a launch belongs to."""
    warps = sorted(spec)
    if len(warps) == 1:
        return "alone"
    if len(warps) == 2:
        if warps[1] % 4 == warps[0] % 4:
            return "meet-same" if nl == 1 else "pair-same"
        return "meet" if nl == 1 else "pair"
    if all(w % 4 == 0 for w in warps):
        return "one"
    return {3: "triple", 4: "quad", 8: "eight", 16: "sixteen"}[len(warps)]


def replay(arch, segs, nl: int, k: int, spec: dict, starts: dict[int, tuple[int, int, int]], simulate=simulate
           ) -> dict[int, tuple[int, int]]:
    """warp -> simulated (mid - start, end - start) of one launch, its warps started as measured
    (``simulate``: the engine's, or the wavefront-by-wavefront reference)."""
    base = min(s for s, _, _ in starts.values())
    rows, walks = [], {}
    first = np.zeros(max(spec) + 1, dtype=np.int64)  # each warp's first instruction after its start clock read
    for w, (f, lanes) in sorted(spec.items()):
        seg = segs[nl, k, f]
        steps, waits_on = program(seg)
        op, width, num = FORMS[f]
        first[w] = starts[w][0] - base + seg[0].stall
        rows += [Instruction(op, tuple(lanes), width=width, num=num, warp=w, wait=wait if wait >= 0 else False, others=others, stall=stall)
                 for others, wait, stall in steps]
        walks[w] = (seg, waits_on)
    batch = InstructionBatch.from_instructions(rows)
    timeline = simulate(batch, count(batch, arch), arch, start=first)
    out = {}
    for w, (seg, waits_on) in walks.items():
        mine = np.flatnonzero(batch.warp == w)
        loads = [p for p, s in enumerate(seg) if s.shared]
        clocks = [p for p, s in enumerate(seg) if "SR_CLOCKLO" in s.text]
        issued: dict[int, int] = {}
        t = starts[w][0] - base
        for p, ins in enumerate(seg):
            if p:
                t += seg[p - 1].stall
            for kind, i in waits_on[p]:
                t = max(t, int(timeline.complete[mine[i]]) if kind == "load" else issued[i] + READ_RELEASE)
            if ins.shared:
                t = int(timeline.issue[mine[loads.index(p)]])
            issued[p] = t
        out[w] = (issued[clocks[1]] - issued[0], issued[clocks[2]] - issued[0])
    return out


def agreement(arch=None, families: tuple[str, ...] | None = None, show: int = 0, run: Path = RUN, specs: Path = SPECS,
              simulate=simulate) -> dict[tuple[str, int, bool], dict[str, float]]:
    """(family, loads per warp, load by load) -> how many warps (of the timed repetitions), how many of
    them the simulation gives end - start of exactly, within 2 and within 5 cycles, the mean error, how
    many mid clocks it gives exactly and their mean error; ``show`` launches per family that miss printed."""
    arch = arch or load_arch("sm_90")
    segs, meas = segments(), measured(run)
    ends, mids = defaultdict(list), defaultdict(list)
    shown = defaultdict(int)
    for number, (nl, k, spec) in enumerate(launches(specs), 1):
        fam = family(nl, spec)
        if families and fam not in families:
            continue
        for rep in meas[number]:
            sim = replay(arch, segs, nl, k, spec, rep, simulate)
            errs = [sim[w][1] - (e - s) for w, (s, _, e) in rep.items()]
            ends[fam, nl, k >= 0].extend(errs)
            mids[fam, nl, k >= 0].extend(sim[w][0] - (c - s) for w, (s, c, _) in rep.items())
            if any(errs) and shown[fam] < show:
                shown[fam] += 1
                print(number, nl, k, " ".join(f"w{w}f{spec[w][0]}:{s}+{c - s}/{sim[w][0]}+{e - s}/{sim[w][1]}" for w, (s, c, e) in rep.items()))
    out = {}
    for key, errs in sorted(ends.items()):
        e, m = np.array(errs), np.array(mids[key])
        out[key] = {"warps": len(e), "exact": int((e == 0).sum()), "within 2": int((abs(e) <= 2).sum()),
                    "within 5": int((abs(e) <= 5).sum()), "mean error": float(e.mean()), "mid exact": int((m == 0).sum()),
                    "mean mid error": float(m.mean())}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", action="append", help="only this family (repeatable)")
    parser.add_argument("--show", type=int, default=0, help="print this many launches of each family that the replay misses")
    parser.add_argument("--run", choices=sorted(RUNS), default="collide", help="which run (runs/2026-11-24-RUN)")
    a = parser.parse_args()
    run, specs = RUNS[a.run]
    print(f"{'family':10} {'loads':>5} {'load':>4} {'warps':>6} {'exact':>6} {'<=2':>6} {'<=5':>6} {'mean err':>9} {'mid exact':>10} {'mid err':>8}")
    for (fam, nl, probe), r in agreement(families=tuple(a.family or ()), show=a.show, run=run, specs=specs).items():
        n = r["warps"]
        print(f"{fam:10} {nl:>5} {'k' if probe else 'all':>4} {n:>6} {r['exact'] / n:>6.0%} {r['within 2'] / n:>6.0%} "
              f"{r['within 5'] / n:>6.0%} {r['mean error']:>+9.2f} {r['mid exact'] / n:>10.0%} {r['mean mid error']:>+8.2f}")


if __name__ == "__main__":
    main()
