"""Control flow: branches, calls, exit, convergence barriers (BSSY/BSYNC/BREAK/BMOV), CTA barriers (BAR), cluster
barriers (UCGABAR_ARV/UCGABAR_WAIT).

A branch moves the threads it takes and leaves the others on the next instruction; the machine's
lowest-counter-first order then runs one side after the other. ``BSSY Bn, L`` makes the threads that
execute it the members of convergence barrier n, ``BSYNC Bn`` holds each until every member of its
warp still alive has arrived (``BREAK Bn`` leaves the barrier, ``EXIT`` leaves all). ``BAR.SYNC n``
holds a CTA's threads until all of them still alive have arrived (or the given count has).
"""

from __future__ import annotations

import numpy as np

from ..machine import LANES, WAIT_UNTIL, ExecError, Machine
from ..sass import Instruction
from . import Env, operand, refuse, step
from .operands import BuildError, read


def _target(ins: Instruction, env: Env) -> int:
    for op in reversed(ins.operands):
        if op.kind == "label":
            return op.offset
        if op.kind == "name":
            if op.text not in env.functions:
                raise BuildError(f"call to {op.text}, a function not in the kernel's code")
            return env.functions[op.text]
    raise BuildError("no branch target")


@step("BRA", "JMP", control=True)
def _bra(ins: Instruction, env: Env):
    target = _target(ins, env)
    if "DIV" in ins.mods:  # BRA.DIV URmask: the slow path when some lane of the mask does not execute here
        mask = read(operand(ins, 0), "u32")

        def divergent(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
            ix = np.flatnonzero(act)
            want = np.zeros(m.n, dtype=bool)
            want[ix] = (np.asarray(mask(m, ix)).astype(np.uint32) >> m.lane[ix]) & np.uint32(1) != 0
            # a warp diverges if a lane it names is alive but not here; the mask is uniform, so spread it over the warp
            named = np.zeros((m.n // LANES, LANES), dtype=bool)
            bits = np.zeros(m.n // LANES, dtype=np.uint32)
            bits[ix // LANES] = np.asarray(mask(m, ix)).astype(np.uint32)
            named[:] = (bits[:, None] >> np.arange(LANES, dtype=np.uint32)) & np.uint32(1) != 0
            split = (named & m.alive.reshape(-1, LANES) & ~ex.reshape(-1, LANES)).any(axis=1)
            taken = act & np.repeat(split, LANES)
            m.branch(ex, taken, target)
        return divergent
    cond = next((read(op, "pred") for op in ins.operands if op.kind in ("P", "UP")), None)
    vote = "ANY" in ins.mods  # BRA.U.ANY: the whole warp branches if any of its threads would

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        taken = act
        if cond is not None:
            taken = np.zeros_like(act)
            ix = np.flatnonzero(act)
            taken[ix] = cond(m, ix)
        if vote:
            taken = ex & np.repeat(taken.reshape(-1, LANES).any(axis=1), LANES)
        m.branch(ex, taken, target)
    return run


@step("CALL", control=True)
def _call(ins: Instruction, env: Env):
    target = _target(ins, env)

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        m.branch(ex, act, target)
    return run


@step("RET", control=True)
def _ret(ins: Instruction, env: Env):
    reg = next(op for op in ins.operands if op.kind in ("R", "UR"))
    back = read(reg, "u32")

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        m.pc[ex & ~act] += 1
        ix = np.flatnonzero(act)
        if len(ix):
            offsets = np.asarray(back(m, ix)).astype(np.int64)
            for off in np.unique(offsets):
                m.pc[ix[offsets == off]] = m.index_of(int(off))
    return run


@step("EXIT", "KILL", control=True)
def _exit(ins: Instruction, env: Env):
    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        m.pc[ex & ~act] += 1
        m.exit(act)
    return run


@step("BPT", control=True)
def _bpt(ins: Instruction, env: Env):
    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        if act.any():
            raise ExecError(f"{ins.text}: the kernel traps (__trap(), a failed assert, or cooperative groups' grid sync, which "
                            "traps unless the launch is cooperative: simsmem runs CTAs in batches, never a cooperative launch)", ins.pc)
        m.pc += ex
    return run


@step("BSSY")
def _bssy(ins: Instruction, env: Env):
    b = operand(ins, 0).index

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        m.convergence[b, act] = True
        m.pc += ex
    return run


@step("BSYNC", control=True)
def _bsync(ins: Instruction, env: Env):
    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        m.pc[ex & ~act] += 1
        if act.any():
            m.wait_bsync(act)
    return run


@step("BREAK", control=True)
def _break(ins: Instruction, env: Env):
    b = operand(ins, 0).index

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        m.convergence[b, act] = False
        m.pc += ex
        m.release()
    return run


@step("BMOV")
def _bmov(ins: Instruction, env: Env):
    dst, src = operand(ins, 0), operand(ins, 1)
    clear = "CLEAR" in ins.mods
    if dst.kind == "B":  # restore a barrier's members from a register's lane mask
        get = read(src, "u32")
        b = dst.index

        def restore(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
            ix = np.flatnonzero(act)
            bits = np.asarray(get(m, ix)).astype(np.uint32)
            m.convergence[b, ix] = (bits >> m.lane[ix]) & np.uint32(1) != 0
            m.pc += ex
        return restore
    if src.kind != "B":
        raise BuildError("BMOV between registers")
    b = src.index
    file, r = ("UR" if dst.kind == "UR" else "R"), dst.index

    def save(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        members = m.convergence[b].reshape(-1, LANES)
        mask = (members.astype(np.uint64) << np.arange(LANES, dtype=np.uint64)).sum(axis=1).astype(np.uint32)
        ix = np.flatnonzero(act)
        if r != (255 if file == "R" else 63):
            getattr(m, file)[r, ix] = np.repeat(mask, LANES)[ix]
        if clear:
            m.convergence[b, np.repeat(act.reshape(-1, LANES).any(axis=1), LANES)] = False
        m.pc += ex
    return save


@step("BRX", control=True)
def _brx(ins: Instruction, env: Env):
    """``BRX Ra, off``: an indirect branch (a ``switch``'s jump table, which ptxas puts in constant bank 2): each thread
    goes to its ``Ra + off`` past the next instruction; a warp whose threads part becomes one group per target."""
    reg = read(operand(ins, 0), "u32")
    off = int(operand(ins, 1).text, 0) if len(ins.operands) > 1 and ins.operands[1].kind == "imm" else 0

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        m.pc[ex & ~act] += 1
        ix = np.flatnonzero(act)
        if not len(ix):
            return
        targets = np.asarray(reg(m, ix)).astype(np.int64) + off + ins.pc + 16
        for k, t in enumerate(np.unique(targets)):
            going = np.zeros(m.n, dtype=bool)
            going[ix[targets == t]] = True
            m.jump(going, int(t))
            if k:  # every target after the first: a group of its own in the warps it splits
                m.group[going] = m.next_group
                m.next_group += 1
                m.diverged = True
    return run


@step("WARPSYNC", "ENDCOLLECTIVE", control=True)
def _warpsync(ins: Instruction, env: Env):
    """Threads of a warp at one counter run together already; ``WARPSYNC.ALL`` also joins a warp whose threads took apart
    paths that meet here (ptxas puts one after the code only thread 0 ran, before a CTA barrier): they wait until every
    lane still alive has arrived, then go on as one group (else the side that reached the far side of the barrier last
    would run ahead alone, into a wgmma its warp's other lanes never join). Other forms have nothing left to do."""
    if "ALL" not in ins.mods:
        def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
            m.pc += ex
        return run
    at = ins.pc // 16

    def here(m: Machine) -> np.ndarray:
        return m.waiting & (m.bar_id == WAIT_UNTIL) & (m.pc == at)

    def whole(m: Machine, lanes: np.ndarray) -> np.ndarray:
        """The lanes of the warps whose every lane still alive is in ``lanes``."""
        return np.repeat(~(m.alive & ~lanes).reshape(-1, LANES).any(axis=1), LANES)

    def go(m: Machine, lanes: np.ndarray) -> None:
        m.waiting[lanes] = False
        m.bar_id[lanes] = -1
        m.pc[lanes] += 1
        m.group[lanes] = m.next_group  # the warp's groups are one again
        m.next_group += 1

    def ready(m: Machine, waiting: np.ndarray) -> np.ndarray:  # the lanes missing exited
        return waiting & whole(m, here(m))

    def done(m: Machine, freed: np.ndarray) -> None:
        go(m, freed | (here(m) & np.repeat(freed.reshape(-1, LANES).any(axis=1), LANES)))

    def join(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        waiting = here(m)
        complete = whole(m, ex | waiting)
        if waiting.any():
            go(m, (ex | waiting) & complete)
        else:
            m.pc += ex & complete
        if (ex & ~complete).any():
            m.wait_until(ex & ~complete, ready, done)
    return join


@step("BAR", control=True)
def _bar(ins: Instruction, env: Env):
    mods = ins.mods
    if "ARV" in mods:
        raise BuildError("BAR.ARV (arrive without waiting) is not modelled")
    ops = [op for op in ins.operands]
    ident = ops[0]
    if ident.kind != "imm":
        raise BuildError("a barrier number in a register is not modelled")
    bar = int(ident.text, 0)
    count = int(ops[1].text, 0) if len(ops) > 1 and ops[1].kind == "imm" else -1
    reduce = next((x for x in mods if x in ("POPC", "AND", "OR")), None) if "RED" in mods else None
    pred = read(ops[-1], "pred") if reduce else None

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        m.pc[ex & ~act] += 1
        if not act.any():
            return
        hook = None
        if reduce is not None:
            ix = np.flatnonzero(act)
            m.bar_vote[ix] = pred(m, ix)

            def hook(threads: np.ndarray) -> None:
                votes = m.bar_vote[threads]
                m.bar_result[threads] = {"POPC": int(votes.sum()), "AND": int(votes.all()), "OR": int(votes.any())}[reduce]
        m.wait_bar(act, bar, count, hook)
    return run


@step("B2R")
def _b2r(ins: Instruction, env: Env):
    from .operands import write

    d = write(operand(ins, 0))
    p = write(operand(ins, 1), "pred") if len(ins.operands) > 1 else None

    def run(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        ix = np.flatnonzero(act)
        d(m, ix, m.bar_result[ix].astype(np.uint32))
        if p is not None:
            p(m, ix, m.bar_result[ix] != 0)
        m.pc += ex
    return run


@step("UCGABAR_ARV", "UCGABAR_WAIT", control=True, hopper="cluster barrier")
def _cluster_barrier(ins: Instruction, env: Env):
    """``barrier.cluster.arrive`` (UCGABAR_ARV) counts each thread's arrival; ``barrier.cluster.wait`` (UCGABAR_WAIT)
    holds a thread until every thread of its cluster still alive has arrived as often as it has (without clusters, a
    cluster is one CTA)."""
    if ins.name == "UCGABAR_ARV":
        def arrive(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
            m.cluster_arrived[act] += 1
            m.pc += ex
            m.release()
        return arrive

    def ready(m: Machine, waiting: np.ndarray) -> np.ndarray:
        cluster = m.cluster_slot[m.cta_slot]
        least = np.full(m.slot_of.shape[0], np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(least, cluster[m.alive], m.cluster_arrived[m.alive])
        return waiting & (least[cluster] >= m.cluster_arrived)

    def done(m: Machine, freed: np.ndarray) -> None:
        m.pc[freed] += 1

    def wait(m: Machine, ex: np.ndarray, act: np.ndarray) -> None:
        m.pc[ex & ~act] += 1
        if act.any():
            m.wait_until(act, ready, done)
    return wait


refuse("LEPC", family="control", why="device-side printf and assert (vprintf, called through an absolute CALL) are not modelled")
