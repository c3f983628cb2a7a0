"""Pattern sets: which launches to measure, designed to pin the counting rules down.

A pattern is one launch of one probe: its per-lane shared byte offsets, active mask, and for
LDGSTS per-lane global source offsets (from a 4 KiB-aligned buffer). ``design()`` is the set the
rules are read from (named families, each aimed at one question, plus a few seeded random ones);
``holdout(seed)`` is a random set drawn the same way as the random part, with its own seed, kept
apart until the rules are fixed. Sets are written as JSON (``write_set``) and, for ``probe``, as
text (``probe_lines``); both are deterministic for a given seed.

Banks are 32 x 4 bytes, so a 128-byte *row* holds one word of every bank. An 8-byte access fills
*slot* ``(addr / 8) % 16`` of its row (two banks), a 16-byte access slot ``(addr / 16) % 8`` (four
banks): two accesses conflict when they use the same slot of different rows.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .forms import BY_KERNEL

LANES = 32
FULL = 0xFFFFFFFF
SMEM = 49152  # bytes of the probes' shared array
ROW = 128


@dataclass
class Pattern:
    """One launch: ``probe_<kernel>`` on ``threads`` threads with these lanes."""

    name: str
    kernel: str
    addrs: list[int]
    mask: int = FULL
    src: list[int] | None = None  # LDGSTS global source byte offsets
    threads: int = LANES
    family: str = ""
    note: str = field(default="", compare=False)


def mask_of(lanes) -> int:
    """The mask with exactly these lanes set."""
    m = 0
    for lane in lanes:
        m |= 1 << lane
    return m


def fill(addrs: list[int | None]) -> tuple[list[int], int]:
    """Lanes given as addresses or None (inactive) -> 32 addresses (inactive lanes reuse a live one) and the mask."""
    live = next((a for a in addrs if a is not None), 0)
    return [live if a is None else a for a in addrs], mask_of(i for i, a in enumerate(addrs) if a is not None)


def phase_lanes(addrs: list[int], lanes: int, mode: str) -> list[int | None]:
    """One phase's lanes from its distinct addresses: cycled over every lane, or one lane each (rest inactive)."""
    if not addrs:
        return [None] * lanes
    if mode == "cycle":
        return [addrs[i % len(addrs)] for i in range(lanes)]
    return [addrs[i] if i < len(addrs) else None for i in range(lanes)]


def _p(name, kernel, lanes: list[int | None], family, note="", **kw) -> Pattern:
    addrs, mask = fill(lanes)
    return Pattern(name, kernel, addrs, mask, family=family, note=note, **kw)


# ---- LDS.64 / LDS.128 sibling phases (and STS.64 / STS.128 for contrast) ----

def _grouped(width: int) -> tuple[int, int, int]:
    """(lanes per phase, bytes per access, slots per row) of a 64- or 128-bit access."""
    return (16, 8, 16) if width == 64 else (8, 16, 8)


def siblings(op: str, width: int, brief: bool = False) -> list[Pattern]:
    """Two sibling phases (half-warps; quarters 0+1) whose words overlap, collide or conflict (``brief``: fewer sizes)."""
    per, size, slots = _grouped(width)
    kernel = f"{op.lower()}{width}"
    tag = f"{op}{width}"
    fam = f"siblings{width}"
    at = lambda slot, row: row * ROW + slot * size  # noqa: E731
    out: list[Pattern] = []

    def two(name, p0, p1, mode, note):
        lanes = phase_lanes(p0, per, mode) + phase_lanes(p1, per, mode)
        if width == 128:  # quarters 2 and 3 repeat quarters 0 and 1 one row further on (same banks, new words)
            lanes = lanes + [None if a is None else a + 8 * ROW for a in lanes]
        out.append(_p(f"{tag}_{name}_{mode}", kernel, lanes, fam, note))

    # (1) how many words may the pair ask and still share a wavefront? d0, d1 distinct accesses, k of them shared
    sizes = [(1, 1), (2, 2), (4, 4), (8, 8), (8, 9), (9, 8), (16, 1), (1, 16), (16, 16), (12, 5), (6, 6), (15, 2)]
    if width == 128:
        sizes = [(1, 1), (2, 2), (3, 3), (4, 4), (4, 5), (5, 4), (8, 1), (1, 8), (8, 8), (6, 3), (7, 2)]
    if brief:
        sizes = [sizes[i] for i in (0, 3, 4, 8)]
    for d0, d1 in sizes:
        for k in sorted({0, 1, min(d0, d1) // 2, min(d0, d1)}):
            if d0 + d1 - k > slots:
                continue
            shared = [at(s, 0) for s in range(k)]
            p0 = shared + [at(s, 1) for s in range(k, d0)]
            p1 = shared + [at(s, 2) for s in range(d0, d0 + d1 - k)]
            note = f"words asked {(d0 + d1) * size // 4}, distinct {(d0 + d1 - k) * size // 4}, no bank holds two words"
            for mode in ("cycle", "mask") if k in (0, min(d0, d1)) else ("cycle",):
                two(f"ask{d0}_{d1}_k{k}", p0, p1, mode, note)
    # (2) a collision (same bank, different word) between the phases, each phase conflict-free
    for d0, d1, c in [(1, 1, 1), (4, 4, 1), (4, 4, 4), (2, 6, 1), (6, 2, 2)] + ([(8, 8, 1), (8, 8, 8)] if width == 64 else []):
        if d0 + d1 - c > slots:
            continue
        p0 = [at(s, 1) for s in range(d0)]
        p1 = [at(s, 2) for s in range(c)] + [at(s, 2) for s in range(d0, d0 + d1 - c)]
        two(f"collide{d0}_{d1}_c{c}", p0, p1, "mask", f"{c} of phase 1's accesses hit phase 0's banks with other words")
    # (3) conflicts inside a phase: the pair's banks shared (same words or other words) or apart
    for c0, c1 in [(2, 1), (1, 2), (2, 2), (4, 1), (4, 4), (8, 2), (3, 5)][: 3 if brief else None]:
        if max(c0, c1) > per:
            continue
        p0 = [at(0, r) for r in range(c0)]
        for how, p1 in (
            ("samewords", [at(0, r) for r in range(c1)]),
            ("samebank", [at(0, 16 + r) for r in range(c1)]),
            ("otherbank", [at(1, r) for r in range(c1)]),
        ):
            two(f"conf{c0}_{c1}_{how}", p0, p1, "mask", f"phase conflicts {c0} and {c1}, pair banks {how}")
    # (4) a full phase beside a small or conflicting one
    full0 = [at(s, 0) for s in range(slots)]
    two("full_small_other", full0, [at(0, 3)], "mask", "phase 0 asks 32 words, phase 1 one access colliding")
    two("full_small_same", full0, [at(0, 0)], "mask", "phase 0 asks 32 words, phase 1 one access of the same words")
    two("full_conf2", full0, [at(0, 1), at(0, 2)], "mask", "phase 0 full, phase 1 2-way conflict")
    # (5) single lanes
    for i, j, how in [(0, 0, "same"), (0, 0, "clean"), (0, 0, "collide"), (per - 1, per - 1, "clean"), (3, 5, "collide"), (5, 2, "same")]:
        a0 = at(1, 1)
        a1 = {"same": a0, "clean": at(2, 4), "collide": at(1, 5)}[how]
        lanes: list[int | None] = [None] * (2 * per)
        lanes[i], lanes[per + j] = a0, a1
        if width == 128:
            lanes += [None] * 16
        out.append(_p(f"{tag}_single{i}_{per + j}_{how}", kernel, lanes, fam, f"one lane in each phase, {how}"))
    for lane in (0, per, 2 * per - 1) + ((2 * per, 31) if width == 128 else ()):
        lanes = [None] * 32
        lanes[lane] = at(3, 2)
        out.append(_p(f"{tag}_only{lane}", kernel, lanes, fam, "one active lane"))
    return out


def quarters(op: str) -> list[Pattern]:
    """LDS.128: which quarter-warps pair up (0+1, 2+3 fixed?) and whether all four can share a wavefront."""
    kernel, fam = f"{op.lower()}128", "quarters"
    at = lambda slot, row: row * ROW + slot * 16  # noqa: E731
    cases = {
        # quarter -> its distinct accesses (cycled over its 8 lanes); None: quarter inactive
        "all4_clean_small": [[at(0, 0), at(1, 1)], [at(2, 2), at(3, 3)], [at(4, 4), at(5, 5)], [at(6, 6), at(7, 7)]],
        "all4_same": [[at(0, 0)]] * 4,
        "q12_clean_q01_q23_collide": [[at(0, 1)], [at(0, 2)], [at(1, 3)], [at(1, 4)]],
        "q02_clean_q01_q23_collide": [[at(0, 1)], [at(0, 2)], [at(1, 3)], [at(0, 4)]],
        "q03_only_clean": [[at(0, 1)], None, None, [at(1, 2)]],
        "q12_only_clean": [None, [at(0, 1)], [at(1, 2)], None],
        "q13_only_clean": [None, [at(0, 1)], None, [at(1, 2)]],
        "q02_only_clean": [[at(0, 1)], None, [at(1, 2)], None],
        "q01_only_collide": [[at(0, 1)], [at(0, 2)], None, None],
        "q23_only_clean": [None, None, [at(0, 1)], [at(1, 2)]],
        "q01_same_q23_same": [[at(0, 1)], [at(0, 1)], [at(2, 3)], [at(2, 3)]],
        "q01_full_q23_small": [[at(s, 0) for s in range(8)], [at(s, 1) for s in range(8)], [at(0, 2)], [at(1, 3)]],
        "q0_conf2_rest_clean": [[at(0, 0), at(0, 1)], [at(1, 2)], [at(2, 3)], [at(3, 4)]],
        "q3_conf4_rest_clean": [[at(0, 0)], [at(1, 1)], [at(2, 2)], [at(3, r) for r in range(4)]],
    }
    out = []
    for name, qs in cases.items():
        lanes: list[int | None] = []
        for q in qs:
            lanes += phase_lanes(q or [], 8, "cycle")
        out.append(_p(f"{op}128_{name}", kernel, lanes, fam))
    return out


# ---- sub-word, 32-bit and alignment ----

def alignments(op: str) -> list[Pattern]:
    """Every alignment of a sub-word access within its word, and a few bank shifts of the wider ones."""
    out = []
    for width in (8, 16, 32, 64, 128):
        size = width // 8
        kernel = f"{op.lower()}{width}"
        bases = sorted({0, size, 64 + size} | (set(range(0, 4, size)) if size <= 2 else set()))
        for base in bases:
            for stride in (size, 2 * size, 3 * size) if size <= 2 else (size, 2 * size):
                out.append(Pattern(f"{op}{width}_align{base}_stride{stride}", kernel, [base + lane * stride for lane in range(LANES)],
                                   family="align"))
    return out


# ---- LDSM / STSM ----

MATRIX_KERNELS = ("ldsm1", "ldsm2", "ldsm4", "ldsm4t", "stsm1", "stsm2", "stsm4", "stsm4t")


def matrix_lanes(rows: list[int], num: int) -> list[int]:
    """32 lanes from 8*num row addresses (lanes past them repeat them: the hardware ignores those)."""
    return [rows[lane % (8 * num)] for lane in range(LANES)]


def matrices(kernel: str) -> list[Pattern]:
    """Rows that alias (same address), collide (same banks, other words) or spread, within and across matrices."""
    num = int(kernel[4])
    at = lambda slot, row: row * ROW + slot * 16  # noqa: E731
    clean = [at(s, 0) for s in range(8)]
    cases = {
        "alias_half": [clean[r % 4] for r in range(8)],  # rows 4..7 repeat rows 0..3
        "alias_pairs": [clean[r // 2] for r in range(8)],
        "collide_half": [at(r % 4, r // 4) for r in range(8)],  # rows 4..7: banks of rows 0..3, next 128 B row
        "alias_and_collide": [at(0, 0), at(0, 0), at(0, 1), at(0, 1), at(1, 0), at(2, 0), at(3, 0), at(4, 0)],
        "two_rows_one_bank": [at(0, 0), at(0, 1)] + clean[2:],
        "eight_rows_one_bank": [at(0, r) for r in range(8)],
        "four_way_alias": [at(0, r % 2) for r in range(8)],
    }
    out = []
    for name, rows in cases.items():
        per_matrix = []
        for m in range(num):  # each matrix the same shape, one 1 KiB block further on
            per_matrix += [a + m * 1024 for a in rows]
        out.append(Pattern(f"{kernel}_{name}", kernel, matrix_lanes(per_matrix, num), family="matrix"))
    if num > 1:
        # every matrix reads the same few rows: do matrices asking few words share a wavefront?
        small = [at(0, 0)] * 8
        out.append(Pattern(f"{kernel}_all_matrices_one_row", kernel, matrix_lanes(small * num, num), family="matrix"))
        spread = []
        for m in range(num):
            spread += [at(2 * m, 0), at(2 * m + 1, 0)] * 4
        out.append(Pattern(f"{kernel}_matrices_disjoint_banks", kernel, matrix_lanes(spread, num), family="matrix",
                           note="each matrix 2 distinct rows, matrices on disjoint banks"))
        alias = clean * num
        out.append(Pattern(f"{kernel}_matrices_alias_rows", kernel, matrix_lanes(alias, num), family="matrix"))
    return out


# ---- atomics ----

ATOM32_FULL = ("atom_add", "atom_exch", "atom_cas", "atom_inc", "atom_min", "red_add", "red_add1")
ATOM32_KERNELS = ("atom_add", "atom_exch", "atom_min", "atom_min_s", "atom_max", "atom_max_s", "atom_inc", "atom_dec",
                  "atom_and", "atom_or", "atom_xor", "atom_cas", "red_add", "red_min", "red_max", "red_inc", "red_and",
                  "red_or", "red_xor", "red_add1")


ATOM32_FEW = ("stride0", "stride32", "pairs_same_word", "odd_lanes_stride32")


def atomics32(kernel: str, few: bool = False) -> list[Pattern]:
    """Serialisation of 32-bit shared atomics: same word, same bank, masks (``few``: ``ATOM32_FEW`` only)."""
    lanes = range(LANES)
    cases: dict[str, tuple[list[int], int]] = {
        "stride0": ([0] * 32, FULL),
        "stride1": ([4 * i for i in lanes], FULL),
        "stride2": ([8 * i for i in lanes], FULL),
        "stride32": ([128 * i for i in lanes], FULL),
        "pairs_same_word": ([4 * (i // 2) for i in lanes], FULL),
        "eight_same_word": ([4 * (i // 8) for i in lanes], FULL),
        "two_words_same_bank": ([128 * (i % 2) for i in lanes], FULL),
        "half_same_word_half_clean": ([0 if i < 16 else 4 * i for i in lanes], FULL),
        "odd_lanes_stride32": ([128 * i for i in lanes], 0xAAAAAAAA),
        "one_lane": ([4 * i for i in lanes], 0x00000001),
        "same_word_4lanes": ([0] * 32, 0x01010101),
    }
    if kernel == "red_add1":  # POPC.INC adds the lane count per word: does it still serialise?
        cases["stride0_half"] = ([0] * 32, 0x0000FFFF)
        cases["four_words_stride1"] = ([4 * (i % 4) for i in lanes], FULL)
        cases["four_words_same_bank"] = ([128 * (i % 4) for i in lanes], FULL)
    return [Pattern(f"{kernel}_{n}", kernel, a, m, family="atomics") for n, (a, m) in cases.items() if not few or n in ATOM32_FEW]


def atomics64(kernel: str) -> list[Pattern]:
    """64-bit shared atomics (exch, cas): phases, same word, same bank."""
    lanes = range(LANES)
    cases: dict[str, tuple[list[int], int]] = {
        "stride0": ([0] * 32, FULL),
        "stride1": ([8 * i for i in lanes], FULL),
        "stride2": ([16 * i for i in lanes], FULL),
        "stride3": ([24 * i for i in lanes], FULL),
        "stride16": ([128 * i for i in lanes], FULL),
        "pairs_same": ([8 * (i // 2) for i in lanes], FULL),
        "halves_alias": ([8 * (i % 16) for i in lanes], FULL),
        "halves_other_rows": ([8 * (i % 16) + 128 * (i // 16) for i in lanes], FULL),
        "half_active": ([8 * i for i in lanes], 0x0000FFFF),
        "even_active": ([8 * i for i in lanes], 0x55555555),
        "one_lane": ([8 * i for i in lanes], 0x00000001),
        "two_lanes_same_word": ([0] * 32, 0x00010001),
        "two_lanes_same_bank": ([128 * i for i in lanes], 0x00000003),
    }
    return [Pattern(f"{kernel}_{n}", kernel, a, m, family="atomics") for n, (a, m) in cases.items()]


# ---- LDGSTS (cp.async): shared destinations and global sources ----

LDGSTS_KERNELS = ("ldgsts_ca4", "ldgsts_ca8", "ldgsts_ca16", "ldgsts_cg16")


def ldgsts(kernel: str) -> list[Pattern]:
    """Vary how the sources fall into 128-byte lines and how the destinations fall into banks."""
    size = int(kernel.split("ca" if "_ca" in kernel else "cg")[1])
    lanes = list(range(LANES))
    lin = [size * i for i in lanes]
    srcs = {
        "lin": lin,
        "lin_plus32": [32 + a for a in lin],
        "lin_plus64": [64 + a for a in lin],
        "same": [0] * 32,
        "line_each": [128 * i for i in lanes],
        "line_each_plus16": [128 * i + 16 for i in lanes],
        "two_lanes_per_line": [128 * (i // 2) + size * (i % 2) for i in lanes],
        "four_lanes_per_line": [128 * (i // 4) + size * (i % 4) for i in lanes],
        "eight_lanes_per_line": [128 * (i // 8) + size * (i % 8) for i in lanes],
        "rev": [size * (31 - i) for i in lanes],
        "lines_interleaved": [128 * (i % 4) + size * (i // 4) for i in lanes],
    }
    dsts = {
        "lin": lin,
        "rev": [size * (31 - i) for i in lanes],
        "stride2": [2 * size * i for i in lanes],
        "stride128": [128 * i for i in lanes],
        "same": [0] * 32,
        "pairs_same": [size * (i // 2) for i in lanes],
        "xor": [size * (i ^ 5) for i in lanes],
        "lines_interleaved": [128 * (i % 4) + size * (i // 4) for i in lanes] if size < 16 else [size * ((i % 4) * 8 + i // 4) for i in lanes],
    }
    out = []
    # sources vary, destinations linear; destinations vary, sources linear
    for sname, src in srcs.items():
        out.append(Pattern(f"{kernel}_dst_lin_src_{sname}", kernel, lin, src=src, family="ldgsts"))
    for dname, dst in dsts.items():
        if dname != "lin":
            out.append(Pattern(f"{kernel}_dst_{dname}_src_lin", kernel, dst, src=lin, family="ldgsts"))
    # both vary
    for dname in ("stride128", "same", "rev", "stride2"):
        for sname in ("same", "line_each", "four_lanes_per_line", "rev"):
            out.append(Pattern(f"{kernel}_dst_{dname}_src_{sname}", kernel, dsts[dname], src=srcs[sname], family="ldgsts"))
    # masks
    for mname, m in (("half", 0x0000FFFF), ("even", 0x55555555), ("one", 0x00000001), ("q0q3", 0xFF0000FF)):
        out.append(Pattern(f"{kernel}_mask_{mname}_lin", kernel, lin, m, src=lin, family="ldgsts"))
        out.append(Pattern(f"{kernel}_mask_{mname}_dst_stride128_src_line_each", kernel, dsts["stride128"], m, src=srcs["line_each"],
                           family="ldgsts"))
    return out


# ---- op_misc ----

def misc() -> list[Pattern]:
    """Barriers, shuffles, votes, fences and plain exit, with 1 to 32 warps."""
    ident = list(range(LANES))
    out = []
    for threads in (32, 64, 128, 256, 1024):
        out.append(Pattern(f"misc_exit_t{threads}", "misc_exit", ident, threads=threads, family="misc"))
    for threads in (32, 64, 128, 1024):
        out.append(Pattern(f"misc_bar_t{threads}", "misc_bar", ident, threads=threads, family="misc"))
    for threads in (32, 128):
        for k in ("misc_bar2", "misc_bar_red", "misc_shfl_idx"):
            out.append(Pattern(f"{k}_t{threads}", k, ident, threads=threads, family="misc"))
    out.append(Pattern("misc_bar_named_t32", "misc_bar_named", ident, family="misc"))
    for name, lanes in (("ident", ident), ("bcast0", [0] * 32), ("rev", [31 - i for i in ident]), ("xor1", [i ^ 1 for i in ident])):
        out.append(Pattern(f"misc_shfl_idx_{name}", "misc_shfl_idx", lanes, family="misc"))
    out.append(Pattern("misc_shfl_idx2_t32_rev", "misc_shfl_idx2", [31 - i for i in ident], family="misc"))
    for k in ("misc_shfl_bfly", "misc_shfl_up", "misc_shfl_down"):
        out.append(Pattern(f"{k}_1", k, [1] * 32, family="misc"))
    out.append(Pattern("misc_shfl_bfly_16", "misc_shfl_bfly", [16] * 32, family="misc"))
    out.append(Pattern("misc_shfl_masked_half", "misc_shfl_masked", [i % 16 for i in ident], 0x0000FFFF, family="misc"))
    for k in ("misc_vote_ballot", "misc_vote_all", "misc_match_any", "misc_redux_add", "misc_fence_cta", "misc_fence_gpu", "misc_nanosleep"):
        out.append(Pattern(f"{k}_t32", k, [i % 3 for i in ident], family="misc"))
    return out


# ---- random patterns (the design set's random part, and the hold-out set) ----

RANDOM_KERNELS = {
    # kernel -> how many random patterns per set
    "lds64": 20, "lds128": 20, "sts64": 8, "sts128": 8, "lds32": 6, "sts32": 6, "atom_add": 8,
    "lds8": 5, "lds16": 5, "sts8": 5, "sts16": 5,
    "ldsm1": 4, "ldsm2": 4, "ldsm4": 5, "ldsm4t": 4, "stsm1": 3, "stsm2": 3, "stsm4": 5, "stsm4t": 3,
    "atom_cas": 3, "atom_exch": 2, "atom_min": 2, "atom_inc": 2, "atom_xor": 2, "red_add": 2, "red_add1": 4,
    "atom_exch64": 3, "atom_cas64": 3,
    "ldgsts_ca4": 8, "ldgsts_ca8": 8, "ldgsts_ca16": 8, "ldgsts_cg16": 8,
}


def access_bytes(kernel: str) -> int:
    """Bytes each lane's address covers (16 for a matrix row)."""
    if kernel.startswith(("ldsm", "stsm")):
        return 16
    if kernel.endswith("64"):
        return 8
    if kernel.startswith("ldgsts"):
        return int(kernel.split("ca" if "_ca" in kernel else "cg")[1])
    digits = "".join(c for c in kernel if c.isdigit())
    return int(digits) // 8 if digits and kernel.startswith(("lds", "sts")) else 4


def random_addrs(rng: random.Random, size: int) -> tuple[list[int], str]:
    """32 aligned addresses: from a small pool (broadcasts, collisions), a random stride, or a permuted row."""
    kind = rng.choice(("pool", "pool", "stride", "perm"))
    if kind == "pool":
        rows, n = rng.choice((1, 2, 3, 4, 8)), rng.choice((1, 2, 3, 4, 6, 8, 12, 16, 24))
        pool = [rng.randrange(rows * ROW // size) * size + 1024 * rng.randrange(4) for _ in range(n)]
        return [rng.choice(pool) for _ in range(LANES)], f"pool of {n} in {rows} rows"
    if kind == "stride":
        stride = size * rng.choice((0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 32))
        base = size * rng.randrange(64)
        return [(base + i * stride) % (SMEM // 2) // size * size for i in range(LANES)], f"stride {stride}"
    n = rng.choice((8, 16, 32))
    perm = rng.sample(range(max(n, 128 // size)), n)
    return [perm[i % n] * size + ROW * rng.randrange(2) * (i // n) for i in range(LANES)], "permutation"


def random_mask(rng: random.Random) -> int:
    """Full half of the time; else random lanes at a random density, or one contiguous run."""
    r = rng.random()
    if r < 0.5:
        return FULL
    if r < 0.8:
        density = rng.choice((0.1, 0.3, 0.5, 0.8))
        return mask_of(i for i in range(LANES) if rng.random() < density) or 1
    start, length = rng.randrange(LANES), rng.randrange(1, LANES)
    return mask_of((start + i) % LANES for i in range(length))


def random_pattern(rng: random.Random, kernel: str, name: str, family: str) -> Pattern:
    """One random launch of ``kernel``."""
    size = access_bytes(kernel)
    addrs, note = random_addrs(rng, size)
    form = BY_KERNEL[kernel]
    mask = FULL if form.lanes_all else random_mask(rng)
    src = None
    if kernel.startswith("ldgsts"):
        lines = rng.choice((1, 2, 4, 8, 32))
        pool = [rng.randrange(256) * ROW for _ in range(lines)]
        src = [rng.choice(pool) + rng.randrange(ROW // size) * size for _ in range(LANES)]
        note += f"; sources in {lines} lines"
    return Pattern(name, kernel, addrs, mask, src=src, family=family, note=note)


def random_set(seed: int, prefix: str, family: str, share: float = 1.0, counts: dict[str, int] | None = None) -> list[Pattern]:
    """``counts`` (default ``RANDOM_KERNELS`` times ``share``, at least one) random launches per kernel, from one seeded generator."""
    rng = random.Random(seed)
    counts = counts or {k: max(1, round(n * share)) for k, n in RANDOM_KERNELS.items()}
    return [random_pattern(rng, k, f"{prefix}{k}_{i}", family) for k, n in counts.items() for i in range(n)]


DESIGN_SEED = 1
HOLDOUT_SEED = 20260601


def design() -> list[Pattern]:
    """The design set: every family above plus the random part (seed ``DESIGN_SEED``)."""
    out: list[Pattern] = []
    for op in ("LDS", "STS"):
        out += siblings(op, 64, brief=op == "STS") + siblings(op, 128, brief=op == "STS") + quarters(op)
    for op in ("LDS", "STS"):
        out += alignments(op)
    out += alignments_signed()
    for k in MATRIX_KERNELS:
        out += matrices(k)
    for k in ATOM32_KERNELS:
        out += atomics32(k, few=k not in ATOM32_FULL)
    for k in ("atom_exch64", "atom_cas64"):
        out += atomics64(k)
    for k in LDGSTS_KERNELS:
        out += ldgsts(k)
    out += misc()
    out += random_set(DESIGN_SEED, "R_", "random", share=0.5)
    return out


# ---- follow-ups, designed after the design set had been measured ----

def _two_address_maps() -> dict[str, list[int]]:
    """Which of two addresses (0: a, 1: b) each lane of 32 reads."""
    rng = random.Random(7)
    maps = {
        "halves": [lane // 16 for lane in range(LANES)],
        "parity": [lane % 2 for lane in range(LANES)],
        "pairs": [lane // 2 % 2 for lane in range(LANES)],
        "quads": [lane // 4 % 2 for lane in range(LANES)],
        "octets": [lane // 8 % 2 for lane in range(LANES)],
    }
    for lane in (0, 1, 15, 16, 31):
        maps[f"only{lane}b"] = [int(i == lane) for i in range(LANES)]
    for k in range(3):
        maps[f"random{k}"] = [rng.randrange(2) for _ in range(LANES)]
    return maps


def lane_maps() -> list[Pattern]:
    """LDS.64 / LDS.128 with two (or four) clean addresses: does the lanes' arrangement decide the merge?"""
    out = []
    pairs64 = {"near": (0, 8), "chunk": (0, 16), "sector": (0, 32), "rows": (0, 136), "far": (4080, 520)}
    for where, (a, b) in pairs64.items():
        for mname, m in _two_address_maps().items():
            out.append(Pattern(f"LDS64_two_{where}_{mname}", "lds64", [(a, b)[x] for x in m], family="lanemaps"))
    pairs128 = {"near": (0, 16), "sector": (0, 32), "rows": (0, 144), "far": (4064, 512)}
    for where, (a, b) in pairs128.items():
        for mname, m in _two_address_maps().items():
            if mname in ("only16b", "only31b"):
                continue
            lanes = [(a, b)[x] for x in m]
            out.append(Pattern(f"LDS128_two_{where}_{mname}", "lds128", lanes, 0x0000FFFF, family="lanemaps",
                               note="quarters 0 and 1 only"))
    quad = {"sector": (0, 8, 16, 24), "rows": (0, 136, 272, 408)}
    for where, addrs in quad.items():
        for mname, f in (("mod4", lambda i: i % 4), ("pairs", lambda i: i // 2 % 4), ("quads", lambda i: i // 4 % 4),
                         ("octets", lambda i: i // 8), ("halves_mod2", lambda i: 2 * (i // 16) + i % 2)):
            out.append(Pattern(f"LDS64_four_{where}_{mname}", "lds64", [addrs[f(i)] for i in range(LANES)], family="lanemaps"))
    for name, f in (("pairs_same", lambda i: 8 * (i // 2)), ("pairs_same_plus8", lambda i: 8 + 8 * (i // 2)),
                    ("pairs_same_rows", lambda i: 8 * (i // 2) + 128 * (i // 16)), ("quads_same", lambda i: 8 * (i // 4)),
                    ("octets_same", lambda i: 8 * (i // 8)), ("pairs_same_swapped", lambda i: 8 * (i // 2 ^ 8)),
                    ("pairs_same_reversed", lambda i: 8 * (15 - i // 2)), ("pairs_same_other_rows", lambda i: 8 * (i // 2) + 256 * (i // 2 % 2))):
        out.append(Pattern(f"LDS64_{name}", "lds64", [f(i) for i in range(LANES)], family="lanemaps"))
    for name, f in (("pairs_same", lambda i: 16 * (i // 2)), ("quads_same", lambda i: 16 * (i // 4)),
                    ("pairs_same_reversed", lambda i: 16 * (7 - i // 2 % 8) + 128 * (i // 16)), ("pairs_same_rows", lambda i: 16 * (i // 2 % 4) + 128 * (i // 8))):
        out.append(Pattern(f"LDS128_{name}", "lds128", [f(i) for i in range(LANES)], family="lanemaps"))
    rng = random.Random(11)
    for k in range(16):
        n = rng.choice((2, 3, 4))
        slots = rng.sample(range(16), n)
        pool = [8 * s + 128 * rng.randrange(8) for s in slots]
        out.append(Pattern(f"LDS64_few_random{k}", "lds64", [rng.choice(pool) for _ in range(LANES)], family="lanemaps",
                           note=f"{n} clean addresses, random lanes"))
    return out


def ldgsts_followup() -> list[Pattern]:
    """cp.async.cg: how destinations relative to sources set the wavefronts; .ca: more random mixes."""
    lanes = range(LANES)
    lin = [16 * i for i in lanes]
    dsts = {
        "shift16": [16 + 16 * i for i in lanes], "shift32": [32 + 16 * i for i in lanes], "shift128": [128 + 16 * i for i in lanes],
        "swap_pairs": [16 * (i ^ 1) for i in lanes], "rev_quads": [16 * (i ^ 3) for i in lanes], "rev_lines": [16 * (i ^ 7) for i in lanes],
        "rotate_line": [16 * ((i + 1) % 8 + 8 * (i // 8)) for i in lanes], "four_same": [16 * (i // 4) for i in lanes],
        "eight_same": [16 * (i // 8) for i in lanes], "stride3": [48 * i for i in lanes],
        "lines_swapped": [16 * (i ^ 8) for i in lanes], "lin": lin,
    }
    out = []
    for dname, dst in dsts.items():
        out.append(Pattern(f"ldgsts_cg16_f_dst_{dname}_src_lin", "ldgsts_cg16", dst, src=lin, family="ldgsts"))
    for sname, src in (("swap_pairs", [16 * (i ^ 1) for i in lanes]), ("pairs_same", [32 * (i // 2) for i in lanes]),
                       ("lin_plus16", [16 + 16 * i for i in lanes]), ("rev", [16 * (31 - i) for i in lanes])):
        out.append(Pattern(f"ldgsts_cg16_f_dst_lin_src_{sname}", "ldgsts_cg16", lin, src=src, family="ldgsts"))
        out.append(Pattern(f"ldgsts_ca16_f_dst_lin_src_{sname}", "ldgsts_ca16", lin, src=src, family="ldgsts"))
    for m in (0x0000FFFF, 0x55555555, 0x000000FF, 0x00000003):
        out.append(Pattern(f"ldgsts_cg16_f_mask{m:08x}_lin", "ldgsts_cg16", lin, m, src=lin, family="ldgsts"))
        out.append(Pattern(f"ldgsts_cg16_f_mask{m:08x}_dst_stride3", "ldgsts_cg16", dsts["stride3"], m, src=lin, family="ldgsts"))
    rng = random.Random(13)
    for k in range(24):
        kernel = LDGSTS_KERNELS[k % 4]
        out.append(random_pattern(rng, kernel, f"F_{kernel}_{k}", "ldgsts"))
    return out


def misc_followup(stride: int = 4) -> list[Pattern]:
    """Which instructions make op_misc wavefronts: cp.async's commit and wait, stores before a barrier, predicated-off loads.

    The follow-up run used ``stride`` 4, misaligned for misc_sts128_bar's STS.128: that launch faulted and ended
    the run (the rest of the set unmeasured); ``followup2`` repeats them with ``stride`` 16.
    """
    lanes = [stride * i for i in range(LANES)]
    out = [Pattern(f"{k}_t{t}", k, lanes, threads=t, family="misc")
           for k in ("misc_ldgdepbar", "misc_depbar", "misc_sts_bar", "misc_sts128_bar", "misc_lds_bar") for t in (32, 128)]
    out.append(Pattern("misc_sts_bar_t32_half", "misc_sts_bar", lanes, 0x0000FFFF, family="misc"))
    for m in (0, 1, FULL):
        out.append(Pattern(f"lds32_pred_mask{m:08x}", "lds32_pred", lanes, m, family="misc"))
    return out


def followup() -> list[Pattern]:
    """The follow-up set (see the three functions above), as measured."""
    return lane_maps() + ldgsts_followup() + misc_followup()


def followup2() -> list[Pattern]:
    """The second follow-up: the op_misc probes the first one did not reach."""
    return [p for p in misc_followup(stride=16) if p.kernel != "misc_ldgdepbar" and p.kernel != "misc_depbar"]


def alignments_signed() -> list[Pattern]:
    """LDS.S8 / LDS.S16 at each alignment (same data path as the unsigned forms?)."""
    return [Pattern(f"LDS{w}S_align{b}_stride{w // 8}", f"lds{w}s", [b + i * w // 8 for i in range(LANES)], family="align")
            for w in (8, 16) for b in ((0, 1, 2, 3) if w == 8 else (0, 2))]


def holdout(seed: int = HOLDOUT_SEED) -> list[Pattern]:
    """The hold-out set: random launches only, from their own seed."""
    return random_set(seed, "H_", "holdout")


HOLDOUT2_SEED = 20261122


def holdout2(seed: int = HOLDOUT2_SEED) -> list[Pattern]:
    """A second hold-out, drawn after the first had been used to choose between two LDS.64/128 rules: mostly those."""
    counts = {"lds64": 60, "lds128": 60, "ldgsts_ca4": 6, "ldgsts_ca8": 6, "ldgsts_ca16": 6, "ldgsts_cg16": 6,
              "atom_cas": 4, "atom_min": 4, "atom_exch64": 4, "atom_cas64": 4, "red_add1": 6}
    return random_set(seed, "H2_", "holdout2", counts=counts)


FAULTS: tuple[tuple[str, str, int, int], ...] = (
    # name, kernel, misaligned byte offset given to lane 0 (others aligned), mask
    ("fault_lds32_at2", "lds32", 2, FULL),
    ("fault_lds16_at1", "lds16", 1, FULL),
    ("fault_lds64_at4", "lds64", 4, FULL),
    ("fault_lds128_at8", "lds128", 8, FULL),
    ("fault_lds128_at4", "lds128", 4, FULL),
    ("fault_sts16_at1", "sts16", 1, FULL),
    ("fault_sts32_at2", "sts32", 2, FULL),
    ("fault_sts64_at4", "sts64", 4, FULL),
    ("fault_sts128_at8", "sts128", 8, FULL),
    ("fault_atom_add_at2", "atom_add", 2, FULL),
    ("fault_atom_cas64_at4", "atom_cas64", 4, FULL),
    ("fault_ldsm1_row_at8", "ldsm1", 8, FULL),
    ("fault_stsm1_row_at8", "stsm1", 8, FULL),
    ("fault_ldgsts_ca16_dst_at8", "ldgsts_ca16", 8, FULL),
    ("fault_lds64_inactive_lane_at4", "lds64", 4, 0xFFFFFFFE),
    ("fault_lds32_past_window", "lds32", 0x40000, FULL),
)


def faults() -> list[Pattern]:
    """One launch per fault: lane 0's address is misaligned (or out of the window); the rest are fine."""
    out = []
    for name, kernel, off, mask in FAULTS:
        size = access_bytes(kernel)
        addrs = [256 + size * i for i in range(LANES)]
        addrs[0] = off if off >= SMEM else 256 * 32 + off
        out.append(Pattern(name, kernel, addrs, mask, src=[size * i for i in range(LANES)] if kernel.startswith("ldgsts") else None,
                           family="fault"))
    # LDGSTS with a misaligned global source
    out.append(Pattern("fault_ldgsts_ca16_src_at8", "ldgsts_ca16", [16 * i for i in range(LANES)],
                       src=[8] + [16 * i for i in range(1, LANES)], family="fault"))
    return out


def check_set(patterns: list[Pattern]) -> None:
    """Names unique, kernels known, addresses in the array and aligned (faults excepted)."""
    names = [p.name for p in patterns]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"duplicate pattern names: {sorted(dup)[:5]}")
    for p in patterns:
        if p.kernel not in BY_KERNEL or BY_KERNEL[p.kernel].kind == "loop":
            raise ValueError(f"{p.name}: no probe {p.kernel!r} to launch")
        if len(p.addrs) != LANES or (p.src is not None and len(p.src) != LANES):
            raise ValueError(f"{p.name}: 32 lanes needed")
        if p.family == "fault" or (p.kernel.startswith("misc") and not BY_KERNEL[p.kernel].shared):
            continue
        size = max(16 if op.endswith("128") else 4 for op in BY_KERNEL[p.kernel].shared) if p.kernel.startswith("misc") else access_bytes(p.kernel)
        for a in p.addrs:
            if not 0 <= a <= SMEM - size or a % size:
                raise ValueError(f"{p.name}: address {a} outside the array or misaligned for {size} bytes")
        for s in p.src or ():
            if s < 0 or s % size:
                raise ValueError(f"{p.name}: source {s} misaligned for {size} bytes")


def probe_lines(patterns: list[Pattern]) -> str:
    """The pattern file ``probe`` reads: name kernel threads mask, 32 offsets, 32 source offsets."""
    lines = []
    for p in patterns:
        src = p.src or [0] * LANES
        lines.append(" ".join([p.name, p.kernel, str(p.threads), f"{p.mask:08x}", *map(str, p.addrs), *map(str, src)]))
    return "\n".join(lines) + "\n"


def write_set(patterns: list[Pattern], path: str | Path) -> None:
    """A set as JSON (one object per pattern)."""
    check_set(patterns)
    Path(path).write_text(json.dumps([asdict(p) for p in patterns], indent=None, separators=(",", ":")).replace("},{", "},\n{") + "\n")


def read_set(path: str | Path) -> list[Pattern]:
    """A set written by ``write_set``."""
    return [Pattern(**d) for d in json.loads(Path(path).read_text())]


# ---- R4: which lane pairings let sibling phases share a wavefront (designed after holdout2) ----

def _width(width: int) -> tuple[str, int, int, int]:
    """(kernel, bytes per lane, slots per 128-byte row, lanes per phase) of LDS.64 / LDS.128."""
    return ("lds64", 8, 16, 16) if width == 64 else ("lds128", 16, 8, 8)


def _at(width: int, slot: int, row: int) -> int:
    return row * ROW + slot * (8 if width == 64 else 16)


#: 4-lane arrangements of two addresses x, y ('-': lane inactive); which lane pairings (t^1, t^2, t^3) they keep
QUAD_ARRANGEMENTS = ("xxyy", "xyxy", "xyyx", "xxxy", "xxyx", "xyxx", "xyyy", "xy--", "x-y-", "x--y", "-xy-", "xyx-",
                     "xxy-", "xyy-", "x-yy", "xy-y", "-xyy", "y-xy")


def _quads(arrs: list[str], values: list[dict[str, int]]) -> list[int | None]:
    """32 lanes from 8 quad arrangements and, per quad, the address of each letter."""
    lanes: list[int | None] = []
    for arr, val in zip(arrs, values):
        lanes += [None if c == "-" else val[c] for c in arr]
    return lanes


def r4_arrangements(width: int) -> list[Pattern]:
    """Every quad of the warp in one arrangement of two addresses: all quads the same two addresses
    (broadcast), each quad its own two (no bank shared), or the second sibling phase with x and y swapped."""
    kernel, _, slots, per = _width(width)
    out = []
    for arr in QUAD_ARRANGEMENTS:
        same = [{"x": _at(width, 3, 0), "y": _at(width, 5, 1)}] * 8
        spread = [{"x": _at(width, (2 * q) % slots, q // (slots // 2)), "y": _at(width, (2 * q + 1) % slots, 2 + q // (slots // 2))}
                  for q in range(8)]
        swapped = [{"x": v["y"], "y": v["x"]} if (q * 4) // per % 2 else v for q, v in enumerate(same)]
        for scheme, vals in (("same", same), ("spread", spread), ("swap", swapped)):
            out.append(_p(f"R4_{kernel}_arr_{arr.replace('-', '_')}_{scheme}", kernel, _quads([arr] * 8, vals), "r4",
                          f"every quad {arr}, addresses {scheme}"))
    return out


def r4_mixed(width: int) -> list[Pattern]:
    """Different arrangements in different quads / phases: must one lane pairing hold over the whole warp?"""
    kernel, _, slots, per = _width(width)
    v = [{"x": _at(width, (2 * q) % slots, q // (slots // 2)), "y": _at(width, (2 * q + 1) % slots, 2 + q // (slots // 2))} for q in range(8)]
    qpp = per // 4  # quads per phase
    cases = {
        "p01_xxyy_p23_xyxy": ["xxyy"] * (2 * qpp) + ["xyxy"] * (8 - 2 * qpp),
        "p01_xyxy_p23_xxyy": ["xyxy"] * (2 * qpp) + ["xxyy"] * (8 - 2 * qpp),
        "alt_xxyy_xyxy": ["xxyy", "xyxy"] * 4,
        "alt_xyxy_xxyy": ["xyxy", "xxyy"] * 4,
        "one_xyxy_rest_xxyy": ["xyxy"] + ["xxyy"] * 7,
        "one_xxyy_rest_xyxy": ["xxyy"] + ["xyxy"] * 7,
        "last_xyxy_rest_xxyy": ["xxyy"] * 7 + ["xyxy"],
        "one_xyyx_rest_xxyy": ["xyyx"] + ["xxyy"] * 7,
        "p0_xxyy_p1_xyxy": ["xxyy"] * qpp + ["xyxy"] * qpp + ["xxxx"] * (8 - 2 * qpp),
        "p01_xxyy_p23_xxxy": ["xxyy"] * (2 * qpp) + ["xxxy"] * (8 - 2 * qpp),
        "p01_xxyy_p23_off": ["xxyy"] * (2 * qpp) + ["----"] * (8 - 2 * qpp),
        "p01_xyyx_p23_off": ["xyyx"] * (2 * qpp) + ["----"] * (8 - 2 * qpp),
        "p01_xy__p23_x_y_": ["xy--"] * (2 * qpp) + ["x-y-"] * (8 - 2 * qpp),
    }
    if width == 128:  # quarters 2+3 alone unpackable, phases 0+1 packable: does the bad pair keep the good one apart?
        cases["p01_xxyy_p2_xxxy_p3_off"] = ["xxyy"] * 4 + ["xxxy"] * 2 + ["----"] * 2
        cases["p01_xxyy_p23_xyz"] = ["xxyy"] * 4 + ["xyxy"] * 4
    out = []
    if width == 128:  # phases 0+1 pack only by t^1, phases 2+3 only by t^2 (and the reverse), drawn values and masks
        rng = random.Random(128)
        for k in range(8):
            lanes: list[int | None] = [None] * 32
            for lo, x in ((0, (1, 2)[k % 2]), (16, (2, 1)[k % 2])):
                pool = [_at(width, s, rng.randrange(4)) for s in rng.sample(range(slots), rng.choice((2, 3, 4)))]
                while True:
                    for t in range(lo, lo + 16):
                        if t < t ^ x:
                            lanes[t] = lanes[t ^ x] = rng.choice(pool)
                    if any(lanes[t] != lanes[t ^ (3 - x)] for t in range(lo, lo + 16)):
                        break
            if k >= 4:
                lanes = [None if rng.random() < 0.25 else a for a in lanes]
            out.append(_p(f"R4_{kernel}_mix_scope{k}", kernel, lanes, "r4", "phases 0+1 and 2+3 packable by different pairings"))
    for name, arrs in cases.items():
        vals = v
        if "xyz" in name:
            vals = v[:4] + [{"x": _at(width, 2 * q % slots, 6), "y": _at(width, (2 * q + 3) % slots, 7)} for q in range(4)]
        out.append(_p(f"R4_{kernel}_mix_{name}", kernel, _quads(arrs, vals), "r4", "quads: " + " ".join(arrs)))
    return out


def r4_pairs_vs_partners(width: int, n: int = 12) -> list[Pattern]:
    """Each sibling phase packable by itself (lane pairs t, t^1 or t, t^2 share an address) but drawn
    independently, so partner lanes i, i+per meet other slots (R3's bijection broken), and the reverse."""
    kernel, _, slots, per = _width(width)
    rng = random.Random(4 + width)
    out = []
    for k in range(n):
        x = (1, 2)[k % 2]
        pool = [_at(width, s, rng.randrange(4)) for s in rng.sample(range(slots), rng.choice((2, 3, 4)))]
        lanes: list[int | None] = [None] * 32
        for t in range(32):
            if lanes[t] is None:
                lanes[t] = lanes[t ^ x] = rng.choice(pool)
        out.append(_p(f"R4_{kernel}_pairs{x}_indep{k}", kernel, lanes, "r4", f"pairs t,t^{x} share; phases drawn apart"))
    # R3 mergeable (partner slots one-to-one, quads <= 2 addresses) but no pairing packs: quads x x x y, sparse too
    for k in range(n // 2):
        pool = [_at(width, s, rng.randrange(4)) for s in rng.sample(range(slots), 2)]
        arr = rng.choice(("xxxy", "xxyx", "xyxx", "yxxx", "xyy-", "xyyx"))
        lanes = _quads([arr] * 8, [{"x": pool[0], "y": pool[1]}] * 8)
        m = [None if rng.random() < 0.3 else a for a in lanes] if k % 2 else lanes
        if not any(a is not None for a in m[:per]) or not any(a is not None for a in m[per:2 * per]):
            m = lanes
        out.append(_p(f"R4_{kernel}_r3only{k}_{arr.replace('-', '_')}", kernel, m, "r4", "R3 merges, no pairing packs"))
    return out


def r4_conflicts(width: int) -> list[Pattern]:
    """Packable warps whose pair values meet on banks (k-way), and pairs on one slot in two rows (not one address)."""
    kernel, _, slots, per = _width(width)
    out = []
    for x in (1, 2):
        for m in sorted({slots, slots // 2, slots // 4, 2, 1}, reverse=True):
            lanes = []
            for t in range(32):
                j = min(t, t ^ x) if x == 1 else (t // 4) * 2 + (t % 2)
                j = j // 2 if x == 1 else j
                lanes.append(_at(width, j % m, j // m))
            out.append(_p(f"R4_{kernel}_pairs{x}_slots{m}", kernel, lanes, "r4", f"pairs t,t^{x} share; values on {m} slots"))
        lanes = [_at(width, (t // 2 if x == 1 else (t // 4) * 2 + t % 2) % slots, (t >> (x - 1)) & 1) for t in range(32)]
        out.append(_p(f"R4_{kernel}_pairs{x}_same_slot_two_rows", kernel, lanes, "r4", f"t,t^{x} same slot, other row"))
    return out


def r4_sparse(width: int) -> list[Pattern]:
    """A few active lanes with two addresses: which pairs of lanes block the merge (H2_lds64_37, H2_lds128_21)."""
    kernel, _, slots, per = _width(width)
    a, b = _at(width, 1, 2), _at(width, slots - 2, 3)
    h = per  # first lane of the second phase
    cases = {
        "x1_x2_broken": {0: a, h + 4: b, h + 6: a, h + 12: a, h + 13: b} if width == 64 else {0: a, h + 0: b, h + 2: a, h + 4: a, h + 5: b},
        "x1_broken_x2_ok": {0: a, h + 12: a, h + 13: b} if width == 64 else {0: a, h + 4: a, h + 5: b},
        "x3_only": {0: a, h + 12: a, h + 13: b, h + 14: b} if width == 64 else {0: a, h + 4: a, h + 5: b, h + 6: b},
        "x3_only_b": {0: a, 1: b, 2: b, h: b},
        "x2_only": {0: a, 1: b, h: a, h + 1: b},
        "x1_only": {0: a, 2: b, h: a, h + 2: b},
        "corners": {0: a, 3: b, h: a},
        "partner_conflict_x1": {0: a, 1: a, h: a + 2 * ROW * 4, h + 1: a + 2 * ROW * 4},
        "partner_conflict_x1_other": {0: a, 1: a, h: a + 2 * ROW * 4, h + 1: a + 2 * ROW * 4, 4: b, h + 4: b},
        "partner_conflict_broken": {0: a, 1: a, h: a + 2 * ROW * 4, h + 1: b, 4: b, 6: a},
        "only_partner_pair_xy": {3: a, h + 3: b},
        "only_partner_pair_conflict": {3: a, h + 3: a + 4 * ROW},
    }
    if width == 128:  # H2_lds128_21 and one-lane edits of it
        base = {1: 976, 7: 1072, 8: 1088, 9: 1104, 12: 1152, 14: 1184, 16: 1216, 18: 1248, 28: 1408, 30: 1440}
        cases["h2_21"] = dict(base)
        cases["h2_21_no9"] = {k: v for k, v in base.items() if k != 9}
        cases["h2_21_9eq8"] = {**base, 9: 1088}
        cases["h2_21_14eq12"] = {**base, 14: 1152}
        cases["h2_21_no9_14eq12"] = {**{k: v for k, v in base.items() if k != 9}, 14: 1152}
        cases["h2_21_q23_off"] = {k: v for k, v in base.items() if k < 16}
    else:  # H2_lds64_37 and edits
        base = {8: 3184, 11: 2056, 13: 2056, 14: 2056, 16: 3184, 20: 3184, 22: 2056, 23: 2056, 28: 2056, 29: 3184, 31: 2056}
        cases["h2_37"] = dict(base)
        cases["h2_37_29eq28"] = {**base, 29: 2056}
        cases["h2_37_no20"] = {k: v for k, v in base.items() if k != 20}
        cases["h2_37_no20_29eq28"] = {**{k: v for k, v in base.items() if k != 20}, 29: 2056}
        cases["h2_37_no8_11"] = {k: v for k, v in base.items() if k not in (8, 11)}
    out = []
    for name, lanes in cases.items():
        out.append(_p(f"R4_{kernel}_sparse_{name}", kernel, [lanes.get(t) for t in range(32)], "r4"))
    return out


def r4() -> list[Pattern]:
    """The R4 set: LDS.64 and LDS.128 patterns aimed at the lane pairings behind sibling-phase merging."""
    out: list[Pattern] = []
    for width in (64, 128):
        out += r4_arrangements(width) + r4_mixed(width) + r4_pairs_vs_partners(width) + r4_conflicts(width) + r4_sparse(width)
    return out


HOLDOUT3_SEED = 20261123


def _holdout3_pattern(rng: random.Random, width: int, name: str) -> Pattern:
    """One random LDS.64/LDS.128 launch of the kinds that broke R3: few addresses, sparse masks, lanes paired or nearly."""
    kernel, size, slots, per = _width(width)
    kind = rng.choice(("paired", "paired", "quads", "pool", "pool", "generic"))
    n = rng.choice((1, 2, 2, 3, 4, 6, 8, 16))
    rows = rng.choice((1, 2, 4, 8))
    pool = [rng.randrange(slots) * size + ROW * rng.randrange(rows) + 1024 * rng.randrange(3) for _ in range(n)]
    note = f"{kind}, pool {n} in {rows} rows"
    if kind == "paired":  # lane pairs t, t^x share an address; maybe a few lanes changed
        x = rng.choice((1, 2, 2, 3, 1))
        lanes: list[int] = [0] * 32
        done = set()
        for t in range(32):
            if t not in done:
                lanes[t] = lanes[t ^ x] = rng.choice(pool)
                done |= {t, t ^ x}
        for _ in range(rng.choice((0, 0, 1, 2))):
            lanes[rng.randrange(32)] = rng.choice(pool)
        note += f", pairs t^{x}"
    elif kind == "quads":  # each quad one arrangement of two pool addresses
        lanes = []
        for _ in range(8):
            arr = rng.choice(("xxyy", "xyxy", "xyyx", "xxxy", "xxxx", "xyxx", "xxyy", "xyxy"))
            val = {"x": rng.choice(pool), "y": rng.choice(pool)}
            lanes += [val[c] for c in arr]
    elif kind == "pool":
        lanes = [rng.choice(pool[:rng.choice((1, 2, 2, 3))]) for _ in range(32)]
    else:
        lanes, note = random_addrs(rng, size)
    r = rng.random()
    if r < 0.3:
        mask = FULL
    elif r < 0.75:
        density = rng.choice((0.1, 0.2, 0.3, 0.5, 0.7, 0.9))
        mask = mask_of(i for i in range(LANES) if rng.random() < density) or 1
    else:
        mask = random_mask(rng)
    lanes = [a % (SMEM // 2) // size * size for a in lanes]
    return Pattern(name, kernel, lanes, mask, family="holdout3", note=note)


def holdout3(seed: int = HOLDOUT3_SEED, n: int = 200) -> list[Pattern]:
    """A third hold-out, drawn (and committed) before the R4 set was measured: LDS.64 and LDS.128 only."""
    rng = random.Random(seed)
    return [_holdout3_pattern(rng, width, f"H3_lds{width}_{i}") for width in (64, 128) for i in range(n)]


# ---- LDGSTS structure: few-lane launches that show how the hardware schedules cp.async (designed after holdout3) ----

def _partitions(n: int) -> list[tuple[int, ...]]:
    """Every set partition of n lanes, as each lane's block number (blocks numbered in order of first lane)."""
    out = [()]
    for _ in range(n):
        out = [p + (b,) for p in out for b in range(max(p, default=-1) + 2)]
    return out


def ldgsts_ca_structure() -> list[Pattern]:
    """cp.async.ca 4 B on 3 and 4 active lanes: every pair of (source, destination) partitions of the lanes.

    Lanes in one source block read the same position of their 128-byte lines (the same word, or the same
    position of different lines); lanes in one destination block write the same bank (the same word, or
    different words of that bank). Pairwise, sharing either side conflicts; these show how the
    hardware schedules lanes that conflict on both sides (max of the two sides, the sum, or between)."""
    out = []

    def one(name: str, lanes: tuple[int, ...], sp: tuple[int, ...], dp: tuple[int, ...], src_same_word: bool, dst_same_word: bool) -> None:
        addrs: list[int | None] = [None] * LANES
        src = [0] * LANES
        for k, lane in enumerate(lanes):
            src[lane] = 4 * sp[k] + (0 if src_same_word else ROW * (1 + k))
            addrs[lane] = 4 * (8 + dp[k]) + (0 if dst_same_word else ROW * (1 + k))
        a, mask = fill(addrs)
        src = [src[lane] if mask >> lane & 1 else src[lanes[0]] for lane in range(LANES)]
        out.append(Pattern(name, "ldgsts_ca4", a, mask, src=src, family="ldgsts_structure",
                           note=f"lanes {lanes}; source blocks {sp}; destination blocks {dp}"))

    three = _partitions(3)
    for sp in three:
        for dp in three:
            tag = "".join(map(str, sp)) + "_" + "".join(map(str, dp))
            for sw, dw in ((True, True), (False, False), (True, False), (False, True)):
                one(f"S3_ca4_{tag}_{'w' if sw else 'l'}{'w' if dw else 'b'}", (0, 1, 2), sp, dp, sw, dw)
            one(f"S3_ca4_{tag}_spread", (5, 18, 30), sp, dp, False, False)
    for sp in _partitions(4):
        for dp in _partitions(4):
            one(f"S4_ca4_{''.join(map(str, sp))}_{''.join(map(str, dp))}", (0, 1, 2, 3), sp, dp, False, False)
    return out


def ldgsts_cg_structure() -> list[Pattern]:
    """cp.async.cg 16 B on two lanes: which (source chunk, destination chunk) pairs share a wavefront.

    A chunk is 16 bytes; a source line and a destination row hold 8. Lane 0 takes a fixed chunk pair,
    lane 1 every (source chunk, destination chunk) of the same line and row; then lane 1's source in the
    next line, and its destination in the next row."""
    out = []
    for s0, d0 in ((0, 0), (1, 0), (0, 1), (2, 5)):
        for c in range(8):
            for d in range(8):
                src = [16 * s0, 16 * c] + [16 * s0] * 30
                addrs = [16 * d0, 16 * d] + [16 * d0] * 30
                out.append(Pattern(f"S2_cg16_{s0}{d0}_{c}{d}", "ldgsts_cg16", addrs, 0b11, src=src, family="ldgsts_structure"))
    for c in range(8):
        for d in (0, 1, 2, 4):
            out.append(Pattern(f"S2_cg16_00_line1_{c}{d}", "ldgsts_cg16", [0, 16 * d] + [0] * 30, 0b11, src=[0, ROW + 16 * c] + [0] * 30,
                               family="ldgsts_structure"))
            out.append(Pattern(f"S2_cg16_00_row1_{c}{d}", "ldgsts_cg16", [0, ROW + 16 * d] + [0] * 30, 0b11, src=[0, 16 * c] + [0] * 30,
                               family="ldgsts_structure"))
    return out


HOLDOUT4_SEED = 20261124


def ldgsts2() -> list[Pattern]:
    """The LDGSTS structure set, then a fourth hold-out (random cp.async only, seed 20261124), both
    committed before they were measured."""
    rng = random.Random(HOLDOUT4_SEED)
    hold = [random_pattern(rng, k, f"H4_{k}_{i}", "holdout4") for k in LDGSTS_KERNELS for i in range(30)]
    return ldgsts_ca_structure() + ldgsts_cg_structure() + hold


# ---- cp.async.cg layouts: chunk subsets and maps within one line and row (designed after ldgsts2) ----

def _cg(name: str, pairs: list[tuple[int, int]], family: str, note: str = "") -> Pattern:
    """A .cg launch whose lane k copies source chunk pairs[k][0] to destination chunk pairs[k][1]
    (16-byte chunks; chunk 8 and up: the next line or row), the other lanes inactive."""
    src = [16 * s for s, _ in pairs] + [16 * pairs[0][0]] * (LANES - len(pairs))
    dst = [16 * d for _, d in pairs] + [16 * pairs[0][1]] * (LANES - len(pairs))
    return Pattern(name, "ldgsts_cg16", dst, mask_of(range(len(pairs))), src=src, family=family, note=note)


HOLDOUT5_SEED = 20261125


def ldgsts3() -> list[Pattern]:
    """cp.async.cg within one source line and one destination row: every subset of the 8 chunks copied
    with destination = source XOR x (x = 0, 1, 2, 4), which shows how partly covered 32-byte sectors
    split a copy; random partial maps (one read per source chunk, then with chunks read twice); which
    lane's copy survives when lanes write one chunk; then hold-out 5 (40 random .cg launches, seed
    20261125), all committed before they were measured."""
    out = []
    for x in (0, 1, 2, 4):
        for subset in range(1, 256):
            chunks = [c for c in range(8) if subset >> c & 1]
            out.append(_cg(f"C_x{x}_{subset:08b}", [(c, c ^ x) for c in chunks], "ldgsts_cg"))
    rng = random.Random(HOLDOUT5_SEED - 1)
    for k in range(150):
        n = rng.randrange(2, 7)
        out.append(_cg(f"C_map_{k}", list(zip(rng.sample(range(8), n), rng.sample(range(8), n))), "ldgsts_cg"))
    for k in range(120):
        n = rng.randrange(3, 7)
        src = [rng.randrange(8) for _ in range(n)]
        src[rng.randrange(1, n)] = src[0]  # at least one chunk read twice
        out.append(_cg(f"C_twice_{k}", list(zip(src, rng.sample(range(8), n))), "ldgsts_cg"))
    # lanes 0 and 1 write chunk 0 from chunks a and b; lane 2 reads chunk a or b (whichever copy the hardware keeps, it conflicts with that)
    for a, b in ((1, 2), (2, 1), (1, 5), (5, 1), (3, 6), (6, 3)):
        for third in (a, b):
            for d in (2, 4, 6, 1, 3):
                out.append(_cg(f"C_same_dst_{a}{b}_{third}{d}", [(a, 0), (b, 0), (third, d)], "ldgsts_cg"))
    rng = random.Random(HOLDOUT5_SEED)
    out += [random_pattern(rng, "ldgsts_cg16", f"H5_ldgsts_cg16_{i}", "holdout5") for i in range(40)]
    return out
