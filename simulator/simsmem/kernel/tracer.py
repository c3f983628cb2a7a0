"""From a kernel and a launch to a trace: execute the chosen CTAs, batch by batch, and record.

CTAs are independent: each batch of CTAs gets a fresh machine and a fresh shared memory, and only
global memory carries over. A batch holds up to ``BATCH_THREADS`` threads, so that numpy works on
long columns while memory stays bounded.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import attrs
import numpy as np

from ..errors import SimsmemError, TraceError
from ..traces.records import STREAMS, InstructionBatch, Streams
from ..traces.stream import CHUNK, Chunk, TraceStream
from . import shared
from .isa import Env, build, shared_opcodes
from .isa.memory import COUNTED
from .misc import MISC
from .launch import MAX_SHARED, Launch, make_launch
from .machine import ExecError, Machine, Runaway
from .memory import LOCAL_HI, SHARED_HI
from .program import Program, load_program
from .record import Recorder
from .sass import Control, SassError, controls, parse_text
from .streams import StreamRecorder, WarpStreams

BATCH_THREADS = 4096
#: What the timed SM's occupancy depends on (``StreamSink.resources``): registers per thread, shared bytes per CTA,
#: threads per CTA, and the launch's traced CTAs.
RESOURCES = ("registers", "shared", "threads", "ctas")
#: The arch a kernel's trace is written for (its header's ``arch``), whose SMs its ``streams`` are spread over.
TRACED_ARCH = "sm_90"
#: The default step limit of CTAs run together (a step executes one instruction for the warps at it, so it bounds each
#: warp's instructions): what about 30 s of one core allows, a step costing ``1 + threads / STEP_THREADS`` units of about
#: 28 us (docs/kernels.md, "Runaway kernels", has the measurement): 680,000 steps for a lone warp, 180,000 for 4096 threads.
MAX_STEP_UNITS, STEP_THREADS = 700_000, 1400


def max_steps(threads: int) -> int:
    """The default step limit of a batch of ``threads`` threads."""
    return int(MAX_STEP_UNITS / (1 + threads / STEP_THREADS))


@attrs.define
class Execution:
    """What tracing a launch found besides its rows (filled in as the trace is read)."""

    executed: int = 0  # warp-level SASS instructions executed by the traced CTAs (ncu: smsp__inst_executed)
    ctas: int = 0
    load: float = 0.0  # the most any batch of CTAs took of its step limit (a fraction)
    counted: dict[str, int] = attrs.field(factory=dict)  # more of ncu's instruction counters of the traced CTAs (``Machine.tally``)
    #: each traced CTA's global accesses' L1 data-bank words: linear CTA index -> [read, written] (``kernel/l1.py``)
    l1_words: dict[int, list[int]] = attrs.field(factory=dict)
    l1_unknown: str = ""  # why they are not the kernel's (``L1Words.unknown``)
    misc_unknown: str = ""  # why the op_misc wavefronts counted are not the kernel's (``MiscWavefronts.unknown``)

    def count(self, counted: dict[str, int], l1_words: dict[int, list[int]], l1_unknown: str, misc_unknown: str) -> None:
        """Add a batch's ``counted``, ``l1_words``, ``l1_unknown`` and ``misc_unknown``."""
        for name, n in counted.items():
            self.counted[name] = self.counted.get(name, 0) + n
        self.l1_words.update(l1_words)
        self.l1_unknown = self.l1_unknown or l1_unknown
        self.misc_unknown = self.misc_unknown or misc_unknown

    def finish(self, header: dict) -> None:
        """Fill in the trace header's ``executed``, ``counted`` and ``l1_words`` (``[CTA, read, written]``, CTAs rising), or
        in its place ``l1_unknown``, why they are unknown; ``misc_unknown`` in place of the op_misc wavefronts' count."""
        header["executed"] = self.executed
        header["counted"] = self.counters()
        if self.misc_unknown:
            header["misc_unknown"] = self.misc_unknown
            del header["counted"][MISC]
        if self.l1_unknown:
            header["l1_unknown"] = self.l1_unknown
        else:
            header["l1_words"] = [[c, *self.l1_words[c]] for c in sorted(self.l1_words)]

    def counters(self) -> dict[str, int]:
        """``counted`` as a trace header gives it: every counter the steps tally (``isa.memory.COUNTED``), 0 where none was."""
        return {name: self.counted.get(name, 0) for name in COUNTED}


def select_ctas(launch: Launch, ctas: list[tuple[int, int, int]] | None) -> list[int]:
    """Linear indices of the CTAs to trace: all of the grid, or those named; in thread-block clusters, each with the rest
    of its cluster, a cluster's CTAs together by rank (clusters in the order of their first CTA)."""
    g = launch.geometry
    chosen = range(g.ctas)
    if ctas:
        for c in ctas:
            if not all(0 <= v < n for v, n in zip(c, g.grid)):
                raise SimsmemError("--cta", f"CTA {','.join(map(str, c))} is outside the grid {','.join(map(str, g.grid))}")
        chosen = sorted({g.cta_index(c) for c in ctas})
    if g.cluster_size == 1:
        return list(chosen)
    clusters = {g.cluster_of(c): g.members(c) for c in chosen}
    return [c for members in sorted(clusters.values(), key=min) for c in members]


#: Built steps, per program and constant banks: (id(program), banks) -> (program, steps); the program is kept so its id stays its own.
_STEPS: dict[tuple, tuple[Program, list]] = {}


def program_steps(program: Program, launch: Launch) -> list:
    """The machine's steps for ``program``'s code under ``launch``'s constant banks (which builders read); built once per
    program and banks, since the steps hold no state of their own (a run's state is its machine's)."""
    key = (id(program), tuple((bank, bytes(data)) for bank, data in sorted(launch.constants.items())))
    held = _STEPS.get(key)
    if held is not None and held[0] is program:
        return held[1]
    env = Env(launch.constants, program.kernel.functions)
    steps = [build(ins, env) for ins in program.code]
    if len(_STEPS) >= 16:
        _STEPS.clear()
    _STEPS[key] = (program, steps)
    return steps


@attrs.define
class StreamSink:
    """The warp streams the timed SM needs: those of the CTAs one SM of ``sms`` runs (``ctas``, linear indices: the
    traced CTAs that the launch's round-robin puts on the first traced CTA's SM), and what the SM's occupancy
    depends on (``resources``), both filled in by ``trace_kernel``."""

    sms: int
    ctas: frozenset[int] = frozenset()
    resources: dict[str, int] = attrs.field(factory=dict)
    code: dict[int, dict[str, str]] = attrs.field(factory=dict)  # every SASS instruction's text and line, by offset
    kept: list[WarpStreams] = attrs.field(factory=list)

    def streams(self) -> WarpStreams | None:
        """The kept CTAs' streams as one, CTAs in launch order (None: none ran)."""
        if not self.kept:
            return None
        parts = self.kept
        offsets = np.cumsum([0] + [len(p.sector_sets) for p in parts])
        return attrs.evolve(parts[0], ctas=sum((p.ctas for p in parts), ()), pcs=sum((p.pcs for p in parts), ()),
                            rows=sum((p.rows for p in parts), ()), sector_sets=sum((p.sector_sets for p in parts), ()),
                            sectors=sum((tuple(np.where(s >= 0, s + o, -1) for s in p.sectors) for p, o in zip(parts, offsets)), ()),
                            active=sum((p.active for p in parts), ()))

    def record(self) -> Streams | None:
        """The kept streams, the resources and the code as a trace holds them (its header's ``streams``); None: none ran."""
        s = self.streams()
        if s is None:
            return None
        values = {**{name: self.resources[name] for name in RESOURCES}, "sms": self.sms, "warps": s.warps_per_cta, "cta": s.ctas,
                  "sass": [ins.text for ins in s.code], "control": [c.bits for c in s.control],
                  "line": [self.code.get(ins.pc, {}).get("line") or "" for ins in s.code], "length": [len(p) for p in s.pcs],
                  "pc": _flat(s.pcs) * 16, "row": _flat(s.rows), "sectors": _flat(s.sectors), "active": _flat(s.active),
                  "size": [len(x) for x in s.sector_sets],
                  "sector": np.diff(_flat(s.sector_sets), prepend=0)}
        return Streams(**{name: np.asarray(values[name], part.dtype) for name, part in STREAMS.items()})

    @staticmethod
    def of(streams: Streams, where: str) -> StreamSink:
        """The sink a trace's ``streams`` hold (``where``: the trace, as errors name it)."""
        code = []
        for k, text in enumerate(streams.sass.tolist()):
            try:
                code.append(parse_text(16 * k, text))
            except SassError as exc:
                raise TraceError(f"{where}: streams.sass", f"instruction {k} ({16 * k:#06x}): {exc}") from None
        warps = WarpStreams(tuple(code), tuple(Control.of(b << 41) for b in streams.control.tolist()), tuple(streams.cta.tolist()),
                            int(streams.warps), _split(streams.pc // 16, streams.length), _split(streams.row, streams.length),
                            _split(streams.sectors, streams.length), _split(np.cumsum(streams.sector), streams.size),
                            _split(streams.active, streams.length))
        resources = {name: int(getattr(streams, name)) for name in RESOURCES}
        lines = {16 * k: {"sass": ins.text, "line": line} for k, (ins, line) in enumerate(zip(code, streams.line.tolist()))}
        return StreamSink(int(streams.sms), frozenset(warps.ctas), resources, lines, [warps])


def _flat(arrays: tuple[np.ndarray, ...]) -> np.ndarray:
    """The integer arrays one after another."""
    return np.concatenate([np.asarray(a, np.int64) for a in arrays] or [np.zeros(0, np.int64)])


def _split(a: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, ...]:
    """``a`` cut into consecutive pieces of ``sizes``."""
    return tuple(np.split(a, np.cumsum(sizes)[:-1])) if len(sizes) else ()


def ctas_per_batch(launch: Launch) -> int:
    """How many CTAs ``execute`` runs together: ``BATCH_THREADS`` threads' worth, in whole clusters (at least one), so
    that a cluster's CTAs, which ``select_ctas`` puts together, run together."""
    size = launch.geometry.cluster_size
    return max(1, BATCH_THREADS // (launch.geometry.warps * 32) // size) * size


def execute(program: Program, launch: Launch, ctas: list[int], limit: int | None = None, execution: Execution | None = None,
            sink: StreamSink | None = None) -> Iterator[InstructionBatch]:
    """The rows of the shared-memory instructions of ``ctas``, in batches, as they execute; ``sink``: keep the warp streams
    of its CTAs."""
    steps = program_steps(program, launch)
    execution = execution if execution is not None else Execution()
    per_batch = ctas_per_batch(launch)
    window = {"shared_hi": SHARED_HI, "local_hi": LOCAL_HI, "describe": launch.described}
    rows = 0
    control = tuple(controls(program.kernel.text)) if sink is not None else ()
    for start in range(0, len(ctas), per_batch):
        group = ctas[start : start + per_batch]
        m = Machine(steps, list(program.code), launch.geometry, group, launch.shared_bytes, launch.constants, launch.memory,
                    launch.local_bytes, window)
        rec = Recorder(m)
        keep = [k for k, c in enumerate(group) if sink is not None and c in sink.ctas]
        streams = StreamRecorder(m, keep, rows) if keep else None
        try:
            with np.errstate(all="ignore"):
                m.run(most := limit or max_steps(len(group) * launch.geometry.warps * 32))
        except Runaway as exc:
            raise SimsmemError(f"{program.where}: {program.entry}", f"{exc.what}; {loop_at(program, exc.pc)}") from None
        except ExecError as exc:
            where = f"{program.where}: " + (program.line_of(exc.pc) if exc.pc is not None else program.entry)
            who = f" (warp {exc.warp}, lane {exc.lane})" if exc.warp is not None else ""
            raise SimsmemError(where + who, exc.what) from None
        execution.executed += m.executed
        execution.count(m.counted, m.l1.per_cta(m.ctas), m.l1.unknown, m.misc.unknown)
        execution.load = max(execution.load, m.steps / most)
        execution.ctas += len(group)
        if streams is not None:
            sink.kept.append(attrs.evolve(streams.streams(), control=control))
        for batch in rec.take(0):
            rows += len(batch)
            yield batch


def loop_at(program: Program, pc: int) -> str:
    """Where the innermost loop around ``pc`` is: the backward branch that closes it, and where it goes back to."""
    back = [ins for ins in program.code if ins.name in ("BRA", "JMP") and ins.pc >= pc
            and any(op.kind == "label" and op.offset <= pc for op in ins.operands)]
    if not back:
        return f"stopped at {program.line_of(pc)}"
    branch = min(back, key=lambda ins: ins.pc)
    top = next(op.offset for op in branch.operands if op.kind == "label")
    return f"the loop from {program.line_of(top)} to {program.line_of(branch.pc)}"


#: The order rows come in, as the trace header states it.
ORDER = "lock-step: each instruction for every warp at it (warps in order), then the next; CTAs in batches"


def describe(program: Program, launch: Launch, ctas: list[int], args: list[str], smem: int, symbols: dict[str, str] | None = None) -> dict:
    """The trace header's ``kernel`` object, before execution fills in ``executed`` (``globals`` where symbols were given data)."""
    g = launch.geometry
    code = {f"{ins.pc:#06x}": {k: v for k, v in (("sass", ins.text), ("line", program.line_of(ins.pc))) if v}
            for ins in program.code if ins.name in shared_opcodes()}
    return {
        "file": Path(program.where).name, "entry": program.entry, "grid": list(g.grid), "block": list(g.block),
        **({"cluster": list(g.cluster)} if g.cluster_size > 1 else {}), "smem": smem, "args": list(args),
        **({"globals": dict(symbols)} if symbols else {}),
        "ctas": "all" if len(ctas) == g.ctas else [list(g.cta_at(c)) for c in ctas], "order": ORDER, "code": code,
        "registers": program.kernel.registers, "shared_bytes": launch.shared_bytes,
        "shared": shared.header(program, smem, [ins.pc for ins in program.code if ins.name in shared_opcodes()]),
        **({"ptxas": program.ptxas} if program.ptxas else {}),
    }


def trace_stream(program: Program, launch: Launch, ctas: list[int], header: dict, limit: int | None = None,
                 advance=lambda n: None, sink: StreamSink | None = None, execution: Execution | None = None) -> TraceStream:
    """A ``TraceStream`` whose chunks execute the CTAs as they are read; ``header["executed"]`` and ``header["counted"]``
    (and ``execution``'s counts) are set once they all have."""
    execution = execution if execution is not None else Execution()

    def chunks() -> Iterator[Chunk]:
        first = 0
        pending: list[InstructionBatch] = []
        held, done = 0, 0
        for batch in execute(program, launch, ctas, limit, execution, sink):
            advance(execution.ctas - done)
            done = execution.ctas
            pending.append(batch)
            held += len(batch)
            if held >= CHUNK:
                b = InstructionBatch.concat(pending)
                yield Chunk(b, first, execution.ctas)
                first += len(b)
                pending, held = [], 0
        advance(execution.ctas - done)
        if pending:
            b = InstructionBatch.concat(pending)
            yield Chunk(b, first, execution.ctas)
        execution.finish(header)

    return TraceStream(program.where, program.entry, TRACED_ARCH, 1, len(ctas), chunks(), kernel=header)


def trace_kernel(path: str | Path, kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int], smem: int, args: list[str],
                 ctas: list[tuple[int, int, int]] | None = None, base: Path | None = None, limit: int | None = None,
                 max_shared: int = MAX_SHARED, advance=lambda n: None, sink: StreamSink | None = None,
                 symbols: dict[str, str] | None = None, runner=None, cluster: tuple[int, int, int] | None = None) -> TraceStream:
    """Load, launch and execute a kernel: a stream of the trace of its shared-memory instructions (``symbols``: data for
    ``__constant__``/``__device__`` variables, see ``make_launch``; ``cluster``: the launch's thread-block clusters, for a
    kernel without ``__cluster_dims__``; ``runner``: what executes the CTAs, ``trace_stream``'s
    arguments in, a stream out; ``trace_stream`` itself by default, ``parallel.runner`` spreads them over workers).

    ``stream.kernel`` describes the launch; its ``executed`` (ncu's ``smsp__inst_executed`` of the traced CTAs) is
    there once the chunks have been read."""
    return launch_kernel(path, kernel, grid, block, smem, args, ctas, base, limit, max_shared, advance, sink, symbols, runner, cluster)[0]


def launch_kernel(path: str | Path, kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int], smem: int, args: list[str],
                  ctas: list[tuple[int, int, int]] | None = None, base: Path | None = None, limit: int | None = None,
                  max_shared: int = MAX_SHARED, advance=lambda n: None, sink: StreamSink | None = None,
                  symbols: dict[str, str] | None = None, runner=None, cluster: tuple[int, int, int] | None = None) -> tuple[TraceStream, Launch]:
    """``trace_kernel``'s stream, and the launch whose global memory holds the kernel's outputs once it has been read."""
    program = load_program(path, kernel)
    hopper = program.hopper_only()
    if hopper:
        seen = ", ".join(f"{n} {what}" for what, n in sorted(hopper.items()))
        raise SimsmemError(f"{path}: {program.entry}", f"uses Hopper-only instructions simsmem does not model yet: {seen}")
    launch = make_launch(program, grid, block, smem, args, base or Path.cwd(), max_shared, symbols, cluster)
    chosen = select_ctas(launch, ctas)
    if sink is not None:
        sink.ctas = frozenset(c for c in chosen if c % sink.sms == chosen[0] % sink.sms)
        sink.resources = dict(zip(RESOURCES, (program.kernel.registers, launch.shared_bytes, launch.geometry.threads, len(chosen))))
        sink.code = {ins.pc: {"sass": ins.text, "line": program.line_of(ins.pc)} for ins in program.code}
    run = runner or trace_stream
    stream = run(program, launch, chosen, describe(program, launch, chosen, args, smem, symbols), limit, advance, sink)
    return (stream if sink is None else attrs.evolve(stream, streams=sink.record)), launch
