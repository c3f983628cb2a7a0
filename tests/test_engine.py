"""The timing engine: a hand-checked event log, the rules of issue, and properties over random traces.

Expected cycles come from the sm_90 config's timing section (configs/sm_90.yaml: issue_interval 1,
shared_issue_interval 1, issue_priority youngest, feed_interval 2, wavefronts_per_cycle 1, to_banks 3;
LDS.32 latency 23, LDS.64 24), worked out by hand.
"""

import attrs
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from simsmem.banks import count
from simsmem.config import InFlight, Overtake
from simsmem.engine import latency_by_form, simulate
from simsmem.engine.reference import simulate_by_wavefront
from simsmem.metrics import labels
from simsmem.trace import NO_WAIT, Instruction, InstructionBatch
from strategies import instructions

ROW = tuple(range(0, 128, 4))  # one word from every bank: 1 wavefront
TWO_WAY = tuple(l % 16 * 4 + l // 16 * 128 for l in range(32))  # two words per bank: 2 wavefronts
WIDE = tuple(range(0, 256, 8))  # LDS.64 over 256 bytes: the half-warps clash, 2 wavefronts


def run(sm90, ins, **kw):
    batch = InstructionBatch.from_instructions(ins)
    log = []
    return simulate(batch, count(batch, sm90), sm90, log=log, **kw), log


def test_event_log_of_a_tiny_trace(sm90):
    """Warps 0 and 4 share sub-partition 0 (its port takes one instruction a cycle, the youngest warp's
    first; its LSU accepts one per 2 cycles), warp 1 has sub-partition 1; the data path passes one wavefront a cycle, the oldest
    instruction's first (instructions issued in one cycle: in the order of issue priority), each warp's
    one per 2 cycles; #2 waits for #0 (done at 25) and spends 2 cycles first."""
    timeline, log = run(sm90, [
        Instruction("LDS", ROW, warp=0),
        Instruction("LDS", TWO_WAY, warp=1),
        Instruction("LDS", WIDE, width=64, warp=0, wait=True, delay=2),
        Instruction("LDS", ROW, warp=4),
    ])
    assert log == [
        ("warp 4 issues #3", 0),  # warp 4 is younger than warp 0, and acts before warp 1 in the cycle: #3 is the oldest
        ("warp 1 issues #1", 0),
        ("warp 0 issues #0", 1),  # the port took warp 4's at 0
        ("#3 wavefront 1/1", 3),  # issue + to_banks
        ("#1 wavefront 1/2", 4),  # at the banks since 3, but #3 is older
        ("#0 wavefront 1/1", 5),  # accepted at 2, 2 cycles after warp 4's #3 (accept_interval); #1 took 4
        ("#1 wavefront 2/2", 6),  # one wavefront per 2 cycles of warp 1
        ("#3 completes", 23),  # 3 + 23 - 3
        ("#0 completes", 25),
        ("#1 completes", 26),
        ("warp 0 issues #2", 27),  # 25 + delay 2
        ("#2 wavefront 1/2", 30), ("#2 wavefront 2/2", 32),
        ("#2 completes", 53),  # 32 + 24 - 3
    ]
    assert timeline.cycles == 53
    assert list(timeline.latency) == [24, 26, 26, 23]
    assert timeline.wavefronts_per_cycle == 6 / 53
    assert latency_by_form(timeline, labels(InstructionBatch.from_instructions([
        Instruction("LDS", ROW), Instruction("LDS", ROW), Instruction("LDS", WIDE, width=64), Instruction("LDS", ROW)]))) == {
        "LDS": (73 / 3, 23, 26), "LDS.64": (26.0, 26, 26)}


def test_event_log_with_wait_n_and_other_instructions(sm90):
    """``wait: 1`` lets the latest earlier load stay in flight; ``issue`` takes port slots of the
    sub-partition that warps 0 and 4 share, the younger warp 4 first (sm_90 timing, as above)."""
    timeline, log = run(sm90, [
        Instruction("LDS", ROW, warp=0),
        Instruction("LDS", TWO_WAY, warp=0),
        Instruction("LDS", ROW, warp=0, wait=1, issue=2, delay=1),
        Instruction("LDS", ROW, warp=4, issue=3),
    ])
    assert log == [
        ("warp 4 wants 3 slots", 0),  # slots 0, 1, 2: warp 0 waits for them
        ("warp 4 issues #3", 3),  # at 3 both want the port: warp 4 first
        ("warp 0 issues #0", 4),
        ("warp 0 issues #1", 5),
        ("#3 wavefront 1/1", 6),  # accepted at 3, + to_banks 3
        ("#0 wavefront 1/1", 8),  # the sub-partition's LSU accepts one per 2 cycles: #0 at 5
        ("#1 wavefront 1/2", 10),  # accepted at 7
        ("#1 wavefront 2/2", 12),  # warp 0: one wavefront per 2 cycles
        ("#3 completes", 26),
        ("#0 completes", 28),
        ("warp 0 wants 2 slots", 28),  # wait 1: #0 done, #1 (done at 32) may stay in flight
        ("warp 0 issues #2", 31),  # 28 + 2 slots + delay 1
        ("#1 completes", 32),
        ("#2 wavefront 1/1", 34),  # 31 + 3
        ("#2 completes", 54),
    ]
    assert timeline.cycles == 54


def test_the_port_goes_to_the_warp_of_highest_priority(sm90):
    """Warps 0 and 4 (one sub-partition) want 6 and 2 slots at cycle 0, then a load each. Youngest first:
    warp 4 has slots 0-1 and its load at 2, warp 0 slots 3-8 and its load at 9; oldest first: warp 0
    slots 0-5 and its load at 6, warp 4 slots 7-8 and its load at 9."""
    ins = [Instruction("LDS", ROW, warp=0, issue=6), Instruction("LDS", ROW, warp=4, issue=2)]
    young, _ = run(sm90, ins)
    assert list(young.issue) == [9, 2]
    oldest_first = attrs.evolve(sm90, timing=attrs.evolve(sm90.timing, issue_priority="oldest"))
    old, _ = run(oldest_first, ins)
    assert list(old.issue) == [6, 9]


def test_a_round_robin_port_lets_the_warps_take_turns(sm90):
    """The same two warps with ``issue_priority: round-robin``: slots 0-3 go to warps 0, 4, 0, 4; at 4 warp 4
    wants its load's slot, but warp 0 is next in turn (4); warp 4's load at 5, warp 0's last slots 6-8,
    its load at 9 (youngest first: 2 and 9): the younger warp no longer runs as if alone."""
    turns = attrs.evolve(sm90, timing=attrs.evolve(sm90.timing, issue_priority="round-robin"))
    ins = [Instruction("LDS", ROW, warp=0, issue=6), Instruction("LDS", ROW, warp=4, issue=2)]
    timeline, log = run(turns, ins)
    assert [entry for entry in log if "issues" in entry[0]] == [("warp 4 issues #1", 5), ("warp 0 issues #0", 9)]


def test_integer_alu_instructions_share_the_sub_partition_s_pipe(sm90):
    """alu_interval 2: one integer-ALU instruction per 2 cycles per sub-partition. Warps 0 and 4 (one
    sub-partition) each issue 4 other instructions, all ALU (``issue_alu``), then a load. Warp 4 (younger)
    has port slots 0-3; its ALU instructions, booked from its stretch's start, go at 0, 2, 4, 6, so its
    load issues at 7. Warp 0 has slots 4-6 and 8 (warp 4's load took 7); its ALU instructions find 0-6
    taken and go at 8, 10, 12, 14: its load at 15. With alu_interval 1 the port alone paces them (4, 9);
    two ALU of four others from one warp fit in the port's 4 cycles (4)."""
    ins = [Instruction("LDS", ROW, warp=0, issue=4, issue_alu=4), Instruction("LDS", ROW, warp=4, issue=4, issue_alu=4)]
    timeline, _ = run(sm90, ins)
    assert list(timeline.issue) == [15, 7]
    one = attrs.evolve(sm90, timing=attrs.evolve(sm90.timing, alu_interval=1))
    assert list(run(one, ins)[0].issue) == [9, 4]
    assert list(run(sm90, [Instruction("LDS", ROW, warp=0, issue=4, issue_alu=2)])[0].issue) == [4]


def test_early_instructions_issue_before_the_wait(sm90):
    """``early`` slots go before the wait (they overlap the load waited for), ``issue`` slots after it."""
    loads = [Instruction("LDS", ROW, warp=0), Instruction("LDS", ROW, warp=0, wait=True, early=4, issue=2)]
    timeline, log = run(sm90, loads)
    assert log == [
        ("warp 0 issues #0", 0),
        ("warp 0 wants 4 slots", 1),  # early: cycles 1 to 4, while #0 is in flight
        ("#0 wavefront 1/1", 3),
        ("#0 completes", 23),
        ("warp 0 wants 2 slots", 23),  # after the wait
        ("warp 0 issues #1", 25),
        ("#1 wavefront 1/1", 28),
        ("#1 completes", 48),
    ]
    late, _ = run(sm90, [loads[0], attrs.evolve(loads[1], early=0, issue=6)])
    assert list(late.issue) == [0, 29]  # the same six others all after the wait


def test_the_data_path_serves_the_oldest_instructions_only(sm90):
    """window_phases 2: warp 0 (sub-partition 0) issues three 2-way loads at 0, 1 and 2 (1 phase each:
    wavefronts at 3, 5 / 7, 9 / 11, 13, one per 2 cycles of the warp); warp 1 (sub-partition 1) issues a
    1-way load at 3 after 3 other instructions. It reaches the banks at 6, but warp 0's loads #1 and #2
    are older and unfinished (2 phases: the window), so it waits until #1's last wavefront (9) and
    passes at 10, between warp 0's; with sm_90's 16 phases it passes at 6."""
    ins = [Instruction("LDS", TWO_WAY, warp=0)] * 3 + [Instruction("LDS", ROW, warp=1, issue=3)]
    narrow = attrs.evolve(sm90, timing=attrs.evolve(sm90.timing, window_phases=2))
    timeline, log = run(narrow, ins)
    assert list(timeline.issue) == [0, 1, 2, 3]
    assert [c for name, c in log if name.startswith("#3 wavefront")] == [10]
    assert list(timeline.complete) == [25, 29, 33, 30]  # last wavefront + 23 - 3
    wide, log = run(sm90, ins)
    assert [c for name, c in log if name.startswith("#3 wavefront")] == [6]
    assert by_wavefront(narrow, ins) == (list(timeline.issue), list(timeline.complete))


def test_a_first_wavefront_overtakes_a_close_2_wavefront_loads_replay(sm90):
    """sm_90's ``overtake`` (within 4 cycles, 2 wavefronts): warp 0 (sub-partition 0) issues a 2-way load
    at 0 (at the banks at 3: wavefronts at 3 and 5, one per 2 cycles of the warp); warp 1 (sub-partition
    1) issues a 1-way load at 2 after 2 other instructions, at the banks at 5, 2 cycles after warp 0's:
    its wavefront goes first, at 5, and warp 0's replay at 6. First come, first served (``overtake:
    null``) has them at 5 and 6 the other way; a 32-way load (32 wavefronts) is never overtaken."""
    ins = [Instruction("LDS", TWO_WAY, warp=0), Instruction("LDS", ROW, warp=1, issue=2)]
    passes = lambda log: [(name, c) for name, c in log if "wavefront" in name]  # noqa: E731
    _, log = run(sm90, ins)
    assert passes(log) == [("#0 wavefront 1/2", 3), ("#1 wavefront 1/1", 5), ("#0 wavefront 2/2", 6)]
    fcfs = attrs.evolve(sm90, timing=attrs.evolve(sm90.timing, overtake=None))
    _, log = run(fcfs, ins)
    assert passes(log) == [("#0 wavefront 1/2", 3), ("#0 wavefront 2/2", 5), ("#1 wavefront 1/1", 6)]
    wide = [Instruction("LDS", tuple(l * 128 for l in range(32)), warp=0), ins[1]]
    _, log = run(sm90, wide)
    assert [c for name, c in passes(log) if name.startswith("#0")][:3] == [3, 5, 7] and ("#1 wavefront 1/1", 6) in passes(log)
    timeline, _ = run(sm90, ins)
    assert by_wavefront(sm90, ins) == (list(timeline.issue), list(timeline.complete))


def by_wavefront(arch, ins):
    batch = InstructionBatch.from_instructions(ins)
    timeline = simulate_by_wavefront(batch, count(batch, arch), arch)
    return list(timeline.issue), list(timeline.complete)


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
    """shared_issue_interval 4: loads 4 cycles apart, also of two warps: warp 4 (younger) has slots 0 and 1
    and its load at 2, so warp 0's loads wait for 6 and 10 while the port is free."""
    arch = attrs.evolve(sm90, timing=attrs.evolve(sm90.timing, shared_issue_interval=4))
    timeline, _ = run(arch, [Instruction("LDS", ROW)] * 3)
    assert list(timeline.issue) == [0, 4, 8]
    assert list(timeline.complete) == [23, 27, 31]
    timeline, _ = run(arch, [Instruction("LDS", ROW, warp=0), Instruction("LDS", ROW, warp=4, issue=2), Instruction("LDS", ROW, warp=0)])
    assert list(timeline.issue) == [6, 2, 10]


def test_full_queue_stalls_issue(sm90):
    """queue_depth 1: the next load issues only the cycle after the previous one's last wavefront."""
    arch = attrs.evolve(sm90, timing=attrs.evolve(sm90.timing, queue_depth=1))
    timeline, _ = run(arch, [Instruction("LDS", TWO_WAY)] * 3)
    assert list(timeline.issue) == [0, 6, 12]  # wavefronts at 3 and 5: the entry frees at 6


def test_the_sm_holds_in_flight_entries_loads(sm90):
    """in_flight 2 entries, freed 20 cycles after the last wavefront: warps 2 and 1 (their own
    sub-partitions) take them at cycle 0, the youngest first, and pass at 3 and 4; warp 0, on a third
    sub-partition with its queue empty, issues only at 3 + 1 + 20 (without the limit, at 0)."""
    arch = attrs.evolve(sm90, timing=attrs.evolve(sm90.timing, in_flight=InFlight(2, 20)))
    ins = [Instruction("LDS", ROW, warp=w) for w in (0, 1, 2)]
    timeline, log = run(arch, ins)
    assert list(timeline.issue) == [24, 0, 0]
    assert [e for e in log if "wavefront" in e[0]] == [("#2 wavefront 1/1", 3), ("#1 wavefront 1/1", 4), ("#0 wavefront 1/1", 27)]
    assert list(run(attrs.evolve(sm90, timing=attrs.evolve(sm90.timing, in_flight=None)), ins)[0].issue) == [0, 0, 0]


def test_the_lsu_accepts_one_instruction_per_accept_interval(sm90):
    """Warps 0, 4, 8 and 12 (one sub-partition) each issue a 1-way load at once: the port takes them at
    0 to 3, the youngest first; the LSU accepts one per 2 cycles, so they reach the banks at 3, 5, 7 and 9
    (at 3 to 6 with accept_interval 1; a warp's own loads are spaced by its feed anyway)."""
    ins = [Instruction("LDS", ROW, warp=w) for w in (0, 4, 8, 12)]
    timeline, log = run(sm90, ins)
    assert list(timeline.issue) == [3, 2, 1, 0]
    assert [e for e in log if "wavefront" in e[0]] == [("#3 wavefront 1/1", 3), ("#2 wavefront 1/1", 5), ("#1 wavefront 1/1", 7),
                                                         ("#0 wavefront 1/1", 9)]
    assert list(timeline.complete) == [29, 27, 25, 23]
    eager = attrs.evolve(sm90, timing=attrs.evolve(sm90.timing, accept_interval=1))
    assert list(run(eager, ins)[0].complete) == [26, 25, 24, 23]


def test_sub_partition_of_each_warp_can_be_given(sm90):
    """Warps 0 and 1 on one sub-partition share its issue port and its LSU, the younger first; apart they
    issue in one cycle, the younger first too, so its load is the older at the data path."""
    ins = [Instruction("LDS", ROW, warp=0), Instruction("LDS", ROW, warp=1)]
    apart, _ = run(sm90, ins)
    together, _ = run(sm90, ins, sub_partition=np.array([0, 0]))
    assert (list(apart.issue), list(apart.complete)) == ([0, 0], [24, 23])
    # the younger warp 1 first; warp 0's load, issued at 1, is accepted at 2 (accept_interval 2)
    assert (list(together.issue), list(together.complete)) == ([1, 0], [25, 23])


def test_no_wavefronts_still_takes_the_latency(sm90):
    """A fully predicated-off instruction passes nothing through the banks."""
    timeline, log = run(sm90, [Instruction("LDS", (None,) * 32, mask=0)])
    assert list(timeline.complete) == [23] and list(timeline.wavefronts) == [0]
    assert not [e for e in log if "wavefront" in e[0]]


def test_empty_trace(sm90):
    timeline, log = run(sm90, [])
    assert (timeline.cycles, timeline.wavefronts_per_cycle, log) == (0, 0.0, [])


@st.composite
def traces(draw):
    """Random sm_90 traces: up to 40 instructions over up to 9 warps, with waits (true, false, 0 to 3),
    other instructions before and after the wait, and delays."""
    ins = draw(st.lists(instructions(), max_size=40))
    return [attrs.evolve(i, warp=draw(st.integers(0, 8)), wait=draw(st.booleans() | st.integers(0, 3)), issue=draw(st.integers(0, 3)),
                         early=draw(st.integers(0, 2)), delay=draw(st.integers(0, 6))) for i in ins]


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


@given(traces(), st.sampled_from([1, 2, 3, 4, 8, 16]), st.sampled_from([None, (0, 2), (1, 64), (4, 2), (16, 4)]), st.sampled_from([1, 2]),
       st.sampled_from([1, 2, 32]), st.sampled_from([None, 1, 3, 52]), st.sampled_from([0, 20]))
def test_engine_equals_wavefront_by_wavefront(sm90, ins, window, overtake, per_cycle, queue, in_flight, after):
    """The compiled data path, passed only when the engine looks and told of finished instructions then,
    gives the schedule of passing wavefronts one cycle event at a time, whatever the window (small ones
    fill often), the overtaking ((within, wavefronts); None: never), the data path's width, the LSU
    queue (1 or 2 entries: warps wait for room, which a telling must hand them in time) and the SM's
    loads in flight (1 or 3: warps of all sub-partitions wait for a place, freed 0 or 20 cycles after
    the last wavefront)."""
    rule = None if overtake is None else Overtake(*overtake)
    timing = attrs.evolve(sm90.timing, window_phases=window, overtake=rule, wavefronts_per_cycle=per_cycle, queue_depth=queue,
                            in_flight=None if in_flight is None else InFlight(in_flight, after))
    arch = attrs.evolve(sm90, timing=timing)
    batch = InstructionBatch.from_instructions(ins)
    counts = count(batch, arch)
    compiled, by_wavefront = simulate(batch, counts, arch), simulate_by_wavefront(batch, counts, arch)
    assert (compiled.issue == by_wavefront.issue).all() and (compiled.complete == by_wavefront.complete).all()
