"""``bank_rw``'s rule over whole real kernels (``realk/manifest.json``): simsmem traces each entry, the shared-memory
part comes from the trace (``bank_rw.shared_rw``, with the bytes each LDGSTS lane copies), the global part from every
global load, store and atomic the traced kernel executes (recorded here by wrapping the tracer's steps), and the sum,
rounded per CTA (one CTA per SM in every entry), is held against the H100's five runs.

Global accesses through L1, per warp-level instruction: a load reads the distinct 4-byte words of its lanes, and L1
writes 8 words for each 32-byte sector it fills (one the CTA's L1 does not hold yet: neither loaded nor stored
before; LDGSTS .ca copies fill the same way); a store writes its lanes' words and reads them out again, and leaves
its sectors in L1; a global atomic (ATOMG/RED) reads and writes one word per lane. L1 starts empty and keeps all.
"""

from __future__ import annotations

import collections
from pathlib import Path

import numpy as np

import bank_rw
from simsmem.kernel import tracer
from simsmem.kernel.isa import guard
from simsmem.kernel.isa import memory as isa_memory
from simsmem.kernel.launch import make_launch
from simsmem.kernel.program import load_program

REALK = Path(__file__).resolve().parent / "realk"
LANES = 32
PENDING = False  # --pending: LDGSTS .ca reads by ``bank_rw.ca_reads_pending`` (an approximation)
GLOBAL_OPS = {"LDG": "ld", "LD": "ld", "STG": "st", "ST": "st", "ATOMG": "atom", "ATOM": "atom", "RED": "atom", "REDG": "atom"}


class Recorder:
    """Global loads and stores, one record per warp and instruction: (cta, op, size, byte addresses); and for each
    LDGSTS a warp executes, in order, the bytes each lane copies from global memory (the rest is zero-filled)."""

    def __init__(self) -> None:
        self.records: list[tuple[int, str, int, np.ndarray, str]] = []
        self.copied: dict[tuple[int, int], list[np.ndarray]] = collections.defaultdict(list)

    def ldgsts(self, ins, env, step):
        size, _ = isa_memory.width(ins)
        src = isa_memory.address64(isa_memory.operand(ins, 1), env)
        pred = ins.operands[2].kind in ("P", "UP") if len(ins.operands) > 2 else False
        copy = isa_memory.read(ins.operands[2], "pred") if pred else None
        zfill = "ZFILL" in ins.mods
        act_of = guard(ins)
        rec = self

        def run(m, ex):
            ix = np.flatnonzero(act_of(m, ex))
            if len(ix):
                s = src(m, ix)
                n = np.full(len(ix), size, dtype=np.int64)
                if zfill:
                    n -= (s & np.uint64(size - 1)).astype(np.int64)
                if copy is not None:
                    n = np.where(np.asarray(copy(m, ix)), n, 0)
                for w in np.unique(ix // LANES):
                    sel = ix // LANES == w
                    lanes = np.full(LANES, -1, dtype=np.int64)
                    lanes[ix[sel] % LANES] = n[sel]
                    rec.copied[int(m.warp_id[ix[sel][0]]), ins.pc].append(lanes)
            step(m, ex)
        run.plain = getattr(step, "plain", True)
        return run

    def wrap(self, build):
        rec = self

        def wrapped(ins, env):
            step = build(ins, env)
            if ins.name == "LDGSTS":
                return rec.ldgsts(ins, env, step)
            kind = GLOBAL_OPS.get(ins.name)
            if kind is None:
                return step
            size, _ = isa_memory.width(ins)
            act_of = guard(ins)

            def run(m, ex):
                act = act_of(m, ex)
                ix = np.flatnonzero(act)
                seen: list[np.ndarray] = []
                split = isa_memory._split_generic
                masks: list[tuple[np.ndarray, np.ndarray]] = []

                def split_spy(a):
                    s = split(a)
                    masks.append(s)
                    return s
                cls = type(m.memory)
                load, store = cls.load, cls.store
                cls.load = lambda self, a, n: (seen.append(np.asarray(a).copy()), load(self, a, n))[1]
                cls.store = lambda self, a, d: (seen.append(np.asarray(a).copy()), store(self, a, d))[1]
                isa_memory._split_generic = split_spy
                try:
                    step(m, ex)
                finally:
                    cls.load, cls.store = load, store
                    isa_memory._split_generic = split
                if not seen or not len(ix):
                    return
                threads = ix
                if masks:  # generic: the lanes that went to global memory
                    sh, lo = masks[0]
                    threads = ix[~(sh | lo)]
                if kind == "st":
                    threads = threads[isa_memory.store_order(threads, size)]
                addrs = seen[0] if kind != "atom" else np.zeros(len(threads), dtype=np.int64)  # atomics: lanes only
                assert len(addrs) == len(threads), (ins.text, len(addrs), len(threads))
                warp = threads // LANES
                for w in np.unique(warp):
                    sel = warp == w
                    t0 = threads[sel][0]
                    rec.records.append((int(m.ctas[m.cta_slot[t0]]), kind, size, addrs[sel].astype(np.int64), ins.text))
            run.plain = getattr(step, "plain", True)
            return run
        return wrapped


def trace(entry: dict):
    """(the trace's shared-memory rows, the global records) of one entry."""
    program = load_program(REALK / entry["ptx"], entry["kernel"])
    launch = make_launch(program, tuple(entry["grid"]), tuple(entry["block"]), entry["smem"], entry["args"], REALK, 233472)
    ctas = tracer.select_ctas(launch, None)
    rec = Recorder()
    original = tracer.build
    tracer.build = rec.wrap(original)
    try:
        stream = tracer.trace_stream(program, launch, ctas, tracer.describe(program, launch, ctas, entry["args"], entry["smem"]))
        rows = stream.read().instructions
    finally:
        tracer.build = original
    return rows, rec.records, rec.copied


def global_rw(records, ca_sectors: dict[int, set]) -> dict[int, list[int]]:
    """Per CTA (reads, writes) of its global loads and stores through L1, and the fills of the sectors its LDGSTS .ca
    copies read (``ca_sectors``, after the loads and stores)."""
    per_cta: dict[int, list[int]] = collections.defaultdict(lambda: [0, 0])
    l1: dict[int, set] = {}
    for cta, kind, size, addrs, _ in records:
        words = len({int(a) // 4 + k for a in addrs for k in range(max(1, size // 4))})
        if kind == "atom":  # no broadcast: one read and one write per lane and word
            words = len(addrs) * max(1, size // 4)
        c = per_cta[cta]
        if kind == "ld":
            c[0] += words
            held = l1.setdefault(cta, set())
            new = {int(a) // bank_rw.SECTOR for a in addrs} - held
            held |= new
            c[1] += 8 * len(new)
        else:
            c[0] += words
            c[1] += words
            if kind == "st":  # a store leaves its sectors in L1: later loads of them hit
                l1.setdefault(cta, set()).update(int(a) // bank_rw.SECTOR for a in addrs)
    for cta, sectors in ca_sectors.items():
        per_cta[cta][1] += 8 * len(sectors - l1.get(cta, set()))
    return per_cta


def shared_part(rows, arch, warps_per_cta: int, copied=None):
    """Per CTA (reads, writes) of the trace's shared-memory rows, and the totals per op."""
    per_cta: dict[int, list[int]] = collections.defaultdict(lambda: [0, 0])
    per_op = collections.Counter()
    seen: collections.Counter = collections.Counter()
    ca: dict[int, set] = collections.defaultdict(set)
    for i in range(len(rows)):
        ins = rows[i]
        n = None
        if ins.op == "LDGSTS" and copied is not None:
            key = (ins.warp, ins.pc)
            n = copied[key][seen[key]]
            seen[key] += 1
        r, w = bank_rw.shared_rw(ins, arch, n, fill=False)
        if PENDING and ins.op == "LDGSTS" and not ins.bypass and (n is None or (n[n >= 0] > 0).all()):
            r = bank_rw.ca_reads_pending(ins, arch)
        ca[ins.warp // warps_per_cta] |= bank_rw.ca_fill_sectors(ins, n)
        c = per_cta[ins.warp // warps_per_cta]
        c[0] += r
        c[1] += w
        per_op[ins.op, "r"] += r
        per_op[ins.op, "w"] += w
    return per_cta, per_op, ca


def realk_report(names: list[str], arch) -> int:
    """Every entry with the counters that simsmem can trace: within the H100's runs, or why not."""
    import json
    manifest = json.loads((REALK / "manifest.json").read_text())
    verdicts: collections.Counter = collections.Counter()
    for entry in manifest:
        if names and entry["name"] not in names:
            continue
        if bank_rw.READS not in entry["ncu"]:
            continue
        try:
            rows, records, copied = trace(entry)
        except Exception as exc:  # noqa: BLE001 - a kernel simsmem cannot trace (wgmma, TMA): named, not scored
            verdicts["not traced"] += 1
            if names:
                print(f"{entry['name']:<34} not traced: {str(exc)[:120]}")
            continue
        warps = -(-int(np.prod(entry["block"])) // LANES)
        shared, per_op, ca = shared_part(rows, arch, warps, copied)
        glob = global_rw(records, ca)
        ctas = set(shared) | set(glob)
        zero = [0, 0]
        raw = {c: [shared.get(c, zero)[k] + glob.get(c, zero)[k] for k in (0, 1)] for c in ctas}
        # each SM's L1 rounds its own counts (one CTA per SM here)
        pr = sum(bank_rw.even_down(v[0]) for v in raw.values())
        pw = sum(bank_rw.even_up(v[1]) for v in raw.values())
        runs_r = entry.get("ncu_varies", {}).get(bank_rw.READS, [entry["ncu"][bank_rw.READS]])
        runs_w = entry.get("ncu_varies", {}).get(bank_rw.WRITES, [entry["ncu"][bank_rw.WRITES]])
        if min(runs_r) <= pr <= max(runs_r) and min(runs_w) <= pw <= max(runs_w):
            verdict = "exact"
        elif all(sum(bank_rw.even_down(v[k]) for v in raw.values()) <= min(runs) and max(runs) <= sum(bank_rw.even_up(v[k]) for v in raw.values())
                 for k, runs in ((0, runs_r), (1, runs_w))):
            verdict = "exact but for which way an SM rounds an odd count"
        elif min(runs_w) <= pw <= max(runs_w) and pr < min(runs_r) and per_op["LDGSTS", "r"] and any(
                not rows[i].bypass for i in range(len(rows)) if rows[i].op == "LDGSTS"):
            verdict = "writes exact, reads above the rule: LDGSTS .ca"
        else:
            verdict = "off"
        verdicts[verdict] += 1
        ops = " ".join(f"{op}:{per_op[op, 'r']}/{per_op[op, 'w']}" for op in sorted({k[0] for k in per_op}))
        sr, sw = sum(v[0] for v in shared.values()), sum(v[1] for v in shared.values())
        gr, gw = sum(v[0] for v in glob.values()), sum(v[1] for v in glob.values())
        print(f"{entry['name']:<34} reads {min(runs_r)}..{max(runs_r)} rule {pr}  writes {min(runs_w)}..{max(runs_w)} rule {pw}"
              f"  [{verdict}]  global {gr}/{gw} shared {sr}/{sw} ({ops})")
    print("; ".join(f"{k}: {v}" for k, v in verdicts.most_common()))
    return 0
