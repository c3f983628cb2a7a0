"""simsmem: a cycle-level simulator of an NVIDIA SM's shared-memory load/store path.

The data flows one way::

    trace file -> validated instruction records (simsmem.trace)
               -> phases and wavefronts, the analytic bank model (simsmem.banks)
               -> the discrete-event engine (simsmem.engine)
               -> counters named as ncu names them (simsmem.metrics)
               -> reports (simsmem.report, simsmem.cli)
"""

__version__ = "0.1.0"
