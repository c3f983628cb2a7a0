"""simsmem: a cycle-level simulator of an NVIDIA SM's shared-memory path.

``simsmem.trace(kernel, grid=..., block=..., args=[...])`` traces a kernel (a CUDA source string, a file, or a
``@triton.jit`` function) and returns what ncu would say of it (``simsmem.api``). The data flows one way, and the
packages show it::

    kernel (simsmem.kernel: compiled, loaded, executed on the CPU)
      -> trace: instruction records held to trace v1 (simsmem.traces)
      -> checked against the arch, counted in one streaming pass (simsmem.results: pipeline, validate, analysis)
      -> phases and wavefronts, the bank model (simsmem.banks)
      -> timed: the whole SM for a traced kernel (simsmem.sm), the LSU engine for a trace file (simsmem.engine)
      -> counters under ncu's names, reports and the CI check (simsmem.results: metrics, ncu_csv, report, check)
      -> why and what to change (simsmem.explain), over tiles and swizzles (simsmem.tiles)

``simsmem.scale`` spreads launches over Dask workers and sweeps; ``simsmem.cli`` is the command line over all of it.
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    """``trace`` and ``Run`` from ``simsmem.api``, imported when first asked for (the command line never needs them)."""
    if name in ("trace", "Run"):
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'simsmem' has no attribute {name!r}")
