"""The compiled JSON Lines pass (``traces/scan.py``) reads what msgspec reads, or declines: on written traces of every op
and field, on lines edited into every corner of JSON it does not take, and run as plain Python or compiled."""

import numpy as np
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from simsmem import jit
from simsmem.traces import FULL_MASK, LANES, Instruction, InstructionBatch, decode
from simsmem.traces.records import COLUMNS, GMMA_TYPES, SWIZZLE_MODES, TNSP_MODES
from simsmem.traces.scan import scan
from simsmem.traces.v1 import instruction_objects
from strategies import instructions

#: Timing fields any op takes, each drawn or left out.
TIMING = {"wait": st.one_of(st.booleans(), st.integers(0, 5)), "delay": st.integers(0, 40), "stall": st.integers(1, 9), "pc": st.integers(0, 4096),
          "warp": st.integers(0, 63)}


@st.composite
def rows(draw):
    """An instruction of any op, with timing fields, others and Hopper's fields drawn."""
    kind = draw(st.sampled_from(["lanes", "GMMA", "TMA", "UBLKCP"]))
    extra = {name: draw(s) for name, s in TIMING.items() if draw(st.booleans())}
    if draw(st.booleans()):
        extra["others"] = draw(st.sampled_from(["alu - imad:2", "alu:4@1", "-"]))
    elif draw(st.booleans()):
        extra["early"] = early = draw(st.integers(0, 5))
        extra["early_alu"] = draw(st.integers(0, early))
    if kind == "lanes":
        ins = draw(instructions())
        return Instruction(**{**{name: getattr(ins, name) for name in COLUMNS}, **extra})
    if kind == "GMMA":
        return Instruction("GMMA", (None,) * LANES, n=draw(st.sampled_from([8, 64, 256])), gtype=draw(st.sampled_from(GMMA_TYPES[:7])),
                           desc_a=draw(st.integers(0, 2**64 - 1)), desc_b=draw(st.integers(0, 2**64 - 1)), tnsp=draw(st.sampled_from(TNSP_MODES)),
                           sparse=draw(st.booleans()), **extra)
    if kind == "TMA":
        box = draw(st.lists(st.integers(1, 256), min_size=1, max_size=5))
        return Instruction(draw(st.sampled_from(["UTMALDG", "UTMASTG"])), (None,) * LANES, elem=draw(st.sampled_from([1, 2, 4, 8])),
                           smem=draw(st.integers(0, 1 << 16)), size=draw(st.integers(1, 1 << 16)), box=tuple(box),
                           swizzle=draw(st.sampled_from(SWIZZLE_MODES)), **extra)
    return Instruction("UBLKCP", (None,) * LANES, smem=draw(st.integers(0, 1 << 16)), size=draw(st.integers(1, 1 << 16)), store=draw(st.booleans()),
                       **extra)


def lines(batch: InstructionBatch) -> list[bytes]:
    return [orjson.dumps(o) for o in instruction_objects(batch)]


def both(data: bytes) -> tuple:
    """``batch_from_lines`` with the compiled pass, and without it (msgspec's)."""
    fast = decode.batch_from_lines(data)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(decode, "scan", lambda data, lines: None)
        slow = decode.batch_from_lines(data)
    return fast, slow


def same(a: InstructionBatch | None, b: InstructionBatch | None) -> bool:
    if a is None or b is None:
        return a is b
    return all(np.array_equal(getattr(a, n), getattr(b, n)) and getattr(a, n).dtype == getattr(b, n).dtype for n in COLUMNS)


@settings(max_examples=60)
@given(st.lists(rows(), min_size=1, max_size=12))
def test_written_traces_read_as_msgspec_reads_them(ins):
    """What the writers write, the compiled pass takes (no line left to msgspec) and reads as msgspec does."""
    batch = InstructionBatch.from_instructions(ins)
    data = b"\n".join(lines(batch))
    assert scan(data) is not None
    fast, slow = both(data)
    assert slow is not None and same(fast, slow)


#: Edits of a line's text into JSON the pass does not take, or into lines no schema takes.
EDITS = [(b'"warp":', b'"w\\u0061rp":'), (b'"warp":', b'"warp":1,"warp":'), (b":", b": "), (b",", b" ,\t"), (b'"addrs":[', b'"addrs":[ '),
         (b"true", b"1"), (b"false", b"0"), (b"1", b"1.0"), (b"2", b"2e0"), (b"3", b"-3"), (b"4", b"04"), (b"0", b"99999999999"),
         (b'"mask":"0x', b'"mask":"0X'), (b'"mask":"0x', b'"mask":"0x0'), (b"0x", b"0b"), (b"null", b"nul"), (b"null", b"0"),
         (b'"op":"', b'"op":"X'), (b"{", b'{"bogus":1,'), (b"}", b',"pc":-1}'), (b"}", b',"desc_a":0}'), (b"}", b',"bypass":false}'), (b"}", b',"num":0}'), (b"}", b"}x"), (b'"box":[', b'"box":[0,'),
         (b'"box":[', b'"box":[1,1,1,1,1,'), (b'"others":"', b'"others":"\\u0061lu '), (b'"others":"', b'"others":"\xc3\xa9'),
         (b'"gtype":"', b'"gtype":"x'), (b'"desc_a":"0x', b'"desc_a":"0x1'), (b"]", b",1]"), (b"[", b"[null,")]


@settings(max_examples=120)
@given(st.lists(rows(), min_size=1, max_size=4), st.lists(st.tuples(st.sampled_from(EDITS), st.integers(0, 3)), min_size=1, max_size=3))
def test_edited_lines_read_as_msgspec_reads_them_or_are_declined(ins, edits):
    """An edited trace: the compiled pass reads it as msgspec does, or declines it (and msgspec's reading or refusal stands)."""
    text = lines(InstructionBatch.from_instructions(ins))
    for (old, new), row in edits:
        row %= len(text)
        text[row] = text[row].replace(old, new, 1)
    data = b"\n".join(text)
    fast, slow = both(data)
    assert same(fast, slow)


@settings(max_examples=30)
@given(st.lists(rows(), min_size=1, max_size=6))
def test_plain_python_reads_as_compiled(ins):
    """``scan`` as plain Python (a small block's) gives what the compiled pass gives (``simsmem.jit``)."""
    data = b"\n".join(lines(InstructionBatch.from_instructions(ins)))
    with jit.plain_calls():
        plain = scan(data)
    compiled = scan(data)
    assert np.array_equal(plain.present, compiled.present) and np.array_equal(plain.given, compiled.given)
    for name in COLUMNS:
        assert np.array_equal(plain.column(name, data), compiled.column(name, data)), name


@pytest.fixture(scope="module", autouse=True)
def loaded():
    """numba loaded, so that calls outside ``plain_calls`` run compiled."""
    from simsmem.traces.scan import _scan

    _scan.dispatcher


def test_a_full_mask_written_as_an_integer():
    """A mask given as a JSON integer reads as the same mask written in hex."""
    line = b'{"op":"LDS","width":32,"mask":%d,"addrs":[%s]}' % (FULL_MASK, b",".join(b"%d" % (4 * k) for k in range(LANES)))
    assert decode.batch_from_lines(line).mask.tolist() == [FULL_MASK]
