"""SASS semantics: each opcode's builder turns an ``Instruction`` into a step the machine runs, and the registry of
what simsmem knows of each opcode.

Two kinds of builder, registered by opcode name:

* ``@alu("IADD3")``: ``build(ins, env) -> compute(m, ix)`` computes for the threads ``ix`` that act
  (those executing the instruction whose guard predicate holds); the machine then moves every
  executing thread to the next instruction.
* ``@step("BRA", control=True)``: ``build(ins, env) -> run(m, ex, act)`` does everything itself: control flow,
  barriers, and the shared-memory instructions, which tell ``m.on_shared`` of every warp that
  executes them (``ex``), acting lanes or none.

Each registration declares the opcode's facts once (``Opcode``): whether it may move threads elsewhere than the next
instruction (``control``), whether it may access shared memory (``shared``: its rows are the trace's), and what a
Hopper-only instruction is (``hopper``). ``refuse`` names an opcode simsmem does not execute, and why. The side lists
other layers read (``shared_opcodes``, ``refused_hopper``) and docs/kernels.md's ISA table are
made from the registry. ``build`` wraps a builder into the machine's ``Step``; an opcode no builder knows is an
error at build time only if it is executed: ``unsupported`` names it then.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import attrs
import numpy as np

from ..machine import ExecError, Machine
from ..sass import Instruction, Operand

Compute = Callable[[Machine, np.ndarray], None]
Run = Callable[[Machine, np.ndarray, np.ndarray], None]


@attrs.frozen
class Opcode:
    """What simsmem knows of a SASS opcode."""

    name: str
    runs: str  # "alu" (a computation), "step" (moves threads itself), or "refused" (named, not executed)
    family: str  # the module of kernel/isa that executes it (refused: the one that names it)
    control: bool = False  # may move threads elsewhere than the next instruction, or make others runnable
    shared: bool = False  # may access shared memory: its rows are the trace's
    hopper: str | None = None  # a Hopper-only instruction: what it is (wgmma, TMA, mbarrier, ...)
    why: str = ""  # refused: why


REGISTRY: dict[str, Opcode] = {}
ALU: dict[str, Callable[[Instruction, "Env"], Compute]] = {}
STEP: dict[str, Callable[[Instruction, "Env"], Run]] = {}


@attrs.frozen
class Env:
    """What builders need beyond the instruction: the launch's constant banks and the code's layout."""

    constants: dict[int, np.ndarray]  # bank -> bytes
    functions: dict[str, int]  # function symbol -> code offset (CALL targets)
    hopper: Callable[[Instruction], None] = lambda ins: None  # told of each Hopper-only instruction built (wgmma, TMA, ...)


def _registrar(table: dict, runs: str, names: tuple[str, ...], facts: dict) -> Callable:
    def register(builder: Callable) -> Callable:
        for n in names:
            if n in REGISTRY:
                raise ValueError(f"{n} registered twice")
            table[n] = builder
            REGISTRY[n] = Opcode(n, runs, builder.__module__.rsplit(".", 1)[1], **facts)
        return builder
    return register


def alu(*names: str, shared: bool = False, hopper: str | None = None) -> Callable:
    """Register a computation's builder for ``names`` (with their facts)."""
    return _registrar(ALU, "alu", names, {"shared": shared, "hopper": hopper})


def step(*names: str, control: bool = False, shared: bool = False, hopper: str | None = None) -> Callable:
    """Register a step's builder for ``names`` (with their facts)."""
    return _registrar(STEP, "step", names, {"control": control, "shared": shared, "hopper": hopper})


def refuse(*names: str, family: str, why: str, hopper: str | None = None) -> None:
    """Name opcodes simsmem does not execute, and why (a kernel that has one stops before it runs, naming it)."""
    for n in names:
        REGISTRY[n] = Opcode(n, "refused", family, hopper=hopper, why=why)


def registry() -> dict[str, Opcode]:
    """Every opcode simsmem knows, executed or refused."""
    _register()
    return REGISTRY


@functools.cache
def shared_opcodes() -> frozenset[str]:
    """Opcodes that may access shared memory (the trace header lists their SASS)."""
    return frozenset(n for n, o in registry().items() if o.shared)


@functools.cache
def refused_hopper() -> dict[str, str]:
    """Hopper-only opcodes simsmem does not execute, and what each is."""
    return {n: o.hopper for n, o in registry().items() if o.hopper and o.runs == "refused"}


def guard(ins: Instruction) -> Callable[[Machine, np.ndarray], np.ndarray]:
    """``act(m, ex)``: the executing threads whose guard predicate holds."""
    g = ins.guard
    if g is None or (g.index == 7 and not g.inv):
        return lambda m, ex: ex
    if g.index == 7:  # @!PT: never
        return lambda m, ex: np.zeros_like(ex)
    file, i = ("P" if g.kind == "P" else "UP"), g.index
    if g.inv:
        return lambda m, ex: ex & ~getattr(m, file)[i]
    return lambda m, ex: ex & getattr(m, file)[i]


def unsupported(ins: Instruction, why: str) -> Callable[[Machine, np.ndarray], None]:
    """A step that stops the machine, naming the instruction, if it is ever executed."""

    def stop(m: Machine, ex: np.ndarray) -> None:
        raise ExecError(f"{ins.text}: {why}", ins.pc)
    return stop


def modelled() -> frozenset[str]:
    """Every opcode some builder knows."""
    return frozenset(n for n, o in registry().items() if o.runs != "refused")


@functools.cache
def _register() -> None:
    from . import control, floating, gmma, integer, matrix, memory, tma, warp  # noqa: F401 - they register their builders


def build(ins: Instruction, env: Env) -> Callable[[Machine, np.ndarray], None]:
    """The machine's step for one instruction."""
    _register()

    name = ins.name
    act = guard(ins)
    always = ins.guard is None or (ins.guard.index == 7 and not ins.guard.inv)
    try:
        if name in STEP:
            run = STEP[name](ins, env)

            def full(m: Machine, ex: np.ndarray) -> None:
                run(m, ex, act(m, ex))
            full.plain = not REGISTRY[name].control
            return full
        if name in ALU:
            compute = ALU[name](ins, env)

            def simple(m: Machine, ex: np.ndarray) -> None:
                ix = m.ex_ix if always else np.flatnonzero(act(m, ex))
                if len(ix):
                    compute(m, ix)
                m.pc += ex
            simple.plain = True
            return simple
    except (ValueError, IndexError, KeyError, StopIteration) as exc:
        return unsupported(ins, f"not understood ({exc})")
    held = REGISTRY.get(name)
    return unsupported(ins, held.why if held is not None else "an opcode simsmem does not execute")


def operand(ins: Instruction, k: int) -> Operand:
    """Operand ``k`` of ``ins`` (negative from the end), or a ValueError naming what is missing."""
    try:
        return ins.operands[k]
    except IndexError:
        raise ValueError(f"expected more operands than {len(ins.operands)}") from None
