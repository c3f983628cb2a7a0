"""The timing engine: a discrete-event model (simpy) of the SM's shared-memory load/store path.

::

    warps (warp.py) --slots--> sub-partitions (subpartition.py, port.py) --wavefronts--> data path (datapath.py)

Each warp's instructions become issue slots (``program.py``): the other instructions a trace gives before
each shared-memory one (``others`` one by one, or ``early`` and ``issue`` counts), then that one, each
with its stall, its wait for earlier loads and its pipe. Each sub-partition's scheduler issues one slot
per ``issue_interval`` cycles, to the first warp in the order of ``issue_priority`` (``port.py``) whose
next slot may issue: its pipe free (``timing.pipes``), and for a shared-memory one the MIO throttle
(``shared_issue_interval``) past and an entry of its LSU queue (``queue_depth``) and, where the arch
limits them, one of the SM's places in flight (``in_flight``: ``entries.py``) held. The LSU accepts the
queued instructions one per ``accept_interval`` cycles; each warp's instructions then feed the data path
in order, one wavefront per ``feed_interval`` cycles (several warps of a sub-partition at once); the
data path, one pass of the 32 bank ports per wavefront, serves ``wavefronts_per_cycle`` wavefronts a
cycle among the oldest unfinished instructions, ``window_phases`` phases of them, in the order of
``path_order`` (the oldest first, with ``overtake``; or new instructions' first wavefronts first, the
sub-partitions in turn, then replays: the rule, ``passing.py``). The counting model
(``simsmem.banks.count``) says how many wavefronts each instruction makes; the engine only schedules
them.

``simulate`` runs this model with its whole state in one array (``sm.py``): each sub-partition's
scheduler is a simpy process whose every wake is one compiled call (the issue rule, ``compiled.py``; the
LSU queue entries and places in flight; the data path, ``datapath.py``, passed without simpy events,
only when the engine looks: cycles before ``now + to_banks`` are settled, since no instruction issued
later reaches the banks before then). ``reference.py`` runs the same model as written, in Python, the
data path one simpy event per busy cycle (``passing.py``, ``subpartition.py``, ``entries.py``,
``warp.py``): slow, for tests, which hold the two identical.
"""

from .program import Program, program
from .simulate import simulate
from .timeline import Timeline, latency_by_form

__all__ = ["Program", "Timeline", "latency_by_form", "program", "simulate"]
