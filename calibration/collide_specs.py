"""Write the launch list of ``h100/src/timing_collide.cu`` (``patterns/collide.txt``), committed before it is measured.

    python3 calibration/collide_specs.py [--list NAME] [--out FILE]

Each line is one launch: ``nl k`` (loads per warp; -1, or the one load whose completion the end clock
waits for), then ``w:form:skew:pad:offsets`` per active warp (form 0-3: LDS.32, LDS.64, LDS.128,
LDSM.x4; skew: cycles after the common start, in steps of the spin's period; pad: 0-31 FADDs more;
offsets: the 32 lanes' byte offsets). The families ask who gets the data path when several warps'
wavefronts meet, how one instruction's wavefronts are spaced, and what warps of one sub-partition
cost each other:

- ``alone``: every form and conflict degree (timing.cu's offsets, and every lane on one address) at
  1, 4 and 16 loads, warp 0 alone; warps 1-4 alone; each load of 16 (``k``) for five forms;
- ``meet``: warp 0's LDS.32 32-way load (a wavefront every other cycle for 62 cycles) and warp 1's
  load of another form started at 64 offsets (different sub-partitions);
- ``triple``: warps 0 and 1 with an LDS.32 32-way load each (the data path full) and warp 2's load of
  another form at 32 offsets;
- ``pair``: two warps on different sub-partitions (0, 1), bursts of 16 loads;
- ``pair-same``: two warps on one sub-partition (0, 4), bursts of 16 loads, some load by load;
- ``one``: three and four warps on one sub-partition (0, 4, 8, 12), bursts of 16, some load by load;
- ``quad``: warps 0-3 (one per sub-partition): 4 loads of random forms, and bursts of 16 of one form,
  some load by load;
- ``eight``: warps 0-7 (two per sub-partition), bursts of 16 LDS.32 1-way and 4-way.

Start offsets are drawn with a fixed seed; what counts is each warp's measured start. ``--list NAME``
writes ``patterns/collide_NAME.txt`` instead, one of ``LISTS``: ``aligned`` (bursts whose warps all
start together), ``replays`` (conflicted loads of warps of one sub-partition meeting), ``backlog``
(bursts of conflicted loads from more warps than the data path can serve).
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from calibration.timing_traces import offsets

HERE = Path(__file__).resolve().parent
#: form number in timing_collide.cu -> (timing.cu's offset pattern, largest conflict degree)
FORMS = {0: ("LDS32", 32), 1: ("LDS64", 16), 2: ("LDS128", 8), 3: ("LDSM4", 8)}
STRIDE0 = 0  # ways value meaning every lane on byte 0
PERIOD = 33  # cycles per round of the spin on clock64 (measured: starts move in steps of 32 to 34)
PATH = 39  # cycles more from the spin to the loads per form number (measured: LDS.32 64, LDS.64 103, LDS.128 142, LDSM.x4 181)
#: (form, ways) of the loads that meet an LDS.32 32-way one
MEETING = ((0, 2), (0, 4), (1, 1), (1, STRIDE0), (2, 1), (2, STRIDE0), (3, 1))
#: (form, ways) of the bursts of 16 loads
BURSTS = ((0, 2), (1, 1), (2, 1), (3, 1))


def lanes(form: int, ways: int) -> list[int]:
    if ways == STRIDE0:
        return [0] * 32
    return [int(o) for o in offsets(FORMS[form][0], ways)]


def line(nl: int, k: int, warps: list[tuple[int, int, int, int]]) -> str:
    """One launch: ``warps`` as (warp, form, ways, start), the start in cycles (spin rounds and pad)."""
    return " ".join([str(nl), str(k)] + [f"{w}:{f}:{s // 32 * PERIOD}:{s % 32}:{','.join(map(str, lanes(f, ways)))}"
                                         for w, f, ways, s in warps])


def degrees(form: int) -> list[int]:
    return [1 << k for k in range(FORMS[form][1].bit_length())]


def load_by_load(nl: int, warps: list[tuple[int, int, int, int]]) -> list[str]:
    """The launch once whole (k = -1) and once per load (k = 0 .. nl-1)."""
    return [line(nl, k, warps) for k in range(-1, nl)]


def launches(rng: random.Random) -> list[str]:
    out = []
    start = lambda spread=64: rng.randrange(spread)  # noqa: E731
    # alone
    for nl in (1, 4, 16):
        for f in FORMS:
            for ways in degrees(f) + ([STRIDE0] if f in (1, 2) else []):
                out.append(line(nl, -1, [(0, f, ways, 0)]))
    for w in (1, 2, 3, 4):
        for ways in (1, 32):
            out.append(line(1, -1, [(w, 0, ways, 0)]))
    for f, ways in ((0, 1),) + BURSTS:
        out += load_by_load(16, [(0, f, ways, 0)])[1:]
    # meet: an LDS.32 32-way load and one other load on another sub-partition, from 16 cycles before
    # to 47 after it (a form's code path reaches its loads about PATH cycles per form number later)
    for f, ways in MEETING:
        for s in range(64):
            out.append(line(1, -1, [(0, 0, 32, PATH * f + 16), (1, f, ways, s)]))
    # triple: the data path full with two LDS.32 32-way loads, a third load arriving
    for f, ways in MEETING[1:] + ((0, 32),):
        for s in range(0, 64, 2):
            out.append(line(1, -1, [(0, 0, 32, PATH * f + 16), (1, 0, 32, PATH * f + 17), (2, f, ways, s)]))
    # pairs on different sub-partitions, bursts of 16
    for f, ways in ((0, 2), (1, 1)):
        for _ in range(20):
            out.append(line(16, -1, [(0, f, ways, start()), (1, f, ways, start())]))
    # pairs on one sub-partition, bursts of 16
    for f, ways in ((0, 1), (0, 2), (0, 4), (1, 1)):
        for n in range(23):
            warps = [(0, f, ways, start()), (4, f, ways, start())]
            out += load_by_load(16, warps) if n < 3 else [line(16, -1, warps)]
    # three and four warps on one sub-partition
    for ways in (1, 2):
        for n in (3, 4):
            for m in range(12):
                warps = [(w, 0, ways, start()) for w in (0, 4, 8, 12)[:n]]
                out += load_by_load(16, warps) if m < 2 else [line(16, -1, warps)]
    # quads, one warp per sub-partition: 4 loads of random forms, then bursts of 16 of one form
    for _ in range(200):
        warps = []
        for w in range(4):
            f = rng.randrange(4)
            warps.append((w, f, rng.choice(degrees(f)), start()))
        out.append(line(4, -1, warps))
    for f, ways in BURSTS:
        for n in range(19):
            warps = [(w, f, ways, start()) for w in range(4)]
            out += load_by_load(16, warps) if n < 4 else [line(16, -1, warps)]
    # two warps per sub-partition
    for ways in (1, 4):
        for _ in range(20):
            out.append(line(16, -1, [(w, 0, ways, start()) for w in range(8)]))
    return out


def aligned() -> list[str]:
    """Bursts of 16 loads whose warps all start together (no skew, no pad: they leave the spin within a
    cycle or two), whole and load by load: four warps on four sub-partitions (LDS.32 2-way, LDS.64
    1-way, LDS.128 1-way), two and four on one (LDS.32 1-way and 2-way), eight and sixteen (two and
    four per sub-partition)."""
    out = []
    for warps, forms in (((0, 1, 2, 3), ((0, 2), (1, 1), (2, 1))), ((0, 4), ((0, 1), (0, 2))), ((0, 4, 8, 12), ((0, 1), (0, 2))),
                         (tuple(range(8)), ((0, 1), (0, 2)))):
        for f, ways in forms:
            out += load_by_load(16, [(w, f, ways, 0) for w in warps])
    for ways in (1, 2):
        out.append(line(16, -1, [(w, 0, ways, 0) for w in range(16)]))
    return out


def replays() -> list[str]:
    """Do warps of one sub-partition interleave their replays? (The per-warp run has two warps of one
    sub-partition reach 0.66 wavefronts a cycle with LDS.32 32-way loops, 0.9 with LDS.64 16-way.)
    ``meet-same``: warp 0's LDS.32 32-way or LDS.64 16-way load and warp 4's load of another form (same
    sub-partition) started at 64 offsets, the same with warp 1 (another sub-partition) as the control;
    ``one``: two, three and four warps of one sub-partition with an LDS.32 32-way or 8-way load each,
    started together; a burst of 4 LDS.32 8-way loads of warps 0 and 4."""
    out = []
    for base in ((0, 32), (1, 16)):
        for f, ways in ((0, 32), (0, 8), (0, 2), (1, 16), (1, 1), (2, 8), (3, 8)):
            for other in (4, 1):
                for s in range(0, 64, 1 if other == 4 else 4):
                    out.append(line(1, -1, [(0, base[0], base[1], PATH * f + 16), (other, f, ways, s + PATH * base[0])]))
    for ways in (32, 8):
        for n in (2, 3, 4):
            out.append(line(1, -1, [(w, 0, ways, 0) for w in (0, 4, 8, 12)[:n]]))
    out.append(line(4, -1, [(0, 0, 8, 0), (4, 0, 8, 0)]))  # timing_collide.cu probes load by load only bursts of 16
    return out


def backlog() -> list[str]:
    """Does the data path idle when more warps' conflicted loads are queued than it can serve? (The
    per-warp run's LDS.32 32-way loop: two warps of two sub-partitions 1.00 wavefronts a cycle, three
    of three 0.85, two of one 0.66; the engine 1.00 for all.) Bursts of 16 LDS.32 32-way loads (each
    alone 64 cycles of its warp's feed) started together, whole and load by load: warps 0-1, 0-2, 0
    and 4, 0, 4 and 8; whole only: warps 0-3, and 16-way and 8-way on warps 0-2."""
    out = []
    for warps in ((0, 1), (0, 1, 2), (0, 4), (0, 4, 8)):
        out += load_by_load(16, [(w, 0, 32, 0) for w in warps])
    out.append(line(16, -1, [(w, 0, 32, 0) for w in range(4)]))
    for ways in (16, 8):
        out.append(line(16, -1, [(w, 0, ways, 0) for w in range(3)]))
    return out


#: the other launch lists: name -> the function writing it
LISTS = {"aligned": aligned, "replays": replays, "backlog": backlog}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", choices=sorted(LISTS), help="write this list instead (default out: patterns/collide_LIST.txt)")
    parser.add_argument("--out", help="where to write it (default: patterns/collide.txt)")
    a = parser.parse_args()
    out = Path(a.out or HERE / "patterns" / (f"collide_{a.list}.txt" if a.list else "collide.txt"))
    rows = LISTS[a.list]() if a.list else launches(random.Random(20261124))
    out.write_text("\n".join(rows) + "\n")
    print(f"{out}: {len(rows)} launches")


if __name__ == "__main__":
    main()
