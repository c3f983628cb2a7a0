"""Write the H100 timing microbenchmarks (``h100/src/timing*.cu``) as trace v1 files in ``traces/timing/``.

    python3 calibration/timing_traces.py [--out traces/timing]

Each measured loop is read from its SASS (``h100/sass/timing.sass``, ``cuobjdump -sass`` of the
measured source for sm_90), control codes included, and each of its shared-memory instructions becomes
a trace instruction with the same addresses (``offset_for`` in timing.cu) and (``project``):

- ``others``: the instructions since the previous shared one, one by one: pipe (``alu`` for
  ``INTEGER_ALU``, ``imad`` for IMAD, else none), stall count, and the wait on a load's write
  scoreboard as the number of shared instructions issued after that load (loads complete in order,
  so that is "all but the N latest completed");
- ``wait`` and ``stall``: the shared instruction's own;
- ``BRANCH_TAKEN`` cycles added to the loop branch's stall, and a wait on a shared instruction's read
  scoreboard (an instruction overwriting a register that a store or load before it reads), which
  stalls ``READ_RELEASE`` cycles after that instruction's issue less the stall counts between the two,
  added to the stall of the instruction before the waiting one.

``lat_<OP>_<ways>.json.gz`` is the dependent chain (one warp, 512 loads); ``thr_<OP>_<ways>.json.gz`` is
the throughput loop of 32 warps x 512 loads, whose first N warps replay the N-warp rows;
``warps_<OP>_<ways>.json.gz`` is the loop of ``h100/src/timing_warps.cu`` (its SASS in
``h100/runs/2026-11-23-warps/``), 16 warps x 512 loads, whose warps of a mask replay that run's rows;
``latf_<FORM>_<ways>`` and ``thrf_<FORM>_<ways>`` are the same two loops of ``h100/src/timing_forms.cu``
(LDS.U8, LDS.U16, LDSM.x1, LDSM.x2, LDSM.x4.trans, ATOMS.ADD; STS.32/.64/.128 and STSM.x4 throughput
only; SASS and rows in ``h100/runs/2026-11-24-forms/``).
"""

from __future__ import annotations

import argparse
import gzip
import re
from pathlib import Path

import attrs
import numpy as np
from simsmem.config import Timing, load_arch
from simsmem.traces import NO_WAIT, OPS, InstructionBatch, Trace, write_trace
from simsmem.traces.others import Other, unparse

HERE = Path(__file__).resolve().parent
SASS = HERE / "h100" / "sass" / "timing.sass"
LOADS = 512  # per warp, as measured (ITERS in timing.cu)
FORMS_SASS = HERE / "h100" / "runs" / "2026-11-24-forms" / "timing_forms.sass"


@attrs.frozen
class Form:
    """A measured form: its kernel's template argument, its SASS op with access width (LDS, STS) or
    matrix count (LDSM), the lanes' offsets (``offsets``' pattern) and the largest conflict degree."""

    template: int
    op: str
    width: int  # 0 for LDSM, STSM
    num: int  # 0 for LDS, STS, ATOMS
    pattern: str
    max_ways: int
    trans: bool = False


#: timing.cu's four forms, then timing_forms.cu's ten, each on the offsets of timing.cu's op of its shape.
FORMS = {
    "LDS32": Form(0, "LDS", 32, 0, "LDS32", 32),
    "LDS64": Form(1, "LDS", 64, 0, "LDS64", 16),
    "LDS128": Form(2, "LDS", 128, 0, "LDS128", 8),
    "LDSM4": Form(3, "LDSM", 0, 4, "LDSM4", 8),
    "LDS8": Form(0, "LDS", 8, 0, "LDS32", 32),
    "LDS16": Form(1, "LDS", 16, 0, "LDS32", 32),
    "LDSM1": Form(2, "LDSM", 0, 1, "LDSM4", 8),
    "LDSM2": Form(3, "LDSM", 0, 2, "LDSM4", 8),
    "STS32": Form(4, "STS", 32, 0, "LDS32", 32),
    "STS64": Form(5, "STS", 64, 0, "LDS64", 16),
    "STS128": Form(6, "STS", 128, 0, "LDS128", 8),
    "STSM4": Form(7, "STSM", 0, 4, "LDSM4", 8),
    "LDSM4T": Form(8, "LDSM", 0, 4, "LDSM4", 8, trans=True),
    "ATOMS32": Form(9, "ATOMS", 32, 0, "LDS32", 32),
}
#: kind -> (SASS file, the kernel's mangled name with {} for its template argument, warps in the trace, forms)
KINDS = {
    "lat": (SASS, "_Z3latILi{}EEviPxPj", 1, ("LDS32", "LDS64", "LDS128", "LDSM4")),
    "thr": (SASS, "_Z3thrILi{}EEviPxPji", 32, ("LDS32", "LDS64", "LDS128", "LDSM4")),
    "warps": (HERE / "h100" / "runs" / "2026-11-23-warps" / "timing_warps.sass", "_Z4thrwILi{}EEviPxPjij", 16,
              ("LDS32", "LDS64", "LDS128", "LDSM4")),
    "latf": (FORMS_SASS, "_Z4latfILi{}EEviPxPj", 1, ("LDS8", "LDS16", "LDSM1", "LDSM2", "LDSM4T", "ATOMS32")),
    "thrf": (FORMS_SASS, "_Z4thrfILi{}EEviPxPji", 32,
             ("LDS8", "LDS16", "LDSM1", "LDSM2", "STS32", "STS64", "STS128", "STSM4", "LDSM4T", "ATOMS32")),
}
#: Cycles a warp loses after its taken loop branch before the loop's first instruction issues. Not in
#: the control codes; fitted to the one-warp throughput rows of LDS32 at 4 to 32 ways, whose loop
#: takes 16 * 2 * wavefronts + 54 cycles (the 54: the wait for the last load, the loop's 20 other
#: instructions from the wait to the first load, and 8 cycles of this).
BRANCH_TAKEN = 8
#: Cycles from a shared-memory instruction's issue until it has read its registers and releases its
#: read scoreboard (which an instruction overwriting one of those registers waits on); wider stores
#: take longer (``read_release``). Not in the control codes (the compiler puts those waits 8 to 9
#: cycles after the store or load); fitted to timing_forms.cu's STS.32 loop at 1-way, 1 to 4 warps
#: (10: 13% fast; 12: 11% slow).
READ_RELEASE = 11


#: SASS ops of the sub-partition's integer-ALU pipe, one instruction per ``alu_interval`` cycles: LOP3
#: measured (runs/2026-11-24-alu); the others are the same pipe's logic, add and compare ops (not measured).
INTEGER_ALU = frozenset({"LOP3", "IADD3", "LEA", "ISETP", "SHF", "SEL", "PRMT", "IABS", "IMNMX", "POPC", "FLO", "BMSK", "SGXT"})


@attrs.frozen
class Sass:
    """One SASS instruction and what its control code says about timing."""

    text: str
    stall: int  # cycles before the warp's next instruction may issue
    sets: int | None  # scoreboard the instruction releases when its result is ready (None: none)
    waits: int  # mask of scoreboards it waits on
    reads: int | None = None  # scoreboard it releases once it has read its registers (None: none)

    @property
    def op(self) -> str:
        """Its opcode without modifiers or predicate (``LOP3`` of ``@P0 LOP3.LUT ...``)."""
        words = self.text.split()
        return (words[1] if words[0].startswith("@") else words[0]).split(".")[0]

    @property
    def alu(self) -> bool:
        """Issued on the sub-partition's integer-ALU pipe (``INTEGER_ALU``)."""
        return self.op in INTEGER_ALU

    @property
    def pipe(self) -> str | None:
        """The sub-partition pipe it issues on (sm_90's ``timing.pipes``): ``alu`` for ``INTEGER_ALU``, ``imad``
        for IMAD; None for others."""
        return "alu" if self.alu else "imad" if self.op == "IMAD" else None

    @property
    def shared(self) -> bool:
        return self.text.split()[0].startswith(("LDS", "STS", "LDSM", "STSM", "ATOMS"))


def read_sass(path: Path = SASS) -> dict[str, list[Sass]]:
    """Each function's instructions with their control codes (Volta+ layout: bits 105-121 of 128: stall,
    yield, write scoreboard, read scoreboard, wait mask); ``path``: a ``cuobjdump -sass`` listing, gzipped
    if it ends in ``.gz``."""
    funcs: dict[str, list[Sass]] = {}
    pending = None
    text = gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()
    for line in text.splitlines():
        if m := re.match(r"\s*Function : (\S+)", line):
            current = funcs.setdefault(m[1], [])
        elif m := re.match(r"\s*/\*[0-9a-f]{4}\*/\s+(.*?)\s*;\s*/\* 0x[0-9a-f]{16} \*/", line):
            pending = m[1]
        elif pending and (m := re.match(r"\s*/\* 0x([0-9a-f]{16}) \*/", line)):
            hi = int(m[1], 16)
            sets, reads = hi >> 46 & 7, hi >> 49 & 7
            current.append(Sass(pending, max(1, hi >> 41 & 15), None if sets == 7 else sets, hi >> 52 & 63,
                                None if reads == 7 else reads))
            pending = None
    return funcs


def loops_of(instructions: list[Sass], negated: bool = False) -> list[list[Sass]]:
    """The bodies of the function's loops, in code order: each from the target of a backward branch (on a
    predicate; ``negated``: on its negation too) to the branch."""
    out = []
    branch = r"@!?P\d BRA 0x([0-9a-f]+)" if negated else r"@P\d BRA 0x([0-9a-f]+)"
    for k, ins in enumerate(instructions):
        if m := re.match(branch, ins.text):
            start = int(m[1], 16) // 16
            if start < k:
                out.append(instructions[start : k + 1])
    return out


def load_loop(instructions: list[Sass], negated: bool = False) -> list[Sass]:
    """The body of the function's (first) loop that holds shared-memory loads (LDS, LDSM; ``negated``: as
    ``loops_of``), not its zeroing of shared memory."""
    return next(body for body in loops_of(instructions, negated) if any(ins.text.startswith("LDS") for ins in body))


def loop_of(instructions: list[Sass]) -> list[Sass]:
    """The body of the function's (first) loop."""
    loops = loops_of(instructions)
    if not loops:
        raise ValueError("no loop")
    return loops[0]


def project(body: list[Sass], timing: Timing) -> list[tuple[str, int, int]]:
    """``(others, wait, stall)`` of each shared instruction of a loop body, the loop running round and round:
    the instructions since the previous shared one one by one (trace v1 ``others``: pipe, stall count, and the
    wait on the write scoreboard of a load, as the loads issued since it), its own wait and stall count.
    ``BRANCH_TAKEN`` adds to the loop branch's stall, and a wait on a shared instruction's read scoreboard
    (``read_stalls``) to the stall of the instruction before the waiting one."""
    n = len(body)
    read = read_stalls(body, timing.feed_interval)
    shared = [k for k, ins in enumerate(body) if ins.shared]
    stalls = [ins.stall + (BRANCH_TAKEN if _branch(ins) else 0) + read[(p + 1) % n] for p, ins in enumerate(body)]

    def wait_of(p: int) -> int | None:
        target = _setter(body, p, body[p % n].waits, "sets") if body[p % n].waits else None
        if target is None or not body[target % n].shared:
            return None
        return sum(1 for q in range(target + 1, p) if body[q % n].shared)

    out = []
    for j, k in enumerate(shared):
        prev = shared[j - 1] - (n if j == 0 else 0)
        tokens = []
        for p in range(prev + 1, k):
            tokens.append(Other(body[p % n].pipe, stalls[p % n], wait_of(p)))
        wait = wait_of(k)
        out.append((unparse(tuple(tokens)), NO_WAIT if wait is None else wait, stalls[k]))
    return out


def read_stalls(body: list[Sass], feed_interval: int) -> list[int]:
    """Cycles each instruction of the loop stalls on the read scoreboard of a shared instruction before it:
    the cycles that one takes to read its registers (``read_release``) less the cycles the stall counts
    put between the two (at least 0)."""
    n = len(body)
    at = np.cumsum([0] + [ins.stall + (BRANCH_TAKEN if _branch(ins) else 0) for ins in body])  # issue cycle in a lap
    out = [0] * n
    for p, ins in enumerate(body):
        for sb in range(6):
            if ins.waits >> sb & 1:
                q = _setter(body, p, 1 << sb, "reads")
                if q is not None and body[q % n].shared:
                    since = at[p] - (at[q] if q >= 0 else at[q % n] - at[n])
                    out[p] = max(out[p], read_release(body[q % n], feed_interval) - int(since))
    return out


def read_release(ins: Sass, feed_interval: int) -> int:
    """Cycles from a shared instruction's issue until it has read its registers: ``READ_RELEASE``, and for
    a store whose data takes several phases (STS.64: 2, STS.128 and STSM.x4: 4) ``feed_interval`` more
    per phase after the first, the data of one phase being read as it leaves."""
    op = ins.text.split()[0]
    phases = 1
    if op.startswith("STSM"):
        phases = int(op.rsplit(".", 1)[1])
    elif op.startswith("STS."):
        phases = max(1, int(op.split(".")[1]) // 32)
    return READ_RELEASE + feed_interval * (phases - 1)


def _setter(body: list[Sass], p: int, waits: int, kind: str) -> int | None:
    """The latest instruction before position ``p`` (in loop order, may be negative) setting one of the
    scoreboards of ``waits``, if it sets it as ``kind`` (``sets``: on its result, ``reads``: on reading
    its registers); else None."""
    n = len(body)
    for q in range(p - 1, p - 1 - n, -1):
        ins = body[q % n]
        for how in ("sets", "reads"):
            sb = getattr(ins, how)
            if sb is not None and waits >> sb & 1:
                return q if how == kind else None
    return p - n if kind == "sets" else None


def _branch(ins: Sass) -> bool:
    return ins.text.startswith("@P") and "BRA" in ins.text


def offsets(pattern: str, ways: int) -> np.ndarray:
    """The 32 lanes' byte offsets of ``offset_for`` in timing.cu (``pattern``: its op)."""
    lane = np.arange(32)
    if pattern == "LDS32":
        g = 32 // ways
        return lane % g * 4 + lane // g * 128
    per, size = {"LDS64": (16, 8), "LDS128": (8, 16), "LDSM4": (8, 16)}[pattern]
    j, g = lane % per, per // ways
    return lane // per * 4096 + j % g * size + j // g * 128


def trace(op: str, ways: int, kind: str, timing: Timing) -> Trace:
    """The dependent chain (``lat``, ``latf``), the 32-warp throughput loop (``thr``, ``thrf``) or the
    16-warp loop of timing_warps.cu (``warps``) of form ``op`` at ``ways``."""
    form = FORMS[op]
    sass, kernel, warps, _ = KINDS[kind]
    steps = project(loop_of(read_sass(sass)[kernel.format(form.template)]), timing)
    return Trace(loop_batch(steps, range(warps), LOADS, form, ways), name=f"{kind}_{op}_{ways}", arch="sm_90")


def loop_batch(steps: list[tuple[str, int, int]], warps, loads: int, form: Form, ways: int) -> InstructionBatch:
    """Each of ``warps`` running a loop of ``project``ed ``steps`` round and round for ``loads`` loads of
    ``form`` at ``ways`` (``offsets``), in warp order."""
    warps = np.asarray(list(warps), dtype=np.int32)
    n = len(warps) * loads
    laps = loads // len(steps)
    others, wait, stall = (np.tile(np.array([step[k] for step in steps] * laps), len(warps)) for k in range(3))
    return InstructionBatch(
        op=np.full(n, OPS.index(form.op), dtype=np.uint8),
        width=np.full(n, form.width, dtype=np.uint8),
        num=np.full(n, form.num, dtype=np.uint8),
        trans=np.full(n, form.trans, dtype=bool),
        mask=np.full(n, 0xFFFFFFFF, dtype=np.uint32),
        warp=np.repeat(warps, loads),
        wait=wait.astype(np.int32),
        delay=np.zeros(n, dtype=np.int64),
        issue=np.zeros(n, dtype=np.int32),
        generic=np.zeros(n, dtype=bool),
        atom=np.zeros(n, dtype=np.uint8),
        addrs=np.tile(offsets(form.pattern, ways).astype(np.int32), (n, 1)),
        others=others.astype(str),
        stall=stall.astype(np.int32),
    )


def rows(kind: str) -> list[tuple[str, int]]:
    """Every (form, ways) measured with ``kind``'s kernel."""
    return [(op, 1 << k) for op in KINDS[kind][3] for k in range(FORMS[op].max_ways.bit_length())]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(HERE.parent / "traces" / "timing"))
    out = Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    timing = load_arch("sm_90").timing
    written = 0
    for kind in KINDS:
        for op, ways in rows(kind):
            write_trace(trace(op, ways, kind, timing), out / f"{kind}_{op}_{ways}.json.gz")
            written += 1
    print(f"{out}: {written} traces")


if __name__ == "__main__":
    main()
