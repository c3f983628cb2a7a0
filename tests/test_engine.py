"""The timing engine: a hand-checked event log, the rules of issue, and properties over random traces.

Expected cycles come from the sm_90 config's timing section (configs/sm_90.yaml: issue_interval 1,
feed_interval 2, wavefronts_per_cycle 1, to_banks 3; LDS.32 latency 23, LDS.64 24), worked out by hand.
"""

import attrs
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from simsmem.banks import count
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
    """Warps 0 and 4 share sub-partition 0 (its port takes one instruction a cycle), warp 1 has
    sub-partition 1; the data path passes one wavefront a cycle, each warp's instructions one per 2
    cycles; #2 waits for #0 (done at 23) and spends 2 cycles first."""
    timeline, log = run(sm90, [
        Instruction("LDS", ROW, warp=0),
        Instruction("LDS", TWO_WAY, warp=1),
        Instruction("LDS", WIDE, width=64, warp=0, wait=True, delay=2),
        Instruction("LDS", ROW, warp=4),
    ])
    assert log == [
        ("warp 0 issues #0", 0), ("warp 1 issues #1", 0), ("warp 4 issues #3", 1),
        ("#0 wavefront 1/1", 3),  # issue + to_banks
        ("#1 wavefront 1/2", 4),  # cycle 3 went to #0 (at the front since 3 too: warp 0 first)
        ("#3 wavefront 1/1", 5),  # at the front since 4, which #1 (front since 3) took
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
    """``wait: 1`` lets the latest earlier load stay in flight; ``issue`` takes port slots of the
    sub-partition that warps 0 and 4 share (sm_90 timing, as above)."""
    timeline, log = run(sm90, [
        Instruction("LDS", ROW, warp=0),
        Instruction("LDS", TWO_WAY, warp=0),
        Instruction("LDS", ROW, warp=0, wait=1, issue=2, delay=1),
        Instruction("LDS", ROW, warp=4, issue=3),
    ])
    assert log == [
        ("warp 0 issues #0", 0),
        ("warp 4 issues 3 others", 1),  # slots 1, 2, 3 (warp 0 took cycle 0)
        ("#0 wavefront 1/1", 3),
        ("warp 0 issues #1", 4),  # ready at 1, the port busy with warp 4's others until 4
        ("warp 4 issues #3", 5),  # ready at 4 (after 3 slots), port taken at 4
        ("#1 wavefront 1/2", 7),  # 4 + to_banks 3
        ("#3 wavefront 1/1", 8),  # 5 + 3: another warp, so not held back by #1's feed
        ("#1 wavefront 2/2", 9),  # warp 0: one wavefront per 2 cycles
        ("#0 completes", 23),
        ("warp 0 issues 2 others", 23),  # wait 1: #0 done, #1 (done at 29) may stay in flight
        ("warp 0 issues #2", 26),  # 23 + 2 slots + delay 1
        ("#3 completes", 28),
        ("#1 completes", 29),
        ("#2 wavefront 1/1", 29),  # 26 + 3
        ("#2 completes", 49),
    ]
    assert timeline.cycles == 49


def test_early_instructions_issue_before_the_wait(sm90):
    """``early`` slots go before the wait (they overlap the load waited for), ``issue`` slots after it."""
    loads = [Instruction("LDS", ROW, warp=0), Instruction("LDS", ROW, warp=0, wait=True, early=4, issue=2)]
    timeline, log = run(sm90, loads)
    assert log == [
        ("warp 0 issues #0", 0),
        ("warp 0 issues 4 others", 1),  # early: cycles 1 to 4, while #0 is in flight
        ("#0 wavefront 1/1", 3),
        ("#0 completes", 23),
        ("warp 0 issues 2 others", 23),  # after the wait
        ("warp 0 issues #1", 25),
        ("#1 wavefront 1/1", 28),
        ("#1 completes", 48),
    ]
    late, _ = run(sm90, [loads[0], attrs.evolve(loads[1], early=0, issue=6)])
    assert list(late.issue) == [0, 29]  # the same six others all after the wait


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


def test_full_queue_stalls_issue(sm90):
    """queue_depth 1: the next load issues only the cycle after the previous one's last wavefront."""
    arch = attrs.evolve(sm90, timing=attrs.evolve(sm90.timing, queue_depth=1))
    timeline, _ = run(arch, [Instruction("LDS", TWO_WAY)] * 3)
    assert list(timeline.issue) == [0, 6, 12]  # wavefronts at 3 and 5: the entry frees at 6


def test_sub_partition_of_each_warp_can_be_given(sm90):
    """Warps 0 and 1 on one sub-partition share its issue port (their wavefronts are not held apart)."""
    ins = [Instruction("LDS", ROW, warp=0), Instruction("LDS", ROW, warp=1)]
    apart, _ = run(sm90, ins)
    together, _ = run(sm90, ins, sub_partition=np.array([0, 0]))
    assert (list(apart.issue), list(apart.complete)) == ([0, 0], [23, 24])
    assert (list(together.issue), list(together.complete)) == ([0, 1], [23, 24])  # wavefronts at 3 and 4 either way


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


@given(traces())
def test_booking_equals_wavefront_by_wavefront(sm90, ins):
    """Booking a front's wavefronts at once gives the schedule of passing them one by one."""
    batch = InstructionBatch.from_instructions(ins)
    counts = count(batch, sm90)
    booked, by_wavefront = simulate(batch, counts, sm90), simulate_by_wavefront(batch, counts, sm90)
    assert (booked.issue == by_wavefront.issue).all() and (booked.complete == by_wavefront.complete).all()
