"""``simsmem check`` as a pytest assertion: a kernel's bank conflicts stay under a bound.

    from simsmem.testing import assert_bank_conflicts

    def test_transpose_has_no_bank_conflicts():
        assert_bank_conflicts("transpose.cu", kernel="transpose", grid=(4, 4), block=(32, 8),
                              args=["zeros:65536", "zeros:65536"], max_bank_conflicts=0)

A failure's message is ``simsmem check``'s line: the count, the bound, and the worst SASS instruction with its source line.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .config import load_arch
from .kernel.launch import parse_dims
from .kernel.tracer import trace_kernel
from .results.analysis import analyse_stream
from .results.check import Verdict, check


def _dims(value: int | Sequence[int], what: str) -> tuple[int, int, int]:
    return parse_dims(",".join(map(str, [value] if isinstance(value, int) else value)), what)


def assert_bank_conflicts(path: str | Path, *, kernel: str, grid: int | Sequence[int], block: int | Sequence[int], args: Sequence[str] = (),
                          smem: int = 0, max_bank_conflicts: int = 0, op: Sequence[str] = (), per_instruction: bool = False,
                          arch: str = "sm_90") -> Verdict:
    """Trace ``kernel`` of ``path`` (.cu, .ptx or .cubin) with ``args`` as ``simsmem trace --arg`` takes them, and fail
    the test if its bank conflicts of ``op`` (all ops by default) are more than ``max_bank_conflicts`` (per SASS
    instruction with ``per_instruction``). Returns the verdict when it passes."""
    stream = trace_kernel(path, kernel, _dims(grid, "grid"), _dims(block, "block"), smem, list(args))
    verdict = check(analyse_stream(stream, load_arch(arch)), max_bank_conflicts, tuple(op), per_instruction)
    if not verdict.passed:
        raise AssertionError(verdict.line())
    return verdict
