"""Write the launch list of ``h100/src/timing_collide.cu`` (``patterns/collide.txt``), committed before it is measured.

    python3 calibration/collide_specs.py [--out calibration/patterns/collide.txt]

Each line is one launch: ``nl`` (loads per warp), then ``w:form:skew:offsets`` per active warp (form 0-3:
LDS.32, LDS.64, LDS.128, LDSM.x4; offsets: the 32 lanes' byte offsets). The families ask who gets the
data path when several warps' wavefronts meet, and how one instruction's wavefronts are spaced:

- ``alone``: every form and conflict degree (timing.cu's offsets, and every lane on one address) at
  1, 4 and 16 loads, warp 0 alone; a few on warps 1-4 alone;
- ``pair``: two warps on different sub-partitions (0 and 1), the second started 0 to 40 cycles late;
  the same on one sub-partition (0 and 4);
- ``one``: three and four warps on one sub-partition (0, 4, 8, 12), LDS.32 1-way and 2-way, random skews;
- ``triple``: warps 0-2, LDS.32 32-way, at skews (0, d, 2d) and (0, 0, d);
- ``quad``: warps 0-3 (one per sub-partition) at random skews: LDS.32 32-way and 2-way, LDS.64 1-way, LDS.128 1-way, LDSM.x4
  1-way, and random forms;
- ``eight``: warps 0-7 (two per sub-partition), LDS.32 1-way and 4-way, random skews.

Skews are where a warp's spin on clock64 ends at the earliest (its measured start is what counts).
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from timing_traces import offsets

HERE = Path(__file__).resolve().parent
#: form number in timing_collide.cu -> (timing.cu's offset pattern, largest conflict degree)
FORMS = {0: ("LDS32", 32), 1: ("LDS64", 16), 2: ("LDS128", 8), 3: ("LDSM4", 8)}
STRIDE0 = 0  # ways value meaning every lane on byte 0


def lanes(form: int, ways: int) -> list[int]:
    if ways == STRIDE0:
        return [0] * 32
    return [int(o) for o in offsets(FORMS[form][0], ways)]


def line(nl: int, warps: list[tuple[int, int, int, int]]) -> str:
    """One launch: ``warps`` as (warp, form, ways, skew)."""
    return " ".join([str(nl)] + [f"{w}:{f}:{k}:{','.join(map(str, lanes(f, ways)))}" for w, f, ways, k in warps])


def degrees(form: int) -> list[int]:
    return [1 << k for k in range(FORMS[form][1].bit_length())]


def launches(rng: random.Random) -> list[str]:
    out = []
    # alone
    for nl in (1, 4, 16):
        for f in FORMS:
            for ways in degrees(f) + ([STRIDE0] if f in (1, 2) else []):
                out.append(line(nl, [(0, f, ways, 0)]))
    for w in (1, 2, 3, 4):
        for ways in (1, 32):
            out.append(line(1, [(w, 0, ways, 0)]))
    for w in (1, 2, 3):
        for f in (0, 1, 2):
            out.append(line(16, [(w, f, 2 if f == 0 else 1, 0)]))
    # pairs: different sub-partitions (0, 1), then one sub-partition (0, 4)
    for second in (1, 4):
        for nl, a, b in ((1, (0, 32), (0, 32)), (16, (0, 2), (0, 2)), (16, (1, 1), (1, 1)), (1, (0, 32), (2, 1)), (4, (0, 8), (1, 1)),
                         (16, (0, 1), (0, 1)), (16, (0, 4), (0, 4))):
            for d in range(41):
                out.append(line(nl, [(0, *a, 0), (second, *b, d)]))
    # triples
    for d in range(21):
        out.append(line(1, [(0, 0, 32, 0), (1, 0, 32, d), (2, 0, 32, 2 * d)]))
    for d in range(0, 41, 2):
        out.append(line(1, [(0, 0, 32, 0), (1, 0, 32, 0), (2, 0, 32, d)]))
    # quads at random skews
    for nl, f, ways, spread, n in ((1, 0, 32, 40, 30), (16, 0, 2, 16, 30), (16, 1, 1, 16, 30), (16, 2, 1, 16, 20), (16, 3, 1, 16, 20)):
        for _ in range(n):
            out.append(line(nl, [(w, f, ways, rng.randrange(spread + 1)) for w in range(4)]))
    for _ in range(40):
        warps = []
        for w in range(4):
            f = rng.randrange(4)
            warps.append((w, f, rng.choice(degrees(f)), rng.randrange(17)))
        out.append(line(4, warps))
    # three and four warps on one sub-partition
    for ways in (1, 2):
        for n in (3, 4):
            for _ in range(10):
                out.append(line(16, [(w, 0, ways, rng.randrange(17)) for w in (0, 4, 8, 12)[:n]]))
    # two warps per sub-partition
    for ways in (1, 4):
        for _ in range(20):
            out.append(line(16, [(w, 0, ways, rng.randrange(17)) for w in range(8)]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(HERE / "patterns" / "collide.txt"))
    out = Path(parser.parse_args().out)
    rows = launches(random.Random(20261124))
    out.write_text("\n".join(rows) + "\n")
    print(f"{out}: {len(rows)} launches")


if __name__ == "__main__":
    main()
