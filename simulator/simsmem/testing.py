"""``simsmem check`` as a pytest assertion: a kernel's bank conflicts stay under a bound.

    from simsmem.testing import assert_bank_conflicts

    def test_transpose_has_no_bank_conflicts():
        assert_bank_conflicts("transpose.cu", entry="transpose", grid=(4, 4), block=(32, 8),
                              args=["zeros:65536", "zeros:65536", 128], max_bank_conflicts=0)

A failure's message is ``simsmem check``'s line: the count, the bound, and the worst SASS instruction with its source line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .api import trace
from .results.check import Verdict, check


def assert_bank_conflicts(kernel: Any, *, max_bank_conflicts: int = 0, op: Sequence[str] = (), per_instruction: bool = False,
                          **launch: Any) -> Verdict:
    """Trace ``kernel`` as ``simsmem.trace`` does (a path, CUDA source or a ``@triton.jit`` function; ``launch``: its
    keywords, ``grid``, ``block``, ``args``, ``entry``, ...), and fail the test if its bank conflicts of ``op`` (all ops
    by default) are more than ``max_bank_conflicts`` (per SASS instruction with ``per_instruction``). Returns the
    verdict when it passes."""
    verdict = check(trace(kernel, timed=False, **launch).result, max_bank_conflicts, tuple(op), per_instruction)
    if not verdict.passed:
        raise AssertionError(verdict.line())
    return verdict
