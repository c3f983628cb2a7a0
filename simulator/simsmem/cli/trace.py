"""``simsmem trace KERNEL``: run a kernel (PTX, cubin or CUDA source) on the CPU and write its trace.

KERNEL is a ``.ptx`` file (nvcc -ptx, Triton, hand-written), a ``.cubin``, or a ``.cu`` file (nvcc must
be installed). ptxas assembles PTX for sm_90 as the driver does; simsmem then executes the SASS of
every warp of the chosen CTAs with real data and records each shared-memory instruction with its
lanes' addresses. No GPU is needed: ``pip install 'simsmem[cuda]'`` gives ptxas, nvcc and nvdisasm.

Arguments, one ``--arg`` per kernel parameter in order (write ``--arg=-1`` for a negative number):
an integer (decimal or 0x hex), a float (with '.' or an exponent) for .f32/.f64 parameters,
``zeros:BYTES`` (a pointer to a new zero-filled buffer; zeros:0 is a null pointer), ``npy:PATH``
(a pointer to a buffer holding that numpy file's data), ``tmap:...`` (a TMA tensor map), and for a
struct passed by value (``.param .align A .b8 name[N]``) ``bytes:HEX`` (its N bytes, 2N hex digits,
byte 0 first) or ``struct:TYPE=VALUE,...`` (fields laid out as C does; TYPE i8 u8 i16 u16 i32 u32
i64 u64 f16 bf16 f32 f64 ptr tmap, a ptr taking zeros:BYTES, npy:PATH or arg:I, a tmap the spec of a
``tmap:`` argument, as ``tmap=SPEC`` or ``tmap=(SPEC)``: a CuTe TMA atom's map; {...} nests a struct).
``--global NAME=npy:PATH`` (or ``NAME=zeros:BYTES``) writes data over a ``__constant__`` or
``__device__`` variable of the module before the launch. ``--cluster X,Y,Z`` launches thread-block
clusters of that shape (a kernel's own ``__cluster_dims__`` apply without it); a ``--cta`` brings its
whole cluster, whose CTAs run together. A ``tmap:...`` for a pointer parameter passes a tensor map
in global memory.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

import attrs

from ..config import load_arch
from ..errors import SimsmemError
from ..kernel.launch import parse_cta, parse_dims, parse_globals
from ..kernel.program import KERNEL_SUFFIXES
from ..kernel.tracer import TRACED_ARCH, StreamSink, max_steps, trace_kernel
from ..progress import add_quiet_flag, progress
from ..traces import TraceStream, write_stream
from . import positive


def add_launch_options(p: argparse.ArgumentParser, required: bool) -> None:
    """The options that say which kernel to run and how it is launched."""
    g = p.add_argument_group("kernel launch" + ("" if required else " (when the input is a .ptx, .cubin or .cu kernel)"))
    g.add_argument("--kernel", required=required, help="the kernel: its .entry name, or an unambiguous part of a mangled name")
    g.add_argument("--grid", required=required, help="X[,Y[,Z]] CTAs")
    g.add_argument("--block", required=required, help="X[,Y[,Z]] threads per CTA")
    g.add_argument("--smem", type=int, default=0, metavar="BYTES", help="dynamic shared memory per CTA (default 0)")
    g.add_argument("--cluster", metavar="X[,Y[,Z]]", help="thread-block clusters of this shape (a kernel's own __cluster_dims__ need not be given)")
    g.add_argument("--arg", action="append", default=[], metavar="VALUE",
                   help="one per kernel parameter, in order: INT, FLOAT, zeros:BYTES, npy:PATH, tmap:..., bytes:HEX, struct:TYPE=VALUE,...")
    g.add_argument("--global", dest="globals", action="append", default=[], metavar="NAME=DATA",
                   help="a __constant__ or __device__ variable's data: NAME=npy:PATH or NAME=zeros:BYTES (repeat)")
    g.add_argument("--cta", action="append", default=[], metavar="X,Y,Z", help="trace only these CTAs (repeat; default: every CTA of the grid)")
    g.add_argument("--ctas", choices=("all",), help="trace every CTA of the grid (the default)")
    g.add_argument("--max-instructions", type=positive, metavar="N",
                   help=f"stop with an error, naming the loop, once the CTAs traced together have taken N steps (one instruction "
                        f"each for the warps at it) without ending; default: what about 30 s of one core allows, {max_steps(32):,} "
                        f"for one warp to {max_steps(4096):,} for 4096 threads")
    g.add_argument("--jobs", type=positive, metavar="N",
                   help="run the CTAs' batches on N local Dask worker processes once the run looks longer than a few seconds "
                        "(run: a trace file's chunks, read and counted on N threads); default: this machine's cores; 1: all here; "
                        "the output is a serial run's, byte for byte")
    g.add_argument("--scheduler", metavar="ADDRESS", help="run the CTAs' batches (run: a trace file's chunks) on the Dask cluster at ADDRESS "
                                                          "(tcp://HOST:PORT)")


def open_kernel(args: argparse.Namespace, path: str, sink: StreamSink | None = None) -> TraceStream:
    """The trace of the kernel the launch options describe, executed as its chunks are read (with a progress bar);
    ``sink``: keep the warp streams the timed SM needs."""
    missing = [f"--{o}" for o in ("kernel", "grid", "block") if getattr(args, o) is None]
    if missing:
        raise SimsmemError(path, f"a kernel needs {', '.join(missing)} to run")
    if args.ctas and args.cta:
        raise SimsmemError("--cta", "give --ctas all or --cta, not both")
    ctas = [parse_cta(c) for c in args.cta] if args.cta else None
    grid, block = parse_dims(args.grid, "grid"), parse_dims(args.block, "block")
    symbols = parse_globals(args.globals)
    cluster = parse_dims(args.cluster, "cluster") if getattr(args, "cluster", None) else None
    hook = {"advance": lambda n: None}
    from ..scale.parallel import runner

    stream = trace_kernel(path, args.kernel, grid, block, args.smem, args.arg, ctas, limit=args.max_instructions, advance=lambda n: hook["advance"](n),
                          sink=sink, symbols=symbols, runner=runner(args.jobs, args.scheduler), cluster=cluster)
    if stream.kernel.get("ptxas", {}).get("note"):
        print(f"simsmem: note: {stream.kernel['ptxas']['note']} ({stream.kernel['ptxas']['from']})", file=sys.stderr)

    def chunks():
        with progress(f"running {stream.name}", total=stream.size, quiet=getattr(args, "quiet", False)) as advance:
            hook["advance"] = advance
            yield from stream.chunks
    return attrs.evolve(stream, chunks=chunks())


def tracer(args: argparse.Namespace, path: str) -> Callable[[StreamSink | None], TraceStream]:
    """How ``pipeline.open_source`` traces the kernel file ``path``: with the launch options in ``args``."""
    return lambda sink: open_kernel(args, path, sink)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("trace", help="run a kernel (.ptx, .cubin, .cu) on the CPU and write its trace", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kernel_file", metavar="KERNEL", help="a .ptx, .cubin or .cu file")
    add_launch_options(p, required=True)
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="the trace to write: .json, .json.gz, .jsonl, .jsonl.gz or .npz")
    add_quiet_flag(p)
    p.set_defaults(func=trace)


def trace(args: argparse.Namespace) -> int:
    if not args.kernel_file.endswith(KERNEL_SUFFIXES):
        raise SimsmemError(args.kernel_file, f"expected a kernel: {', '.join(KERNEL_SUFFIXES)}")
    stream = open_kernel(args, args.kernel_file, StreamSink(load_arch(TRACED_ARCH).sm.sms))
    rows = [0]

    def counted():
        for chunk in stream.chunks:
            rows[0] += len(chunk.instructions)
            yield chunk
    write_stream(attrs.evolve(stream, chunks=counted()), args.output)
    print(f"simsmem: wrote {args.output}: {rows[0]:,} shared-memory warp-instructions of {stream.kernel['executed']:,} executed", file=sys.stderr)
    return 0
