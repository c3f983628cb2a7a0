"""simsmem as a library: trace a kernel in one call, then read what ncu would say of it.

    import numpy as np, simsmem
    x = np.arange(1024, dtype=np.float32)
    out = np.zeros_like(x)
    run = simsmem.trace(CUDA_SOURCE, grid=4, block=256, args=[out, x, 1024])
    run.counters["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"]
    run.instructions   # one row per shared-memory SASS instruction (a DataFrame where pandas is installed)
    print(run.explain())
    run.fixes()[0].statement   # what to write: "__shared__ float tile[32][33]"

``kernel`` is a path (``.cu``, ``.ptx``, ``.cubin``), CUDA source text, or a ``@triton.jit`` function (compiled for
sm_90 with its constexprs given as keywords; its block, shared memory and scratch pointers come from Triton's
metadata). Arguments are numpy arrays (torch CPU tensors too), Python numbers, or the strings ``simsmem trace --arg``
takes (``zeros:BYTES``, ``struct:...``, ``tmap:...``). Arrays are copied in before the launch and, as a CUDA
``memcpy`` back would, out after it: ``out`` above holds the kernel's result.
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs
import numpy as np
from rich.console import Console

from .config import ArchConfig
from .errors import SimsmemError
from .explain.arrays import arrays_of
from .explain.distinct import Distinct, gather
from .explain.fixes import Fix, search
from .explain.instruction import choose, explain, print_explanation
from .kernel.launch import Launch, parse_dims
from .kernel.ptx import entries
from .kernel.tracer import launch_kernel
from .results import pipeline
from .results.analysis import Result
from .results.report import by_instruction
from .traces import stream_of
from .traces.records import Trace

#: Where CUDA source text and numpy arguments are written for the toolchain and the launch.
_SOURCE, _ARGS = "kernel.cu", "arg{}.npy"


@attrs.frozen(eq=False)
class Run:
    """One traced launch: ncu's counters, each shared-memory SASS instruction's, the trace, and the way to explain it."""

    result: Result
    launch: Launch
    timing: Callable[[np.ndarray], float] | None = None  # the launch's cycles for given per-row wavefronts (timed)

    @property
    def counters(self) -> dict[str, int | float]:
        """Kernel totals under ncu's metric names (the whole grid); cycles and stall reasons where the launch was timed."""
        return dict(self.result.metrics)

    @property
    def trace(self) -> Trace:
        """The shared-memory instructions the launch executed, with their lanes' addresses."""
        return self.result.trace

    @property
    def cycles(self) -> int | None:
        """``sm__cycles_elapsed.max`` of the timed launch (None: not timed)."""
        return self.result.metrics.get("sm__cycles_elapsed.max") if self.result.launch is not None else None

    @property
    def instructions(self) -> Any:
        """One row per shared-memory SASS instruction: offset, SASS, source line, executed, wavefronts, ideal wavefronts,
        bank conflicts (whole grid), and stall cycles where timed; a pandas DataFrame where pandas is installed, else a
        list of dicts."""
        rows = by_instruction(self.result)
        try:
            import pandas
        except ImportError:
            return rows
        return pandas.DataFrame(rows)

    def explain(self, index: int | None = None, worst: int = 1) -> str:
        """``simsmem explain``'s text: which lanes each wavefront serves from which bank, why, and the fixes; for the
        ``worst`` patterns with the most bank conflicts, or the trace's instruction ``index``."""
        out = Console(file=io.StringIO(), width=120, highlight=False, color_system=None)
        d, timing = self._distinct()
        chosen = choose(d, index, worst)
        if not chosen:
            return f"No bank conflicts in the {self.result.instructions} instructions of {self.result.name}."
        stalls = self.result.launch.by_pc if self.result.launch is not None else None
        for i, twins in chosen:
            print_explanation(explain(d, i, twins, timing, stalls=stalls), out)
        return out.file.getvalue()

    def fixes(self, top: int = 5) -> list[Fix]:
        """The declarations, paddings and swizzles of the kernel's shared arrays that lower its wavefronts, best for the
        whole kernel first (by predicted cycles where timed); each says what to write (``Fix.statement``)."""
        d, timing = self._distinct()
        return search(d.batch, d.counts.wavefronts, d.counts.bank_conflicts, arrays_of(d.cta), d.arch, timing, top, d.weight)

    def _distinct(self) -> tuple[Distinct, Callable[[np.ndarray], float] | None]:
        """The trace's distinct rows (what explain and the fix search work on), and the launch's cycles for given
        wavefronts of each (timed)."""
        d = gather(stream_of(self.result.trace), self.result.arch, keep="all")
        return d, None if self.timing is None else lambda wavefronts: self.timing(wavefronts[d.ids])


def trace(kernel: Any, *, grid: int | Sequence[int] = 1, block: int | Sequence[int] | None = None, args: Sequence[Any] = (), smem: int = 0,
          globals: dict[str, Any] | None = None, entry: str | None = None, arch: str | ArchConfig = "sm_90", ctas: Sequence[Sequence[int]] | None = None,
          cluster: int | Sequence[int] | None = None, timed: bool = True, num_warps: int = 4, num_stages: int | None = None,
          **constexprs: Any) -> Run:
    """Trace ``kernel`` on the CPU for one launch and count it as ncu would (``timed``: also time it on the timed SM).

    ``entry`` names the kernel where the module has several (a part of a mangled name will do); ``globals`` fills
    ``__constant__``/``__device__`` variables by name (arrays, or ``zeros:BYTES``); ``ctas`` traces some CTAs only (each
    with its whole cluster); ``cluster`` launches thread-block clusters of that shape, as ``simsmem trace --cluster`` does
    (a kernel's own ``__cluster_dims__`` apply without it).
    For a ``@triton.jit`` function, ``num_warps``, ``num_stages`` and its constexprs (keywords) are Triton's, and
    ``block`` and ``smem`` come from its metadata."""
    with tempfile.TemporaryDirectory(prefix="simsmem-") as tmp:
        folder = Path(tmp)
        if _is_triton(kernel):
            path, entry, block, smem, args = _triton(kernel, folder, args, _dims(grid, "grid"), num_warps, num_stages, constexprs)
        else:
            if constexprs or num_stages is not None:
                raise SimsmemError("simsmem.trace", f"keywords {sorted(constexprs) or ['num_stages']} are for a @triton.jit kernel")
            path = _path(kernel, folder)
        if block is None:
            raise SimsmemError("simsmem.trace", "give block= (threads per CTA)")
        texts = [_arg_text(a, folder / _ARGS.format(k)) for k, a in enumerate(args)]
        symbols = {name: _arg_text(v, folder / f"global_{name}.npy") for name, v in (globals or {}).items()}
        held = {}

        def traced(sink):
            stream, held["launch"] = launch_kernel(path, entry or "", _dims(grid, "grid"), _dims(block, "block"), smem, texts,
                                                   [tuple(c) for c in ctas] if ctas else None, Path.cwd(), sink=sink, symbols=symbols,
                                                   cluster=None if cluster is None else _dims(cluster, "cluster"))
            return stream

        source = pipeline.open_source(str(path), arch, traced, timed)
        result = pipeline.count(source, keep="all")
    launch = held["launch"]
    timing = None
    if source.sink is not None:
        result = pipeline.timed(source, result)
        timing = pipeline.cycles(source, result)
    _copy_back(args, launch)
    return Run(result, launch, timing)


def _dims(value: int | Sequence[int], what: str) -> tuple[int, int, int]:
    return parse_dims(",".join(map(str, [value] if isinstance(value, int) else value)), what)


def _path(kernel: Any, folder: Path) -> Path:
    """A kernel file: the path given, or CUDA source text written to ``folder``."""
    if isinstance(kernel, Path) or (isinstance(kernel, str) and "\n" not in kernel and "__global__" not in kernel):
        path = Path(kernel)
        if not path.exists():
            raise SimsmemError(str(kernel), "no such file (CUDA source text must hold a __global__ function)")
        return path
    if not isinstance(kernel, str):
        raise SimsmemError("simsmem.trace", f"expected a path, CUDA source or a @triton.jit function, got {type(kernel).__name__}")
    path = folder / _SOURCE
    path.write_text(kernel)
    return path


def _as_array(value: Any) -> np.ndarray | None:
    """A numpy view of an array argument (numpy, or a torch CPU tensor), or None for anything else."""
    if isinstance(value, np.ndarray):
        return value
    if type(value).__module__.startswith("torch") and hasattr(value, "numpy"):
        if getattr(value, "device", None) is not None and str(value.device) != "cpu":
            raise SimsmemError("simsmem.trace", f"a torch tensor on {value.device}: simsmem runs on the CPU, give a CPU tensor")
        return value.detach().numpy()
    return None


def _arg_text(value: Any, where: Path) -> str:
    """``value`` as ``simsmem trace --arg`` takes it; arrays are written to ``where`` first."""
    array = _as_array(value)
    if array is not None:
        np.save(where, np.ascontiguousarray(array))
        return f"npy:{where}"
    if isinstance(value, (bool, np.bool_)):
        return str(int(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return repr(float(value)) if np.isfinite(value) else str(float(value))
    if isinstance(value, str):
        return value
    raise SimsmemError("simsmem.trace", f"an argument of type {type(value).__name__}: give an array, a number or an --arg string")


def _copy_back(args: Sequence[Any], launch: Launch) -> None:
    """Each array argument gets its buffer's bytes after the launch, as a copy back from the device would give."""
    buffers = {b.name.split(" ", 2)[1]: b for b in launch.memory.buffers if b.name.startswith("argument ")}
    for k, value in enumerate(args):
        array = _as_array(value)
        held = buffers.get(str(k + 1))
        if array is not None and held is not None and array.flags.writeable:
            array.reshape(-1).view(np.uint8)[:] = held.data[: array.nbytes]


def _is_triton(kernel: Any) -> bool:
    return type(kernel).__name__ == "JITFunction" and type(kernel).__module__.startswith("triton")


class _Pointer:
    """What Triton's binder sees of an array argument: its dtype and a 16-byte-aligned address (simsmem's buffers are)."""

    def __init__(self, array: np.ndarray) -> None:
        self.dtype = array.dtype

    @staticmethod
    def data_ptr() -> int:
        return 0


def _triton(fn: Any, folder: Path, args: Sequence[Any], grid: tuple[int, int, int], num_warps: int, num_stages: int | None,
            constexprs: dict[str, Any]):
    """Compile a ``@triton.jit`` function for sm_90 as Triton's launcher would for these arguments (its own binder
    specialises them), and return the PTX's path, the entry, the block, the shared memory and the arguments with
    Triton's scratch pointers appended: its global scratch (where device-built tensor maps go) and profile scratch,
    each its size a program times the ``grid``'s programs, as Triton's launcher allocates them."""
    try:
        import triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource, make_backend
        from triton.runtime.jit import create_function_from_signature
    except ImportError as exc:
        raise SimsmemError("simsmem.trace", f"a Triton kernel needs Triton: {exc}") from None
    target = GPUTarget("cuda", 90, 32)
    backend = make_backend(target)
    mocks = [_Pointer(a) if (a := _as_array(v)) is not None else v for v in args]
    options = {"num_warps": num_warps, **({"num_stages": num_stages} if num_stages is not None else {})}
    try:
        binder = create_function_from_signature(fn.signature, fn.params, backend)
        bound, specialization, _ = binder(*mocks, **constexprs, **options)
        opts, signature, consts, attrs_ = fn._pack_args(backend, {**constexprs, **options}, bound, specialization, None)
        compiled = triton.compile(ASTSource(fn, signature, consts, attrs_), target=target, options=opts.__dict__)
    except (TypeError, KeyError, AttributeError, ValueError) as exc:
        raise SimsmemError(f"triton {triton.__version__}", f"{fn.__name__} did not compile for these arguments: {exc}") from None
    md, ptx = compiled.metadata, compiled.asm["ptx"]
    path = folder / f"{md.name}.ptx"
    path.write_text(ptx)
    programs = grid[0] * grid[1] * grid[2]
    scratch = [f"zeros:{size * programs}" for size in (md.global_scratch_size, md.profile_scratch_size)]
    return path, md.name, (md.num_warps * 32, 1, 1), md.shared, [*args, *scratch[: len(entries(ptx)[md.name]) - len(args)]]
