"""``simsmem swizzle``: see where a swizzle puts a tile's elements, check it, or search for one.

``simsmem swizzle B M S`` takes CuTe's order and meaning (``Swizzle<B,M,S>``) on element offsets
(``--bytes``: on byte offsets, with ``--elem-bytes``) and prints the physical column of every
element of a ``--rows x --cols`` tile: ``simsmem swizzle 3 0 3 --rows 8 --cols 8`` is seed 000's
``SMS=(3,0,3)`` table. Seed 004 writes its template as ``swizzle<S,B,M>`` on half offsets: its
``swizzle<3,1,3>`` is CuTe ``Swizzle<1,3,3>``, ``simsmem swizzle 1 3 3``.

``--check --access SPEC ...`` runs the accesses over the tile through the bank model, without and
with the swizzle; ``--access GMMA`` (the tile's rows along M or N) or ``GMMA@mn`` (its rows along K) says
which wgmma matrix descriptors read the tile as an operand, or that none does. ``--search --access SPEC ...`` scores every Swizzle(B <= 3, M <= 4, |S| <= 4) and
row padding (0 to 128 bytes in steps of the widest access) and prints the best, least padding first.

``--search --trace TRACE [--region NAME]`` (TRACE: a trace, or a kernel with the launch options of ``simsmem run``)
tries every new declaration, padding and swizzle of the trace's shared arrays (or of the one named) over the whole
trace and lists them as the code to write, best for the whole kernel first (``simsmem.explain.fixes``).
"""

from __future__ import annotations

import argparse

import numpy as np
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from ..banks import count
from ..config import load_arch
from ..errors import SimsmemError
from ..explain.arrays import Array, arrays_of, find, region
from ..explain.fixes import cycles_of, search
from ..patterns import steps_trace
from ..patterns.search import search as search_tile
from ..progress import add_quiet_flag, progress
from ..results.metrics import labels
from ..results.validate import check_against_arch
from ..tiles.hopper import Descriptor, describe
from ..tiles.layout import Tile, tile
from ..tiles.swizzle import IDENTITY, TMA_MODES, recast
from . import Console, non_negative, positive
from .explain import open_input
from .gen import (
    accesses,
    add_access_arguments,
    add_tile_arguments,
    chosen_swizzle,
    pad_elements,
)
from .trace import add_launch_options

SHOW = {"col": "physical column", "offset": "element offset", "bank": "bank of the element's first byte"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("swizzle", help="tabulate, check or search CuTe swizzles and padding", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("swizzle", nargs="*", type=int, metavar="B M S", help="CuTe Swizzle<B,M,S> (seed 004's swizzle<S,B,M>: <3,1,3> is 1 3 3)")
    p.add_argument("--bytes", action="store_true", help="the swizzle (or the search) acts on byte offsets, not element offsets")
    p.add_argument("--tma", choices=tuple(TMA_MODES), help="TMA swizzle mode instead of B M S (CuTe Sw<1|2|3,4,3> on byte offsets)")
    add_tile_arguments(p)
    p.add_argument("--show", choices=tuple(SHOW), default="col", help="what the table shows for each element (default: physical column)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="wavefronts per instruction of --access without and with the swizzle")
    mode.add_argument("--search", action="store_true", help="the swizzles and paddings with the fewest wavefronts for --access")
    add_access_arguments(p, required=False)
    p.add_argument("--max-b", type=non_negative, default=3, help="search: largest B (default 3)")
    p.add_argument("--max-m", type=non_negative, default=4, help="search: largest M (default 4)")
    p.add_argument("--max-s", type=non_negative, default=4, help="search: largest |S| (default 4)")
    p.add_argument("--max-pad-bytes", type=non_negative, default=128, help="search: largest row padding (default 128)")
    p.add_argument("--top", type=positive, default=10, help="search: how many candidates to list (default 10)")
    p.add_argument("--trace", metavar="TRACE", help="search: a trace, or a kernel (.ptx, .cubin, .cu) with the launch options below, instead "
                                                    "of --access: every declaration, padding and swizzle of its shared arrays, ranked by the "
                                                    "whole kernel's wavefronts (its cycles, for a kernel)")
    p.add_argument("--region", metavar="NAME|BASE:BYTES", help="with --trace: change only the shared array NAME (simsmem run lists them), "
                                                               "or the bytes [BASE, BASE+BYTES) taken as one array (hex or decimal)")
    p.add_argument("--arch", default="sm_90", help="arch for --check and --search (default sm_90)")
    add_launch_options(p, required=False)
    add_quiet_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    console = Console(highlight=False, soft_wrap=True)
    if args.search:
        if args.swizzle or args.tma:
            raise SimsmemError("--search", "searches all swizzles; give no B M S or --tma")
        _search(args, console)
        return 0
    if len(args.swizzle) not in (0, 3) or (not args.swizzle and not args.tma):
        raise SimsmemError("swizzle", "give B M S (three integers) or --tma MODE")
    sw = chosen_swizzle(args)
    t = tile(args.rows, args.cols, args.elem_bytes, pad_elements(args), sw)
    if args.check:
        _check(args, t, console)
    else:
        if args.access:
            raise SimsmemError("--access", "only --check and --search take accesses")
        _table(args, t, console)
    return 0


def _table(args: argparse.Namespace, t: Tile, console: Console) -> None:
    sw = t.layout.swizzle
    console.print(sw.describe(), markup=False)
    if args.bytes or args.tma:
        console.print(f"on {args.elem_bytes}-byte element offsets: {sw}", markup=False)
    row, col = np.meshgrid(np.arange(t.rows), np.arange(t.cols), indexing="ij")
    offset = t.layout(row, col)
    stride = t.layout.layout.stride[0]
    if args.show == "offset":
        cells = offset
    elif args.show == "bank":
        cells = t.byte_offset(row, col) // 4 % 32
    elif (offset // stride == row).all():
        cells = offset % stride
    else:  # the swizzle moves elements between rows: show row,col
        cells = np.char.add(np.char.add((offset // stride).astype(str), ","), (offset % stride).astype(str))
    table = Table(title=f"{SHOW[args.show]} of each element of {t}")
    table.add_column("row\\col", justify="right")
    for c in range(t.cols):
        table.add_column(str(c), justify="right")
    for r in range(t.rows):
        table.add_row(str(r), *(str(x) for x in cells[r]))
    _fit(console, table)
    console.print(table)


def _check(args: argparse.Namespace, t: Tile, console: Console) -> None:
    arch = load_arch(args.arch)
    if not args.access:
        raise SimsmemError("--check", "give the accesses to check with --access")
    plain = tile(t.rows, t.cols, t.elem_bytes, pad_elements(args), IDENTITY)
    wgmma = [spec for spec in args.access if spec.split("@")[0] == "GMMA"]
    for spec in wgmma:
        console.print(_wgmma_check(spec, plain, t), markup=False, soft_wrap=True)
    args.access = [spec for spec in args.access if spec not in wgmma]
    if not args.access:
        return
    steps = accesses(args)
    results = []
    for x in (plain, t):
        batch = steps_trace([(a, x) for a in steps], "check").instructions
        check_against_arch(batch, arch, str(x))
        results.append(count(batch, arch))
    names = labels(batch)
    sw = t.layout.swizzle
    table = Table(title=f"Wavefronts of {' + '.join(map(str, steps))} over {t}: plain, and swizzled by {sw}")
    for col in ("Index", "Warp", "Op", "Plain", "Swizzled", "Ideal"):
        table.add_column(col, justify="right", no_wrap=col == "Op")
    before, after = results
    for i in range(len(batch)):
        table.add_row(str(i), str(batch.warp[i]), names[i], str(before.wavefronts[i]), str(after.wavefronts[i]), str(after.ideal[i]))
    table.add_row("all", "", "", *(str(int(x.sum())) for x in (before.wavefronts, after.wavefronts, after.ideal)), style="bold")
    console.print(table)
    console.print(f"bank conflicts: {int(before.bank_conflicts.sum())} plain, {int(after.bank_conflicts.sum())} with {sw}", markup=False)


def _wgmma_check(spec: str, plain: Tile, t: Tile) -> str:
    """``GMMA`` (the tile's rows along M or N, K-major) or ``GMMA@mn`` (its rows along K): the matrix descriptors that
    make a wgmma read the tile as an operand, or why none does (``hopper.describe``)."""
    walk = spec.partition("@")[2] or "k"
    if walk not in ("k", "mn"):
        raise SimsmemError(spec, "GMMA reads the tile K-major (GMMA: its rows along M or N) or GMMA@mn (its rows along K)")
    mn = walk == "mn"
    if t.elem_bytes not in (1, 2, 4):
        raise SimsmemError(spec, f"wgmma operands have 1, 2 or 4-byte elements, not {t.elem_bytes}")
    rows, cols = np.indices((t.rows, t.cols))
    placed, unswizzled = t.byte_offset(rows, cols), plain.byte_offset(rows, cols)
    if mn:
        placed, unswizzled = placed.T, unswizzled.T
    descs = describe(unswizzled, placed, t.elem_bytes, mn)
    what = f"{spec} ({'M/N' if mn else 'K'}-major operand, {placed.shape[0]} rows along M or N)"
    if descs is None:
        return (f"{what}: no matrix descriptor reads {t}: wgmma needs Swizzle<b,4,3> on byte addresses with rows of exactly the "
                "32, 64 or 128-byte swizzle span (or 16-byte core matrices), unpadded, M/N a multiple of 8")
    f = Descriptor.of(np.array(descs, dtype=np.uint64))
    mode = {0: "no swizzle", 1: "128B swizzle", 2: "64B swizzle", 3: "32B swizzle"}[int(f.mode[0])]
    per_step = placed.shape[0] * 32 // 128
    return (f"{what}: a canonical layout, {mode}, LBO {int(f.lbo[0])}, SBO {int(f.sbo[0])}, base offset {int(f.base[0])}: "
            f"{len(descs)} K steps of 32 bytes, descriptors {', '.join(f'{d:#018x}' for d in descs[:4])}{' ...' if len(descs) > 4 else ''}; "
            f"{per_step} wavefronts a step, one 8x16-byte core matrix each on all 32 banks: no bank conflicts")


def _search(args: argparse.Namespace, console: Console) -> None:
    if args.trace:
        _search_trace(args, console)
        return
    if args.region:
        raise SimsmemError("--region", "only --trace takes a region")
    if not args.access:
        raise SimsmemError("--search", "give the access set with --access, or a trace with --trace")
    steps = accesses(args)
    result = search_tile(steps, args.rows, args.cols, args.elem_bytes, load_arch(args.arch), unit_bytes=1 if args.bytes else None,
                    max_bits=args.max_b, max_base=args.max_m, max_shift=args.max_s, max_pad_bytes=args.max_pad_bytes)
    unit = "byte" if args.bytes else f"{args.elem_bytes}-byte element"
    table = Table(title=f"{' + '.join(map(str, steps))} over a {args.rows}x{args.cols} tile of {args.elem_bytes}-byte elements: "
                  f"{len(result.scores)} candidates (swizzles on {unit} offsets, {result.skipped} skipped: they split an access; "
                  "Pad: row padding, Smem: bytes the tile spans)")
    for col in ("Rank", "Swizzle", "Pad", "Wavefronts", "Ideal", "Conflicts", "Per Access", "Smem"):
        table.add_column(col, justify="right", no_wrap=col in ("Swizzle", "Per Access"))
    best = result.scores[0].wavefronts
    for rank, s in enumerate(result.scores[: args.top], 1):
        cells = (rank, s.swizzle, s.pad_bytes, s.wavefronts, s.ideal, s.bank_conflicts, " + ".join(map(str, s.per_access)), s.smem_bytes)
        table.add_row(*map(str, cells), style="bold" if s.wavefronts == best else None)
    console.print(table)
    win = result.scores[0]
    sw = f"{win.swizzle} on {unit} offsets" + (f" ({recast(win.swizzle, 1, args.elem_bytes)} on elements)" if args.bytes and not win.swizzle.is_identity else "")
    console.print(f"best: {sw}, {'no padding' if not win.pad_bytes else f'{win.pad_bytes} bytes of padding per row'}: {win.wavefronts} wavefronts (ideal {win.ideal})", markup=False)


def _search_trace(args: argparse.Namespace, console: Console) -> None:
    if args.access:
        raise SimsmemError("--trace", "give the accesses with --access or a trace with --trace, not both")
    d, launch = open_input(args, args.trace, args.arch if args.arch != "sm_90" else None)
    timing = cycles_of(launch) if launch is not None else None
    arrays = arrays_of(d.cta)
    if args.region:
        arrays = (_region(args.region, d.cta, arrays),)
    c = d.counts
    with progress(f"trying changes of {len(arrays)} shared arrays over {len(d.batch):,} distinct rows", quiet=args.quiet):
        fixes = search(d.batch, c.wavefronts, c.bank_conflicts, arrays, d.arch, timing, args.top, d.weight)
    now = d.total(c.wavefronts)
    where = ", ".join(f"{a.name}{a.shape()} at {a.base:#x}" for a in arrays) or "no shared array"
    table = Table(title=f"{d.name or args.trace}: changes of {where}, best for the whole kernel first")
    for col in ("Rank", "Write", "Wavefronts", "Bank Conflicts", "Cycles", "Smem", "On the trace's bytes"):
        table.add_column(col, justify="left" if col in ("Write", "On the trace's bytes") else "right", no_wrap=col != "On the trace's bytes")
    cycles_now = fixes[0].cycles_now if fixes else None
    table.add_row("", "as written", f"{now:,}", f"{d.total(c.bank_conflicts):,}", f"{cycles_now:,.0f}" if cycles_now else "", "", "", style="dim")
    for rank, f in enumerate(fixes, 1):
        table.add_row(str(rank), Text(f.statement), f"{f.wavefronts:,}", f"{f.bank_conflicts:,}", f"{f.cycles:,.0f}" if f.cycles is not None else "",
                      f"{f.change.extra:+,}", Text(f.change.what))
    _fit(console, table)
    console.print(table)
    if fixes:
        console.print(f"best: {fixes[0].array.name}{fixes[0].array.shape()}: write {fixes[0].statement} ({fixes[0].effect()})", markup=False)
    else:
        console.print(f"no padding or swizzle of {where} lowers the kernel's {now:,} wavefronts", markup=False)


def _fit(console: Console, table: Table) -> None:
    """As wide as ``table`` needs: a narrow terminal (or a pipe's 80 columns) would cut its columns to "..."."""
    console.width = max(console.width, Measurement.get(console, console.options.update_width(1 << 16), table).maximum)


def _region(text: str, trace, arrays) -> Array:
    """``--region``: an array's name, or ``BASE:BYTES`` (hex or decimal) taken as one array."""
    if ":" not in text:
        return find(arrays, text)
    try:
        base, size = (int(x, 0) for x in text.split(":"))
    except ValueError:
        raise SimsmemError("--region", f"expected an array's name or BASE:BYTES, got {text!r}") from None
    if base < 0 or size <= 0:
        raise SimsmemError("--region", f"expected BASE >= 0 and BYTES > 0, got {text!r}")
    return region(trace, base, size)
