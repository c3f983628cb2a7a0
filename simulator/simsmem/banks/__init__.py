"""The analytic bank model: phases, wavefronts and bank conflicts of each instruction.

``count`` (a compiled loop over whole batches) is what simsmem runs; ``reference`` is a small
readable model of the same rule, instruction by instruction, that tests hold it against and that
``simsmem explain`` draws from.
"""

from .model import Counts, count, loaded
from .phases import Shape, shape_of
from .reference import Schedule, Wavefront, schedule

__all__ = ["Counts", "Schedule", "Shape", "Wavefront", "count", "loaded", "schedule", "shape_of"]
