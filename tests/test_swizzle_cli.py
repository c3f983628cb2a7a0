"""``simsmem swizzle``: the seed 000 table, --check against the seed kernels, --search against a brute-force oracle."""

import numpy as np
import orjson
import pytest
from conftest import H100
from simsmem.banks import schedule
from simsmem.cli import main
from simsmem.explain.arrays import arrays_of
from simsmem.explain.fixes import apply
from simsmem.explain.fixes import search as search_fixes
from simsmem.patterns import parse_access, steps_trace
from simsmem.patterns.search import search, swizzles
from simsmem.results.analysis import analyse
from simsmem.tiles.layout import tile
from simsmem.tiles.swizzle import IDENTITY, Swizzle, keeps_vectors
from simsmem.traces import load_trace

KERNELS = {k["kernel"].split("(")[0]: k["ncu"] for k in orjson.loads((H100 / "seed_kernels.json").read_bytes())["kernels"]}


def table_rows(text: str) -> list[list[str]]:
    """The body rows of a rich table, as cell strings."""
    return [[c.strip() for c in line.strip().strip("│").split("│")] for line in text.splitlines() if line.startswith("│")]


def test_seed000_table(capsys):
    """``simsmem swizzle 3 0 3 --rows 8 --cols 8`` prints seed 000's SMS=(3,0,3) table (col ^ row)."""
    assert main(["swizzle", "3", "0", "3", "--rows", "8", "--cols", "8"]) == 0
    rows = table_rows(capsys.readouterr().out)
    assert [[int(c) for c in r[1:]] for r in rows] == [[c ^ r for c in range(8)] for r in range(8)]


def test_seed004_swizzle_banks(capsys):
    """Seed 004's swizzle<3,1,3> (CuTe 1 3 3) on 16x16 halves: row 4 starts at bank 4, row 8 at bank 0."""
    assert main(["swizzle", "1", "3", "3", "--show", "bank"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Sw<1,3,3>: bit 6 xor'd into bit 3")
    rows = table_rows(out)
    assert [int(r[1]) for r in rows[:9]] == [0, 8, 16, 24, 4, 12, 20, 28, 0]


def test_wide_table_is_not_cut(capsys):
    """16 columns of two-digit cells need more than a pipe's 80 columns: the table widens instead of
    cutting cells to "..." (Sw<1,3,3> moves 8..15 to 0..7 and back in rows 4-7)."""
    assert main(["swizzle", "1", "3", "3"]) == 0
    out = capsys.readouterr().out
    assert "…" not in out
    rows = table_rows(out)
    assert len(rows) == 16 and rows[4][1:] == [str(c ^ 8) for c in range(16)]


def test_check_reproduces_v4_and_v5(capsys):
    """v4's accesses (two g2s STS.128, LDSM.x4, LDSM.x4.trans, accumulator STS, LDS.128) on one 16x16 half
    tile, plain and with v5's swizzle: the totals are v4's and v5's measured op_ld + op_st wavefronts and
    bank conflicts (H100, ncu 2025.3.1, calibration/h100/seed_kernels.json; the tiles' bases move no bank)."""
    specs = ["STS.128", "STS.128", "LDSM.16.M88.4", "LDSM.16.MT88.4", "STS@acc", "LDS.128"]
    argv = ["swizzle", "1", "3", "3", "--check"] + [a for s in specs for a in ("--access", s)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    total = next(r for r in table_rows(out) if r[0] == "all")
    plain, swizzled = int(total[3]), int(total[4])

    def measured(kernel, what):
        return sum(KERNELS[kernel][f"l1tex__data_{what}_mem_shared_op_{c}.sum"] for c in ("ld", "st"))

    assert (plain, swizzled) == (measured("v4_mma", "pipe_lsu_wavefronts"), measured("v5_mma_swizzle", "pipe_lsu_wavefronts")) == (36, 24)
    conflicts = (measured("v4_mma", "bank_conflicts_pipe_lsu"), measured("v5_mma_swizzle", "bank_conflicts_pipe_lsu"))
    assert f"bank conflicts: {conflicts[0]} plain, {conflicts[1]} with Sw<1,3,3>" in out


def test_search_64x64_half_tile(capsys, sm90):
    """128-bit g2s stores + LDSM.x4 of a 64x64 half tile: Sw<3,3,3> (TMA's 128B mode on bytes) and no
    padding reach the ideal 128 wavefronts; 16 bytes of padding tie but lose on padding."""
    result = search([parse_access("STS.128"), parse_access("LDSM.16.M88.4")], 64, 64, 2, sm90)
    best = result.scores[0]
    assert (best.swizzle, best.pad_bytes, best.wavefronts, best.ideal, best.per_access) == (Swizzle(3, 3, 3), 0, 128, 128, (64, 64))
    assert (result.scores[1].swizzle, result.scores[1].pad_bytes, result.scores[1].wavefronts) == (IDENTITY, 16, 128)
    plain = next(s for s in result.scores if s.swizzle == IDENTITY and s.pad_bytes == 0)
    assert plain.per_access == (64, 512)  # 8-way conflicts: all 8 rows of a matrix in one 16-byte column of banks
    assert main(["swizzle", "--search", "--rows", "64", "--cols", "64", "--bytes", "--access", "STS.128", "--access", "LDSM.16.M88.4"]) == 0
    assert "best: Sw<3,4,3> on byte offsets (Sw<3,3,3> on elements), no padding: 128 wavefronts (ideal 128)" in capsys.readouterr().out


def test_search_equals_brute_force_reference(sm90):
    """The batched search against the oracle: each candidate tile built alone, each instruction served
    by the readable reference model (``simsmem.banks.schedule``)."""
    accesses = [parse_access(s) for s in ("STS.128", "LDSM.16.MT88.4", "LDS.64@col")]
    result = search(accesses, 16, 32, 2, sm90, max_bits=2, max_base=4, max_shift=3, max_pad_bytes=32)
    got = {(s.swizzle, s.pad_bytes): (s.wavefronts, s.ideal, s.per_access) for s in result.scores}
    expected = {}
    for sw in swizzles(2, 4, 3):
        if not keeps_vectors(sw, 8):
            continue
        for pad in (0, 16, 32):
            t = tile(16, 32, 2, pad // 2, sw)
            per_access, ideal = [], 0
            for a in accesses:
                served = [schedule(ins, sm90) for ins in steps_trace([(a, t)], "oracle").instructions]
                per_access.append(sum(len(s.wavefronts) for s in served))
                ideal += sum(s.ideal for s in served)
            expected[(sw, pad)] = (sum(per_access), ideal, tuple(per_access))
    assert got == expected
    assert result.skipped == len(swizzles(2, 4, 3)) - len(expected) // 3
    keys = [(s.wavefronts, s.pad_bytes) for s in result.scores]
    assert keys == sorted(keys)


def col_trace(tmp_path) -> str:
    """A trace of a 32x32 float tile read column by column (``tile[tx][ty]``): 32-way bank conflicts."""
    path = str(tmp_path / "col.json")
    assert main(["gen", "tile", "--rows", "32", "--cols", "32", "--elem-bytes", "4", "--access", "LDS@col", "-o", path]) == 0
    return path


@pytest.mark.slow
def test_search_trace_equals_reference(tmp_path, capsys, sm90):
    """``--search --trace``: every change's cost over the whole trace equals the readable reference model's
    (``simsmem.banks.schedule``) on each instruction moved; the textbook fix, ``tile[32][33]`` (seed 002's padding),
    comes first with no bank conflicts."""
    path = col_trace(tmp_path)
    result = analyse(load_trace(path), sm90)
    batch, counts = result.trace.instructions, result.counts
    (tile,) = arrays_of(result.trace)
    assert (tile.name, tile.shape(), tile.elem) == ("tile", "[32][32]", 4)
    fixes = search_fixes(batch, counts.wavefronts, counts.bank_conflicts, (tile,), sm90, top=1000)
    assert (fixes[0].statement, fixes[0].wavefronts, fixes[0].bank_conflicts) == ("__shared__ float tile[32][33]", 32, 0)
    assert len(fixes) == 3  # the best declaration, padding and swizzle
    for f in fixes:
        served = [schedule(ins, sm90) for ins in f.apply(batch)]
        wavefronts = sum(len(x.wavefronts) for x in served)
        assert (f.wavefronts, f.bank_conflicts) == (wavefronts, wavefronts - sum(x.ideal for x in served)), f.statement
    assert main(["swizzle", "--search", "--trace", path, "--top", "3"]) == 0
    assert "best: tile[32][32]: write __shared__ float tile[32][33] (1,024 -> 32 wavefronts)" in capsys.readouterr().out


def test_search_trace_region_moves_what_follows():
    """With a region, only its addresses are moved; those above it move up by its growth rounded up to whole
    128-byte rows of banks, so every other array keeps its banks."""
    addrs = np.array([[0, 124, 128, 4096, 4100, -1]], dtype=np.int32)
    pad = lambda o: o // 128 * 132 + o % 128  # 4 bytes of padding after every 128
    assert apply(addrs, pad, (0, 4096)).tolist() == [[0, 124, 132, 4096 + 128, 4100 + 128, -1]]
    assert apply(addrs, pad, (4096, 8)).tolist() == [[0, 124, 128, 4096, 4100, -1]]


def test_region_by_name_or_bytes(tmp_path, capsys):
    """``--region`` takes an array's name (``simsmem run`` lists them) or a byte range taken as one array."""
    path = col_trace(tmp_path)
    assert main(["swizzle", "--search", "--trace", path, "--region", "tile", "--top", "1"]) == 0
    assert "changes of tile[32][32] at 0x0" in capsys.readouterr().out
    assert main(["swizzle", "--search", "--trace", path, "--region", "0:4096", "--top", "1"]) == 0
    assert "write __shared__ float shared_0[32][33]" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["swizzle"],
    ["swizzle", "1", "2"],
    ["swizzle", "3", "0", "2"],
    ["swizzle", "--search"],
    ["swizzle", "--search", "3", "3", "3", "--access", "LDS"],
    ["swizzle", "3", "3", "3", "--access", "LDS"],
    ["swizzle", "3", "3", "3", "--check"],
    ["swizzle", "3", "0", "3", "--check", "--access", "STS.128"],
    ["swizzle", "3", "0", "3", "--bytes"],
    ["swizzle", "--search", "--access", "LDSM.16.M88.4", "--rows", "12"],
    ["swizzle", "--search", "--access", "LDSM.16.M88.4", "--max-pad-bytes", "-1"],
    ["swizzle", "--search", "--access", "LDS", "--region", "0:128"],
    ["swizzle", "--search", "--trace", "TRACE", "--access", "LDS"],
    ["swizzle", "--search", "--trace", "TRACE", "--region", "0x10000:16"],
    ["swizzle", "--search", "--trace", "TRACE", "--region", "128"],
    ["swizzle", "--search", "--trace", "TRACE", "--region", "As"],
    ["swizzle", "--search", "--trace", "TRACE", "--region", "0:0"],
    ["swizzle", "--search", "--trace", "missing.json"],
])
def test_bad_input_is_one_line(argv, tmp_path, capsys):
    if "TRACE" in argv:
        argv = [col_trace(tmp_path) if a == "TRACE" else a for a in argv]
        capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("simsmem: ") and err.count("\n") == 1


def test_check_finds_the_wgmma_descriptor_of_a_tma_tile(capsys):
    """``--access GMMA``: a 64x64 f16 tile in TMA's 128B mode is the canonical K-major 128B layout, read with the
    descriptor the probes hop_wg_f16_n64_k_128B used (H200, calibration/realk/hopper.json: LBO 16, SBO 1024, mode 1,
    each K step 32 bytes further); read M/N-major, its K steps are 16 rows (2048 bytes) apart. Unswizzled 128-byte rows,
    or padded ones, are no wgmma layout."""
    assert main(["swizzle", "--tma", "128B", "--rows", "64", "--cols", "64", "--check", "--access", "GMMA", "--access", "GMMA@mn"]) == 0
    k, mn = capsys.readouterr().out.strip().split("\n")
    assert "a canonical layout, 128B swizzle, LBO 16, SBO 1024, base offset 0: 4 K steps" in k
    assert "0x4000004000010000, 0x4000004000010002, 0x4000004000010004, 0x4000004000010006" in k
    assert "0x4000004000010000, 0x4000004000010080, 0x4000004000010100" in mn and "16 wavefronts a step" in mn
    for extra in (["--tma", "none"], ["--tma", "128B", "--pad-bytes", "16"]):
        assert main(["swizzle", *extra, "--rows", "64", "--cols", "64", "--check", "--access", "GMMA"]) == 0
        assert "no matrix descriptor reads" in capsys.readouterr().out
