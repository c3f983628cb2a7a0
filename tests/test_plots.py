"""Pictures: the wavefronts x banks grid and the tile view, checked through what they draw.

Provenance: traces/ldsm_x4.json is H100 row LDSM4_seed_v2 (8 wavefronts, 4 conflicts);
traces/seeds/v5_mma_swizzle.json and trans_swizzle.json are seed kernels the H100 measured with no
bank conflicts (calibration/h100/seed_kernels.json).
"""

import os

os.environ.setdefault("MPLBACKEND", "Agg")

import pytest  # noqa: E402
from conftest import ROOT  # noqa: E402
from simsmem.errors import SimsmemError  # noqa: E402
from simsmem.explain.distinct import of_trace  # noqa: E402
from simsmem.explain.instruction import explain  # noqa: E402
from simsmem.explain.plots import CONFLICT, figure, save  # noqa: E402
from simsmem.tiles.layout import tile  # noqa: E402
from simsmem.tiles.swizzle import Swizzle  # noqa: E402
from simsmem.traces import load_trace  # noqa: E402


def explained(sm90, name, index):
    return explain(of_trace(load_trace(ROOT / "traces" / name), sm90), index)


def cells(ax):
    """(edge is red, label) of every cell drawn in ``ax``."""
    from matplotlib.colors import to_hex

    red = [to_hex(p.get_edgecolor()) == CONFLICT for p in ax.patches]
    return red, [t.get_text() for t in ax.texts]


def test_wavefront_grid_of_the_unswizzled_ldsm(sm90):
    """8 wavefronts x 16 banks in use, every cell on a conflicting bank; lane numbers 0..31 in them."""
    fig = figure([explained(sm90, "ldsm_x4.json", 0)], sm90.banks, sm90.bank_width)
    (ax,) = fig.axes
    red, labels = cells(ax)
    assert len(red) == 8 * 16 and all(red)
    assert sorted(set(labels), key=int) == [str(lane) for lane in range(32)]
    assert [t.get_text() for t in ax.get_yticklabels()] == [f"W{j}  phase {j // 2}" for j in range(8)]


def test_swizzled_ldsm_has_no_red_and_the_tile_shows_eight_bank_groups(sm90):
    """v5: LDSM.x4 of a Swizzle<1,3,3> (half offsets) tile: 4 wavefronts of 32 banks; rows 0-7 of chunk 0
    land on 8 different 4-bank groups."""
    ex = explained(sm90, "seeds/v5_mma_swizzle.json", 2)
    fig = figure([ex], sm90.banks, sm90.bank_width, tile(16, 16, 2, swizzle=Swizzle(1, 3, 3)))
    grid, view = fig.axes
    red, _ = cells(grid)
    assert len(red) == 4 * 32 and not any(red)
    red, labels = cells(view)
    assert len(red) == 16 * 2 and not any(red)
    assert labels[0] == "L0 W0\nb0-3" and labels[1] == "L16 W2\nb4-7"
    rows_0_7 = [labels[2 * r].split("\n")[1] for r in range(8)]  # chunk 0 of rows 0..7
    assert len(set(rows_0_7)) == 8


def test_tile_view_of_the_unswizzled_tile_outlines_the_conflict(sm90):
    ex = explained(sm90, "ldsm_x4.json", 0)
    fig = figure([ex], sm90.banks, sm90.bank_width, tile(16, 16, 2))
    red, labels = cells(fig.axes[1])
    assert all(red)
    assert labels[0] == "L0 W0\nb0-3" and labels[8] == "L4 W1\nb0-3"  # rows 0 and 4, same banks, two wavefronts


def test_tile_view_by_elements_where_the_swizzle_splits_chunks(sm90):
    """trans_swizzle: Swizzle<5,0,5> on 4-byte elements moves single ints, so cells are elements (32 x 32)."""
    ex = explained(sm90, "seeds/trans_swizzle.json", 0)
    fig = figure([ex], sm90.banks, sm90.bank_width, tile(32, 32, 4, swizzle=Swizzle(5, 0, 5)))
    view = fig.axes[1]
    red, labels = cells(view)
    assert len(red) == 32 * 32 and not any(red)
    assert view.get_xlabel() == "4-byte element of the row"
    assert sum(label.startswith("L") for label in labels) == 32  # one store: 32 lanes, 32 elements


def test_tile_must_hold_the_instruction(sm90):
    ex = explained(sm90, "ldsm_x4.json", 0)
    with pytest.raises(SimsmemError, match="touches byte 256, outside tile"):
        figure([ex], sm90.banks, sm90.bank_width, tile(8, 16, 2))


def test_several_instructions_and_saving(sm90, tmp_path):
    result = of_trace(load_trace(ROOT / "traces" / "seeds" / "v2_wmma.json"), sm90)
    fig = figure([explain(result, i) for i in (2, 3, 4)], sm90.banks, sm90.bank_width)
    assert len(fig.axes) == 3
    save(fig, tmp_path / "p.png", "png")
    save(fig, tmp_path / "p.svg", "svg")
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"
    assert "<svg" in (tmp_path / "p.svg").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.png", "p.svg"]
