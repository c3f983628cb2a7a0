"""Warp-wide instructions: SHFL, VOTE/VOTEU, MATCH, REDUX. Lanes of one warp see each other's registers.

Each works on the (warps, 32) view of the acting threads, as the PTX ISA defines ``shfl.sync``,
``vote.sync``, ``match.sync`` and ``redux.sync`` (a lane that does not act neither gives nor gets a value).
"""

from __future__ import annotations

import numpy as np

from ..machine import LANES, Machine
from ..sass import Instruction
from . import Env, alu, operand
from .operands import lanes, read, write


def _acting(m: Machine, ix: np.ndarray) -> np.ndarray:
    act = np.zeros(m.n, dtype=bool)
    act[ix] = True
    return act


def _ballot(bits: np.ndarray) -> np.ndarray:
    """(warps, 32) bools -> (warps,) uint32 lane masks."""
    return (bits.astype(np.uint64) << np.arange(LANES, dtype=np.uint64)).sum(axis=1).astype(np.uint32)


@alu("SHFL")
def _shfl(ins: Instruction, env: Env):
    mode = ins.mods[0]
    ops = list(ins.operands)
    valid = write(ops[0], "pred")
    d = write(ops[1])
    src = ops[2]
    b, c = read(ops[3], "u32", env.constants), read(ops[4], "u32", env.constants)
    file, reg = ("UR" if src.kind == "UR" else "R"), src.index

    def f(m: Machine, ix: np.ndarray) -> None:
        lane = m.lane[ix].astype(np.int64)
        bv = lanes(np.asarray(b(m, ix)).astype(np.int64), len(ix))
        cv = lanes(np.asarray(c(m, ix)).astype(np.int64), len(ix))
        seg = (cv >> 8) & 0x1F
        max_lane = (lane & seg) | (cv & 0x1F & ~seg)
        min_lane = lane & seg
        if mode == "UP":
            j = lane - bv
            ok = j >= max_lane
        elif mode == "DOWN":
            j = lane + bv
            ok = j <= max_lane
        elif mode == "BFLY":
            j = lane ^ bv
            ok = j <= max_lane
        else:  # IDX
            j = min_lane | (bv & 0x1F & ~seg)
            ok = j <= max_lane
        j = np.where(ok, j, lane)
        base = ix - lane
        value = getattr(m, file)[reg, base + j] if reg != (255 if file == "R" else 63) else np.zeros(len(ix), dtype=np.uint32)
        d(m, ix, value)
        valid(m, ix, ok)
    return f


@alu("VOTE", "VOTEU")
def _vote(ins: Instruction, env: Env):
    mode = ins.mods[0]
    ops = list(ins.operands)
    d = write(ops[0]) if ops[0].kind in ("R", "UR") else None
    k = 1 if d is not None else 0
    pd = write(ops[k], "pred")
    p = read(ops[k + 1], "pred")

    def f(m: Machine, ix: np.ndarray) -> None:
        act = _acting(m, ix).reshape(-1, LANES)
        vote = np.zeros(m.n, dtype=bool)
        vote[ix] = lanes(p(m, ix), len(ix))
        vote = vote.reshape(-1, LANES) & act
        warp = ix // LANES
        if d is not None:
            d(m, ix, _ballot(vote)[warp])
        if mode == "ANY":
            r = vote.any(axis=1)
        elif mode == "ALL":
            r = ~(act & ~vote).any(axis=1)
        else:  # EQ: all acting lanes agree
            r = ~(act & ~vote).any(axis=1) | ~vote.any(axis=1)
        pd(m, ix, r[warp])
    return f


@alu("MATCH")
def _match(ins: Instruction, env: Env):
    mode = ins.mods[0]
    wide = "U64" in ins.mods
    ops = list(ins.operands)  # MATCH.ANY Rd, Ra; MATCH.ALL Pd, Rd, Ra
    pd = write(ops[0], "pred") if ops[0].kind in ("P", "UP") else None
    d = write(ops[1] if pd is not None else ops[0])
    a = read(ops[-1], "u64" if wide else "u32", env.constants)

    def f(m: Machine, ix: np.ndarray) -> None:
        act = _acting(m, ix).reshape(-1, LANES)
        values = np.zeros(m.n, dtype=np.uint64)
        values[ix] = np.asarray(a(m, ix)).astype(np.uint64)
        v = values.reshape(-1, LANES)
        same = (v[:, :, None] == v[:, None, :]) & act[:, None, :] & act[:, :, None]  # (warps, lane, other lane)
        masks = (same.astype(np.uint64) << np.arange(LANES, dtype=np.uint64)).sum(axis=2).astype(np.uint32).reshape(-1)
        if mode == "ANY":
            d(m, ix, masks[ix])
        else:
            allsame = (same.sum(axis=2) == act.sum(axis=1)[:, None]).reshape(-1)
            warp_all = allsame.reshape(-1, LANES)[np.arange(act.shape[0]), np.argmax(act, axis=1)]
            warp = ix // LANES
            d(m, ix, np.where(warp_all[warp], _ballot(act)[warp], 0).astype(np.uint32))
            if pd is not None:
                pd(m, ix, warp_all[warp])
    return f


@alu("REDUX", "CREDUX")
def _redux(ins: Instruction, env: Env):
    mods = ins.mods
    kind = next((x for x in mods if x in ("SUM", "MIN", "MAX", "AND", "OR", "XOR")), "AND")  # no modifier: AND
    signed = "S32" in mods
    d = write(operand(ins, 0))
    a = read(operand(ins, 1), "u32", env.constants)

    def f(m: Machine, ix: np.ndarray) -> None:
        act = _acting(m, ix).reshape(-1, LANES)
        values = np.zeros(m.n, dtype=np.uint32)
        values[ix] = np.asarray(a(m, ix))
        v = values.reshape(-1, LANES)
        if kind == "SUM":
            r = np.where(act, v, 0).astype(np.uint64).sum(axis=1).astype(np.uint32)
        elif kind in ("AND", "OR", "XOR"):
            ufunc = {"AND": np.bitwise_and, "OR": np.bitwise_or, "XOR": np.bitwise_xor}[kind]
            neutral = np.uint32(0xFFFF_FFFF) if kind == "AND" else np.uint32(0)
            r = ufunc.reduce(np.where(act, v, neutral), axis=1)
        else:
            w = v.view(np.int32) if signed else v
            info = np.iinfo(w.dtype)
            neutral = info.max if kind == "MIN" else info.min
            r = (np.min if kind == "MIN" else np.max)(np.where(act, w, neutral), axis=1).view(np.uint32) if signed else \
                (np.min if kind == "MIN" else np.max)(np.where(act, w, neutral), axis=1)
        d(m, ix, np.asarray(r, dtype=np.uint32)[ix // LANES])
    return f
