"""``simsmem explain TRACE``: which lanes each wavefront serves from which bank, why an instruction has
bank conflicts, and the fix to write (found by trying changes of its shared array through the model).

TRACE is a trace file or a kernel (``.cu``, ``.ptx``, ``.cubin``) with the launch options of ``simsmem run``,
traced first; a kernel's fixes are ranked by the cycles the timed SM predicts for its launch with each.
Explains the instruction with the most bank conflicts (``--worst K``: the K worst patterns;
``--index N``: instruction N). ``--png``/``--svg`` also draw the wavefronts x banks grid; with
``--tile`` and the layout options of ``simsmem gen tile`` the picture adds the tile the trace was
generated from, rows x 16-byte chunks coloured by bank, with the lanes that touch each chunk.
"""

from __future__ import annotations

import argparse
import importlib.util
from collections.abc import Callable

import numpy as np

from ..errors import SimsmemError
from ..explain.block import explain_block, print_block
from ..explain.distinct import Distinct
from ..explain.fixes import CYCLES
from ..explain.instruction import choose, explain, print_explanation
from ..explain.plots import figure, save
from ..kernel.program import KERNEL_SUFFIXES
from ..progress import add_quiet_flag, progress, track
from ..results.pipeline import distinct, open_source
from ..sm import LaunchTiming
from ..tiles.layout import tile
from ..traces.records import BLOCK_OPS
from . import Console, non_negative, positive
from .gen import add_swizzle_arguments, add_tile_arguments, chosen_swizzle, pad_elements
from .trace import add_launch_options, tracer


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("explain", help="show lanes x banks x wavefronts of an instruction, diagnose its conflicts, find a fix", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trace", help="trace file (.json, .jsonl, .npz, either JSON also .gz), or a kernel (.ptx, .cubin, .cu) to trace first with the "
                                 "launch options below")
    p.add_argument("--arch", help="sm_90 (default), another built-in arch, or a path to an arch .yaml; wins over the trace's own arch")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--index", type=non_negative, metavar="N", help="explain instruction N (0-based, in trace order)")
    which.add_argument("--worst", type=positive, metavar="K", default=1, help="explain the K patterns with the most bank conflicts (default 1)")
    picture = p.add_mutually_exclusive_group()
    picture.add_argument("--png", metavar="OUT.png", help="also draw the picture as PNG")
    picture.add_argument("--svg", metavar="OUT.svg", help="also draw the picture as SVG")
    layout = p.add_argument_group("tile view (with --png/--svg; the options of simsmem gen tile)")
    layout.add_argument("--tile", action="store_true", help="draw the tile the trace was generated from, next to the wavefronts")
    add_tile_arguments(layout)
    add_swizzle_arguments(layout)
    p.add_argument("--fixes", type=positive, default=3, metavar="K", help="list the K best fixes (default 3)")
    add_launch_options(p, required=False)
    add_quiet_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    out, fmt = (args.png, "png") if args.png else (args.svg, "svg")
    if out and importlib.util.find_spec("matplotlib") is None:
        raise SimsmemError(f"--{fmt}", "drawing needs matplotlib: pip install 'simsmem[plots]'")
    if args.tile and not out:
        raise SimsmemError("--tile", "the tile view is a picture: give --png or --svg too")
    d, launch = open_input(args, args.trace, args.arch)
    base = launch(d.counts.wavefronts) if launch is not None else None
    timing = None if launch is None else lambda w: base.metrics[CYCLES] if np.array_equal(w, d.counts.wavefronts) else launch(w).metrics[CYCLES]
    t = tile(args.rows, args.cols, args.elem_bytes, pad_elements(args), chosen_swizzle(args), args.base) if args.tile else None
    chosen = choose(d, args.index, args.worst)
    console = Console(highlight=False)
    if not chosen:
        nothing = f" ({out} not written)" if out else ""
        console.print(f"No bank conflicts in the {d.instructions} instructions of {d.name or args.trace}{nothing}; --index N explains any one.")
    explanations = []
    for i, twins in track(chosen, "explaining and trying fixes", quiet=args.quiet):
        if d.row(i).op in BLOCK_OPS:  # a wgmma or a copy: the banks its pieces touch
            print_block(explain_block(d, i), console)
        else:
            explanations.append(explain(d, i, twins, timing, args.fixes, base.by_pc if base is not None else None))
            print_explanation(explanations[-1], console)
    if out and explanations:
        try:
            save(figure(explanations, d.arch.banks, d.arch.bank_width, t), out, fmt)
        except OSError as exc:
            raise SimsmemError(out, f"cannot write: {exc.strerror}") from None
        Console(stderr=True, soft_wrap=True, highlight=False).print(f"wrote {out}")
    return 0


def open_input(args: argparse.Namespace, path: str, arch: str | None) -> tuple[Distinct, Callable[[np.ndarray], LaunchTiming] | None]:
    """A trace's distinct rows, counted (``pipeline.distinct``), read from a file (with a bar) or from a kernel traced with
    the launch options (which draws its own); where it has warp streams and the arch a timed SM, also its launch's
    timing for given wavefronts of each distinct row."""
    source = open_source(path, arch, tracer(args, path))
    with progress(f"reading {source.stream.name or path}", total=source.stream.size or None, quiet=args.quiet or path.endswith(KERNEL_SUFFIXES)) as advance:
        return distinct(source, getattr(args, "index", None), advance)
