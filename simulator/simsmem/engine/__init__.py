"""The timing engine: a discrete-event model (simpy) of the SM's shared-memory load/store path.

::

    warps (warp.py) --issue--> sub-partitions (subpartition.py, port.py) --wavefronts--> data path (datapath.py)

A warp issues its instructions in trace order (``early``, ``wait``, ``issue``, ``delay``); its sub-partition's port
takes one instruction per ``issue_interval`` cycles from the warp ``issue_priority`` picks among those that
want it (the youngest, the oldest, or in turn: ``port.py``; integer-ALU ones also at most one per ``alu_interval`` cycles on its ALU pipe), shared-memory ones
at most one per ``shared_issue_interval`` cycles and into an LSU queue of
``queue_depth`` entries (a full queue stalls issue; so does the SM holding ``in_flight.entries`` loads
of all sub-partitions until ``in_flight.after`` cycles past their last wavefront: ``entries.py``),
which the LSU accepts one per ``accept_interval``
cycles; each warp's instructions then feed the data path
in order, one wavefront per ``feed_interval`` cycles (several warps of a sub-partition at once); the data
path, one pass of the 32 bank ports per wavefront, serves ``wavefronts_per_cycle`` wavefronts a cycle,
the oldest instruction (the first issued) first, and only among the oldest unfinished ones,
``window_phases`` phases of them; a younger instruction's first wavefront overtakes a short one's
replay when they reached the banks close together (``overtake``; the rule: ``passing.py``). The
counting model (``simsmem.banks.count``) says how many wavefronts each instruction makes; the engine
only schedules them.

``simulate`` passes the data path's cycles in compiled code, without simpy events, only when the engine
looks (an instruction issues, a warp finds no entry free or waits): cycles before ``now + to_banks`` are
settled, since no instruction issued later reaches the banks before then. ``reference.py`` runs the
rule as written, one cycle event at a time (slow, for tests).
"""

from .program import Program, program
from .simulate import simulate
from .timeline import Timeline, latency_by_form

__all__ = ["Program", "Timeline", "latency_by_form", "program", "simulate"]
