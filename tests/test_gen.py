"""Access-pattern generators and ``simsmem gen``: lane addresses from tiles, checked against measured rows.

Provenance of the measured rows: calibration/h100/instructions.json (H100 80GB HBM3, Nsight Compute
2025.3.1); MEASURED.md names the patterns: ``_swz{B}43`` apply CuTe Swizzle<B,4,3> to byte offsets,
``_seed_v5_swz313`` seed 004's swizzle<3,1,3> on halves; LDSM rows give lane l row l % 8 of matrix l / 8.
"""

import re

import numpy as np
import pytest
from conftest import H100, ROOT
from hypothesis import given
from hypothesis import strategies as st
from simsmem.cli import main
from simsmem.config import BANK_CONFLICTS, WAVEFRONTS
from simsmem.corpus import load_corpus
from simsmem.errors import SimsmemError
from simsmem.patterns import Access, parse_access, pattern, place
from simsmem.results.analysis import analyse
from simsmem.results.metrics import op_label
from simsmem.tiles.layout import tile
from simsmem.tiles.swizzle import TMA_MODES, Swizzle, from_sbm, recast
from simsmem.traces import Trace, read_trace

ROWS = {r["name"]: r for r in load_corpus(H100 / "instructions.json")}
HALF_128B = recast(TMA_MODES["128B"], 1, 2)


MATRIX_ROW = re.compile(r"(LDSM|STSM)(\d)(T?)_(?:rowstride(\d+)_swz(\d)43|seed_(v2|v3_pad|v5_swz313))")
SEED_TILES = {"v2": tile(16, 16, 2), "v3_pad": tile(16, 16, 2, pad=8), "v5_swz313": tile(16, 16, 2, swizzle=from_sbm(3, 1, 3))}
WALK_ROWS = {
    "LDS128_seed_swz313": (parse_access("LDS.128"), SEED_TILES["v5_swz313"]),
    "STS128_seed_swz313": (parse_access("STS.128"), SEED_TILES["v5_swz313"]),
    "LDS128_seed_pad_rows48B": (parse_access("LDS.128"), SEED_TILES["v3_pad"]),
    "STS128_seed_pad_rows48B": (parse_access("STS.128"), SEED_TILES["v3_pad"]),
    "LDS128_xor_swz_rows128": (parse_access("LDS.128@col"), tile(32, 64, 2, swizzle=HALF_128B)),
    "STS128_xor_swz_rows128": (parse_access("STS.128@col"), tile(32, 64, 2, swizzle=HALF_128B)),
    # seed 001: tile[threadIdx.x][0] with blockDim (32, 1) on float tile[32][32] and tile[32][33]
    "LDS32_stride32": (Access("LDS", 32, walk="col", threads=32), tile(32, 32, 4)),
    "STS32_stride32": (Access("STS", 32, walk="col", threads=32), tile(32, 32, 4)),
    "LDS32_stride33": (Access("LDS", 32, walk="col", threads=32), tile(32, 32, 4, pad=1)),
    "STS32_stride33": (Access("STS", 32, walk="col", threads=32), tile(32, 32, 4, pad=1)),
}
MEASURED = sorted([n for n in ROWS if MATRIX_ROW.fullmatch(n)] + list(WALK_ROWS))


def measured_case(name: str) -> tuple[Access, object]:
    """The access and tile a corpus row's name describes."""
    m = MATRIX_ROW.fullmatch(name)
    if not m:
        return WALK_ROWS[name]
    access = Access(m[1], num=int(m[2]), trans=m[3] == "T")
    if m[4]:  # rows of `rowstride` bytes, CuTe Swizzle<B,4,3> on byte offsets
        return access, tile(16, int(m[4]) // 2, 2, swizzle=recast(Swizzle(int(m[5]), 4, 3), 1, 2))
    return access, SEED_TILES[m[6]]


def test_measured_cases_are_many():
    assert len(MEASURED) == 70


@pytest.mark.parametrize("name", MEASURED)
def test_generator_reproduces_measured_row(name, sm90):
    """The generator's first instruction is the measured one: same SASS form, same lane addresses,
    and so (through the model) ncu's wavefronts and bank conflicts."""
    access, t = measured_case(name)
    batch = place(pattern(access, t.rows, t.cols, t.elem_bytes), t)
    row = ROWS[name]
    ins = batch[0]
    assert op_label(ins.op, ins.width, ins.num, ins.trans) == row["sass"]
    assert [ins.addrs[lane] for lane in ins.active_lanes] == [row["addrs"][lane] for lane in ins.active_lanes]
    metrics = analyse(Trace(batch.take(slice(0, 1))), sm90).metrics
    for c in ("ld", "st"):
        assert metrics[WAVEFRONTS.format(c)] == row["ncu"][WAVEFRONTS.format(c)]
        assert metrics[BANK_CONFLICTS.format(c)] == row["ncu"][BANK_CONFLICTS.format(c)]


def test_ldsm_x4_trace(sm90, tmp_path):
    """traces/ldsm_x4.json (the README's first command) is seed 004's unswizzled ldmatrix.x4, written by
    ``simsmem gen``: the measured row LDSM4_seed_v2, 8 wavefronts and 4 bank conflicts on H100."""
    fresh = tmp_path / "ldsm_x4.json"
    assert main(["gen", "tile", "--rows", "16", "--cols", "16", "--elem-bytes", "2", "--access", "LDSM.16.M88.4", "-o", str(fresh)]) == 0
    assert fresh.read_bytes() == (ROOT / "traces" / "ldsm_x4.json").read_bytes()
    trace = read_trace(ROOT / "traces" / "ldsm_x4.json")
    row = ROWS["LDSM4_seed_v2"]
    assert trace.instructions.addrs[0].tolist() == row["addrs"]
    m = analyse(trace, sm90).metrics
    assert (m[WAVEFRONTS.format("ld")], m[BANK_CONFLICTS.format("ld")]) == (8, 4)
    assert (row["ncu"][WAVEFRONTS.format("ld")], row["ncu"][BANK_CONFLICTS.format("ld")]) == (8, 4)


def test_parse_access():
    assert parse_access("STS.128") == Access("STS", 128, walk="row")
    assert parse_access("LDS@col") == Access("LDS", 32, walk="col")
    assert parse_access("STS.64@acc") == Access("STS", 64, walk="acc")
    assert parse_access("LDSM.16.MT88.2") == Access("LDSM", num=2, trans=True, walk="frag")
    assert str(parse_access("LDS.128@col")) == "LDS.128@col" and str(parse_access("STSM.16.M88.4")) == "STSM.16.M88.4"
    for bad in ("LDSM.16.M88.4@row", "STS@frag", "LDG.128", "STS@diagonal"):
        with pytest.raises(SimsmemError):
            parse_access(bad)


def test_walks_match_cuda_indexing():
    """A 32x32 walk with 1024 threads: warp w = threadIdx.y, lane l = threadIdx.x; row walk is
    tile[ty][tx], col walk tile[tx][ty] (seed 002's transposes)."""
    w, lane = np.meshgrid(np.arange(32), np.arange(32), indexing="ij")
    row = pattern(Access("LDS", 32, walk="row"), 32, 32, 4)
    col = pattern(Access("LDS", 32, walk="col"), 32, 32, 4)
    assert np.array_equal(row.instructions.warp, np.arange(32))
    assert np.array_equal(row.row, w) and np.array_equal(row.col, lane)
    assert np.array_equal(col.row, lane) and np.array_equal(col.col, w)


def test_block_x_shapes_the_warp():
    """``--block-x 4`` on a 64x64 half tile with 128-bit stores is CUDA's blockDim (4, 64) copying
    ``tile[ty][32 * panel + 8 * tx]``: a warp covers 8 rows x 64 bytes, the panels go left to right."""
    p = pattern(Access("STS", 128, block_x=4), 64, 64, 2)
    t = np.arange(64 * 8)
    panel, ty, tx = t // 256, t % 256 // 4, t % 4
    assert np.array_equal(p.row.ravel(), ty) and np.array_equal(p.col.ravel(), 32 * panel + 8 * tx)
    q = pattern(Access("LDS", 32, walk="col", block_x=8), 32, 32, 4)  # tile[tx][ty], blockDim (8, 4)
    lane = np.arange(32)
    assert np.array_equal(q.row[0], lane % 8) and np.array_equal(q.col[0], lane // 8)
    with pytest.raises(SimsmemError, match="accesses per row"):
        pattern(Access("STS", 128, block_x=3), 64, 64, 2)


@given(st.sampled_from([8, 16, 32, 64, 128]), st.sampled_from([1, 2, 4]), st.integers(1, 12), st.integers(1, 8), st.sampled_from(["row", "col"]), st.integers(1, 12))
def test_walks_cover_the_tile_once(width, elem, rows, vectors, walk, block_x):
    """Every element is moved by exactly one lane, whatever blockDim.x; partial last warps are masked."""
    vec = width // 8 // elem
    length = vectors if walk == "row" else rows
    if vec < 1 or length % block_x:
        return
    p = pattern(Access("STS", width, walk=walk, block_x=block_x), rows, vectors * vec, elem)
    active = p.row >= 0
    hits = np.zeros((rows, vectors * vec), dtype=int)
    for r, c in zip(p.row[active], p.col[active]):
        hits[r, c : c + vec] += 1
    assert (hits == 1).all()
    mask = p.instructions.mask.astype(np.int64)
    assert np.array_equal((mask[:, None] >> np.arange(32)) & 1, active.astype(np.int64))


def test_accumulator_store_is_wmma_fragment():
    """wmma::store_matrix_sync (v2's four STS [R8], [R8+0x100], [R8+0x10], [R8+0x110]): lane l writes
    row l/4 (+8), columns 2*(l%4) (+8); the four stores cover the 16x16 tile once."""
    p = pattern(Access("STS", 32, walk="acc"), 16, 16, 2)
    lane = np.arange(32)
    t = tile(16, 16, 2)
    base = t.byte_offset(p.row[0], p.col[0])
    assert np.array_equal(base, (lane // 4) * 32 + (lane % 4) * 4)
    assert [int((t.byte_offset(p.row[i], p.col[i]) - base)[0]) for i in range(4)] == [0, 0x100, 0x10, 0x110]
    hits = np.zeros((16, 16), dtype=int)
    for r, c in zip(p.row.ravel(), p.col.ravel()):
        hits[r, c : c + 2] += 1
    assert (hits == 1).all()


def test_fragments_tile_the_whole_tile():
    """ldmatrix fragments over a 32x32 half tile: x4 takes 16x16 blocks, x2 16x8, x1 8x8; lanes past 8*num give none."""
    for num, count in ((4, 4), (2, 8), (1, 16)):
        p = pattern(Access("LDSM", num=num), 32, 32, 2)
        assert len(p.row) == count
        assert ((p.row >= 0).sum(axis=1) == 8 * num).all()
        given = p.row >= 0
        assert len({(int(r), int(c)) for r, c in zip(p.row[given], p.col[given])}) == given.sum() == 32 * 4  # each (row, 16-byte block) once


def test_generator_errors():
    with pytest.raises(SimsmemError, match="cols"):
        pattern(Access("STS", 128), 16, 12, 2)
    with pytest.raises(SimsmemError, match="threads"):
        pattern(Access("STS", 32, threads=2000), 32, 32, 4)
    with pytest.raises(SimsmemError, match="2 elements per lane"):
        pattern(Access("STS", 64, walk="acc"), 16, 16, 2)
    with pytest.raises(SimsmemError, match="inside one"):
        t = tile(16, 16, 2, swizzle=Swizzle(2, 1, 3))
        place(pattern(Access("STS", 128), 16, 16, 2), t)


def test_cli_gen_tile_writes_a_checked_trace(tmp_path, sm90):
    """The seed 002 swizzled transpose's store, via the CLI: 32 warps, conflict-free (trans_swizzle's op_st)."""
    out = tmp_path / "t.json"
    rc = main(["gen", "tile", "--rows", "32", "--cols", "32", "--elem-bytes", "4", "--swizzle", "5", "0", "5", "--access", "STS@col", "--access", "LDS", "--ctas", "64", "-o", str(out)])
    assert rc == 0
    trace = read_trace(out)
    assert (trace.name, trace.ctas, len(trace.instructions)) == ("t", 64, 64)
    m = analyse(trace, sm90).metrics
    assert (m[WAVEFRONTS.format("st")], m[WAVEFRONTS.format("ld")]) == (2048, 2048)


@pytest.mark.parametrize("argv", [
    ["--access", "STS.128", "--pad-bytes", "2"],  # misaligns 128-bit rows
    ["--access", "STS.128", "--swizzle", "3", "0", "3"],  # splits 16-byte accesses
    ["--access", "FOO"],
    ["--access", "LDS", "--swizzle", "3", "0", "2"],  # |S| < B
    ["--access", "LDS", "--tma", "128B", "--swizzle", "3", "4", "3"],
    ["--access", "LDS", "--base", "300000"],  # past sm_90's shared memory
    ["--access", "LDS", "--base", "-4"],
    ["--access", "LDS", "--ctas", "0"],
    ["--access", "LDS", "--elem-bytes", "0"],
    ["--access", "LDS", "--threads", "-1"],
])
def test_cli_gen_bad_input_is_one_line_and_writes_nothing(argv, tmp_path, capsys):
    out = tmp_path / "bad.json"
    assert main(["gen", "tile", "-o", str(out), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("simsmem: ") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_cli_gen_into_a_missing_folder_is_one_line(tmp_path, capsys):
    assert main(["gen", "tile", "--access", "LDS", "-o", str(tmp_path / "missing" / "t.json")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_threads_option(tmp_path):
    """``--threads 32`` keeps one warp of a walk (seed 001's blockDim(32, 1))."""
    out = tmp_path / "t.json"
    assert main(["gen", "tile", "--rows", "32", "--cols", "33", "--elem-bytes", "4", "--access", "LDS@col", "--threads", "32", "-o", str(out)]) == 0
    assert read_trace(out).instructions.addrs.tolist() == [[lane * 132 for lane in range(32)]]


@pytest.mark.parametrize("access, row", [("LDGSTS.E.128", "ldgsts_ca16_dst_lin_src_lin"), ("LDGSTS.E.BYPASS.128", "ldgsts_cg16_dst_lin_src_lin")])
def test_cli_gen_copies_from_a_row_major_global_tile(tmp_path, sm90, access, row):
    """cp.async of a 16x64 half tile: each thread copies its 16 bytes from the same place of an unpadded global
    copy, so the first warp is instructions_v2.json's `*_dst_lin_src_lin` row (H100, ncu 2025.3.1: 4 wavefronts)."""
    from simsmem.banks import count
    from simsmem.corpus import corpus_trace, load_corpus

    measured = {r["name"]: r for r in load_corpus(H100 / "instructions_v2.json")}[row]
    out = tmp_path / "t.json"
    assert main(["gen", "tile", "--rows", "16", "--cols", "64", "--access", access, "-o", str(out)]) == 0
    b = read_trace(out).instructions
    assert b.src[0].tolist() == b.addrs[0].tolist() == measured["addrs"] == measured["src"]
    assert list(b.bypass) == [access.endswith("BYPASS.128")] * 4
    assert count(b, sm90).wavefronts.tolist() == [4] * 4
    assert count(corpus_trace([measured]).instructions, sm90).wavefronts.tolist() == [measured["ncu"]["smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum"]]
    assert str(parse_access(access)) == access
