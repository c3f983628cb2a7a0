"""SASS semantics: each opcode's builder turns an ``Instruction`` into a step the machine runs.

Two kinds of builder, registered by opcode name in ``ALU`` and ``STEP``:

* ``@alu("IADD3")``: ``build(ins, env) -> compute(m, ix)`` computes for the threads ``ix`` that act
  (those executing the instruction whose guard predicate holds); the machine then moves every
  executing thread to the next instruction.
* ``@step("BRA")``: ``build(ins, env) -> run(m, ex, act)`` does everything itself: control flow,
  barriers, and the shared-memory instructions, which tell ``m.on_shared`` of every warp that
  executes them (``ex``), acting lanes or none.

``build`` wraps either into the machine's ``Step``. An opcode neither knows is an error at build
time only if it is executed: ``unsupported`` names it then.
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

ALU: dict[str, Callable[[Instruction, "Env"], Compute]] = {}
#: Steps that may move threads elsewhere than the next instruction, or make others runnable.
CONTROL = frozenset({"BRA", "JMP", "BRX", "JMX", "CALL", "RET", "EXIT", "KILL", "BSYNC", "BAR", "BREAK", "BPT", "HGMMA", "QGMMA", "IGMMA",
                     "SYNCS", "ARRIVES", "UCGABAR_ARV", "UCGABAR_WAIT", "UTMALDG", "UBLKCP"})
STEP: dict[str, Callable[[Instruction, "Env"], Run]] = {}


@attrs.frozen
class Env:
    """What builders need beyond the instruction: the launch's constant banks and the code's layout."""

    constants: dict[int, np.ndarray]  # bank -> bytes
    functions: dict[str, int]  # function symbol -> code offset (CALL targets)
    hopper: Callable[[Instruction], None] = lambda ins: None  # told of each Hopper-only instruction built (wgmma, TMA, ...)


def alu(*names: str) -> Callable:
    def register(builder: Callable) -> Callable:
        for n in names:
            ALU[n] = builder
        return builder
    return register


def step(*names: str) -> Callable:
    def register(builder: Callable) -> Callable:
        for n in names:
            STEP[n] = builder
        return builder
    return register


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
    _register()
    return frozenset(ALU) | frozenset(STEP)


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
            full.plain = name not in CONTROL
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
    return unsupported(ins, "an opcode simsmem does not execute")


def operand(ins: Instruction, k: int) -> Operand:
    """Operand ``k`` of ``ins`` (negative from the end), or a ValueError naming what is missing."""
    try:
        return ins.operands[k]
    except IndexError:
        raise ValueError(f"expected more operands than {len(ins.operands)}") from None
