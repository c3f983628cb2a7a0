"""The config's timing section and per-form latencies: what the engine needs, checked field by field."""

import pytest
import yaml

from conftest import ROOT
from simsmem.config import builtin_archs, load_arch
from simsmem.errors import ConfigError


def _load_edited(tmp_path, edit):
    data = yaml.safe_load((ROOT / "configs" / "sm_90.yaml").read_text())
    edit(data)
    path = tmp_path / "my.yaml"
    path.write_text(yaml.safe_dump(data))
    return load_arch(str(path))


def test_every_arch_times_every_form():
    """Each op has a latency for each of its widths or matrix counts; only sm_90 claims calibration."""
    for name in builtin_archs():
        arch = load_arch(name)
        for op in arch.ops.values():
            assert sorted(op.latency) == sorted(op.widths or op.nums)
        assert bool(arch.timing.calibrated) == (name == "sm_90")
    assert load_arch("sm_90").ops["LDS"].latency == {8: 23, 16: 23, 32: 23, 64: 24, 128: 26}  # H100 timing.json


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d["ops"]["LDS"]["latency"].pop(64), "ops.LDS.latency: needs one entry for each of [8, 16, 32, 64, 128]"),
        (lambda d: d["ops"]["LDSM"]["latency"].__setitem__("x4", 23), "ops.LDSM: latency.x4: expected a non-negative integer, got 'x4'"),
        (lambda d: d["ops"]["STS"]["latency"].__setitem__(32, 3), "ops.STS.latency.32: must exceed timing.to_banks (3)"),
        (lambda d: d["timing"].__setitem__("feed_interval", 0), "timing.feed_interval: must be positive"),
        (lambda d: d["timing"].__setitem__("shared_issue_interval", 0), "timing.shared_issue_interval: must be positive"),
        (lambda d: d["timing"].__setitem__("alu_interval", 0), "timing.alu_interval: must be positive"),
        (lambda d: d["timing"].__setitem__("accept_interval", 0), "timing.accept_interval: must be positive"),
        (lambda d: d["timing"].pop("accept_interval"), "timing: missing field 'accept_interval'"),
        (lambda d: d["timing"].__setitem__("issue_priority", "random"), "timing: issue_priority: expected one of ['youngest', 'oldest', 'round-robin'], got 'random'"),
        (lambda d: d["timing"].pop("to_banks"), "timing: missing field 'to_banks'"),
        (lambda d: d["timing"]["calibrated"].append("TMA.latency"), "'TMA.latency' is neither a timing field nor an OP.latency"),
        (lambda d: d["timing"]["overtake"].__setitem__("wavefronts", 1), "timing.overtake.wavefronts: must be at least 2"),
        (lambda d: d["timing"]["overtake"].pop("within"), "timing: overtake: missing field 'within'"),
        (lambda d: d["timing"].__setitem__("overtake", 4), "timing: overtake: expected a mapping for Overtake, got int"),
        (lambda d: d["timing"]["overtake"].__setitem__("within", -1), "timing: overtake: within: expected a non-negative integer, got -1"),
        (lambda d: d["timing"]["in_flight"].__setitem__("entries", 0), "timing.in_flight.entries: must be positive"),
        (lambda d: d["timing"]["in_flight"].pop("after"), "timing: in_flight: missing field 'after'"),
        (lambda d: d["timing"].__setitem__("in_flight", 60), "timing: in_flight: expected a mapping for InFlight, got int"),
    ],
)
def test_bad_timing_field_is_named(tmp_path, edit, message):
    with pytest.raises(ConfigError) as exc:
        _load_edited(tmp_path, edit)
    assert message in str(exc.value) and "my.yaml" in str(exc.value)


@pytest.mark.parametrize("edit", [lambda d: d["timing"].__setitem__("overtake", None), lambda d: d["timing"].pop("overtake")],
                         ids=["null", "left out"])
def test_overtake_null_or_left_out_is_first_come_first_served(tmp_path, edit):
    """``overtake: null`` (or none given, as in configs written before it) turns the exception off."""
    assert _load_edited(tmp_path, edit).timing.overtake is None
    assert load_arch("sm_90").timing.overtake is not None


@pytest.mark.parametrize("edit", [lambda d: d["timing"].__setitem__("in_flight", None), lambda d: d["timing"].pop("in_flight")],
                         ids=["null", "left out"])
def test_in_flight_null_or_left_out_is_no_limit(tmp_path, edit):
    """``in_flight: null`` (or none given, as in configs written before it): the SM holds any number."""
    assert _load_edited(tmp_path, edit).timing.in_flight is None
    assert load_arch("sm_90").timing.in_flight is not None
