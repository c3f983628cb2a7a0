"""Tiles in shared memory: CuTe's layouts and swizzles, and where Hopper's matrix descriptors and TMA boxes put
their bytes."""
