"""Hypothesis strategies (and the small exhaustive sets beside them) that several test modules share."""

from hypothesis import strategies as st
from simsmem.tiles.swizzle import Swizzle
from simsmem.traces import FULL_MASK, LANES, Instruction
from simsmem.traces.records import PREDICATES

#: Every small swizzle: B, M below 4, |S| from B to 5.
SMALL_SWIZZLES = [Swizzle(b, m, s) for b in range(4) for m in range(4) for s in range(-5, 6) if abs(s) >= b]

FORMS = [("LDS", w, 0) for w in (8, 16, 32, 64, 128)] + [("STS", w, 0) for w in (8, 16, 32, 64, 128)]
FORMS += [("ATOMS", 32, 0)] + [(op, 0, n) for op in ("LDSM", "STSM") for n in (1, 2, 4)] + [("LDGSTS", w, 0) for w in (32, 64, 128)]


@st.composite
def instructions(draw, forms=FORMS, span=4096):
    """A valid sm_90 instruction whose addresses crowd a small window, so banks collide often."""
    op, width, num = draw(st.sampled_from(forms))
    size = width // 8 if width else 16
    slots = span // size
    # Few distinct addresses make broadcast likely; many make conflicts likely.
    pool = draw(st.lists(st.integers(0, slots - 1), min_size=1, max_size=32))
    addrs = [draw(st.sampled_from(pool)) * size for _ in range(LANES)]
    if num:
        return Instruction(op=op, num=num, trans=draw(st.booleans()), addrs=tuple(addrs))
    mask = draw(st.one_of(st.just(FULL_MASK), st.integers(0, FULL_MASK)))
    src, bypass, copy = None, False, {}
    if op == "LDGSTS":  # global sources over a few 128-byte lines, so that positions collide too
        sources = draw(st.lists(st.integers(0, 4 * 128 // size - 1), min_size=1, max_size=32))
        src = tuple(draw(st.sampled_from(sources)) * size + 4096 if mask >> i & 1 else None for i in range(LANES))
        bypass = width == 128 and draw(st.booleans())  # cp.async .cg: 16 bytes only
        # src-size: none, in a register (.ZFILL: the zeroed lanes' sources unread for .ca) or a predicate (no source read)
        srcsize, zeroed = draw(st.sampled_from(["", "register", "predicate"])), draw(st.integers(0, FULL_MASK)) & mask
        if srcsize:
            zfill = mask if srcsize == "predicate" else 0 if bypass else zeroed
            copy = {"srcsize": srcsize == "register", "zeroed": zeroed, "zfill": zfill, "pred": draw(st.sampled_from(PREDICATES))}
    return Instruction(op=op, width=width, mask=mask, addrs=tuple(a if mask >> i & 1 else None for i, a in enumerate(addrs)), src=src, bypass=bypass,
                       **copy)


@st.composite
def swizzles(draw, max_bits=8, max_base=16, max_shift=16):
    """A valid ``Swizzle(B, M, S)`` within the bounds (S of either sign, |S| >= B)."""
    b = draw(st.integers(0, max_bits))
    m = draw(st.integers(0, max_base))
    s = draw(st.integers(b, max(b, max_shift))) * draw(st.sampled_from([1, -1]))
    return Swizzle(b, m, s)
