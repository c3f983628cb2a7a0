"""A trace against the arch it runs on: the step between reading a trace and counting it.

The readers (``simsmem.traces``) hold every instruction to trace v1, which knows no arch. Here each
chunk is held to the arch: ops and forms it has, the atomic operations and pipes it names, and
addresses inside its shared memory and aligned to their access.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs
import numpy as np

from ..config import ArchConfig, load_arch
from ..errors import ConfigError, TraceError
from ..traces import OPS, InstructionBatch, Trace, TraceStream
from ..traces.lanes import first_bad_lane
from ..traces.others import any_text, pipes_of
from ..traces.records import (
    ATOM_KINDS,
    COPY_OPS,
    IS_MATRIX,
    IS_SOURCE,
    MAX_SRC,
    copy_span,
)
from ..traces.v1 import alternatives


def resolve_arch(trace: Trace | TraceStream, arch: str | None, where: str = "trace") -> ArchConfig:
    """``--arch`` wins over the trace's own ``arch`` (errors about that one name ``where``); with neither, sm_90."""
    if arch or not trace.arch:
        return load_arch(arch or "sm_90")
    try:
        return load_arch(trace.arch)
    except ConfigError as exc:
        raise ConfigError(f"{where}: arch", exc.what) from None


def validated(stream: TraceStream, arch: ArchConfig) -> TraceStream:
    """``stream`` with every chunk checked against ``arch`` as it is read."""

    def chunks() -> Iterator:
        for chunk in stream.chunks:
            check_against_arch(chunk.instructions, arch, stream.where, chunk.first, stream.first_line)
            yield chunk

    return attrs.evolve(stream, chunks=chunks())


def check_against_arch(batch: InstructionBatch, arch: ArchConfig, where: str, first_index: int = 0, first_line: int | None = None) -> None:
    """Reject ops the arch lacks, widths it does not have, and out-of-range or misaligned addresses.

    Errors name instruction ``first_index + i`` and, where the trace holds one instruction per line
    from ``first_line`` on (JSON Lines), its file line, as the reader's own errors do.
    """

    def at(i: int) -> str:
        index = f"instruction {first_index + i}"
        return f"{where}: {index}" if first_line is None else f"{where}: line {first_line + first_index + i} ({index})"

    problem = (_form_problem(batch, arch) or _pipe_problem(batch, arch) or _atom_problem(batch, arch) or _address_problem(batch, arch)
               or _copy_problem(batch, arch))
    if problem:
        row, field, what = problem
        raise TraceError(f"{at(row)}: {field}", what)


def _form_problem(batch: InstructionBatch, arch: ArchConfig) -> tuple[int, str, str] | None:
    """The first instruction whose op, width, matrix count or .cg form the arch lacks."""
    has = np.zeros((len(OPS), 256), dtype=bool)  # has[op, form]: the arch has this width (or matrix count) of op
    has_bypass = np.zeros((len(OPS), 256), dtype=bool)  # has_bypass[op, width]: ... and its .cg (BYPASS) form
    for name, spec in arch.ops.items():
        if name in OPS:
            has[OPS.index(name), list(spec.widths if spec.phase == "bytes" else spec.nums)] = True
            has_bypass[OPS.index(name), list(spec.bypass_widths)] = True
    for name in arch.block_ops:
        has[OPS.index(name)] = True  # an op without lanes has no widths: the arch has it or not
    matrix = IS_MATRIX[batch.op]
    bad = np.flatnonzero(~has[batch.op, np.where(matrix, batch.num, batch.width)])
    if len(bad):
        i = int(bad[0])
        name = OPS[batch.op[i]]
        if name not in arch.ops:  # (an op without lanes it has passed above)
            return i, "op", f"{name} does not exist on {arch.name}"
        if matrix[i]:
            return i, "num", f"{name} on {arch.name} has no .x{batch.num[i]} form"
        return i, "width", f"{name} on {arch.name} has no {batch.width[i]}-bit form"
    bad = np.flatnonzero(batch.bypass & ~has_bypass[batch.op, batch.width])
    if len(bad):
        i = int(bad[0])
        name, widths = OPS[batch.op[i]], arch.ops[OPS[batch.op[i]]].bypass_widths
        what = f"only {alternatives(widths)} bits" if widths else "no such form"
        return i, "bypass", f"{name} .cg (BYPASS) on {arch.name} has {what}, not {batch.width[i]}"
    return None


def _pipe_problem(batch: InstructionBatch, arch: ArchConfig) -> tuple[int, str, str] | None:
    """The first instruction whose ``others`` name a pipe the arch lacks."""
    if not any_text(batch.others):
        return None
    for text in np.unique(batch.others).tolist():
        unknown = sorted(pipes_of(text) - set(arch.timing.pipes))
        if unknown:
            i = int(np.flatnonzero(batch.others == text)[0])
            known = ", ".join(arch.timing.pipes) or "none"
            return i, "others", f"pipe {unknown[0]!r} does not exist on {arch.name} (its pipes: {known}; '-' for none)"
    return None


def _atom_problem(batch: InstructionBatch, arch: ArchConfig) -> tuple[int, str, str] | None:
    """The first ATOMS whose atomic operation, at its width, the arch lacks."""
    atoms = arch.ops.get("ATOMS")
    if atoms is None or not atoms.atoms:
        return None
    has_atom = np.zeros((2, len(ATOM_KINDS), 256), dtype=bool)  # has_atom[generic, atom, width]
    for kind, spec in atoms.atoms.items():
        has_atom[:, ATOM_KINDS.index(kind), list(spec.widths)] = True
        has_atom[1, ATOM_KINDS.index(kind), list(spec.generic_widths)] = True
    bad = np.flatnonzero((batch.op == OPS.index("ATOMS")) & ~has_atom[batch.generic.astype(np.intp), batch.atom, batch.width])
    if not len(bad):
        return None
    i = int(bad[0])
    kind = ATOM_KINDS[batch.atom[i]]
    what = f"no {batch.width[i]}-bit form (the compiler makes a CAS loop of it)" if kind in atoms.atoms else "no such atomic operation"
    return i, "atom", f"ATOMS {kind} on {arch.name} has {what}"


def _address_problem(batch: InstructionBatch, arch: ArchConfig) -> tuple[int, str, str] | None:
    """The first lane whose global source or shared address is misaligned or out of range."""
    size = np.where(batch.width > 0, batch.width // 8, 16)  # bytes: a power of two
    bad = first_bad_lane(batch.src, size, MAX_SRC) if IS_SOURCE[batch.op].any() else None
    if bad:
        i, lane = bad
        a, n = int(batch.src[i, lane]), int(size[i])
        msg = f"source {a} is not aligned to the {n}-byte copy (the hardware faults)" if a % n else f"source {a} + {n} bytes is past 2**63 - 1"
        return i, f"src[{lane}]", msg
    bad = first_bad_lane(batch.addrs, size, arch.shared_memory_per_cta)
    if bad:
        i, lane = bad
        a, n = int(batch.addrs[i, lane]), int(size[i])
        if a + n > arch.shared_memory_per_cta:
            msg = f"address {a} + {n} bytes is past {arch.name}'s {arch.shared_memory_per_cta} bytes of shared memory per CTA"
        else:
            msg = f"address {a} is not aligned to the {n}-byte access (the hardware faults)"
        return i, f"addrs[{lane}]", msg
    return None


def _copy_problem(batch: InstructionBatch, arch: ArchConfig) -> tuple[int, str, str] | None:
    """The first TMA or bulk copy whose shared-memory span is misaligned or past the arch's shared memory."""
    copy = np.isin(batch.op, [OPS.index(name) for name in COPY_OPS])
    if not copy.any():
        return None
    end = batch.smem.astype(np.int64) + copy_span(batch)
    bad = np.flatnonzero(copy & ((batch.smem % 16 != 0) | (end > arch.shared_memory_per_cta)))
    if not len(bad):
        return None
    i = int(bad[0])
    if batch.smem[i] % 16:
        return i, "smem", f"shared address {batch.smem[i]} is not 16-byte aligned"
    return i, "smem", f"the copy's {int(end[i]) - int(batch.smem[i])} bytes from {batch.smem[i]} are past {arch.name}'s {arch.shared_memory_per_cta} bytes of shared memory per CTA"
