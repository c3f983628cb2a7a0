"""Access-pattern generators: tile walks, mma fragments and the seed kernels, as trace instructions."""

from .access import Access, Pattern, parse_access, pattern, place, steps_trace
from .seeds import SEED_KERNELS, seed_trace

__all__ = ["SEED_KERNELS", "Access", "Pattern", "parse_access", "pattern", "place", "seed_trace", "steps_trace"]
