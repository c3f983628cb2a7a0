"""``simsmem gen``: write traces (v1) of access patterns over a tile, or of the seed kernels.

``simsmem gen tile --rows 16 --cols 16 --elem-bytes 2 --access LDSM.16.M88.4 -o ldsm_x4.json``
writes one ldmatrix.x4 of an unswizzled 16x16 half tile. An access is a SASS opcode as ``simsmem
run`` prints it (``STS.128``, ``LDS``, ``LDSM.16.MT88.4``, ``STSM.16.M88.2``) with an optional walk:
``@row`` (default: thread t takes the t-th access of a row-by-row walk, CUDA's ``tile[ty][tx]``),
``@col`` (column by column, ``tile[tx][ty]``), ``@acc`` (mma accumulator stores per 16x16 block);
matrix ops load the tile's 8x8 fragments (lane l: row l % 16, 16-byte column block l // 16);
cp.async copies (``LDGSTS.E.128``, ``.cg``: ``LDGSTS.E.BYPASS.128``) read each thread's element from a
row-major, unpadded copy of the tile at global address 0.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import attrs

from ..config import load_arch
from ..errors import SimsmemError
from ..patterns import SEED_KERNELS, Access, parse_access, seed_trace, steps_trace
from ..results.validate import check_against_arch
from ..tiles.layout import Tile, tile
from ..tiles.swizzle import IDENTITY, TMA_MODES, Swizzle, recast
from ..traces import Trace, write_trace
from . import Console, non_negative, positive


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("gen", help="write traces of access patterns (tile walks, ldmatrix fragments, the seed kernels)", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    gens = p.add_subparsers(dest="generator", required=True, metavar="GENERATOR")
    t = gens.add_parser("tile", help="accesses over one tile", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_tile_arguments(t)
    add_swizzle_arguments(t)
    add_access_arguments(t, required=True)
    t.add_argument("--ctas", type=positive, default=1, help="CTAs running the trace (kernel totals scale by it)")
    t.add_argument("--name", help="trace name (default: the output file's stem)")
    t.add_argument("--arch", default="sm_90", help="arch to check the trace against and record in it")
    t.add_argument("-o", "--output", required=True, help="trace file to write (.json)")
    t.set_defaults(func=run_tile)
    s = gens.add_parser("seeds", help="the seed documents' kernels (calibration/h100/seed_kernels.json)", description="Write one trace per seed kernel: " + ", ".join(SEED_KERNELS))
    s.add_argument("--out", default="traces/seeds", help="folder to write NAME.json into (default traces/seeds)")
    s.set_defaults(func=run_seeds)


def add_tile_arguments(p: argparse.ArgumentParser) -> None:
    """The options that describe a tile: extents, element size, padding."""
    p.add_argument("--rows", type=positive, default=16)
    p.add_argument("--cols", type=positive, default=16)
    p.add_argument("--elem-bytes", type=positive, default=2, help="element size in bytes (default 2: half)")
    p.add_argument("--pad-bytes", type=non_negative, default=0, help="padding after each row, in bytes")


def add_swizzle_arguments(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """The options that place a tile and swizzle it (read back by ``chosen_swizzle``)."""
    p.add_argument("--swizzle", nargs=3, type=int, metavar=("B", "M", "S"), help="CuTe Swizzle<B,M,S> (seed 004's swizzle<S,B,M> in CuTe's order: its <3,1,3> is 1 3 3)")
    p.add_argument("--bytes", action="store_true", help="--swizzle acts on byte offsets (as TMA and CuTe's swizzled smem pointers do), not element offsets")
    p.add_argument("--tma", choices=tuple(TMA_MODES), help="TMA swizzle mode (CuTe Sw<1|2|3,4,3> on byte offsets)")
    p.add_argument("--base", type=non_negative, default=0, metavar="BYTES", help="where the tile starts in shared memory")


def add_access_arguments(p: argparse.ArgumentParser, required: bool) -> None:
    """The options that describe the access set."""
    p.add_argument("--access", action="append", required=required, metavar="SPEC", help="SASS opcode with optional @row/@col/@acc, e.g. STS.128, LDS@col, STS@acc, LDSM.16.MT88.4 (repeatable)")
    p.add_argument("--threads", type=non_negative, default=0, help="row/col walks: only the first N threads (default: cover the tile once)")
    p.add_argument("--block-x", type=non_negative, default=0, metavar="N", help="row/col walks: CUDA's blockDim.x, the threads along one row (@row: tile[ty][tx]) or down one column (@col: tile[tx][ty]); it shapes the warp (default: a whole row or column)")


def pad_elements(args: argparse.Namespace) -> int:
    """``--pad-bytes`` in elements."""
    if args.elem_bytes < 1:
        raise SimsmemError("--elem-bytes", f"expected a positive element size, got {args.elem_bytes}")
    pad, rest = divmod(args.pad_bytes, args.elem_bytes)
    if rest or pad < 0:
        raise SimsmemError("--pad-bytes", f"{args.pad_bytes} is not a non-negative multiple of the {args.elem_bytes}-byte element")
    return pad


def chosen_swizzle(args: argparse.Namespace) -> Swizzle:
    """``--swizzle B M S`` (on element offsets, or byte offsets with ``--bytes``) or ``--tma``, on element offsets."""
    if args.swizzle and args.tma:
        raise SimsmemError("--swizzle/--tma", "give one swizzle, not both")
    if args.tma:
        return recast(TMA_MODES[args.tma], 1, args.elem_bytes)
    sw = Swizzle(*args.swizzle) if args.swizzle else IDENTITY
    return recast(sw, 1, args.elem_bytes) if args.bytes else sw


def accesses(args: argparse.Namespace) -> list[Access]:
    """``--access`` specs as ``Access`` records (with ``--threads`` and ``--block-x``)."""
    return [_with_threads(parse_access(spec), args) for spec in args.access]


def _with_threads(access: Access, args: argparse.Namespace) -> Access:
    """``--threads`` and ``--block-x`` apply to the row and column walks."""
    return attrs.evolve(access, threads=args.threads, block_x=args.block_x) if access.walk in ("row", "col") else access


def write_checked(trace: Trace, arch: str, path: str | Path) -> None:
    """Check ``trace`` against ``arch`` (ops, widths, address range, alignment), then write it atomically."""
    check_against_arch(trace.instructions, load_arch(arch), str(path))
    try:
        write_trace(trace, path)
    except OSError as exc:
        raise SimsmemError(str(path), f"cannot write: {exc.strerror}") from None


def run_tile(args: argparse.Namespace) -> int:
    if args.ctas < 1:
        raise SimsmemError("--ctas", f"expected a positive number of CTAs, got {args.ctas}")
    t: Tile = tile(args.rows, args.cols, args.elem_bytes, pad_elements(args), chosen_swizzle(args), args.base)
    name = args.name or Path(args.output).stem
    trace = steps_trace([(a, t) for a in accesses(args)], name, ctas=args.ctas, arch=args.arch)
    write_checked(trace, args.arch, args.output)
    Console(stderr=True, soft_wrap=True, highlight=False).print(f"wrote {args.output}: {len(trace.instructions)} instructions over {t}")
    return 0


def run_seeds(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in SEED_KERNELS:
        write_checked(seed_trace(name), "sm_90", out / f"{name}.json")
    Console(stderr=True, soft_wrap=True, highlight=False).print(f"wrote {len(SEED_KERNELS)} seed traces to {out}/")
    return 0
