"""Write the H100 timing microbenchmarks (``h100/src/timing.cu``) as trace v1 files in ``traces/timing/``.

    python3 calibration/timing_traces.py [--out traces/timing]

Each measured loop is read from its SASS (``h100/sass/timing.sass``, ``cuobjdump -sass`` of the
measured source for sm_90), control codes included, and each of its shared-memory instructions becomes
a trace instruction with the same addresses (``offset_for`` in timing.cu) and:

- ``wait: N`` where an instruction since the previous shared instruction waits on the scoreboard of a
  load not yet waited for: N is the shared instructions issued after that load (loads complete in
  order, so that is "all but the N latest completed"); the latest such instruction in the stretch
  (the youngest load) is kept;
- ``early``: the other instructions before that waiting one, one issue slot each;
- ``issue``: the other instructions from the waiting one on (or, with no wait, from the previous shared
  instruction), one issue slot each;
- ``delay``: the rest of the stall counts of the ``issue`` ones (each instruction holds the warp for
  its stall count, at least one cycle), plus ``BRANCH_TAKEN`` cycles after the loop's backward branch.

Left out: the waits of the ``early`` instructions (on older loads) and their stall counts beyond one
cycle. The README's "Timing model" section says which rows stay outside 5%.

``lat_<OP>_<ways>.json.gz`` is the dependent chain (one warp, 512 loads); ``thr_<OP>_<ways>.json.gz`` is
the throughput loop of 32 warps x 512 loads, whose first N warps replay the N-warp rows;
``warps_<OP>_<ways>.json.gz`` is the loop of ``h100/src/timing_warps.cu`` (its SASS in
``h100/runs/2026-11-23-warps/``), 16 warps x 512 loads, whose warps of a mask replay that run's rows.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import attrs
import numpy as np

from simsmem.config import load_arch
from simsmem.trace import NO_WAIT, OPS, InstructionBatch, Trace, write_trace

HERE = Path(__file__).resolve().parent
SASS = HERE / "h100" / "sass" / "timing.sass"
LOADS = 512  # per warp, as measured (ITERS in timing.cu)
#: kind -> (SASS file, the kernel's mangled name with {} for its template argument, warps in the trace)
KINDS = {
    "lat": (SASS, "_Z3latILi{}EEviPxPj", 1),
    "thr": (SASS, "_Z3thrILi{}EEviPxPji", 32),
    "warps": (HERE / "h100" / "runs" / "2026-11-23-warps" / "timing_warps.sass", "_Z4thrwILi{}EEviPxPjij", 16),
}
#: Cycles a warp loses after its taken loop branch before the loop's first instruction issues. Not in
#: the control codes; fitted to the one-warp throughput rows of LDS32 at 4 to 32 ways, whose loop
#: takes 16 * 2 * wavefronts + 54 cycles (the 54: the wait for the last load, the loop's 20 other
#: instructions from the wait to the first load, and 8 cycles of this).
BRANCH_TAKEN = 8
#: Kernel template argument, access width (0: LDSM) and lanes per phase of each measured op.
OP = {"LDS32": (0, 32), "LDS64": (1, 64), "LDS128": (2, 128), "LDSM4": (3, 0)}
MAX_WAYS = {"LDS32": 32, "LDS64": 16, "LDS128": 8, "LDSM4": 8}


@attrs.frozen
class Sass:
    """One SASS instruction and what its control code says about timing."""

    text: str
    stall: int  # cycles before the warp's next instruction may issue
    sets: int | None  # scoreboard the instruction releases when its result is ready (7: none)
    waits: int  # mask of scoreboards it waits on

    @property
    def shared(self) -> bool:
        return self.text.split()[0].startswith(("LDS", "STS", "LDSM", "STSM", "ATOMS"))


def read_sass(path: Path = SASS) -> dict[str, list[Sass]]:
    """Each function's instructions with their control codes (Volta+ layout: bits 105-121 of 128)."""
    funcs: dict[str, list[Sass]] = {}
    pending = None
    for line in path.read_text().splitlines():
        if m := re.match(r"\s*Function : (\S+)", line):
            current = funcs.setdefault(m[1], [])
        elif m := re.match(r"\s*/\*[0-9a-f]{4}\*/\s+(.*?)\s*;\s*/\* 0x[0-9a-f]{16} \*/", line):
            pending = m[1]
        elif pending and (m := re.match(r"\s*/\* 0x([0-9a-f]{16}) \*/", line)):
            hi = int(m[1], 16)
            sets = hi >> 46 & 7
            current.append(Sass(pending, max(1, hi >> 41 & 15), None if sets == 7 else sets, hi >> 52 & 63))
            pending = None
    return funcs


def loop_of(instructions: list[Sass]) -> list[Sass]:
    """The body of the function's loop: from the target of its backward branch to the branch."""
    for k, ins in enumerate(instructions):
        if m := re.match(r"@P\d BRA 0x([0-9a-f]+)", ins.text):
            start = int(m[1], 16) // 16
            if start < k:
                return instructions[start : k + 1]
    raise ValueError("no loop")


def project(body: list[Sass], issue_interval: int) -> list[tuple[int, int, int, int]]:
    """``(wait, early, issue, delay)`` of each shared instruction of a loop body, the loop running round and round.

    ``wait``: the latest instruction since the previous shared one that waits on a load not yet waited
    for (``NO_WAIT`` if none) gives N, the shared instructions issued after that load; ``early`` counts
    the instructions before it, ``issue`` and ``delay`` count from it on, else from the previous shared
    instruction.
    """
    n = len(body)
    shared = [k + n * lap for lap in (-1, 0, 1) for k, ins in enumerate(body) if ins.shared]  # the loop unrolled
    waited = -n  # the youngest load waited for so far
    out = []
    for j in range(len(shared) // 3, len(shared)):  # the first lap settles ``waited``
        k, prev = shared[j], shared[j - 1]
        wait, start = NO_WAIT, prev
        for p in range(prev + 1, k):
            target = _setter(body, p, body[p % n].waits) if body[p % n].waits else None
            if target is not None and target > waited and body[target % n].shared:
                waited, start, wait = target, p, j - shared.index(target) - 1
        early = 0 if start == prev else start - prev - 1
        others = k - start - (start == prev)
        cycles = sum(body[p % n].stall + (BRANCH_TAKEN if _branch(body[p % n]) else 0) for p in range(start, k))
        if k >= n:
            out.append((wait, early, others, cycles - issue_interval * (others + (start == prev))))
    return out


def _setter(body: list[Sass], p: int, waits: int) -> int:
    """The latest instruction before position ``p`` (in loop order, may be negative) setting one of ``waits``."""
    n = len(body)
    for q in range(p - 1, p - 1 - n, -1):
        if body[q % n].sets is not None and waits >> body[q % n].sets & 1:
            return q
    return p - n


def _branch(ins: Sass) -> bool:
    return ins.text.startswith("@P") and "BRA" in ins.text


def offsets(op: str, ways: int) -> np.ndarray:
    """The 32 lanes' byte offsets of ``offset_for`` in timing.cu."""
    lane = np.arange(32)
    if op == "LDS32":
        g = 32 // ways
        return lane % g * 4 + lane // g * 128
    per, size = {"LDS64": (16, 8), "LDS128": (8, 16), "LDSM4": (8, 16)}[op]
    j, g = lane % per, per // ways
    return lane // per * 4096 + j % g * size + j // g * 128


def trace(op: str, ways: int, kind: str, issue_interval: int) -> Trace:
    """The dependent chain (``lat``), the 32-warp throughput loop (``thr``) or the 16-warp loop of
    timing_warps.cu (``warps``) of ``op`` at ``ways``."""
    template, width = OP[op]
    sass, kernel, warps = KINDS[kind]
    body = loop_of(read_sass(sass)[kernel.format(template)])
    steps = project(body, issue_interval)
    n = warps * LOADS
    per_loop = np.array(steps * (LOADS // len(steps)))
    matrix = width == 0
    batch = InstructionBatch(
        op=np.full(n, OPS.index("LDSM" if matrix else "LDS"), dtype=np.uint8),
        width=np.full(n, width, dtype=np.uint8),
        num=np.full(n, 4 if matrix else 0, dtype=np.uint8),
        trans=np.zeros(n, dtype=bool),
        mask=np.full(n, 0xFFFFFFFF, dtype=np.uint32),
        warp=np.repeat(np.arange(warps, dtype=np.int32), LOADS),
        wait=np.tile(per_loop[:, 0], warps).astype(np.int32),
        delay=np.tile(per_loop[:, 3], warps).astype(np.int64),
        issue=np.tile(per_loop[:, 2], warps).astype(np.int32),
        early=np.tile(per_loop[:, 1], warps).astype(np.int32),
        generic=np.zeros(n, dtype=bool),
        atom=np.zeros(n, dtype=np.uint8),
        addrs=np.tile(offsets(op, ways).astype(np.int32), (n, 1)),
    )
    return Trace(batch, name=f"{kind}_{op}_{ways}", arch="sm_90")


def rows() -> list[tuple[str, int]]:
    """Every (op, ways) that timing.json measured."""
    return [(op, 1 << k) for op in OP for k in range(MAX_WAYS[op].bit_length())]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(HERE.parent / "traces" / "timing"))
    out = Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    issue_interval = load_arch("sm_90").timing.issue_interval
    for op, ways in rows():
        for kind in KINDS:
            write_trace(trace(op, ways, kind, issue_interval), out / f"{kind}_{op}_{ways}.json.gz")
    print(f"{out}: {len(KINDS) * len(rows())} traces")


if __name__ == "__main__":
    main()
