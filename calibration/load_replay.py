"""Replay ``h100/runs/2026-11-25-load`` (``h100/src/timing_load.cu``) through the timing engine.

    python3 calibration/load_replay.py

Each launch runs, from one barrier, a generator loop on the warps of ``loops`` (mode 0: timing.cu's
throughput loop, 512 loads of conflict degree ``deg``; mode 1: 32 bursts of 16 loads with immediate
offsets, each burst summed) and, where ``probe`` < 16, a dependent chain of 256 LDS.32 1-way loads on
warp ``probe`` (3: a sub-partition of its own, or of warp 7's). Both loops are read from the run's SASS
and projected as the timing loops are (``timing_traces.project``). Compared, per (mode, deg, loops,
probe), with the medians of the 5 timed repetitions:

- the probe's **gain**: its cycles per link less its cycles per link alone (the same mode and degree,
  no generator): what the other warps' loads add to a load's latency (and, with warp 7, to its issue);
- the generators' **end**: the last one's end cycle, the simulated one plus what the lone generator warp
  (mask 0x1) took more on the H100 than simulated. The kernel computes its lanes' offsets (a division,
  about 400 cycles) after its first clock, where the replay has no code; each warp computes its own, in
  parallel, so the lone warp's difference stands for it in every mask.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from statistics import median

import numpy as np
from simsmem.banks import count
from simsmem.config import load_arch
from simsmem.engine import simulate
from simsmem.traces import InstructionBatch

from calibration.timing_traces import FORMS, loop_batch, loops_of, project, read_sass

HERE = Path(__file__).resolve().parent
RUN = HERE / "h100" / "runs" / "2026-11-25-load"
LINE = re.compile(r"L mode=(\d) deg=(\d+) loops=0x([0-9a-f]+) probe=(\d+) rep=(\d) ((?:-?\d+,\d+ ?){16})$")
LOADS, PROBE_LOADS = 512, 256  # per generator warp, per probe
ALONE = 0x1  # the lone generator warp


def measured(run: Path = RUN) -> dict[tuple[int, int, int, int], tuple[float, float]]:
    """(mode, deg, loops, probe) -> (the last generator's end cycle, the probe's cycles per link), medians
    of the timed repetitions (rep 0 warms the instruction cache); 0 where there is none."""
    reps = defaultdict(list)
    for line in (run / "timing_load.txt").read_text().splitlines():
        m = LINE.match(line)
        assert m, line
        mode, deg, loops, probe, rep = int(m[1]), int(m[2]), int(m[3], 16), int(m[4]), int(m[5])
        warps = [tuple(map(int, w.split(","))) for w in m[6].split()]
        if rep:
            end = max((warps[w][0] + warps[w][1] for w in range(16) if loops >> w & 1), default=0)
            reps[mode, deg, loops, probe].append((end, warps[probe][1] / PROBE_LOADS if probe < 16 else 0))
    return {key: (median(e for e, _ in v), median(p for _, p in v)) for key, v in reps.items()}


def steps(run: Path, arch) -> dict[int, tuple[list, list]]:
    """mode -> the projected steps of its generator's loop and of the probe's chain (the kernel's loops in
    code order), read once from the run's SASS."""
    sass = read_sass(run / "timing_load.sass.gz")
    return {mode: tuple(project(body, arch.timing) for body in loops_of(sass[f"_Z3mixILi{mode}EEviPxPjijj"])) for mode in (0, 1)}


def batch(generator: list, chain: list, deg: int, loops: int, probe: int) -> InstructionBatch:
    """The launch as a trace: the ``generator`` steps on the warps of ``loops``, the probe's ``chain`` on ``probe``."""
    parts = [loop_batch(generator, [w for w in range(16) if loops >> w & 1], LOADS, FORMS["LDS32"], deg)]
    if probe < 16:
        parts.append(loop_batch(chain, [probe], PROBE_LOADS, FORMS["LDS32"], 1))
    return InstructionBatch.concat(parts)


def agreement(arch=None, simulate=simulate, run: Path = RUN) -> dict[tuple[int, int, int, int], tuple[float, float, float, float]]:
    """(mode, deg, loops, probe) -> (measured, simulated end cycle; measured, simulated cycles per probe
    link): the simulated end is the last generator load's completion, the link the probe's loads' issue
    cycles apart on average."""
    arch = arch or load_arch("sm_90")
    projected = steps(run, arch)
    out = {}
    for (mode, deg, loops, probe), (end, link) in measured(run).items():
        b = batch(*projected[mode], deg, loops, probe)
        timeline = simulate(b, count(b, arch), arch)
        mine = b.warp == probe
        sim_end = int(timeline.complete[~mine].max(initial=0))
        issue = timeline.issue[mine]
        out[mode, deg, loops, probe] = end, sim_end, link, (issue[-1] - issue[0]) / (len(issue) - 1) if len(issue) else 0.0
    return out


def gains(rows: dict) -> dict[tuple[int, int, int], tuple[float, float]]:
    """(mode, deg, loops) -> the probe's measured and simulated gain (cycles per link over its own alone)."""
    return {(mode, deg, loops): (link - rows[mode, deg, 0, probe][2], sim - rows[mode, deg, 0, probe][3])
            for (mode, deg, loops, probe), (_, _, link, sim) in rows.items() if probe < 16 and loops}


def ends(rows: dict) -> dict[tuple[int, int, int], tuple[float, float]]:
    """(mode, deg, loops) -> the generators' measured end cycle and the simulated one plus the cycles the
    lone warp (mask 0x1, same mode and degree) took more on the H100 than simulated (no probe)."""
    return {(mode, deg, loops): (end, sim + rows[mode, deg, ALONE, 99][0] - rows[mode, deg, ALONE, 99][1])
            for (mode, deg, loops, probe), (end, sim, _, _) in rows.items() if probe == 99 and loops != ALONE}


def main() -> None:
    rows = agreement()
    print("probe gain (cycles per link over alone), measured vs simulated:")
    for (mode, deg, loops), (hw, sim) in gains(rows).items():
        print(f"  mode {mode} deg {deg} loops {loops:#06x}: {hw:+6.2f} {sim:+6.2f} ({sim - hw:+6.2f})")
    print("generators' end (cycles; simulated + the lone warp's difference), measured vs simulated:")
    for (mode, deg, loops), (hw, sim) in ends(rows).items():
        print(f"  mode {mode} deg {deg} loops {loops:#06x}: {hw:6.0f} {sim:6.0f} ({100 * (sim / hw - 1):+5.1f}%)")
    g = np.array([sim - hw for hw, sim in gains(rows).values()])
    e = np.array([sim / hw - 1 for hw, sim in ends(rows).values()])
    print(f"probe gains within 1.5 cycles: {int((np.abs(g) <= 1.5).sum())} of {len(g)}; ends within 5%: {int((np.abs(e) <= 0.05).sum())} of {len(e)}")


if __name__ == "__main__":
    main()
