"""The H100's L1TEX data-bank counters ``l1tex__data_bank_reads.sum`` / ``l1tex__data_bank_writes.sum``: the rule,
held against every measured row (issue 29).

From ``calibration/`` (simsmem installed)::

    python3 bank_rw.py                 # the single-instruction corpora, file by file (holdout3 last)
    python3 bank_rw.py --rows FILE     # every row of one corpus file that the rule misses, with its residual
    python3 bank_rw.py --realk [NAME]  # the whole-kernel corpus (realk/manifest.json), traced by simsmem
    python3 bank_rw.py --realk --pending   # the same with ``ca_reads_pending`` for LDGSTS .ca reads

One count is one 4-byte bank word read or written. The shared-memory rule was found on instructions_v2, followup,
holdout, holdout2, r4, ldgsts2, ldgsts3 and the op_misc files; holdout3 (400 LDS.64/128 rows) was scored last, though
it had been in one early histogram of residuals (so it is not a clean hold-out). realk (whole kernels) was then run
with that rule unchanged: its LDS/STS/LDSM/STSM/ATOMS/LDGSTS parts held wherever the kernel's global traffic was
simple; what realk added (global atomics, byte-wide global accesses, stores leaving sectors in L1, zero fill,
ATOMS.CAST.SPIN, rounding per SM) was found on realk itself and has no hold-out.

* shared memory, per instruction (``shared_rw``; simsmem's ``Counts.bank_reads``/``bank_writes`` are the same rule,
  ``banks/reference.py`` rule 8, but for ``copied``):
  - LDS (every width) and LDSM: reads = the distinct words of each wavefront, summed over its wavefronts
    (a word two wavefronts read counts twice; lanes reading one word in one wavefront count it once).
  - STS.32/.64/.128 and STSM: writes = the same sum over the wavefronts.
  - STS.U8 / STS.U16: reads = writes = that sum (a sub-word store reads the word and writes it back, even
    where the warp writes every byte of it).
  - ATOMS (every operation but POPC.INC; CAS and the 64-bit forms included): reads = writes = the words the
    active lanes address, one per lane and word, no broadcast (CAS: once, not per round).
  - ATOMS.POPC.INC (``red.shared.add`` of 1) and ATOMS.CAST.SPIN (the compiler's CAS loops; realk rule_cas_spin*):
    reads = writes = the distinct words of each wavefront (CAST.SPIN: of its one pass a phase).
  - LDGSTS .cg (LDGSTS.E.BYPASS.128): writes = the bytes it writes into shared memory / 4 (lanes writing one
    chunk count once); reads 0. Zero fill (realk rule_cpa_cg16_*zero*, _size*, the Triton matmuls): each
    zero-filled word is also read, and a chunk copied in part writes its zero-filled words twice.
  - LDGSTS .ca: writes = every lane's words, plus L1's fill from global memory: 8 words (a 32-byte sector) per
    source sector L1 does not hold (``ca_fill_sectors``); reads = the lanes' words where each phase takes one
    wavefront (a zero-filled lane: 1). A phase of several wavefronts reads more, by a rule not found
    (``ca_reads_pending`` is an approximation); in kernels of several warps the count varies run to run.
* global memory through L1 (the probes' own LDG / STG, every global access of a real kernel): a load reads the
  distinct words of its lanes and L1 writes 8 words per sector it fills (one it does not hold: loaded or stored
  before by the CTA); a store writes its lanes' words into L1 and reads them out again; a global atomic (ATOMG,
  RED) reads and writes one word per lane.
* each SM reports its counts rounded to even: reads down, writes up (``2*(n//2)``, ``2*((n+1)//2)``). Every
  one-CTA launch measured does so; in hist256_*_skewed (4 CTAs) one SM with an odd count rounds the other way.

The single-instruction probes (``probe.cu``) add their own global traffic (``probe_baseline``): every lane that
runs the probed instruction loaded its offset with one LDG (two for LDGSTS: destination and source offsets) of
one 128-byte array (one sector per 8 lanes), and every thread stores ``out[threadIdx.x]`` with one STG (LDSM, STSM
and the predicated LDS probe load for all 32 lanes: their instruction takes no branch). The op_misc probes (no
shared-memory instruction, 32 to 1024 threads) are that baseline alone.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

from simsmem.banks import schedule
from simsmem.config import load_arch
from simsmem.corpus import row_instruction
from simsmem.traces import Instruction

HERE = Path(__file__).resolve().parent
H100 = HERE / "h100"
READS = "l1tex__data_bank_reads.sum"
WRITES = "l1tex__data_bank_writes.sum"
#: the corpora with the counters, in the order they are scored; the last is the hold-out
CORPORA = ("instructions_v2", "followup", "followup2", "holdout", "holdout2", "r4", "ldgsts2", "ldgsts3", "holdout3")
MISC = ("op_misc", "op_misc_followup", "op_misc_followup2")
SECTOR = 32
WORD = 4


def even_down(n: int) -> int:
    return n // 2 * 2


def even_up(n: int) -> int:
    return (n + 1) // 2 * 2


def per_wavefront_words(ins: Instruction, arch) -> int:
    """Distinct words of each wavefront (the first round of a multi-round op), summed."""
    s = schedule(ins, arch)
    return sum(len({r.word for r in w.requests}) for w in s.wavefronts if w.round == 0)


def ca_fill_sectors(ins: Instruction, copied=None) -> set[int]:
    """The global sectors an LDGSTS .ca copy reads (L1 fills those it does not hold: 8 words each)."""
    if ins.op != "LDGSTS" or ins.bypass:
        return set()
    return {ins.src[lane] // SECTOR for lane in ins.active_lanes if copied is None or copied[lane] > 0}


def shared_rw(ins: Instruction, arch, copied=None, fill: bool = True) -> tuple[int, int]:
    """(reads, writes) of one shared-memory instruction: the rule of the module docstring. ``copied``: for an
    LDGSTS, the bytes each lane copies from global memory (the rest of its access zero-filled), by lane; None: all.
    ``fill``: count an LDGSTS .ca copy's fill of L1 as if L1 held none of its sectors (False: leave it out)."""
    s = schedule(ins, arch)
    first = [w for w in s.wavefronts if w.round == 0]
    words = sum(len({r.word for r in w.requests}) for w in first)
    lanes = ins.active_lanes
    k = s.shape.words_per_lane
    op = ins.op
    if op in ("LDS", "LDSM"):
        return words, 0
    if op in ("STS", "STSM"):
        return (words, words) if op == "STS" and ins.width < 32 else (0, words)
    if op == "ATOMS":
        if s.shape.broadcast:  # POPC.INC
            return words, words
        n = len(lanes) * k
        return n, n
    if op == "LDGSTS":
        size = s.shape.access_bytes
        n = {lane: size if copied is None else int(copied[lane]) for lane in lanes}
        zeros = {lane: (size - n[lane]) // WORD for lane in lanes}  # zero-filled words
        if ins.bypass:  # the zero-filled words are read; a partly copied chunk writes them twice
            return sum(zeros.values()), s.bytes // WORD + sum(z for lane, z in zeros.items() if n[lane])
        filled = SECTOR // WORD * len(ca_fill_sectors(ins, copied)) if fill else 0
        return sum(k if n[lane] else 1 for lane in lanes), len(lanes) * k + filled
    raise ValueError(f"no bank rule for {op}")


def ca_reads_pending(ins: Instruction, arch) -> int:
    """An approximation of LDGSTS .ca reads, not the hardware's rule: each wavefront reads, once per source
    position in the line, the words of every lane its phase has not served yet (exact on 446 of the 642 .ca rows)."""
    s = schedule(ins, arch)
    k = s.shape.words_per_lane
    positions = 128 // (WORD * k)
    groups: dict[int, list] = collections.defaultdict(list)
    for w in s.wavefronts:
        groups[w.group].append({r.lane for r in w.requests})
    total = 0
    for waves in groups.values():
        for i in range(len(waves)):
            pending = set().union(*waves[i:])
            total += k * len({ins.src[lane] // (WORD * k) % positions for lane in pending})
    return total


def probe_lanes(row: dict) -> list[int]:
    """The lanes that ran the probe's LDG of their offset (and its instruction)."""
    mask = int(row["mask"], 16) if isinstance(row["mask"], str) else int(row["mask"])
    if row["sass"].startswith(("LDSM", "STSM")) or row["name"].startswith("lds32_pred"):
        mask = 0xFFFFFFFF  # no branch around the instruction: every lane loads its offset
    return [lane for lane in range(32) if mask >> lane & 1]


def probe_baseline(row: dict, threads: int = 32) -> tuple[int, int]:
    """(reads, writes) of a probe's global traffic: the LDG(s) of its offsets and the STG of out[]."""
    lanes = probe_lanes(row)
    loads = 2 if row["sass"].startswith("LDGSTS") else 1  # LDGSTS probes load destination and source offsets
    warps = threads // 32
    sectors = len({lane * WORD // SECTOR for lane in lanes})  # the arrays are 128-byte aligned, 4 bytes a lane
    return loads * len(lanes) * warps + threads, loads * SECTOR // WORD * sectors + threads


def predict_row(row: dict, arch) -> tuple[int, int]:
    """The counters the rule gives for a corpus row: probe baseline + instruction, rounded."""
    br, bw = probe_baseline(row, row.get("threads") or 32)
    ir, iw = shared_rw(row_instruction(row), arch)
    return even_down(br + ir), even_up(bw + iw)


def load_rows(name: str) -> list[dict]:
    return json.loads((H100 / f"{name}.json").read_text())["patterns"]


def score(rows: list[dict], arch) -> tuple[collections.Counter, list[tuple]]:
    """Per SASS form: rows, reads exact, writes exact; and the misses (name, sass, measured, predicted)."""
    tally: collections.Counter = collections.Counter()
    misses = []
    for row in rows:
        pr, pw = predict_row(row, arch)
        mr, mw = row["ncu"][READS], row["ncu"][WRITES]
        form = row["sass"]
        tally[form, "rows"] += 1
        tally[form, "reads"] += pr == mr
        tally[form, "writes"] += pw == mw
        if (pr, pw) != (mr, mw):
            misses.append((row["name"], form, (mr, mw), (pr, pw)))
    return tally, misses


def misc_baseline(row: dict) -> tuple[int, int]:
    """op_misc probes: their LDG and STG, plus the store or load some hold. Every lane loads its offset (the probes use
    it after their instruction), but for misc_shfl_masked, which uses it only on the lanes the mask lets in."""
    threads = row.get("threads") or 32
    mask = int(row["mask"], 16)
    active = [lane for lane in range(32) if mask >> lane & 1]
    lanes = active if row["name"].startswith("misc_shfl_masked") else list(range(32))
    warps = threads // 32
    reads = len(lanes) * warps + threads
    writes = SECTOR // WORD * len({lane * WORD // SECTOR for lane in lanes}) + threads
    name = row["name"]
    if name.startswith("misc_sts_bar"):
        writes += len(active) * warps
    elif name.startswith("misc_sts128_bar"):
        writes += 4 * len(active) * warps
    elif name.startswith("misc_lds_bar"):
        reads += len(active) * warps  # lanes read distinct words (offsets 4 apart)
    return even_down(reads), even_up(writes)


def several_wavefronts(row: dict, arch) -> bool:
    """A phase of the row's instruction takes more than one wavefront."""
    s = schedule(row_instruction(row), arch)
    return len(s.wavefronts) > len({w.group for w in s.wavefronts})


def report(arch) -> int:
    total = [0, 0]
    for name in CORPORA:
        rows = load_rows(name)
        tally, misses = score(rows, arch)
        n = sum(v for (f, k), v in tally.items() if k == "rows")
        both = n - len(misses)
        total[0] += n
        total[1] += both
        label = name + (" (hold-out)" if name == CORPORA[-1] else "")
        print(f"{label:<28} rows {n:5}  exact {both:5}  reads {sum(v for (f, k), v in tally.items() if k == 'reads'):5}"
              f"  writes {sum(v for (f, k), v in tally.items() if k == 'writes'):5}")
        forms = sorted({f for f, _ in tally})
        for f in forms:
            if tally[f, "reads"] != tally[f, "rows"] or tally[f, "writes"] != tally[f, "rows"]:
                print(f"    {f:<22} rows {tally[f, 'rows']:4}  reads exact {tally[f, 'reads']:4}  writes exact {tally[f, 'writes']:4}")
        if misses:
            byname = {r["name"]: r for r in rows}
            res = collections.Counter(m[2][0] - m[3][0] for m in misses)
            multi = sum(several_wavefronts(byname[m[0]], arch) for m in misses)
            ca_only = all(m[1].startswith("LDGSTS.E") and "BYPASS" not in m[1] and m[2][1] == m[3][1] and m[2][0] > m[3][0] for m in misses)
            what = "all LDGSTS .ca reads above the rule" if ca_only else "NOT ONLY LDGSTS .ca reads above the rule"
            print(f"    misses: {len(misses)}, {what} ({multi} with a phase of several wavefronts); "
                  f"read residuals min {min(res)} median {sorted(r for r, c in res.items() for _ in range(c))[len(misses) // 2]} max {max(res)}")
    for name in MISC:
        rows = load_rows(name)
        ok = sum(misc_baseline(r) == (r["ncu"][READS], r["ncu"][WRITES]) for r in rows)
        total[0] += len(rows)
        total[1] += ok
        print(f"{name:<28} rows {len(rows):5}  exact {ok:5}")
    print(f"{'all':<28} rows {total[0]:5}  exact {total[1]:5}")
    ca = [r for name in CORPORA for r in load_rows(name) if r["sass"].startswith("LDGSTS.E") and "BYPASS" not in r["sass"]]
    single = [r for r in ca if not several_wavefronts(r, arch)]
    ok_single = sum(predict_row(r, arch)[0] == r["ncu"][READS] for r in single)
    pend = 0
    for r in ca:
        br, _ = probe_baseline(r)
        pend += even_down(br + ca_reads_pending(row_instruction(r), arch)) == r["ncu"][READS]
    print(f"LDGSTS .ca reads: {len(ca)} rows; {len(single)} with one wavefront a phase, {ok_single} of them exact; "
          f"ca_reads_pending exact on {pend}")
    return 0


def rows_report(name: str, arch) -> int:
    _, misses = score(load_rows(name), arch)
    for m in misses:
        print(f"{m[0]:<48} {m[1]:<20} measured {m[2]}  rule {m[3]}  residual {(m[2][0] - m[3][0], m[2][1] - m[3][1])}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", metavar="FILE", help="the misses of one corpus (a name in h100/, without .json)")
    ap.add_argument("--realk", nargs="*", metavar="NAME", help="the realk corpus (or the entries named)")
    ap.add_argument("--pending", action="store_true", help="--realk: LDGSTS .ca reads by ca_reads_pending")
    a = ap.parse_args(argv)
    arch = load_arch("sm_90")
    if a.rows:
        return rows_report(a.rows, arch)
    if a.realk is not None:
        import bank_rw_realk
        bank_rw_realk.PENDING = a.pending
        return bank_rw_realk.realk_report(a.realk, arch)
    return report(arch)


if __name__ == "__main__":
    sys.exit(main())
