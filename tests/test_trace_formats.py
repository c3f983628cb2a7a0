"""Trace v1 in every file form: what is written reads back column for column, and the vectorised
reading pass agrees with the exact one.

Provenance: the traces here are made by the tests (the H100 corpus rows and hypothesis strategies);
expected columns are the ones written.
"""

import gzip
import importlib.util

import attrs
import numpy as np
import orjson
import pytest
from conftest import H100, ROOT
from hypothesis import given
from hypothesis import strategies as st
from simsmem.corpus import corpus_trace, load_corpus
from simsmem.errors import TraceError
from simsmem.traces import InstructionBatch, Trace, load_trace, open_trace, write_trace
from simsmem.traces.decode import BatchBuilder, batch_from_lines
from simsmem.traces.lanes import parse_lists
from simsmem.traces.records import COLUMNS, DTYPES, OP_FIELDS, OPS, Instruction
from simsmem.traces.v1 import column_problem, instruction_objects
from strategies import instructions

FORMS = ("json", "json.gz", "jsonl", "jsonl.gz", "npz")
CORPUS = corpus_trace(load_corpus(H100 / "instructions.json"), "corpus")


def same(a: InstructionBatch, b: InstructionBatch) -> bool:
    return all(np.array_equal(getattr(a, f.name), getattr(b, f.name)) and getattr(a, f.name).dtype == getattr(b, f.name).dtype for f in attrs.fields(InstructionBatch))


@pytest.mark.parametrize("form", FORMS)
def test_corpus_round_trips(tmp_path, form):
    """All 310 corpus rows (every op, width, matrix count, masks, inactive lanes) written and read back."""
    trace = attrs.evolve(CORPUS, arch="sm_90", ctas=7)
    path = tmp_path / f"corpus.{form}"
    write_trace(trace, path)
    back = load_trace(path)
    assert (back.name, back.arch, back.ctas) == ("corpus", "sm_90", 7)
    assert len(back.instructions) == 310
    assert same(back.instructions, trace.instructions)


@pytest.mark.parametrize("form", FORMS)
def test_timing_fields_round_trip(tmp_path, form):
    """``wait`` (false, true, N), ``issue`` and ``early`` (other instructions) survive every format; only
    values other than the defaults are written back (``wait: 0`` is ``wait: true``)."""
    row = CORPUS.instructions[0]
    ins = [attrs.evolve(row, wait=w, issue=k, delay=d, early=e, early_alu=ea, issue_alu=ia)
           for w, k, d, e, ea, ia in ((False, 0, 0, 0, 0, 0), (True, 3, 1, 0, 0, 2), (5, 0, 2, 4, 4, 0), (0, 7, 0, 0, 0, 0),
                                      (2**31 - 1, 2**31 - 1, 0, 2**31 - 1, 1, 2**31 - 1))]
    trace = Trace(InstructionBatch.from_instructions(ins), name="timing")
    path = tmp_path / f"timing.{form}"
    write_trace(trace, path)
    back = load_trace(path).instructions
    assert same(back, trace.instructions)
    assert [(i.wait, i.issue, i.early, i.early_alu, i.issue_alu) for i in back] == [
        (False, 0, 0, 0, 0), (True, 3, 0, 0, 2), (5, 0, 4, 4, 0), (True, 7, 0, 0, 0), (2**31 - 1, 2**31 - 1, 2**31 - 1, 1, 2**31 - 1)]
    objs = instruction_objects(back)
    assert [{k: o[k] for k in ("wait", "issue", "delay", "early", "early_alu", "issue_alu") if k in o} for o in objs] == [
        {}, {"wait": True, "issue": 3, "delay": 1, "issue_alu": 2}, {"wait": 5, "delay": 2, "early": 4, "early_alu": 4},
        {"wait": True, "issue": 7}, {"wait": 2**31 - 1, "issue": 2**31 - 1, "early": 2**31 - 1, "early_alu": 1, "issue_alu": 2**31 - 1}]


@pytest.mark.parametrize("form", FORMS)
def test_other_instructions_one_by_one_round_trip(tmp_path, form):
    """``others`` (pipe, stall, wait of each) and ``stall`` survive every format, written canonically
    (defaults left out: ``alu:1`` is ``alu``; runs of spaces one)."""
    row = CORPUS.instructions[0]
    ins = [attrs.evolve(row, others=o, stall=k, wait=w) for o, k, w in (("", 1, False), ("alu:1  -:3@0 imad@2", 4, 1), ("- - -", 1, True))]
    trace = Trace(InstructionBatch.from_instructions(ins), name="others")
    path = tmp_path / f"others.{form}"
    write_trace(trace, path)
    back = load_trace(path).instructions
    assert [(i.others, i.stall, i.wait) for i in back] == [("", 1, False), ("alu -:3@0 imad@2", 4, 1), ("- - -", 1, True)]
    objs = instruction_objects(back)
    assert [{k: o[k] for k in ("others", "stall") if k in o} for o in objs] == [{}, {"others": "alu -:3@0 imad@2", "stall": 4}, {"others": "- - -"}]


@pytest.mark.parametrize("form", FORMS)
def test_streams_in_chunks(tmp_path, form):
    """A stream yields consecutive chunks whose concatenation is the trace."""
    path = tmp_path / f"c.{form}"
    write_trace(CORPUS, path)
    reader = open_trace(path)
    chunks = list(reader.chunks)
    assert [c.first for c in chunks] == list(np.cumsum([0] + [len(c.instructions) for c in chunks[:-1]]))
    assert same(InstructionBatch.concat([c.instructions for c in chunks]), CORPUS.instructions)


@pytest.mark.parametrize("form", FORMS)
def test_empty_trace_is_valid(tmp_path, form):
    path = tmp_path / f"empty.{form}"
    write_trace(Trace(InstructionBatch.empty(), name="none"), path)
    back = load_trace(path)
    assert back.name == "none" and len(back.instructions) == 0


def test_jsonl_layout(tmp_path):
    """First line the header (no instructions), then one instruction object per line."""
    path = tmp_path / "t.jsonl"
    write_trace(Trace(CORPUS.instructions.take(slice(0, 3)), name="three", arch="sm_90"), path)
    lines = path.read_bytes().splitlines()
    assert orjson.loads(lines[0]) == {"simsmem_trace": 1, "name": "three", "arch": "sm_90", "count": 3}
    assert len(lines) == 4 and all(orjson.loads(line)["op"] for line in lines[1:])


def test_gzip_is_gzip(tmp_path):
    path = tmp_path / "t.jsonl.gz"
    write_trace(CORPUS, path)
    assert gzip.decompress(path.read_bytes()).startswith(b'{"simsmem_trace":1')


def test_hand_written_jsonl_with_spaces_and_nulls(tmp_path):
    """JSON Lines a person writes: spaces, key order, null lanes, a hex mask string, no final newline."""
    path = tmp_path / "hand.jsonl"
    addrs = [4 * lane if lane < 16 else None for lane in range(32)]
    path.write_text(
        '{ "simsmem_trace": 1, "ctas": 2 }\n'
        + orjson.dumps({"addrs": addrs, "width": 32, "op": "LDS", "mask": "0x0000FFFF", "wait": True}).decode().replace(",", ", ")
        + "\n"
        + orjson.dumps({"op": "LDSM", "num": 1, "addrs": [16 * lane if lane < 8 else None for lane in range(32)]}).decode()
    )
    trace = load_trace(path)
    b = trace.instructions
    assert trace.name == "hand" and trace.ctas == 2 and len(b) == 2
    assert b.mask[0] == 0xFFFF and b.wait[0] == 0 and list(b.addrs[0]) == [4 * lane for lane in range(16)] + [-1] * 16
    assert b.num[1] == 1 and list(b.addrs[1]) == [16 * lane for lane in range(8)] + [-1] * 24


def exact(objs):
    builder = BatchBuilder("t")
    for i, ins in enumerate(objs):
        builder.add(ins, i)
    return builder.build()


def lines(objs) -> bytes:
    return b"\n".join(orjson.dumps(o) for o in objs)


@pytest.mark.slow  # 200 hypothesis examples against the exact pass (about 8 s)
@given(st.lists(instructions(), min_size=1, max_size=40))
def test_vectorised_pass_equals_exact(instrs):
    """On valid instructions both passes give the same columns (the vectorised one must not decline)."""
    objs = instruction_objects(InstructionBatch.from_instructions(instrs))
    assert same(batch_from_lines(lines(objs)), exact(objs))


#: Values that break one field each: the vectorised pass must decline them all (the exact check names them).
BREAKS = [
    ("width", 32.0), ("width", True), ("width", "32"), ("width", 24), ("width", 288), ("warp", -1), ("warp", 2**31),
    ("warp", False), ("delay", None), ("mask", "0x1g"), ("mask", 2**32), ("mask", -1), ("mask", True), ("wait", -1),
    ("wait", 2**31), ("wait", 1.0), ("wait", None), ("issue", -1), ("issue", 2**31), ("issue", True), ("issue", "2"),
    ("early", -1), ("early", 2**31), ("early", True), ("early", 1.0), ("issue_alu", 1), ("early_alu", -1), ("trans", False),
    ("others", "alu:0"), ("others", "x y@"), ("others", 3), ("stall", 0), ("stall", True), ("stall", 2**31), ("num", 4), ("op", "LDG"), ("op", None), ("extra", 1), ("addrs", [0] * 31),
    ("addrs", [0] * 33), ("addrs", [0.0] * 32), ("addrs", [True] + [0] * 31), ("addrs", ["0"] * 32), ("addrs", [None] * 32),
    ("addrs", [-4] + [0] * 31), ("addrs", [2**31] + [0] * 31), ("addrs", [2**40] + [0] * 31), ("addrs", [[0]] * 32),
    ("addrs", [2**63] + [0] * 31),
]


@pytest.mark.parametrize(("field", "value"), BREAKS, ids=[f"{f}={v!r}"[:40] for f, v in BREAKS])
def test_vectorised_pass_declines_what_exact_rejects(field, value):
    good = {"op": "LDS", "width": 32, "addrs": [4 * lane for lane in range(32)]}
    objs = [good, {**good, field: value}, good]
    with pytest.raises(TraceError):
        exact(objs)
    assert batch_from_lines(lines(objs)) is None


@pytest.mark.parametrize("text", [
    b'{"op":"LDS","width":32,"addrs":[%s]} {"op":"LDS","width":32,"addrs":[%s]}\n\n{"op":"LDS","width":32,"addrs":[%s]}',  # two on a line, one blank
    b'{"op":"LDS","width":32,\n"addrs":[%s]}\n{"op":"LDS","width":32,"addrs":[%s]}',  # one object over two lines
    b'{"op":"LDS","width":32,"addrs":[%s]}\n{"op":"LDS","width":32,"mask":1,"addrs":[0,null5%s]}',  # null next to a digit
])
def test_vectorised_pass_reads_one_object_per_line(text):
    """Each line must be one whole object; substituting null must not make a bad line good."""
    data = text.replace(b"%s", b",".join([b"0"] * 32), 2).replace(b"null5%s", b"null5" + b",0" * 30)
    assert batch_from_lines(data) is None


GOOD_LANES = tuple(4 * lane for lane in range(32))


def test_the_declared_fields_are_the_batch_columns():
    """Every field ``OP_FIELDS`` gives an op is a declared column, and every column, made from records or left out, has
    its declared dtype and shape."""
    assert all(spec.takes <= set(DTYPES) for spec in OP_FIELDS.values())
    made = InstructionBatch.from_instructions([Instruction("LDS", GOOD_LANES)] * 3)
    left_out = InstructionBatch(**{name: getattr(made, name) for name, f in COLUMNS.items() if not f.later})
    for batch in (InstructionBatch.empty(), made, left_out):
        for name, f in COLUMNS.items():
            column = getattr(batch, name)
            assert column.dtype.type is f.dtype and column.shape == ((len(batch), 32) if f.lanes else (len(batch),)), name


def test_op_codes_are_those_npz_files_hold():
    """``.npz`` files hold ops by their codes, ``OP_FIELDS``'s order: the codes every earlier simsmem wrote (a regression
    guard on the format; a new op comes last)."""
    assert OPS[:10] == ("LDS", "STS", "ATOMS", "LDSM", "STSM", "LDGSTS", "GMMA", "UTMALDG", "UTMASTG", "UBLKCP")


#: Records of most ops, every field off its default somewhere.
RECORDS = [
    Instruction("GMMA", (None,) * 32, n=64, gtype="bf16", desc_a=0x4000004000010040, desc_b=2**63 + 5, tnsp="AB", sparse=True, warp=4, pc=16),
    Instruction("UTMALDG", (None,) * 32, smem=0x800, size=4096, box=(64, 32), elem=2, swizzle="128B", wait=3, stall=2),
    Instruction("UTMASTG", (None,) * 32, smem=0x1000, size=512, box=(8, 8, 2), elem=4, early=3, early_alu=1, issue=2, issue_alu=2),
    Instruction("UBLKCP", (None,) * 32, smem=16, size=256, store=True, others="alu -:3@0", delay=7),
    Instruction("LDGSTS", tuple(16 * lane if lane < 8 else None for lane in range(32)), width=128, mask=0xFF, bypass=True, srcsize=True,
                zfill=0x3, zeroed=0x3, pred="negated", src=tuple(4096 + 16 * lane if lane < 8 else None for lane in range(32))),
    Instruction("ATOMS", tuple(8 * lane if lane % 2 else None for lane in range(32)), width=64, atom="cast", mask=0xAAAAAAAA, wait=True),
    Instruction("STS", GOOD_LANES, generic=True, issue=1),
    Instruction("LDSM", tuple(16 * lane if lane < 16 else None for lane in range(32)), num=2, trans=True),
]


@pytest.mark.parametrize("form", FORMS)
def test_records_round_trip(tmp_path, form):
    """Records of every kind of field (descriptors past 2**63, boxes, choices, lane masks, waits, sources) come back
    from every file form as the same records: ``Instruction`` and the columns are made from one declaration. (A
    record of an op that takes no ``width`` reads 0 there: ``Instruction``'s default, 32, is for LDS and STS.)"""
    path = tmp_path / f"records.{form}"
    write_trace(Trace(InstructionBatch.from_instructions(RECORDS), name="records"), path)
    assert list(load_trace(path).instructions) == [r if "width" in OP_FIELDS[r.op].takes else attrs.evolve(r, width=0) for r in RECORDS]


def test_the_format_page_shows_the_declared_fields():
    """docs/trace-format.md's op and field tables are what docs/make_trace_format.py makes of the declaration (a
    regression guard on the page: after changing a field, run that script)."""
    spec = importlib.util.spec_from_file_location("make_trace_format", ROOT / "docs" / "make_trace_format.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = module.PAGE.read_text()
    assert module.page(text) == text, "docs/trace-format.md is stale: run python docs/make_trace_format.py"


#: Instructions breaking one rule each, that JSON and columns can both hold: the rule is stated once (its field's kind).
ONE_RULE = [
    Instruction("LDS", GOOD_LANES, warp=-3),
    Instruction("LDS", GOOD_LANES, delay=-1),
    Instruction("LDS", GOOD_LANES, issue_alu=1),
    Instruction("LDS", GOOD_LANES, early=1, early_alu=2),
    Instruction("LDS", GOOD_LANES, stall=0),
    Instruction("LDS", GOOD_LANES, others="alu", issue=2),
    Instruction("LDS", GOOD_LANES, others="alu:0"),
    Instruction("LDGSTS", tuple(a if a < 16 else None for a in GOOD_LANES), mask=0xF, src=tuple(range(0, 128, 4)), zfill=0x10),
    Instruction("LDGSTS", tuple(a if a < 16 else None for a in GOOD_LANES), mask=0xF, src=tuple(range(0, 128, 4)), zeroed=0x30),
]


@pytest.mark.parametrize("ins", ONE_RULE, ids=lambda i: ",".join(f"{k}={v}" for k, v in attrs.asdict(i).items()
                                                                    if k not in ("op", "addrs", "src") and v != attrs.fields_dict(Instruction)[k].default))
def test_json_and_columns_break_one_rule_alike(ins):
    """The exact JSON check and the column check (.npz, and after the fast JSON pass) name the same field with the same words."""
    batch = InstructionBatch.from_instructions([ins])
    row, field, what = column_problem(batch)
    with pytest.raises(TraceError) as exc:
        exact(instruction_objects(batch))
    assert str(exc.value) == f"t: instruction 0: {field}: {what}"


def test_unknown_suffix(tmp_path):
    with pytest.raises(TraceError, match="unknown trace format"):
        open_trace(tmp_path / "t.txt")


def test_npz_leaves_out_source_columns_without_ldgsts(tmp_path):
    """A chunk without LDGSTS stores no `src` members (they would be all -1: 256 bytes an instruction) and
    one without .cg no `bypass`; one with them keeps them; all read back equal (LDGSTS rows from
    calibration/h100/instructions_v2.json)."""
    import zipfile

    rows = load_corpus(H100 / "instructions.json")[:5]
    v2 = load_corpus(H100 / "instructions_v2.json")
    copy = next(r for r in v2 if r["sass"] == "LDGSTS.E")
    cg = next(r for r in v2 if r["sass"] == "LDGSTS.E.BYPASS.128")
    for name, chosen in (("plain", rows), ("copies", rows + [copy]), ("cg", rows + [cg])):
        path = tmp_path / f"{name}.npz"
        trace = corpus_trace(chosen, name)
        write_trace(trace, path)
        members = zipfile.ZipFile(path).namelist()
        assert ("c0.src.table.npy" in members) == (name != "plain")
        assert ("c0.bypass.npy" in members) == (name == "cg")
        back = load_trace(path).instructions
        for f in attrs.fields(InstructionBatch):
            assert np.array_equal(getattr(back, f.name), getattr(trace.instructions, f.name)), f.name


def reference_lists(data: bytes, count: int, limit: int):
    """What ``parse_lists`` must give, by orjson: ``count`` JSON lists of 32 lanes (int 0..limit or null)."""
    try:
        lists = orjson.loads(b"[" + data.replace(b"][", b"],[").replace(b"] [", b"],[") + b"]")
    except orjson.JSONDecodeError:
        return None
    if len(lists) != count or any(not isinstance(x, list) or len(x) != 32 for x in lists):
        return None
    lanes = [v for x in lists for v in x]
    if any(v is not None and (type(v) is not int or not 0 <= v <= limit) for v in lanes):
        return None
    return np.array([-1 if v is None else v for v in lanes], dtype=np.int64).reshape(count, 32)


#: One lane's text: mostly valid (a number, some past 2**31 - 1, or null), sometimes something no lane may hold.
LANE_TEXT = st.one_of(st.integers(0, 2**40).map(str), st.just("null"), st.integers(0, 99).map(str),
                      st.sampled_from(["-1", "01", "1.0", "1e3", "true", '"4"', "-0", "nul", "[0]", ""]))


@given(st.lists(st.lists(st.tuples(st.sampled_from(["", " ", "\t", "\n "]), LANE_TEXT), min_size=31, max_size=33), min_size=1, max_size=3),
       st.sampled_from([2**31 - 1, 2**63 - 1]))
def test_lane_lists_agree_with_json(rows, limit):
    """The compiled lane-list reader gives what JSON says, and declines exactly what is not 32 lanes of int 0..limit or null."""
    data = b"".join(b"[" + ",".join(space + value for space, value in row).encode() + b"]" for row in rows)
    got, want = parse_lists(data, len(rows), limit), reference_lists(data, len(rows), limit)
    assert (got is None) == (want is None)
    if want is not None:
        assert np.array_equal(got, want)


def test_lane_lists_read_32_clean_lanes():
    """A plain list, with spaces and nulls, reads; the same with a leading zero, a float or a lane too many does not."""
    lanes = [str(4 * i) if i % 3 else "null" for i in range(32)]
    good = ("[ " + " , ".join(lanes) + " ]").encode()
    assert parse_lists(good + good, 2, 2**31 - 1).tolist() == [[4 * i if i % 3 else -1 for i in range(32)]] * 2
    for bad in ("01", "1.5", "1e3", "-1", "2147483648"):
        assert parse_lists(good.replace(b" 4 ,", f" {bad} ,".encode(), 1), 1, 2**31 - 1) is None
    assert parse_lists(good[:-1] + b",0]", 1, 2**31 - 1) is None
    assert parse_lists(good, 2, 2**31 - 1) is None
