"""``simsmem.explain.fixes`` and ``simsmem.explain.arrays``: the changes stated in the author's terms mean the remaps that were counted,
the arrays' shapes are read off their accesses, and only changes that lower the kernel's wavefronts are fixes.

These are checks of simsmem against itself (no hardware figure): the stated C index is evaluated and compared with
the remap the search counted; the shapes are those of tiles generated with a known shape (``simsmem.patterns``).
The hardware side: tests/test_explain.py (the seed kernels' fixes, H100) and tests/test_fixes_kernels.py (slow: the
fixes written into CUDA sources and traced again).
"""

import re

import attrs
import numpy as np
import pytest
from simsmem.explain.arrays import Array, arrays_of
from simsmem.explain.fixes import candidates, search
from simsmem.kernel.shared import demangle, layout
from simsmem.patterns import parse_access, steps_trace
from simsmem.results.analysis import analyse
from simsmem.tiles.layout import tile
from simsmem.traces import Trace

ARRAYS = [
    Array("sdata", 0x400, 1024, 4, "float", 1024, 1024, 4, extern=True),  # 1-D, the reduction's
    Array("As", 0x400, 4096, 4, "float", 512, 512, 16),  # As[8][128], float4 reads
    Array("tile", 0x400, 10240, 2, "half", 160, 128, 16),  # tile[64][80], 64 columns used, ldmatrix rows
    Array("t", 0x400, 8192, 8, "double", 256, 256, 8),  # double t[32][32]
    Array("u", 0x400, 1056, 1, "unsigned char", 33, 32, 1),  # unsigned char u[32][33]
]


def evaluate(expression: str, **names: np.ndarray) -> np.ndarray:
    """A C integer expression of the statement, on numpy arrays (C's ``/`` on non-negative ints is ``//``)."""
    return eval(expression.replace(" / ", " // "), {}, names)  # the statement text simsmem wrote


def stated(a: Array, change) -> np.ndarray:
    """The element each element of ``a`` goes to, as the statement says (row-major, flat)."""
    n = a.size // a.elem
    flat = np.arange(n)
    row, col = flat // (a.row // a.elem), flat % (a.row // a.elem)
    if change.kind == "declaration":
        cols = int(re.findall(r"\[(\d+)\]", change.declaration)[-1])
        return row * cols + col
    m = re.fullmatch(rf"{a.name}((?:\[[^\]]*\])+)(?: with i = row \* (\d+) \+ col)?", change.index)
    subs = re.findall(r"\[([^\[\]]*(?:\([^()]*(?:\([^()]*(?:\([^()]*\)[^()]*)*\)[^()]*)*\)[^\[\]]*)*)\]", m[1])
    if len(subs) == 2:  # [row expr][col expr] of the 2-D declaration
        r, c = (evaluate(s, row=row, col=col) for s in subs)
        return r * (a.row // a.elem) + c
    return evaluate(subs[0], i=flat)


@pytest.mark.parametrize("a", ARRAYS, ids=[a.name for a in ARRAYS])
def test_each_statement_is_the_remap_counted(a, sm90):
    """Every candidate: the C the author is told to write sends each element where the counted remap sends its
    bytes, and the declaration stated holds every element moved."""
    cands = candidates(a, sm90)
    assert {c.kind for c in cands} == ({"declaration", "padding", "swizzle"} if a.two_d else {"padding", "swizzle"})
    offsets = np.arange(0, a.size, a.elem)
    used = offsets % a.row < a.width  # a row's padding is never accessed: a shorter row may overwrite it
    for c in cands:
        moved = stated(a, c)
        assert np.array_equal(moved[used] * a.elem, c.remap(offsets)[used]), c.statement
        moved = moved[used]
        if c.kind != "swizzle" or c.declaration:
            held = int(np.prod([int(d) for d in re.findall(r"\[(\d+)\]", c.declaration)])) if "[]" not in c.declaration else \
                int(re.search(r"\((\d+) bytes", c.declaration)[1]) // a.elem
            assert held > moved.max() and held * a.elem - a.size == c.extra, c.statement
        else:
            assert len(np.unique(moved)) == len(moved) and moved.max() < a.size // a.elem  # a permutation inside the array


def test_candidates_cover_every_padding_of_whole_elements(sm90):
    """Paddings of any multiple of the element (that keeps the widest access aligned) up to a row of banks, not only
    powers of two: the reduction's floats take 1..32 elements of padding per power-of-two row."""
    sdata = ARRAYS[0]
    pads = {(c.key[1], c.key[0]) for c in candidates(sdata, sm90) if c.kind == "padding"}
    assert {p for row, p in pads if row == 32} == set(range(1, 33))
    restrided = sorted(int(re.findall(r"\[(\d+)\]", c.declaration)[-1]) for c in candidates(ARRAYS[2], sm90) if c.kind == "declaration")
    assert restrided == [64, 72, 88, 96, 104, 112, 120, 128]  # tile[64][80] -> 64 .. 128 columns, 8 halves apart (16-byte rows)


def generated(rows: int, cols: int, elem: int, pad: int, *specs: str, base: int = 0) -> Trace:
    t = tile(rows, cols, elem, pad // elem, base=base)
    return steps_trace([(parse_access(s), t) for s in specs], "t")


@pytest.mark.parametrize(
    "rows, cols, elem, pad, specs, shape, width",
    [
        (32, 32, 4, 0, ("STS", "LDS@col"), "[32][32]", 128),  # the transpose: column reads 128 bytes apart
        (32, 32, 4, 4, ("STS", "LDS@col"), "[32][33]", 128),  # padded: rows of 132 bytes, 128 of them used
        (32, 32, 8, 0, ("STS.64@col",), "[32][32]", 256),
        (64, 64, 2, 32, ("LDSM.16.M88.4",), "[64][80]", 128),  # ldmatrix rows 160 bytes apart
        (16, 64, 4, 0, ("STS.128", "LDS"), "[1024]", 4096),  # rows written whole, one after another: no row shows
    ],
)
def test_shapes_are_read_off_the_accesses(rows, cols, elem, pad, specs, shape, width):
    (a,) = arrays_of(generated(rows, cols, elem, pad, *specs))
    assert (a.name, a.base, a.elem, a.shape(), a.width) == ("tile", 0, elem, shape, width)


def test_arrays_are_split_where_their_instructions_do_not_overlap():
    """Two tiles one after the other, each with its own instructions: two arrays, named by where they start."""
    first = generated(32, 32, 4, 0, "LDS@col")
    second = generated(32, 32, 4, 0, "STS", base=4096)
    both = Trace(type(first.instructions).concat([first.instructions, second.instructions]))
    assert [(a.name, a.base, a.size, a.shape()) for a in arrays_of(both)] == [("tile", 0, 4096, "[32][32]"), ("tile_1000", 4096, 4096, "[1024]")]


def test_no_change_that_leaves_the_total_is_listed(sm90):
    """Row-major stores and reads of a 32x32 float tile have no conflicts: no change lowers them, none is listed."""
    result = analyse(generated(32, 32, 4, 0, "STS", "LDS"), sm90)
    c = result.counts
    assert int(c.bank_conflicts.sum()) == 0
    assert search(result.trace.instructions, c.wavefronts, c.bank_conflicts, arrays_of(result.trace), sm90) == []


def test_ranked_by_the_kernel_then_the_simplest(sm90):
    """The column-read tile: every fix listed lowers the kernel's wavefronts, fewest first; where they tie a
    declaration comes before a padding before a swizzle; one of each kind per array."""
    result = analyse(generated(32, 32, 4, 0, "STS", "LDS@col"), sm90)
    b, c = result.trace.instructions, result.counts
    arrays = arrays_of(result.trace)
    fixes = search(b, c.wavefronts, c.bank_conflicts, arrays, sm90)
    assert [f.change.kind for f in fixes] == ["declaration", "swizzle", "padding"]
    assert [f.statement for f in fixes[:2]] == ["__shared__ float tile[32][33]", "tile[row][col ^ (row & 31)]"]
    assert fixes[0].wavefronts == fixes[1].wavefronts == 64 < fixes[2].wavefronts < int(c.wavefronts.sum())
    # the cycles, where given, rank first (in steps of 1%): a made-up timing in which fewer wavefronts run slower
    timed = search(b, c.wavefronts, c.bank_conflicts, arrays, sm90, timing=lambda w: 1e6 / float(w.sum()))
    assert [f.change.kind for f in timed] == ["padding", "declaration", "swizzle"]
    assert [f.cycles for f in timed] == [1e6 / f.wavefronts for f in timed] and timed[0].cycles_now == 1e6 / int(c.wavefronts.sum())


def kernel_ptx(module: list[str], body: list[str], uses: list[str]) -> str:
    """A one-kernel module: ``module`` and ``body`` declarations, a store to each of ``uses``."""
    lines = [".version 9.0", ".target sm_90", ".address_size 64", *module, ".visible .entry k(.param .u64 p)", "{", *body, ".reg .b32 %r<9>;"]
    for i, n in enumerate(uses):
        lines += [f"mov.u32 %r2, {n};", f"st.shared.u8 [%r2+{i}], %r1;"]
    return "\n".join([*lines, "ret;", "}"])


T, B, M = ".shared .align 1024 .b8 T[4096];", ".shared .align 8 .u64 B;", ".shared .align 128 .b8 M[128];"
A, C, D = ".shared .align 4 .b8 A[64];", ".shared .align 1 .b8 C[3];", ".shared .align 16 .b8 D[48];"


@pytest.mark.parametrize(
    "module, body, uses, size, placed",
    [
        ([C, A, B, D], [], ["B", "D", "A", "C"], 0x480, {"C": 0x400, "A": 0x404, "B": 0x448, "D": 0x450}),
        ([A, B, C], [], ["A", "C"], 0x443, {"A": 0x400, "C": 0x440}),  # B unused: no space
        ([T, B], [M], ["T", "B", "M"], 0x1808, {"M": 0x400, "T": 0x800, "B": 0x1800}),  # the kernel's own first
        ([T, B, ".extern .shared .align 1024 .b8 smem[];"], [], ["T", "B"], 0x1800, {"T": 0x400, "B": 0x1400}),  # rounded to the extern's
    ],
    ids=["declaration_order", "unused", "body_first", "extern_rounds"],
)
def test_placement_is_ptxas_rule(module, body, uses, size, placed):
    """Where ptxas 13.0.88 (-O3, sm_90) put the variables of these modules (the addresses its SASS stored to, traced
    once by simsmem) and the size it gave .nv.shared.k: the rule of kernel/shared.py, and no names where the section
    size is not the rule's end. ``placed`` and ``size`` are those measurements."""
    ptx = kernel_ptx(module, body, uses)
    assert {a["name"]: a["base"] for a in layout(ptx, "k", set(), size, 0)} == placed
    assert layout(ptx, "k", set(), size + 8, 0) == []


def test_the_extern_buffer_starts_where_the_arrays_end():
    """ptxas 13.0.88: C at 0x400, the extern buffer at 0x410 (its 16-byte alignment), .nv.shared.k 0x410 bytes."""
    ptx = kernel_ptx([C, ".extern .shared .align 16 .b8 dyn[];"], [], ["C", "dyn"])
    assert layout(ptx, "k", set(), 0x410, 512) == [{"name": "C", "symbol": "C", "base": 0x400, "bytes": 3},
                                                   {"name": "dyn", "symbol": "dyn", "base": 0x410, "bytes": 512, "extern": True}]


@pytest.mark.parametrize("symbol, name", [("_ZZ3twoE2As", "As"), ("_ZZ15sgemm_rb128_8x8E2As", "As"), ("_ZZ5hgemmILb0ELi0EEvPvPK6__halfS3_iiiE2Bs", "Bs"),
                                          ("sdata", "sdata"), ("_ZZ1kE4tile_0", "tile")])
def test_demangled_names(symbol, name):
    assert demangle(symbol) == name


@pytest.mark.parametrize("kernel", [{"shared": {"arrays": [{"name": 3}], "types": []}}, {"shared": {"arrays": "x"}}, {"shared": "bad"},
                                    {"block": ["a"]}, {"block": [0], "shared": {"types": {"a": 1}}}])
def test_a_hand_edited_header_gives_unnamed_arrays(kernel):
    """A trace header whose ``shared`` or ``block`` is not what simsmem writes: the arrays are read as unnamed ones."""
    trace = attrs.evolve(generated(32, 32, 4, 0, "STS", "LDS@col"), kernel=kernel)
    assert [(a.name, a.shape()) for a in arrays_of(trace)] == [("shared_0", "[32][32]")]
