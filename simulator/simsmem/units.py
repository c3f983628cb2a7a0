"""Named integer types for the quantities the model passes around."""

from typing import NewType

ByteAddr = NewType("ByteAddr", int)  # byte offset into the CTA's shared memory
Word = NewType("Word", int)  # 4-byte bank word index (byte address // bank width)
Bank = NewType("Bank", int)  # bank index, word % banks
Cycles = NewType("Cycles", int)  # SM clock cycles
