"""The timed SM's rules (simsmem.sm) on small hand-made warp streams, and the control codes it reads.

These are regression guards of the model's own rules (each expected cycle is worked out by hand from the rule the
module docstring states), not evidence that the rules are the hardware's: tests/test_realk_timing.py holds the
model against the H100 and H200 measurements.
"""

import attrs
import numpy as np
import pytest
from conftest import REALK
from hypothesis import given
from hypothesis import strategies as st
from simsmem.config import load_arch
from simsmem.kernel.program import load_program
from simsmem.kernel.sass import Control, controls, parse_instruction
from simsmem.kernel.streams import WarpStreams
from simsmem.sm import REASONS, time_launch
from simsmem.sm.core import SMModel, occupancy
from simsmem.sm.memory import MemorySystem
from simsmem.traces import InstructionBatch

#: sm_90 with the start and end costs (instruction and constant caches, branches, EXIT's drain) at zero, so that each
#: test below sees the one rule it is about; test_fetch_branch_and_drain has them.
FULL = load_arch("sm_90")
ARCH = attrs.evolve(FULL, sm=attrs.evolve(FULL.sm, icache_miss=0, icache_next=0, constant_miss=0, branch_resolve=0, branch_refetch=0,
                                           exit_drain=0))
SM = ARCH.sm


def program(*lines: tuple[str, str, Control]) -> tuple[tuple, tuple]:
    """Code and control codes from (opcode, operands, control) triples, at 16 bytes each."""
    code = tuple(parse_instruction(16 * k, {"opcode": op, "operands": ops}) for k, (op, ops, _) in enumerate(lines))
    return code, tuple(c for _, _, c in lines)


def streams(code, control, warps: list[list[int]], per_cta: int | None = None, sectors=None, sets=()) -> WarpStreams:
    """Warp streams of ``warps`` (each a list of code indices), ``per_cta`` warps a CTA (default: one CTA)."""
    per_cta = per_cta or len(warps)
    n = [len(w) for w in warps]
    return WarpStreams(code, control, tuple(range(len(warps) // per_cta)), per_cta, tuple(np.array(w, dtype=np.int32) for w in warps),
                       tuple(np.full(k, -1, dtype=np.int64) for k in n),
                       tuple(np.array(s, dtype=np.int64) for s in sectors) if sectors else tuple(np.full(k, -1, dtype=np.int64) for k in n),
                       tuple(np.array(s, dtype=np.int64) for s in sets))


def simulate(s: WarpStreams, arch=ARCH):
    return SMModel(s, arch, np.zeros(0, dtype=np.int64), resident=8, share=1).run()


def test_control_codes_of_a_real_kernel():
    """ptxas's control codes as simsmem decodes them (bits 105-125): every scoreboard an instruction waits on was set by
    an instruction before it, and the transpose's first S2R sets the scoreboard its first use waits on."""
    p = load_program(REALK / "ptx" / "transpose.ptx", "transpose_smem_naive")
    ctl = controls(p.kernel.text)
    assert len(ctl) == len(p.code)
    for k, c in enumerate(ctl):
        for b in range(6):
            if c.wait >> b & 1:
                assert any(b in (x.write, x.read) for x in ctl[:k]), (p.code[k].text, b)
    s2r = next(k for k, ins in enumerate(p.code) if ins.name == "S2R")
    board = ctl[s2r].write
    assert board is not None
    register = p.code[s2r].operands[0].index
    use = next(k for k in range(s2r + 1, len(p.code)) if any(op.kind == "R" and op.index == register for op in p.code[k].operands[1:]))
    assert ctl[use].wait >> board & 1
    last = max(k for k, ins in enumerate(p.code) if ins.name == "EXIT")
    assert all(c.stall >= 1 for c in ctl[: last + 1])  # the code's padding after it (BRA to itself, NOPs) has 0


def test_stall_counts_set_the_pace():
    """One warp, three ALU instructions with stall counts 4, 2, 1, then EXIT: issued at 0, 4, 6, 7; resident 8 cycles;
    3 + 1 cycles of ``wait``."""
    code, ctl = program(("IADD3", "R1, R1, 0x1, RZ", Control(stall=4)), ("IADD3", "R2, R1, 0x1, RZ", Control(stall=2)),
                        ("LOP3.LUT", "R3, R1, R2, RZ, 0xfc, !PT", Control(stall=1)), ("EXIT", "", Control(stall=5)))
    run = simulate(streams(code, ctl, [[0, 1, 2, 3]]))
    assert run.active == 8
    assert run.stalls["wait"] == 4 and run.stalls["selected"] == 4


def test_fetch_branch_and_drain():
    """With sm_90's start and end costs: the first line of code arrives ``icache_miss`` cycles after the warp starts, the
    next line ``icache_next`` later (fetched behind it); a taken branch costs ``branch_resolve`` + ``branch_refetch``;
    EXIT ``exit_drain``. Ten one-cycle FFMA (two lines), a BRA back over them once, EXIT."""
    sm = FULL.sm
    lines = [("FFMA", "R1, R1, R1, R1", Control(stall=1))] * 10 + [("BRA", "0x0", Control(stall=1)), ("EXIT", "", Control(stall=1))]
    code, ctl = program(*lines)
    path = list(range(11)) + list(range(12))  # the branch taken once, then not
    run = SMModel(streams(code, ctl, [path]), FULL, np.zeros(0, dtype=np.int64), resident=1, share=1).run()
    first = sm.icache_miss + 8  # line 0 (instructions 0-7) arrives, then its 8 issue
    second = max(first, sm.icache_miss + sm.icache_next) + 3  # line 1: 8, 9, BRA
    back = second + sm.branch_resolve + sm.branch_refetch  # the taken branch, then 0-9, BRA (not taken), EXIT: cached lines
    exit_ = back + 11 + sm.branch_resolve  # EXIT's cycle
    assert run.active == exit_ + 1 + sm.exit_drain
    assert run.stalls["no_instruction"] == sm.icache_miss + (max(first, sm.icache_miss + sm.icache_next) - first) + sm.branch_refetch
    assert run.stalls["branch_resolving"] == 2 * sm.branch_resolve
    assert run.stalls["drain"] == sm.exit_drain


def test_a_scoreboard_waits_for_the_latency():
    """S2R sets scoreboard 0 (variable latency ``special``); the IMAD that waits on it issues that many cycles later."""
    code, ctl = program(("S2R", "R0, SR_TID.X", Control(stall=1, write=0)), ("IMAD", "R1, R0, 0x4, RZ", Control(stall=1, wait=1)),
                        ("EXIT", "", Control(stall=1)))
    run = simulate(streams(code, ctl, [[0, 1, 2]]))
    assert run.active == SM.latency["special"] + 2
    assert run.stalls["short_scoreboard"] == SM.latency["special"] - 1


def test_a_barrier_waits_for_the_last_warp():
    """Two warps of a CTA: warp 0 stalls 15 cycles before BAR, warp 1 arrives at once; both go on ``barrier`` cycles
    after warp 0's arrival, and warp 1's wait is put down to the barrier."""
    code, ctl = program(("IADD3", "R1, R1, 0x1, RZ", Control(stall=15)), ("BAR.SYNC.DEFER_BLOCKING", "0x0", Control(stall=1)),
                        ("EXIT", "", Control(stall=1)))
    run = simulate(streams(code, ctl, [[0, 1, 2], [1, 2]]))
    arrive = 15  # warp 0's BAR
    assert run.active == arrive + SM.barrier + 1
    assert run.stalls["barrier"] == (arrive + SM.barrier - 1) + (SM.barrier - 1)


def test_a_barrier_no_other_warp_reaches_is_let_go_with_a_note():
    """A warp at BAR.SYNC whose CTA's other warp exits without reaching it (as a named barrier's count the model reads
    otherwise could leave it): the run ends, and says so."""
    code, ctl = program(("BAR.SYNC.DEFER_BLOCKING", "0x1, 0x40", Control(stall=1)), ("EXIT", "", Control(stall=1)))
    s = streams(code, ctl, [[0, 1], [0, 1], [1]])  # warps 0 and 1 wait for 64 threads; warp 2 exits; BAR 1 needs 2 warps: met
    assert simulate(s).notes == ()
    s = streams(code, ctl, [[0, 1], [1], [1]])  # only warp 0 reaches it
    run = simulate(s)
    assert run.issued == 4 and run.notes and "let go" in run.notes[0]


def test_cg_copies_beside_shared_stores_add_store_wavefronts():
    """A .cg copy (LDGSTS.E.BYPASS.128) whose data is written into shared memory while a shared store is in flight adds
    ``cg_store_clash`` store wavefronts per line (the H200 variance probes' rate); with no store in flight, none."""
    code, ctl = program(("LDGSTS.E.BYPASS.128", "[R1], desc[UR4][R2.64]", Control(stall=1)), ("STS", "[R3], R4", Control(stall=1)),
                        ("EXIT", "", Control(stall=1)))
    alone = simulate(streams(code, ctl, [[0, 0, 2]]))
    assert alone.store_clashes == 0
    beside = simulate(streams(code, ctl, [[0, 0, 2], [1] * 60 + [2]]))  # the copies' data comes back l1_hit cycles later
    assert beside.store_clashes == pytest.approx(2 * SM.cg_store_clash)


NO_TIMEOUT = "a try_wait issued before its copies waits for its phase, without a time-out"


def test_an_mbarrier_wait_before_its_copy_waits_for_it():
    """Warp 1 reaches SYNCS.PHASECHK before warp 0 has issued the TMA copy its CTA expects (warp 0 stalls 15 cycles
    first): warp 1's next instruction waits for the copy, ``tma_load`` cycles after it (a note says that this try_wait,
    in no loop, has no time-out); with no copy ever, the wait is let go with a note."""
    code, ctl = program(("IADD3", "R1, R1, 0x1, RZ", Control(stall=15)), ("SYNCS.ARRIVE.TRANS64", "RZ, [UR5], R0", Control(stall=1)),
                        ("UTMALDG.2D", "[UR4], [UR10]", Control(stall=1)),
                        ("SYNCS.PHASECHK.TRANS64.TRYWAIT", "P1, [UR4], R0", Control(stall=1, write=1)),
                        ("IADD3", "R2, R2, 0x1, RZ", Control(stall=1, wait=0b10)), ("EXIT", "", Control(stall=1)))
    model = SMModel(streams(code, ctl, [[0, 1, 2, 3, 4, 5], [3, 4, 5]]), ARCH, np.zeros(0, dtype=np.int64), resident=1, share=1,
                    sizes=np.zeros(1, dtype=np.int64))
    run = model.run()
    waiter = model.warps[1]
    assert waiter.retire >= 17 + SM.memory.tma_load and run.notes == ("a try_wait is not in a loop the timed SM knows: it waits for its phase, without a time-out",)
    alone = simulate(streams(code, ctl, [[3, 4, 5]]))
    assert alone.issued == 3 and "let go" in alone.notes[0]


def _code(*lines: tuple[str, str, str, Control]) -> tuple[tuple, tuple]:
    """Code and control codes from (guard, opcode, operands, control) quadruples, at 16 bytes each."""
    code = tuple(parse_instruction(16 * k, {"predicate": g, "opcode": op, "operands": ops.replace(", ", ",")})
                 for k, (g, op, ops, _) in enumerate(lines))
    return code, tuple(c for *_, c in lines)


def test_setmaxnreg_spins_until_its_ctas_pool_has_the_registers():
    """A consumer warp's setmaxnreg.inc (ptxas's loop: WARPSYNC.ALL, USETMAXREG.TRY_ALLOC, PLOP3, @!P0 BRA back) asks for
    (232 - 168) x 32 registers of its CTA's pool, which holds none until the producer warp's setmaxnreg.dec (issued at
    cycle 60, after four 15-cycle stalls) gives back (168 - 40) x 32. By hand: the consumer's loop takes 35 cycles (9
    WARPSYNC + 8 the TRY_ALLOC's result, ``latency.regalloc`` + 13 PLOP3 + 5 BRA): its TRY_ALLOC at 9 and 44 fails, at 79
    it is granted; two more trips of 4 instructions each, issued like the others (the SM retires the consumer at 106:
    PLOP3 at 87, BRA at 100, EXIT at 105). Launched without
    registers (0: not known) it is granted at once."""
    code, ctl = _code((None, "WARPSYNC.ALL", "", Control(stall=9)), (None, "USETMAXREG.TRY_ALLOC.CTAPOOL", "UP0, 0xe8", Control(stall=2, write=1)),
                      (None, "PLOP3.LUT", "P0, PT, PT, PT, UP0, 0x80, 0x0", Control(stall=13, wait=0b10)),
                      ("@!P0", "BRA", "0x0", Control(stall=5)), (None, "EXIT", "", Control(stall=1)),
                      (None, "IADD3", "R1, R1, 0x1, RZ", Control(stall=15)), (None, "USETMAXREG.DEALLOC.CTAPOOL", "0x28", Control(stall=1)),
                      (None, "EXIT", "", Control(stall=1)))
    s = streams(code, ctl, [[0, 1, 2, 3, 4], [5, 5, 5, 5, 6, 7]])
    run = SMModel(s, ARCH, np.zeros(0, dtype=np.int64), resident=1, share=1, registers=168).run()
    assert run.spins == {"setmaxnreg": 8} and run.issued == 11 + 8
    assert run.by_pc[16]["selected"] == 3 and run.active == 106 and run.notes == ()
    alone = SMModel(s, ARCH, np.zeros(0, dtype=np.int64), resident=1, share=1).run()
    assert alone.spins == {} and alone.issued == 11


@pytest.mark.parametrize(("form", "trips"), [("out of line", 5), ("inline", 2 * 2)])
def test_a_try_wait_that_times_out_runs_its_loop_again(form, trips):
    """With a try_wait time-out of 300 cycles (``trywait_timeout``; sm_90's is 7,800, the H200's), a warp waiting for a TMA
    load (done about 900 cycles after warp 0 issues it at cycle 16) runs its loop again: warp 0, waiting from cycle 17,
    times out twice. Warp 1, waiting from cycle 0, before the copy is issued, waits for its phase without a time-out (a
    note says so: such a wait may be for a phase the timed SM never sees complete). ptxas's out-of-line form (``@!P1 BRA``
    to a TRYWAIT, ``@!P1 BRA`` to itself, ``BRA`` back) adds 3 instructions at the first time-out, 2 at each after; the
    inline one (``@!P1 BRA`` back to the TRYWAIT) 2 each. Without a time-out, none."""
    wait = (None, "SYNCS.PHASECHK.TRANS64.TRYWAIT", "P1, [UR4], R0", Control(stall=1, write=1))
    lines = [(None, "IADD3", "R1, R1, 0x1, RZ", Control(stall=15)), (None, "SYNCS.ARRIVE.TRANS64", "RZ, [UR5], R0", Control(stall=1)),
             (None, "UTMALDG.2D", "[UR4], [UR10]", Control(stall=1)), wait,
             ("@!P1", "BRA", "0x70" if form == "out of line" else "0x30", Control(stall=1, wait=0b10)),
             (None, "IADD3", "R2, R2, 0x1, RZ", Control(stall=1)), (None, "EXIT", "", Control(stall=1))]
    if form == "out of line":
        lines += [wait, ("@!P1", "BRA", "0x70", Control(stall=1, wait=0b10)), (None, "BRA", "0x50", Control(stall=1))]
    code, ctl = _code(*lines)
    s = streams(code, ctl, [[0, 1, 2, 3, 4, 5, 6], [3, 4, 5, 6]])
    timed = attrs.evolve(ARCH, sm=attrs.evolve(SM, trywait_timeout=300))
    run = SMModel(s, timed, np.zeros(0, dtype=np.int64), resident=1, share=1, sizes=np.zeros(1, dtype=np.int64)).run()
    assert run.spins == {"try_wait": trips} and run.issued == 11 + trips and run.notes == (NO_TIMEOUT,)
    untimed = attrs.evolve(ARCH, sm=attrs.evolve(SM, trywait_timeout=None))
    assert SMModel(s, untimed, np.zeros(0, dtype=np.int64), resident=1, share=1, sizes=np.zeros(1, dtype=np.int64)).run().spins == {}

def test_greedy_then_youngest():
    """Two warps on one sub-partition, ready together, one-cycle stalls: the youngest (the later slot) issues first and
    keeps the port until it is done; then the other (FFMA: the fma pipe takes one a cycle)."""
    code, ctl = program(("FFMA", "R1, R1, R1, R1", Control(stall=1)), ("EXIT", "", Control(stall=1)))
    s = streams(code, ctl, [[0, 0, 1], [1], [1], [1], [0, 0, 1]], per_cta=5)  # warps 0 and 4: sub-partition 0
    model = SMModel(s, ARCH, np.zeros(0, dtype=np.int64), resident=1, share=1)
    run = model.run()
    old, young = (w for w in model.warps if w.sp == 0)
    assert young.retire == 3 and old.retire == 6
    assert run.stalls["not_selected"] == 3


def test_global_memory_sectors():
    """A sector's first load comes from DRAM, its second from L1; a store sends it to L2, where the next load finds it."""
    m = MemorySystem(SM.memory, SM.memory.l1_bytes, share=1)
    first = m.load([7], 0)
    assert first >= SM.memory.dram
    assert m.load([7], 1000) == 1000 + SM.memory.l1_hit
    m.store([7], 2000)
    assert m.load([7], 5000) == 5000 + SM.memory.l2_hit
    assert m.sectors == {"l1_hit": 1, "l2_hit": 1, "dram": 1}


@pytest.mark.parametrize(("threads", "registers", "shared", "ctas"), [
    (256, 32, 0, 8),         # warps: 64 / 8
    (256, 64, 0, 4),         # registers: 65536 / (64 * 256)
    (256, 30, 0, 8),         # 30 registers are allocated as 32
    (128, 32, 102400, 2),    # shared memory: 233472 // 102400
    (32, 16, 0, 32),         # the CTA limit
])
def test_occupancy(threads, registers, shared, ctas):
    """CTAs per SM as the CUDA occupancy calculator gives them for compute capability 9.0."""
    assert occupancy(SM, ARCH, -(-threads // 32), registers, shared) == ctas


@st.composite
def random_streams(draw):
    """A CTA of up to 8 warps running random ALU, shared-memory, global-load and barrier instructions (every warp the
    same number of barriers, so that none waits forever)."""
    lines = [("IADD3", "R1, R1, 0x1, RZ", Control(stall=draw(st.integers(1, 6)))),
             ("LDS", "R2, [R1]", Control(stall=1, write=1)),
             ("IMAD", "R3, R2, 0x4, RZ", Control(stall=2, wait=0b10)),
             ("LDG.E", "R4, desc[UR4][R2.64]", Control(stall=1, write=2)),
             ("FFMA", "R5, R4, R4, R5", Control(stall=4, wait=0b100)),
             ("BAR.SYNC.DEFER_BLOCKING", "0x0", Control(stall=1)),
             ("EXIT", "", Control(stall=1))]
    code, ctl = program(*lines)
    nwarps = draw(st.integers(1, 8))
    bars = draw(st.integers(0, 3))
    warps, sectors, sets = [], [], []
    for _ in range(nwarps):
        body = draw(st.lists(st.sampled_from([0, 1, 2, 3, 4]), max_size=30))
        at = sorted(draw(st.lists(st.integers(0, len(body)), min_size=bars, max_size=bars)))
        for k in reversed(at):
            body.insert(k, 5)
        body.append(6)
        warps.append(body)
        sec = []
        for k in body:
            if k == 3:
                sec.append(len(sets))
                sets.append(draw(st.lists(st.integers(0, 64), min_size=1, max_size=8, unique=True)))
            else:
                sec.append(-1)
        sectors.append(sec)
    return code, ctl, warps, sectors, sets


@given(random_streams())
def test_every_resident_cycle_has_one_reason(case):
    """Each warp's stall cycles by reason, ``selected`` included, add up to the cycles it was resident; every instruction
    of every stream issues once."""
    code, ctl, warps, sectors, sets = case
    s = streams(code, ctl, warps, sectors=sectors, sets=sets)
    wavefronts = np.ones(1, dtype=np.int64)
    model = SMModel(s, ARCH, wavefronts, resident=1, share=1)
    run = model.run()
    assert run.issued == sum(len(w) for w in warps)
    for w in model.warps:
        assert sum(w.stalls) == int(np.ceil(w.retire)) - w.start
    assert sum(run.stalls.values()) == sum(int(np.ceil(w.retire)) - w.start for w in model.warps)
    assert set(run.stalls) == set(REASONS)


def test_launch_scales_one_sm_to_the_grid():
    """A launch of 264 CTAs on 132 SMs: the first SM runs 2, and the launch's sums count 132 times what it did."""
    code, ctl = program(("IADD3", "R1, R1, 0x1, RZ", Control(stall=4)), ("EXIT", "", Control(stall=1)))
    s = streams(code, ctl, [[0, 1], [0, 1]], per_cta=1)
    lt = time_launch(s, InstructionBatch.empty(), np.zeros(0, dtype=np.int64), ARCH, {"ctas": 264, "registers": 16, "shared": 0})
    assert lt.run.ctas == 2
    assert lt.metrics["smsp__warps_launched.sum"] == 264
    assert lt.metrics["smsp__warps_issue_stalled_selected.sum"] == 2 * 264
    assert lt.metrics["sm__cycles_elapsed.max"] == lt.metrics["sm__cycles_active.max"] + SM.launch_overhead


def test_a_launch_whose_waves_share_sms_says_what_it_leaves_out():
    """A launch in several waves of two or more CTAs an SM carries the note of what the H200 counts beyond the timed SM
    (calibration/realk/runs/2026-11-29-scale: such launches gain wavefronts; one wave, or waves of one CTA an SM, none).
    CTAs of one warp and 16 registers: 32 an SM, so 264 CTAs are one wave and 5,000 are 1.2."""
    code, ctl = program(("EXIT", "", Control(stall=1)))
    s = streams(code, ctl, [[0]], per_cta=1)
    for ctas, waves in ((264, None), (5000, "1.2 waves of 32 CTAs an SM")):
        notes = time_launch(s, InstructionBatch.empty(), np.zeros(0, dtype=np.int64), ARCH, {"ctas": ctas, "registers": 16, "shared": 0}).run.notes
        noted = [n for n in notes if "waves of" in n]
        assert (not noted) if waves is None else (len(noted) == 1 and waves in noted[0]), notes


def test_an_arch_without_sm_numbers_says_so():
    arch = attrs.evolve(ARCH, sm=None)
    code, ctl = program(("EXIT", "", Control()))
    with pytest.raises(ValueError, match="no SM timing"):
        simulate(streams(code, ctl, [[0]]), arch)
