"""The memory-latency probes measured on the H200 (calibration/realk/manifest_memlat.json, src/memlat_probes.cu; 8 ncu runs,
memlat_h200.json; each recorded warp's clock64 at every round, memlat_clocks_h200.json; runs/2026-11-29-memlat/README.md)
against the timed SM's global memory (simsmem.sm.memory, and the per-warp limit in core) with sm_90_h200.

A probe's round trip is the mean over its recorded warps of the clock from one round's start to the next, rounds 1 to 15
(round 0 apart: instruction fetch), one value a run; the timed SM's is the same over its warps (memlat_model.py). The
numbers these judge come from the probes themselves (sm_90.yaml says which), so they show the rule fits the 40 launches
at once, not that it predicts others; the corpus (test_realk_timing) does that.
"""

import json
import statistics
import sys

import numpy as np
import pytest
from conftest import REALK
from simsmem.config import load_arch
from simsmem.sm.memory import MemorySystem

H200 = load_arch("sm_90_h200")
MEASURED = json.loads((REALK / "memlat_clocks_h200.json").read_text())
NCU = json.loads((REALK / "memlat_h200.json").read_text())
#: Each probe's round trip within its 8 runs' range widened by this much each way: twice the widest half-spread of a
#: probe's runs around its median (ml_c_16_1x1x1w16: 836..952 around 876, +-6.6%).
TOLERANCE = 0.13
#: Probes the rule misses, with why (strict: a miss that starts passing fails, so the mark goes when the model is right).
MISSES = {
    "ml_c_64_1x1x8w8_bar": "DRAM latency has two modes ~190 apart by 8 KiB block, and a tail in time (not modelled): a barrier each "
                           "round waits for the slowest of the CTA's 64 lines; measured 1,022..1,066, simulated 868",
    "ml_c_256_132x1x8w32_bar": "the SMs' DRAM shares are even in time in the model: a barrier makes each SM's 256 lines one burst, "
                               "which the H200 drains faster while other SMs wait on theirs; measured 2,010..2,151, simulated 2,767",
}


def trips(name: str) -> list[float]:
    """A probe's round trip in each run: the mean over rounds 1.. of the recorded warps' mean."""
    return [float(np.mean(r["trips"][1:])) for r in MEASURED[name]["runs"]]


@pytest.fixture(scope="module")
def model() -> dict[str, dict]:
    sys.path.insert(0, str(REALK))
    try:
        import memlat_model
    finally:
        sys.path.remove(str(REALK))
    return {e["name"]: memlat_model.model(e, H200) for e in json.loads((REALK / "manifest_memlat.json").read_text())}


@pytest.mark.slow
@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.xfail(reason=MISSES[n], strict=True)] if n in MISSES else [])
                                  for n in MEASURED])
def test_round_trip(model, name):
    """The timed SM's round trip inside the probe's measured range widened by TOLERANCE."""
    runs, sim = trips(name), model[name]["trip"]
    assert (1 - TOLERANCE) * min(runs) <= sim <= (1 + TOLERANCE) * max(runs), (min(runs), max(runs), sim)


@pytest.mark.slow
def test_round_trip_mape(model):
    """Over all 40 probes the round trips' mean absolute percentage error against the runs' median is at most 5.5% (4.9%
    at this rule; 10.0% before it, runs/2026-11-29-memlat/model_predicted.json), no probe but the MISSES off by 15%."""
    errors = {n: abs(model[n]["trip"] - statistics.median(trips(n))) / statistics.median(trips(n)) for n in MEASURED}
    assert len(errors) == 40
    assert statistics.mean(errors.values()) <= 0.055, statistics.mean(errors.values())
    assert all(e <= 0.15 for n, e in errors.items() if n not in MISSES), errors


@pytest.mark.slow
def test_one_warp_waits_for_its_oldest_load(model):
    """One warp with 64 loads a round: the H200 stalls it on ``misc`` (125 cycles a round from L2, 556 from DRAM), not on a
    scoreboard (ptxas puts 58 of the LDGs on one, under a dependence counter's 63): its 41st load waits for its first.
    The timed SM's ``warp_loads`` gives misc within 20% of both, and none where a warp has 32 loads (ml_c_256_1x1x8w32: 0.1)."""
    for name in ("ml_h_64_1x1x1w64", "ml_c_64_1x1x1w64"):
        hw = statistics.median(NCU[name]["smsp__warps_issue_stalled_misc.sum"]) / 16
        assert abs(model[name]["misc"] - hw) <= 0.2 * hw, (name, hw, model[name]["misc"])
    assert model["ml_c_256_1x1x8w32"]["misc"] == 0


def test_link_carries_sectors_in_the_order_l2_has_them():
    """An L2 hit asked for after a DRAM miss comes back l2_hit after its turn, not behind the DRAM sector on the link."""
    m = MemorySystem(H200.sm.memory, H200.sm.memory.l1_bytes, share=1)
    m.store([9], 0)  # L2 has sector 9
    cold = m.load([7], 1000)
    hot = m.load([9], 1001)
    assert hot == 1001 + H200.sm.memory.l2_hit < cold


def test_link_bandwidth_and_shares():
    """64 L2 hits asked for at once: the link carries sm_bytes_per_cycle; with 132 SMs sharing the chip's L2, each SM's
    share, l2_bytes_per_cycle / 132, takes over."""
    mem = H200.sm.memory
    for share, per_cycle in ((1, mem.sm_bytes_per_cycle), (132, mem.l2_bytes_per_cycle / 132)):
        m = MemorySystem(mem, mem.l1_bytes, share=share)
        for s in range(64):
            m.store([s], 0)
        last = m.load(list(range(64)), 10_000, cache=False)
        assert last - (10_000 + mem.l2_hit) == pytest.approx(64 * 32 / per_cycle, abs=2)


def test_dram_trip_grows_with_the_sectors_in_flight():
    """A DRAM sector's trip grows flight_cycles for each sector the SM has in flight when it leaves (here 100 L2 hits)."""
    mem = H200.sm.memory
    alone = MemorySystem(mem, mem.l1_bytes, share=1).load([1000], 0)
    m = MemorySystem(mem, mem.l1_bytes, share=1)
    for s in range(100):
        m.store([s], 0)
    m.load(list(range(100)), 0)
    loaded = m.load([1000], 1)
    assert alone == mem.dram
    assert loaded - 1 - alone == pytest.approx(100 * mem.flight_cycles, abs=1)


def _pattern():
    sys.path.insert(0, str(REALK))
    try:
        import memlat_pattern
    finally:
        sys.path.remove(str(REALK))
    return memlat_pattern


#: The cold probes on one SM whose trips fall in two modes (memlat_pattern.py: ml_c_1_1x1x1w1's 16 lines all lie in one)
TWO_MODES = ("ml_c_4_1x1x1w4", "ml_c_16_1x1x8w2", "ml_c_16_1x1x1w16", "ml_c_48_1x1x8w6", "ml_c_64_1x1x8w8", "ml_c_64_1x1x8w2w",
             "ml_c_128_1x1x8w16")


def test_dram_latency_has_two_modes_by_address():
    """The H200's DRAM latency is one of two modes by a line's address (memlat_clocks_h200.json's per-warp trips, 8 runs;
    memlat_pattern.py): each probe's warp-rounds split into a fast and a slow mode 184-198 cycles apart, and in every run
    85% or more of them (0.85-1.00) fall in the mode of their median over the runs: the address decides, not the time.
    Spans 1 KiB apart share a mode 80-83% of the time, 8 KiB apart 5-27% (ml_c_16_1x1x8w2, ml_c_64_1x1x8w8, 8 KiB
    a round each). Not modelled: the timed SM gives every DRAM sector one latency (runs/2026-11-29-memlat/README.md, "DRAM's
    latency by address", says what a rule with it did to the corpus)."""
    p = _pattern()
    for name in TWO_MODES:
        trips, span = p.probe(name)
        threshold, fast, slow_mode, slow = p.modes(trips)
        assert 180 <= slow_mode - fast <= 200, (name, fast, slow_mode)
        assert min(p.agreement(trips, threshold, slow)) >= 0.85, name
    for name in ("ml_c_16_1x1x8w2", "ml_c_64_1x1x8w8"):
        trips, span = p.probe(name)
        slow = p.modes(trips)[3]
        assert p.same_mode(slow, span, 1024) >= 0.8 and p.same_mode(slow, span, 8192) <= 0.3, name


def test_dram_modes_alternate_by_8kib_in_small_buffers():
    """In the probes' buffers of 8 and 32 KiB the slow mode is the buffer's first few KiB and then every other 8 KiB, and
    where the alternation starts is what one layout gives: memory whose first 4 KiB are slow, the launcher's buffers in
    it one after the other at multiples of 512 bytes (the records' buffer first: 72 bytes, or 576 with 8 warps), so the
    probe's buffer starts with 3,584 or 3,072 slow bytes. That alternation puts 100%, 98% and 93% of the warp-rounds of
    ml_c_4_1x1x1w4, ml_c_16_1x1x8w2 and ml_c_16_1x1x1w16 in their mode, as well as any start does. In the larger buffers
    (96 to 256 KiB) 8 KiB blocks keep a mode, but which are slow no longer alternates (44-65%)."""
    p = _pattern()
    entries = {e["name"]: e for e in json.loads((REALK / "manifest_memlat.json").read_text())}
    for name, least in (("ml_c_4_1x1x1w4", 1.0), ("ml_c_16_1x1x8w2", 0.98), ("ml_c_16_1x1x1w16", 0.93)):
        trips, span = p.probe(name)
        slow = p.modes(trips)[3]
        records = int(entries[name]["args"][0].removeprefix("zeros:"))
        head = 4096 - -(-records // 512) * 512
        match = p.match(slow, span, head)
        assert match >= least and match == p.alternation(slow, span)[0], (name, head, match)
