"""The timing engine: hand-checked event logs, the rules of issue, and properties over random traces.

Expected cycles come from the sm_90 config's timing section (configs/sm_90.yaml: issue_interval 1,
shared_issue_interval 1, issue_priority round-robin, pipes alu 2 and imad 2, accept_interval 2,
feed_interval 2, wavefronts_per_cycle 1, path_order new-first, to_banks 3; LDS.32 latency 23, LDS.64
24), worked out by hand.
"""

import hashlib

import attrs
import numpy as np
import pytest
from conftest import ROOT, ROW, TWO_WAY, WIDE
from hypothesis import given
from hypothesis import strategies as st
from simsmem.banks import count
from simsmem.config import InFlight, Overtake
from simsmem.engine import jit, latency_by_form, simulate
from simsmem.engine.program import _distinct_rows
from simsmem.results.metrics import labels
from simsmem.traces import NO_WAIT, Instruction, InstructionBatch, load_trace
from strategies import instructions


def run(arch, ins, **kw):
    batch = InstructionBatch.from_instructions(ins)
    log = []
    return simulate(batch, count(batch, arch), arch, log=log, **kw), log


def timing(arch, **kw):
    return attrs.evolve(arch, timing=attrs.evolve(arch.timing, **kw))


def issues(log):
    return [entry for entry in log if "issues" in entry[0]]


def passes(log):
    return [entry for entry in log if "wavefront" in entry[0]]


def test_event_log_of_a_tiny_trace(sm90):
    """Warps 0 and 4 share sub-partition 0 (its port issues one slot a cycle, the warps in turn from the
    lowest; its LSU accepts one per 2 cycles), warp 1 has sub-partition 1 (its instruction of cycle 0 is
    younger than sub-partition 0's); the data path passes one wavefront a cycle, new instructions' first
    ones first, the sub-partitions in turn, each warp's one per 2 cycles; #2 waits for #0 (done at 23)
    and spends 2 cycles after it."""
    timeline, log = run(sm90, [
        Instruction("LDS", ROW, warp=0),
        Instruction("LDS", TWO_WAY, warp=1),
        Instruction("LDS", WIDE, width=64, warp=0, wait=True, delay=2),
        Instruction("LDS", ROW, warp=4),
    ])
    assert log == [
        ("warp 0 issues #0", 0),
        ("warp 1 issues #1", 0),
        ("warp 4 issues #3", 1),  # warp 4's turn; warp 0's next waits for #0
        ("#0 wavefront 1/1", 3),  # issue + to_banks; sub-partition 0 before 1 (the turn starts at 0)
        ("#1 wavefront 1/2", 4),
        ("#3 wavefront 1/1", 5),  # accepted at 2 (accept_interval 2 after #0), at the banks at 5
        ("#1 wavefront 2/2", 6),  # one wavefront per 2 cycles of warp 1
        ("#0 completes", 23),  # 3 + 23 - 3
        ("#3 completes", 25),
        ("warp 0 issues #2", 25),  # 23 + delay 2
        ("#1 completes", 26),
        ("#2 wavefront 1/2", 28), ("#2 wavefront 2/2", 30),
        ("#2 completes", 51),  # 30 + 24 - 3
    ]
    assert timeline.cycles == 51
    assert list(timeline.latency) == [23, 26, 26, 24]
    assert timeline.wavefronts_per_cycle == 6 / 51
    assert latency_by_form(timeline, labels(InstructionBatch.from_instructions([
        Instruction("LDS", ROW), Instruction("LDS", ROW), Instruction("LDS", WIDE, width=64), Instruction("LDS", ROW)]))) == {
        "LDS": (73 / 3, 23, 26), "LDS.64": (26.0, 26, 26)}


def test_event_log_with_wait_n_and_other_instructions(sm90):
    """``wait: 1`` lets the latest earlier load stay in flight; ``issue`` other instructions take port slots
    of the sub-partition warps 0 and 4 share, in turn with the other warp's."""
    timeline, log = run(sm90, [
        Instruction("LDS", ROW, warp=0),
        Instruction("LDS", TWO_WAY, warp=0),
        Instruction("LDS", ROW, warp=0, wait=1, issue=2, delay=1),
        Instruction("LDS", ROW, warp=4, issue=3),
    ])
    assert log == [
        ("warp 0 issues #0", 0),
        ("warp 0 issues #1", 2),  # warp 4's first other took 1
        ("#0 wavefront 1/1", 3),
        ("warp 4 issues #3", 5),  # its others at 1, 3, 4 (warp 0's next waits for #0); a cycle's issues before its wavefronts
        ("#1 wavefront 1/2", 5),  # accepted at 2 (accept_interval)
        ("#1 wavefront 2/2", 7),
        ("#3 wavefront 1/1", 8),  # accepted at 5
        ("#0 completes", 23),  # warp 0's two others at 23 and 24 (wait 1: #1 may stay in flight)
        ("warp 0 issues #2", 26),  # + delay 1
        ("#1 completes", 27),
        ("#3 completes", 28),
        ("#2 wavefront 1/1", 29),
        ("#2 completes", 49),
    ]


def test_other_instructions_one_by_one(sm90):
    """``others`` gives each other instruction its pipe, stall and wait: after #0 (cycle 0), an alu one at
    1 (stall 1), another whose stall is 3, issued when the alu pipe is free again (3: one per 2 cycles),
    one waiting for #0 (done at 23), an imad at 24, then #1 at 25, whose own stall of 2 puts #2 at 27."""
    timeline, _ = run(sm90, [Instruction("LDS", ROW), Instruction("LDS", ROW, others="alu alu:3 -@0 imad", stall=2), Instruction("LDS", ROW)])
    assert list(timeline.issue) == [0, 25, 27]
    assert list(run(sm90, [Instruction("LDS", ROW), Instruction("LDS", ROW, others="alu alu:3 - imad")])[0].issue) == [0, 8]


def test_the_port_rule_picks_among_the_ready_warps(sm90):
    """Warps 0 and 4 (one sub-partition) have 6 and 2 other instructions, then a load each. Round robin
    (sm_90): slots 0-3 go to warps 0, 4, 0, 4; at 4 warp 4's load is ready but warp 0 is next in turn;
    warp 4's load at 5, warp 0's last others at 6-8 and its load at 9. Youngest first: warp 4 runs as if
    alone (its load at 2), warp 0's at 9; oldest first: warp 0's at 6, warp 4's at 9. Greedy (then the
    oldest): warp 0 keeps the port while it is ready, as oldest first here; with a stall of 3 on its second
    other it lets warp 4 in at 2 and 3 (its others) and 4 (its load), and takes the port back at 5."""
    ins = [Instruction("LDS", ROW, warp=0, issue=6), Instruction("LDS", ROW, warp=4, issue=2)]
    assert issues(run(sm90, ins)[1]) == [("warp 4 issues #1", 5), ("warp 0 issues #0", 9)]
    assert list(run(timing(sm90, issue_priority="youngest"), ins)[0].issue) == [9, 2]
    assert list(run(timing(sm90, issue_priority="oldest"), ins)[0].issue) == [6, 9]
    greedy = timing(sm90, issue_priority="greedy")
    assert list(run(greedy, ins)[0].issue) == [6, 9]
    stalled = [Instruction("LDS", ROW, warp=0, others="- -:3 - - - -"), Instruction("LDS", ROW, warp=4, issue=2)]
    assert list(run(greedy, stalled)[0].issue) == [9, 4]


def test_a_pipe_takes_one_instruction_per_interval_of_all_warps(sm90):
    """pipes.alu 2: warps 0 and 4 (one sub-partition) each issue 4 alu instructions, then a load. The pipe
    takes one per 2 cycles, in turn: warp 0's at 0, 4, 8, 12 (load at 13), warp 4's at 2, 6, 10, 14 (load
    at 15). With pipes.alu 1 the port alone paces them (loads at 8 and 9); ``issue_alu`` 2 of 4 counted
    others are spread through them (- alu - alu), so one warp alone is not held (load at 4)."""
    ins = [Instruction("LDS", ROW, warp=w, others="alu alu alu alu") for w in (0, 4)]
    assert list(run(sm90, ins)[0].issue) == [13, 15]
    assert list(run(timing(sm90, pipes={"alu": 1, "imad": 2}), ins)[0].issue) == [8, 9]
    assert list(run(sm90, [Instruction("LDS", ROW, warp=0, issue=4, issue_alu=2)])[0].issue) == [4]


def test_early_instructions_issue_before_the_wait(sm90):
    """``early`` others issue before the wait (cycles 1 to 4, while #0 is in flight), ``issue`` others
    after it (23, 24): #1 at 25; the same six others all after the wait put it at 29."""
    loads = [Instruction("LDS", ROW, warp=0), Instruction("LDS", ROW, warp=0, wait=True, early=4, issue=2)]
    assert list(run(sm90, loads)[0].issue) == [0, 25]
    assert list(run(sm90, [loads[0], attrs.evolve(loads[1], early=0, issue=6)])[0].issue) == [0, 29]


def test_the_data_path_serves_the_oldest_instructions_only(sm90):
    """window_phases 2: warp 0 (sub-partition 0) issues three 2-way loads at 0, 1 and 2 (1 phase each; at
    the banks at 3, 5, 7: accept_interval); warp 1 (sub-partition 1) issues a 1-way load at 3 after 3
    other instructions. It reaches the banks at 6, but warp 0's #1 and #2 are older and unfinished (2
    phases: the window), so it waits until #1's last wavefront (9) and passes at 10, between warp 0's;
    with sm_90's 16 phases it passes at 6."""
    ins = [Instruction("LDS", TWO_WAY, warp=0)] * 3 + [Instruction("LDS", ROW, warp=1, issue=3)]
    narrow = timing(sm90, window_phases=2)
    timeline, log = run(narrow, ins)
    assert list(timeline.issue) == [0, 1, 2, 3]
    assert [c for name, c in passes(log) if name.startswith("#3")] == [10]
    assert list(timeline.complete) == [25, 29, 33, 30]  # last wavefront + 23 - 3
    assert [c for name, c in passes(run(sm90, ins)[1]) if name.startswith("#3")] == [6]


def test_new_instructions_first_the_sub_partitions_in_turn(sm90):
    """path_order new-first: warp 0 (sub-partition 0) issues a 2-way load at 0 (at the banks at 3:
    wavefronts at 3 and, one per 2 cycles of the warp, 5); warp 1 (sub-partition 1) a 1-way load at 2
    after 2 other instructions, at the banks at 5: its first wavefront goes before warp 0's replay (5, 6).
    ``oldest`` has them the other way (5, 6), unless ``overtake`` lets the new one by (within 4 cycles of
    a 2-wavefront load). Three 2-way loads of three sub-partitions at the banks together pass their first
    wavefronts in turn (3, 4, 5), then the replays oldest first (6, 7, 8)."""
    ins = [Instruction("LDS", TWO_WAY, warp=0), Instruction("LDS", ROW, warp=1, issue=2)]
    assert passes(run(sm90, ins)[1]) == [("#0 wavefront 1/2", 3), ("#1 wavefront 1/1", 5), ("#0 wavefront 2/2", 6)]
    oldest = timing(sm90, path_order="oldest")
    assert passes(run(oldest, ins)[1]) == [("#0 wavefront 1/2", 3), ("#0 wavefront 2/2", 5), ("#1 wavefront 1/1", 6)]
    overtaking = timing(oldest, overtake=Overtake(4, 2))
    assert passes(run(overtaking, ins)[1]) == [("#0 wavefront 1/2", 3), ("#1 wavefront 1/1", 5), ("#0 wavefront 2/2", 6)]
    three = [Instruction("LDS", TWO_WAY, warp=w) for w in (0, 1, 2)]
    assert [c for _, c in passes(run(sm90, three)[1])] == [3, 4, 5, 6, 7, 8]


def test_lone_load_takes_latency_plus_two_cycles_per_extra_wavefront(sm90):
    """Empty pipeline: latency(form) + feed_interval * (wavefronts - 1); 32-way LDS: 23 + 2 * 31."""
    addrs = tuple(l * 128 for l in range(32))
    timeline, _ = run(sm90, [Instruction("LDS", addrs)])
    assert list(timeline.latency) == [85]


def test_warps_issue_in_trace_order_one_per_cycle(sm90):
    """One warp's independent loads issue a cycle apart; its feed then paces their wavefronts."""
    timeline, _ = run(sm90, [Instruction("LDS", ROW)] * 4)
    assert list(timeline.issue) == [0, 1, 2, 3]
    assert list(timeline.complete) == [23, 25, 27, 29]


def test_shared_issue_interval_throttles_a_sub_partition_s_shared_instructions(sm90):
    """shared_issue_interval 4: loads 4 cycles apart, also of two warps: warp 0's first load at 0 and its
    second, when the throttle allows, at 4; warp 4's others at 1 and 2, its load held by the throttle
    until 8 while the port is free."""
    arch = timing(sm90, shared_issue_interval=4)
    timeline, _ = run(arch, [Instruction("LDS", ROW)] * 3)
    assert list(timeline.issue) == [0, 4, 8]
    assert list(timeline.complete) == [23, 27, 31]
    timeline, _ = run(arch, [Instruction("LDS", ROW, warp=0), Instruction("LDS", ROW, warp=4, issue=2), Instruction("LDS", ROW, warp=0)])
    assert list(timeline.issue) == [0, 8, 4]


def test_full_queue_stalls_issue(sm90):
    """queue_depth 1: the next load issues only the cycle after the previous one's last wavefront."""
    timeline, _ = run(timing(sm90, queue_depth=1), [Instruction("LDS", TWO_WAY)] * 3)
    assert list(timeline.issue) == [0, 6, 12]  # wavefronts at 3 and 5: the entry frees at 6


def test_the_sm_holds_in_flight_entries_loads(sm90):
    """in_flight 2 entries, freed 20 cycles after the last wavefront: warps 0 and 1 (their own
    sub-partitions) take them at cycle 0 and pass at 3 and 4; warp 2, on a third sub-partition with its
    queue empty, issues only at 3 + 1 + 20 (without the limit, at 0)."""
    ins = [Instruction("LDS", ROW, warp=w) for w in (0, 1, 2)]
    timeline, log = run(timing(sm90, in_flight=InFlight(2, 20)), ins)
    assert list(timeline.issue) == [0, 0, 24]
    assert passes(log) == [("#0 wavefront 1/1", 3), ("#1 wavefront 1/1", 4), ("#2 wavefront 1/1", 27)]
    assert list(run(sm90, ins)[0].issue) == [0, 0, 0]


def test_the_lsu_accepts_one_instruction_per_accept_interval(sm90):
    """Warps 0, 4, 8 and 12 (one sub-partition) each issue a 1-way load at once: the port takes them at
    0 to 3, in turn; the LSU accepts one per 2 cycles, so they reach the banks at 3, 5, 7 and 9 (at 3 to
    6 with accept_interval 1; a warp's own loads are spaced by its feed anyway)."""
    ins = [Instruction("LDS", ROW, warp=w) for w in (0, 4, 8, 12)]
    timeline, log = run(sm90, ins)
    assert list(timeline.issue) == [0, 1, 2, 3]
    assert [c for _, c in passes(log)] == [3, 5, 7, 9]
    assert list(timeline.complete) == [23, 25, 27, 29]
    assert list(run(timing(sm90, accept_interval=1), ins)[0].complete) == [23, 24, 25, 26]


def test_sub_partition_and_start_of_each_warp_can_be_given(sm90):
    """Warps 0 and 1 on one sub-partition share its issue port and its LSU (issue 0 and 1, accepted 0 and 2);
    apart they issue in one cycle, sub-partition 0's first. ``start`` holds a warp back (replays of
    measured launches): warp 0 from cycle 5."""
    ins = [Instruction("LDS", ROW, warp=0), Instruction("LDS", ROW, warp=1)]
    apart, _ = run(sm90, ins)
    together, _ = run(sm90, ins, sub_partition=np.array([0, 0]))
    assert (list(apart.issue), list(apart.complete)) == ([0, 0], [23, 24])
    assert (list(together.issue), list(together.complete)) == ([0, 1], [23, 25])
    assert list(run(sm90, ins, start=np.array([5, 0]))[0].issue) == [5, 0]


def test_no_wavefronts_still_takes_the_latency(sm90):
    """A fully predicated-off instruction passes nothing through the banks."""
    timeline, log = run(sm90, [Instruction("LDS", (None,) * 32, mask=0)])
    assert list(timeline.complete) == [23] and list(timeline.wavefronts) == [0]
    assert not passes(log)


def test_empty_trace(sm90):
    timeline, log = run(sm90, [])
    assert (timeline.cycles, timeline.wavefronts_per_cycle, log) == (0, 0.0, [])


OTHER = st.builds(lambda pipe, stall, wait: pipe + (f":{stall}" if stall > 1 else "") + (f"@{wait}" if wait is not None else ""),
                  st.sampled_from(["-", "alu", "imad"]), st.integers(1, 4), st.none() | st.integers(0, 3))


@st.composite
def traces(draw):
    """Random sm_90 traces: up to 40 instructions over up to 9 warps, with waits (true, false, 0 to 3),
    other instructions as counts before and after the wait or one by one (pipes, stalls, waits), delays
    and stalls."""
    out = []
    for i in draw(st.lists(instructions(), max_size=40)):
        i = attrs.evolve(i, warp=draw(st.integers(0, 8)), wait=draw(st.booleans() | st.integers(0, 3)), delay=draw(st.integers(0, 6)),
                         stall=draw(st.integers(1, 3)))
        if draw(st.booleans()):
            i = attrs.evolve(i, others=" ".join(draw(st.lists(OTHER, max_size=4))))
        else:
            i = attrs.evolve(i, issue=draw(st.integers(0, 3)), early=draw(st.integers(0, 2)))
        out.append(i)
    return out


@pytest.mark.slow
@given(traces())
def test_engine_passes_exactly_the_counted_wavefronts(sm90, ins):
    """The data path passes each instruction's wavefronts as the counting model counts them, so the
    engine's wavefront and bank-conflict counts are the analytic model's; the rules of issue hold."""
    batch = InstructionBatch.from_instructions(ins)
    counts = count(batch, sm90)
    log = []
    timeline = simulate(batch, counts, sm90, log=log)
    assert (timeline.wavefronts == counts.wavefronts).all()
    assert (timeline.wavefronts - counts.ideal == counts.bank_conflicts).all()
    passes = [cycle for name, cycle in log if "wavefront" in name]
    assert len(passes) == counts.wavefronts.sum()
    assert max(np.bincount(passes), default=0) <= sm90.timing.wavefronts_per_cycle
    lat = np.array([sm90.op(i.op).latency[i.num or i.width] for i in ins], dtype=np.int64)
    assert (timeline.latency >= lat + sm90.timing.feed_interval * np.maximum(counts.wavefronts - 1, 0)).all()
    for w in set(batch.warp.tolist()):
        rows = np.flatnonzero(batch.warp == w)
        assert (np.diff(timeline.issue[rows]) >= sm90.timing.issue_interval).all()
        for k, i in enumerate(rows):
            settled = k - batch.wait[i]  # wait N: the warp's instructions before its N latest completed
            if batch.wait[i] != NO_WAIT and settled > 0:
                assert timeline.issue[i] >= timeline.complete[rows[:settled]].max() + batch.issue[i] + batch.delay[i]


@pytest.mark.slow
@given(traces(), st.sampled_from([1, 2, 3, 4, 8, 16]), st.sampled_from(["new-first", None, (0, 2), (1, 64), (4, 2), (16, 4)]),
       st.sampled_from([1, 2]), st.sampled_from([1, 2, 32]), st.sampled_from([None, 1, 3, 52]), st.sampled_from([0, 20]),
       st.sampled_from(["round-robin", "youngest", "oldest", "greedy"]), st.sampled_from([1, 2]), st.sampled_from([1, 3]))
def test_compiled_rules_equal_plain_python(sm90, ins, window, order, per_cycle, queue, in_flight, after, priority, interval, shared):
    """The rules compiled by numba give what the same functions give as plain Python (``engine.jit``), event log
    included, whatever the window (small ones fill often), the order (new-first, or oldest first with overtaking
    (within, wavefronts) or without, None), the data path's width, the LSU queue (1 or 2 entries: warps wait for
    room, which a telling must hand them in time), the SM's loads in flight (1 or 3: warps of all sub-partitions
    wait for a place, freed 0 or 20 cycles after the last wavefront), the port's rule and its intervals."""
    path = {"path_order": "new-first", "overtake": None} if order == "new-first" else {
        "path_order": "oldest", "overtake": None if order is None else Overtake(*order)}
    timing = attrs.evolve(sm90.timing, window_phases=window, wavefronts_per_cycle=per_cycle, queue_depth=queue, issue_priority=priority,
                          in_flight=None if in_flight is None else InFlight(in_flight, after), issue_interval=interval,
                          shared_issue_interval=shared, **path)
    arch = attrs.evolve(sm90, timing=timing)
    batch = InstructionBatch.from_instructions(ins)
    counts = count(batch, arch)
    logs = [], []
    compiled, plain = (simulate(batch, counts, arch, compiled=how, log=log) for how, log in zip((True, False), logs))
    assert (compiled.issue == plain.issue).all() and (compiled.complete == plain.complete).all()
    assert logs[0] == logs[1]


def test_compiled_rules_equal_plain_python_on_a_busy_loop(sm90):
    """timing.cu's LDS.32 2-way loop on 16 warps (traces/timing/thr_LDS32_2.json.gz, 32 loads each): every LSU
    queue busy, the data path saturated, the schedulers running ahead of the clock by what the data path has
    told."""
    batch = load_trace(ROOT / "traces" / "timing" / "thr_LDS32_2.json.gz").instructions
    batch = batch.take(np.flatnonzero((batch.warp < 16) & (np.arange(len(batch)) % 512 < 32)))
    counts = count(batch, sm90)
    compiled, plain = simulate(batch, counts, sm90, compiled=True), simulate(batch, counts, sm90, compiled=False)
    assert (compiled.issue == plain.issue).all() and (compiled.complete == plain.complete).all()


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 4), st.integers(0, 4), st.booleans()), min_size=1, max_size=12),
       st.sampled_from(["round-robin", "youngest", "oldest", "greedy"]))
def test_counted_others_issue_as_one_by_one(sm90, rows, priority):
    """``early`` and ``issue`` other instructions, each run one slot of the engine however long (a run its warp
    issues alone goes at once), issue as the same instructions given one by one (``others``): the ``alu`` ones
    spread evenly, the first of ``issue`` holding the wait. Warps 0 and 4 share a sub-partition; its port rule
    varies."""
    arch = timing(sm90, issue_priority=priority)
    counted, listed = [], []
    for k, (issue, early, alu, wait) in enumerate(rows):
        alu = min(alu, issue)
        spread = ["alu" if j * alu // issue != (j + 1) * alu // issue else "-" for j in range(issue)]
        tokens = ["-"] * early + [f"{token}@0" if j == 0 and wait else token for j, token in enumerate(spread)]
        common = {"warp": (0, 4)[k % 2], "wait": wait and not issue, "delay": k % 3}
        counted.append(Instruction("LDS", ROW, issue=issue, early=early, issue_alu=alu, **{**common, "wait": wait}))
        listed.append(Instruction("LDS", ROW, others=" ".join(tokens), **common))
    a, b = run(arch, counted)[0], run(arch, listed)[0]
    assert (a.issue == b.issue).all() and (a.complete == b.complete).all()


def test_a_long_run_of_others_is_one_slot(sm90):
    """A billion other instructions before a load are one slot (bounded memory), issued at once by a warp alone."""
    timeline, _ = run(sm90, [Instruction("LDS", ROW, issue=10**9), Instruction("LDS", ROW, early=10**8)])
    assert list(timeline.issue) == [10**9, 10**9 + 1 + 10**8]


def test_the_compiled_functions_carry_a_digest_of_the_engine_s_sources():
    """numba caches a compiled function by its own file; every one of the engine's is named with a digest of all
    its sources (``engine.jit``), so an edit anywhere compiles them all afresh: no cached function runs old code."""
    sources = sorted((ROOT / "simulator" / "simsmem" / "engine").glob("*.py"))
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in sources)).hexdigest()[:16]
    assert jit.DIGEST == digest
    assert jit._COMPILED and all(f.py_func.__qualname__.endswith(f"_{digest}") for f in jit._COMPILED)


@given(st.lists(st.lists(st.integers(-3, 3), min_size=4, max_size=4), min_size=1, max_size=40))
def test_a_program_s_distinct_shapes_are_numpy_s(rows):
    """``program`` finds each warp's distinct instruction shapes by a sort on the columns; it must agree
    with ``np.unique(axis=0)`` (the shapes, and each row's)."""
    fields = np.array(rows, dtype=np.int64)
    shapes, shape_of = _distinct_rows(fields)
    expected, inverse = np.unique(fields, axis=0, return_inverse=True)
    assert (shapes == expected).all() and (shape_of == inverse.reshape(-1)).all()
