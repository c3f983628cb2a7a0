"""Properties of the bank model that hold for any valid instruction, and the vectorised model
checked against the readable reference (the brute-force oracle) on random instructions."""

from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from simsmem.banks import count, schedule
from simsmem.banks.reference import l1_bank_conflicts
from simsmem.traces import Instruction, InstructionBatch
from strategies import instructions


def counted(ins_list, arch):
    return count(InstructionBatch.from_instructions(ins_list), arch)


@pytest.mark.slow
@given(st.lists(instructions(), min_size=1, max_size=24))
def test_vectorised_equals_reference(sm90, batch):
    c = counted(batch, sm90)
    for i, ins in enumerate(batch):
        s = schedule(ins, sm90)
        assert (c.wavefronts[i], c.ideal[i], c.bytes[i]) == (len(s.wavefronts), s.ideal, s.bytes), ins
        l1 = l1_bank_conflicts(ins, sm90) if ins.op == "LDGSTS" else s.bank_conflicts  # rule 11: an LDGSTS's L1-level count
        assert c.l1_bank_conflicts[i] == l1, ins


@given(instructions())
def test_wavefront_bounds(sm90, ins):
    s = schedule(ins, sm90)
    active = len(ins.active_lanes)
    if active:
        assert len(s.wavefronts) >= 1
        assert 0 <= s.bank_conflicts
        if not (ins.bypass and ins.zeroed and not ins.srcsize):  # the .cg predicate form's conflicts are not its wavefronts' (reference.py, rule 5)
            assert s.bank_conflicts < len(s.wavefronts)
    else:
        assert len(s.wavefronts) == 0 and s.bank_conflicts == 0 and s.bytes == 0


@given(instructions())
def test_every_request_served_once_and_no_bank_serves_two_words(sm90, ins):
    """Each wavefront takes at most one word per bank (per lane for atomics); all requests are served, once (the
    .ZFILL form of a .cg copy: once more by its quarter-warp passes)."""
    s = schedule(ins, sm90)
    served = Counter((r.lane, r.word) for w in s.wavefronts for r in w.requests)
    times = 2 if ins.bypass and ins.srcsize else 1
    assert set(served.values()) <= {times}
    per_lane_words = sum(max(1, s.shape.words_per_lane) for _ in ins.active_lanes)
    assert len(served) == per_lane_words
    for w in s.wavefronts:
        words = {}
        for r in w.requests:
            words.setdefault(r.bank, set()).add(r.word if s.shape.broadcast else (r.lane, r.word))
        assert all(len(v) == 1 for v in words.values())


@given(instructions(), st.integers(0, 31), st.integers(0, 31))
def test_broadcast_never_adds_wavefronts_for_loads(sm90, ins, src, dst):
    """Copying one active lane's address into another active lane of the same phase: loads never get slower."""
    if ins.op not in ("LDS", "LDSM"):
        return
    lanes = ins.active_lanes
    shape = schedule(ins, sm90).shape
    if src not in lanes or dst not in lanes or src // shape.lanes_per_phase != dst // shape.lanes_per_phase:
        return
    addrs = list(ins.addrs)
    addrs[dst] = addrs[src]
    before = len(schedule(ins, sm90).wavefronts)
    after = len(schedule(Instruction(**{**_fields(ins), "addrs": tuple(addrs)}), sm90).wavefronts)
    assert after <= before


@given(instructions(), st.lists(st.integers(0, 4096), min_size=32, max_size=32))
def test_inactive_lanes_do_not_matter(sm90, ins, junk):
    """Whatever inactive lanes hold (LDSM/STSM: lanes past 8*num), the counts are the same."""
    lanes = set(ins.active_lanes)
    addrs = tuple(a if i in lanes else junk[i] * 16 for i, a in enumerate(ins.addrs))
    a = counted([ins], sm90)
    b = counted([Instruction(**{**_fields(ins), "addrs": addrs})], sm90)
    assert np.array_equal(a.wavefronts, b.wavefronts) and np.array_equal(a.bank_conflicts, b.bank_conflicts)


@pytest.mark.slow
@given(st.lists(instructions(), min_size=2, max_size=12), st.randoms(use_true_random=False))
def test_counts_do_not_depend_on_batch_order(sm90, batch, rnd):
    order = list(range(len(batch)))
    rnd.shuffle(order)
    a = counted(batch, sm90)
    b = counted([batch[i] for i in order], sm90)
    assert list(b.wavefronts) == [a.wavefronts[i] for i in order]
    assert list(b.bank_conflicts) == [a.bank_conflicts[i] for i in order]


def test_mask_zero_counts_as_executed_with_no_wavefronts(sm90):
    from simsmem.results.analysis import analyse
    from simsmem.traces import Trace

    ins = Instruction(op="LDS", width=32, mask=0, addrs=(None,) * 32)
    result = analyse(Trace(InstructionBatch.from_instructions([ins])), sm90)
    assert result.metrics["smsp__inst_executed_op_shared_ld.sum"] == 1
    assert result.metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 0


def _fields(ins):
    import attrs

    return attrs.asdict(ins)


def test_matrix_ops_carry_no_width_in_batches(sm90):
    """An LDSM record keeps its default width field, but the batch (and the range check) treat it as 16-byte rows."""
    import pytest
    from simsmem.errors import TraceError
    from simsmem.results.validate import check_against_arch

    ins = Instruction(op="LDSM", num=1, addrs=(sm90.shared_memory_per_cta - 4,) + (0,) * 31)
    batch = InstructionBatch.from_instructions([ins])
    assert batch.width[0] == 0 and batch.num[0] == 1
    with pytest.raises(TraceError, match="past sm_90"):
        check_against_arch(batch, sm90, "t")
