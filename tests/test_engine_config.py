"""The config's timing section and per-form latencies: what the engine needs, checked field by field."""

import pytest
import yaml

from conftest import ROOT
from simsmem.config import builtin_archs, load_arch
from simsmem.errors import ConfigError


def _load_edited(tmp_path, edit, name="my"):
    data = yaml.safe_load((ROOT / "configs" / "sm_90.yaml").read_text())
    edit(data)
    path = tmp_path / f"{name}.yaml"  # (load_arch caches by path)
    path.write_text(yaml.safe_dump(data))
    return load_arch(str(path))


def test_every_arch_times_every_form():
    """Each op has a latency for each of its widths or matrix counts; only sm_90 (and the H200's config, which takes
    sm_90's SM: every shared-memory counter measured on both agreed) claims calibration."""
    for name in builtin_archs():
        arch = load_arch(name)
        for op in arch.ops.values():
            assert sorted(op.latency) == sorted(op.widths or op.nums)
        assert bool(arch.timing.calibrated) == (name in ("sm_90", "sm_90_h200"))
    assert load_arch("sm_90").ops["LDS"].latency == {8: 23, 16: 23, 32: 23, 64: 24, 128: 26}  # H100 timing.json


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d["ops"]["LDS"]["latency"].pop(64), "ops.LDS.latency: needs one entry for each of [8, 16, 32, 64, 128]"),
        (lambda d: d["ops"]["LDSM"]["latency"].__setitem__("x4", 23), "ops.LDSM: latency.x4: expected a non-negative integer, got 'x4'"),
        (lambda d: d["ops"]["STS"]["latency"].__setitem__(32, 3), "ops.STS.latency.32: must exceed timing.to_banks (3)"),
        (lambda d: d["timing"].__setitem__("feed_interval", 0), "timing.feed_interval: must be positive"),
        (lambda d: d["timing"].__setitem__("shared_issue_interval", 0), "timing.shared_issue_interval: must be positive"),
        (lambda d: d["timing"]["pipes"].__setitem__("alu", 0), "timing.pipes.alu: must be positive (leave a pipe out for no limit)"),
        (lambda d: d["timing"]["pipes"].__setitem__("ALU", 2), "timing.pipes.ALU: a pipe's name is lower-case letters"),
        (lambda d: d["timing"].pop("pipes"), "timing: missing field 'pipes'"),
        (lambda d: d["timing"].__setitem__("path_order", "random"), "timing: path_order: expected one of ['oldest', 'new-first'], got 'random'"),
        (lambda d: d["timing"].__setitem__("overtake", {"within": 4, "wavefronts": 2}), "timing.overtake: overtaking is a rule of path_order 'oldest'"),
        (lambda d: d["timing"].__setitem__("accept_interval", 0), "timing.accept_interval: must be positive"),
        (lambda d: d["timing"].pop("accept_interval"), "timing: missing field 'accept_interval'"),
        (lambda d: d["timing"].__setitem__("issue_priority", "random"), "timing: issue_priority: expected one of ['youngest', 'oldest', 'round-robin', 'greedy'], got 'random'"),
        (lambda d: d["timing"].pop("to_banks"), "timing: missing field 'to_banks'"),
        (lambda d: d["timing"]["calibrated"].append("TMA.latency"), "'TMA.latency' is neither a timing field nor an OP.latency"),
        (lambda d: d["timing"].update(path_order="oldest", overtake={"within": 4, "wavefronts": 1}), "timing.overtake.wavefronts: must be at least 2"),
        (lambda d: d["timing"].update(path_order="oldest", overtake={"wavefronts": 2}), "timing: overtake: missing field 'within'"),
        (lambda d: d["timing"].__setitem__("overtake", 4), "timing: overtake: expected a mapping for Overtake, got int"),
        (lambda d: d["timing"].update(path_order="oldest", overtake={"within": -1, "wavefronts": 2}), "timing: overtake: within: expected a non-negative integer, got -1"),
        (lambda d: d["timing"].__setitem__("in_flight", {"entries": 0, "after": 20}), "timing.in_flight.entries: must be positive"),
        (lambda d: d["timing"].__setitem__("in_flight", {"entries": 60}), "timing: in_flight: missing field 'after'"),
        (lambda d: d["timing"].__setitem__("in_flight", 60), "timing: in_flight: expected a mapping for InFlight, got int"),
    ],
)
def test_bad_timing_field_is_named(tmp_path, edit, message):
    with pytest.raises(ConfigError) as exc:
        _load_edited(tmp_path, edit)
    assert message in str(exc.value) and "my.yaml" in str(exc.value)


@pytest.mark.parametrize("edit", [lambda d: d["timing"].__setitem__("overtake", None), lambda d: d["timing"].pop("overtake")],
                         ids=["null", "left out"])
def test_overtake_null_or_left_out_is_no_overtaking(tmp_path, edit):
    """``overtake: null`` (or none given, as in configs written before it) turns the exception off; sm_90's
    path (new-first) has none, and ``path_order`` left out is the oldest first."""
    assert _load_edited(tmp_path, edit).timing.overtake is None
    assert load_arch("sm_90").timing.overtake is None
    assert _load_edited(tmp_path, lambda d: d["timing"].pop("path_order"), "plain").timing.path_order == "oldest"


@pytest.mark.parametrize("edit", [lambda d: d["timing"].__setitem__("in_flight", None), lambda d: d["timing"].pop("in_flight")],
                         ids=["null", "left out"])
def test_in_flight_null_or_left_out_is_no_limit(tmp_path, edit):
    """``in_flight: null`` (or none given, as in configs written before it): the SM holds any number (sm_90's)."""
    assert _load_edited(tmp_path, edit).timing.in_flight is None
    assert _load_edited(tmp_path, lambda d: d["timing"].__setitem__("in_flight", {"entries": 60, "after": 20}), "limited").timing.in_flight.entries == 60
