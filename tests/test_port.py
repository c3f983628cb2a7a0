"""The issue port's rules (simsmem.engine.port): its bulk hand-out against a slot-by-slot reference.

The port hands out many slots at once and predicts when a warp's slots end; the reference below gives
the port's slots one at a time by the rule's own words (the wanting warp of highest priority; the
wanting warp after the one served last). For any wants, warp served last and cycles asked about, the
two agree on who holds which slots.
"""

from hypothesis import given
from hypothesis import strategies as st

from simsmem.engine.port import PriorityPort, RoundRobinPort

WARPS = range(8)


def reference_slots(kind: str, wanting: dict[int, int], last: int, free: int, interval: int = 1) -> list[tuple[int, int]]:
    """(cycle, warp) of every slot from ``free`` on until no warp wants one, one at a time."""
    wanting, out = dict(wanting), []
    while wanting:
        if kind == "round-robin":
            w = min(wanting, key=lambda v: (v - last - 1) % (1 << 32))
        else:
            w = max(wanting) if kind == "youngest" else min(wanting)
        out.append((free, w))
        free, last = free + interval, w
        wanting[w] -= 1
        if not wanting[w]:
            del wanting[w]
    return out


def make(kind: str, wanting: dict[int, int], last: int, interval: int = 1):
    port = RoundRobinPort(interval) if kind == "round-robin" else PriorityPort(interval, -1 if kind == "youngest" else 1)
    for w in WARPS:
        port.join(w)
    for w, n in wanting.items():
        port.want(w, n)
    if kind == "round-robin":
        port.last = last
    return port


def test_round_robin_takes_turns():
    """Warps 1, 3 and 6 want 3, 1 and 2 slots, warp 3 served last: cycles 0-5 go to 6, 1, 3, 6, 1, 1.
    A slot warp 0 or 5 wanted now: 5 comes first after 3, 0 after 6."""
    port = make("round-robin", {1: 3, 3: 1, 6: 2}, last=3)
    assert [port.end(w) for w in (1, 3, 6)] == [6, 3, 4]
    assert (port.start(5), port.start(0)) == (0, 1)
    port.hand_out(4)
    assert port.wanting == {1: 2} and port.last == 6 and port.free == 4
    assert (port.start(3), port.start(5), port.start(0)) == (5, 5, 4)  # after warp 6: 0, then 1, then 3 and 5


def test_priority_serves_one_warp_to_its_end():
    port = make("youngest", {1: 3, 3: 1, 6: 2}, last=-1)
    assert [port.end(w) for w in (1, 3, 6)] == [6, 3, 2]
    port.hand_out(4)
    assert port.wanting == {1: 2} and port.free == 4


@given(st.sampled_from(["round-robin", "youngest", "oldest"]), st.dictionaries(st.sampled_from(WARPS), st.integers(1, 9), max_size=6),
       st.sampled_from([-1, *WARPS]), st.lists(st.integers(0, 12), max_size=4), st.integers(1, 3))
def test_bulk_hand_out_and_predictions_follow_the_rule_slot_by_slot(kind, wanting, last, steps, interval):
    port = make(kind, wanting, last, interval)
    slots = reference_slots(kind, wanting, last, 0, interval)
    now = 0
    for step in steps:  # ask at later and later cycles: the slots started before each are handed out as the reference did
        now += step
        port.hand_out(now)
        left = [(c, w) for c, w in slots if c >= now]
        handed = [c for c, _ in slots if c < now]
        assert port.free == max(now, handed[-1] + interval if handed else now)
        assert port.wanting == {w: sum(v == w for _, v in left) for w in {v for _, v in left}}
        for w in WARPS:
            if w in port.wanting:
                assert port.end(w) == max(c for c, v in left if v == w) + interval
            else:  # one more slot for w, the others' wants as they are: when the reference gives it
                more = reference_slots(kind, {**port.wanting, w: 1}, port.last if kind == "round-robin" else -1, port.free, interval)
                assert port.start(w) == next(c for c, v in more if v == w)
