"""The timing engine: a discrete-event model (simpy) of the SM's shared-memory load/store path.

::

    warps --slots--> sub-partitions' ports (port.py) --LSU queues, places in flight (entries.py)--> data path (path.py)

Each warp's instructions become issue slots (``program.py``): the other instructions a trace gives before
each shared-memory one (``others`` one by one, or runs of ``early`` and ``issue`` one-cycle ones), then that
one, each with its stall, its wait for earlier loads and its pipe. Each sub-partition's port issues one
slot per ``issue_interval`` cycles, to the first warp in the order of ``issue_priority`` whose next slot
may issue; a shared-memory instruction takes an entry of its LSU queue and, where the arch limits them, one
of the SM's places in flight; the LSU accepts them in order, one per ``accept_interval`` cycles, and the
data path serves ``wavefronts_per_cycle`` wavefronts a cycle among the oldest pending instructions
(``path.py``). The counting model (``simsmem.banks.count``) says how many wavefronts each instruction makes;
the engine only schedules them.

The rules are written once (``port.py``, ``entries.py``, ``path.py``, ``sm.py``) over named tables in one
buffer (``state.py``), compiled by numba or run as the same plain Python (``jit.py``: a small trace runs at
once, without compiling). The SM is a simpy process that sleeps until the next cycle anything is due at and
then runs that cycle's events, in their order, with one call of the rules (``simulate.py``); a ``Timeline``
is what it gives.
"""

from .program import Program, program
from .simulate import simulate
from .timeline import Timeline, latency_by_form

__all__ = ["Program", "Timeline", "latency_by_form", "program", "simulate"]
