"""simsmem: a cycle-level simulator of an NVIDIA SM's shared-memory load/store path.

The data flows one way::

    trace file -> instruction records held to trace v1 (simsmem.trace)
               -> checked against the arch (simsmem.validate)
               -> phases and wavefronts, the analytic bank model (simsmem.banks)
               -> the discrete-event engine (simsmem.engine)
               -> counters named as ncu names them (simsmem.metrics)
               -> reports (simsmem.report, simsmem.cli)

``simsmem.analysis`` runs the steps from reading to counting in one streaming pass, into one ``Result``
that the reports render.
"""

__version__ = "0.1.0"
