"""What a simulation gives: the cycle each instruction issued and completed, and what they add up to."""

from __future__ import annotations

import attrs
import numpy as np


@attrs.frozen(eq=False)
class Timeline:
    """Issue and completion cycles of every instruction (trace order), counted from the first cycle."""

    issue: np.ndarray  # int64
    complete: np.ndarray  # int64: the cycle its data is returned (a load) or written (a store)
    wavefronts: np.ndarray  # int64: wavefronts of each instruction the data path passed

    @property
    def cycles(self) -> int:
        """Cycles from the start until the last instruction completed (0 for an empty trace)."""
        return int(self.complete.max(initial=0))

    @property
    def latency(self) -> np.ndarray:
        """Cycles from issue to completion of each instruction."""
        return self.complete - self.issue

    @property
    def wavefronts_per_cycle(self) -> float:
        """Data-path utilisation: wavefronts served per simulated cycle."""
        return float(self.wavefronts.sum() / self.cycles) if self.cycles else 0.0


def latency_by_form(timeline: Timeline, labels: np.ndarray) -> dict[str, tuple[float, int, int]]:
    """Average, minimum and maximum latency per instruction form (``labels``: SASS names, one per instruction)."""
    lat = timeline.latency
    return {str(name): (float(lat[labels == name].mean()), int(lat[labels == name].min()), int(lat[labels == name].max()))
            for name in sorted(set(labels))}
