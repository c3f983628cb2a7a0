"""Pictures of explained instructions (matplotlib, imported only when a picture is asked for).

* ``draw_wavefronts``: per instruction a grid of wavefronts (rows) by banks (columns); each cell
  coloured and labelled by the lane the bank serves in that wavefront, idle banks blank, the
  conflicting banks outlined in red, several lanes sharing one word (broadcast) shown as ``0-7``.
* ``draw_tile``: a tile generated from a layout (``simsmem.tiles.layout.Tile``), rows by 16-byte chunks
  (by elements where the swizzle splits chunks), each cell coloured by the bank its first byte lands
  in, and labelled with the lanes and wavefront of an explained instruction that touch it.

``figure`` puts both side by side; ``save`` writes PNG or SVG atomically.
"""

from __future__ import annotations

import io
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import SimsmemError
from ..tiles.layout import Tile
from ..tiles.swizzle import keeps_vectors
from ..traces.files import write_atomically
from .instruction import Explanation, ranges

if TYPE_CHECKING:
    from matplotlib.figure import Figure, SubFigure

CHUNK = 16  # bytes per cell of the tile view
CONFLICT = "#d62728"
LANE_COLOURS = "viridis"
BANK_COLOURS = ("Dark2", "turbo")  # 8 listed colours for 16-byte chunks (no red), a gradient for more


def figure(explanations: list[Explanation], banks: int, bank_width: int, tile: Tile | None = None) -> Figure:
    """The wavefront grids of ``explanations``, and the tile view of the first beside them if ``tile``."""
    from matplotlib.figure import Figure

    waves = sum(max(1, len(ex.schedule.wavefronts)) for ex in explanations)
    height = 1.6 * len(explanations) + 0.34 * waves + 0.6
    if tile is None:
        fig = Figure(figsize=(14, height), layout="constrained")
        draw_wavefronts(fig, explanations, banks)
        return fig
    starts, _ = _tile_cells(tile, bank_width)
    rows, cells = starts.shape
    width = max(4.0, (0.75 if cells <= 8 else 0.42) * cells + 1.5)
    fig = Figure(figsize=(14 + width, max(height, 0.3 * rows + 2)), layout="constrained")
    left, right = fig.subfigures(1, 2, width_ratios=(14, width))
    draw_wavefronts(left, explanations, banks)
    draw_tile(right, tile, explanations[0], banks, bank_width)
    return fig


def draw_wavefronts(fig: Figure | SubFigure, explanations: list[Explanation], banks: int) -> None:
    """One grid per explanation: wavefronts x banks, coloured by lane."""
    from matplotlib import colormaps
    from matplotlib.patches import Rectangle

    cmap = colormaps[LANE_COLOURS]
    axes = fig.subplots(len(explanations), 1, squeeze=False, height_ratios=[max(1, len(ex.schedule.wavefronts)) + 3 for ex in explanations])[:, 0]
    for ax, ex in zip(axes, explanations):
        s = ex.schedule
        n = len(s.wavefronts)
        conflict = {(c.group, b) for c in ex.conflicts for b in c.banks}
        ax.set_xlim(-0.5, banks - 0.5)
        ax.set_ylim(max(n, 1) - 0.5, -0.5)
        ax.set_aspect("equal", adjustable="box", anchor="N")
        for j, w in enumerate(s.wavefronts):
            group = w.phases[0] // s.shape.group
            for bank in range(banks):
                lanes = sorted({r.lane for r in w.requests if r.bank == bank})
                if not lanes:
                    continue
                colour = cmap(lanes[0] / 31)
                red = (group, bank) in conflict
                ax.add_patch(Rectangle((bank - 0.5, j - 0.5), 1, 1, facecolor=colour, edgecolor=CONFLICT if red else "white", linewidth=2.5 if red else 0.5, zorder=3 if red else 2))
                text = str(lanes[0]) if len(lanes) == 1 else (ranges(lanes) if len(ranges(lanes)) <= 5 else f"{lanes[0]}+")
                ax.text(bank, j, text, ha="center", va="center", fontsize=7, color="white" if _dark(colour) else "black", fontweight="bold" if len(lanes) > 1 else "normal", zorder=4)
            if j and s.wavefronts[j - 1].phases[0] // s.shape.group != group:
                ax.axhline(j - 0.5, color="black", linewidth=1.2)
        ax.set_xticks(range(banks))
        ax.tick_params(axis="x", labelsize=7, top=True, labeltop=True, bottom=False, labelbottom=False)
        ax.set_yticks(range(n), [f"W{j}  phase {'+'.join(map(str, w.phases))}" for j, w in enumerate(s.wavefronts)], fontsize=8)
        ax.set_xlabel("bank", fontsize=8)
        ax.xaxis.set_label_position("top")
        ax.set_facecolor("#f2f2f2")
        ax.set_title(
            f"instruction {ex.index}, {ex.label}: {n} wavefronts, ideal {s.ideal}, {s.bank_conflicts} bank conflicts\n"
            + "\n".join(textwrap.wrap(ex.diagnosis, 150)),
            fontsize=9, loc="left",
        )
    fig.supxlabel("cell: the lane a bank serves in that wavefront (colour: lane 0 dark to 31 yellow); 0-7 or 0+: several lanes share "
                  "the word (broadcast)\nred outline: the bank serves different words in several wavefronts of one group (the conflict); "
                  "grey: bank idle; black lines separate groups (matrices, half- or quarter-warps)", fontsize=7, x=0.01, ha="left")


def draw_tile(fig: Figure | SubFigure, tile: Tile, ex: Explanation | None, banks: int, bank_width: int) -> None:
    """Rows x 16-byte chunks of ``tile``, coloured by bank; the lanes and wavefront of ``ex`` that touch each."""
    from matplotlib import colormaps
    from matplotlib.patches import Rectangle

    starts, unit = _tile_cells(tile, bank_width)
    slots = banks * bank_width // unit  # cells of one bank line (128 bytes): 8 chunks, or 32 4-byte elements
    cmap = colormaps[BANK_COLOURS[slots > 8]]
    rows, cells = starts.shape
    touched: dict[int, list[tuple[int, int]]] = {}  # unit start -> (lane, wavefront)
    conflict: set[int] = set()
    if ex is not None:
        red = {(c.group, b) for c in ex.conflicts for b in c.banks}
        for j, w in enumerate(ex.schedule.wavefronts):
            for r in w.requests:
                start = r.word * bank_width // unit * unit
                touched.setdefault(start, []).append((r.lane, j))
                if (w.phases[0] // ex.schedule.shape.group, r.bank) in red:
                    conflict.add(start)
    outside = set(touched) - set(starts.ravel().tolist())
    if outside:
        raise SimsmemError("--tile", f"instruction {ex.index} touches byte {min(outside)}, outside tile {tile}: give the layout the trace was generated with")
    ax = fig.subplots()
    ax.set_xlim(-0.5, cells - 0.5)
    ax.set_ylim(rows - 0.5, -0.5)
    for row in range(rows):
        for c in range(cells):
            start = int(starts[row, c])
            bank = start // bank_width % banks
            slot = start // unit % slots
            colour = cmap(slot) if slots <= 8 else cmap(slot / (slots - 1))  # listed colours by index
            hit = touched.get(start)
            ax.add_patch(Rectangle((c - 0.5, row - 0.5), 1, 1, facecolor=colour, alpha=1.0 if hit else 0.35,
                                   edgecolor=CONFLICT if start in conflict else "white", linewidth=2.5 if start in conflict else 0.5, zorder=3 if start in conflict else 2))
            last = (start + unit - 1) // bank_width % banks
            label = f"b{bank}" + (f"-{last}" if last != bank else "")
            if hit:
                label = f"L{ranges({lane for lane, _ in hit})} W{ranges({j for _, j in hit})}\n{label}"
            ax.text(c, row, label, ha="center", va="center", fontsize=7 if hit else 6, color="white" if _dark(colour) and hit else "black", zorder=4)
    ax.set_xticks(range(cells), [str(c) for c in range(cells)], fontsize=7)
    ax.set_yticks(range(rows), [str(r) for r in range(rows)], fontsize=7)
    ax.tick_params(top=True, labeltop=True, bottom=False, labelbottom=False)
    ax.set_xlabel(f"{unit}-byte {'chunk' if unit == CHUNK else 'element'} of the row", fontsize=8)
    ax.xaxis.set_label_position("top")
    ax.set_ylabel("row", fontsize=8)
    what = f"\nsolid: touched by instruction {ex.index}\n(lanes L, in wavefronts W)" if ex else ""
    ax.set_title(f"tile {tile}\ncolour: the cell's banks (bN-M){what}", fontsize=9, loc="left")


def _tile_cells(tile: Tile, bank_width: int) -> tuple[np.ndarray, int]:
    """Byte offset of every cell (rows x cells) and the cell size: 16-byte chunks, or elements where
    the swizzle moves parts of a chunk apart or chunks do not start on 16-byte boundaries."""
    if tile.elem_bytes & (tile.elem_bytes - 1):
        raise SimsmemError("--elem-bytes", f"the tile view needs a power-of-two element size, not {tile.elem_bytes}")
    per_chunk = max(1, CHUNK // tile.elem_bytes)
    row, col = np.meshgrid(np.arange(tile.rows), np.arange(0, tile.cols, per_chunk), indexing="ij")
    chunks = tile.byte_offset(row, col)
    if per_chunk > 1 and keeps_vectors(tile.layout.swizzle, per_chunk) and tile.cols % per_chunk == 0 and not (chunks % CHUNK).any():
        return chunks, CHUNK
    row, col = np.meshgrid(np.arange(tile.rows), np.arange(tile.cols), indexing="ij")
    return tile.byte_offset(row, col), tile.elem_bytes


def _dark(rgba: tuple[float, ...]) -> bool:
    r, g, b = rgba[:3]
    return 0.299 * r + 0.587 * g + 0.114 * b < 0.5


def save(fig: Figure, path: str | Path, fmt: str) -> None:
    """Write ``fig`` as ``fmt`` (``png`` or ``svg``) to ``path``, atomically."""
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, dpi=110)
    write_atomically(path, buf.getvalue())
