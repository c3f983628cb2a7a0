"""Architecture configs: the built-ins load, and a bad field is an error that names it."""

import pytest
import yaml

from simsmem.config import builtin_archs, load_arch
from simsmem.errors import ConfigError
from conftest import ROOT


def test_builtins_load_and_only_sm90_is_validated():
    """sm_90 (the H100) and sm_90_h200 (the same SM: every shared-memory counter measured on both agreed) are validated;
    the H200's config differs in the timed SM's memory and launch numbers only."""
    assert builtin_archs() == ["sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90_h200"]
    archs = {name: load_arch(name) for name in builtin_archs()}
    assert [n for n, a in archs.items() if a.validated] == ["sm_90", "sm_90_h200"]
    h100, h200 = archs["sm_90"], archs["sm_90_h200"]
    assert (h100.ops, h100.timing, h100.block_ops) == (h200.ops, h200.timing, h200.block_ops)
    assert h100.sm.pipes == h200.sm.pipes and h100.sm.memory != h200.sm.memory
    assert all(archs[n].sm is None for n in ("sm_70", "sm_75", "sm_80", "sm_86", "sm_89"))
    assert all(a.banks == 32 and a.bank_width == 4 for a in archs.values())


def test_sm90_sizes_and_ops():
    a = load_arch("sm_90")
    assert (a.shared_memory_per_sm, a.shared_memory_per_cta) == (228 * 1024, 227 * 1024)
    assert sorted(a.ops) == ["ATOMS", "LDGSTS", "LDS", "LDSM", "STS", "STSM"]
    assert (a.ops["LDSM"].counter, a.ops["STSM"].counter) == ("ld", "st")


def test_ops_appear_with_their_arch():
    """LDSM from sm_75, STSM from sm_90; an op the arch lacks is an error."""
    assert "LDSM" not in load_arch("sm_70").ops and "LDSM" in load_arch("sm_75").ops
    assert "STSM" not in load_arch("sm_89").ops
    with pytest.raises(ConfigError, match="STSM does not exist on sm_80|'STSM' does not exist on sm_80"):
        load_arch("sm_80").op("STSM")


def test_configs_folder_is_the_package_data():
    assert (ROOT / "configs" / "sm_90.yaml").read_text() == (ROOT / "simulator/simsmem/configs/sm_90.yaml").read_text()


def _write(tmp_path, data, name="my.yaml"):
    p = tmp_path / name
    p.write_text(yaml.safe_dump(data))
    return str(p)


def _sm90_data():
    return yaml.safe_load((ROOT / "configs" / "sm_90.yaml").read_text())


def test_user_file_loads(tmp_path):
    data = _sm90_data()
    data["name"] = "my_arch"
    data["banks"] = 16
    a = load_arch(_write(tmp_path, data))
    assert (a.name, a.banks, a.phase_bytes) == ("my_arch", 16, 64)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d.pop("banks"), "missing field 'banks'"),
        (lambda d: d.__setitem__("banks", "32"), "banks: expected a non-negative integer"),
        (lambda d: d.__setitem__("validated", "yes"), "validated: expected true or false"),
        (lambda d: d.__setitem__("colour", 1), "unknown field 'colour'"),
        (lambda d: d["ops"]["LDS"].pop("broadcast"), "ops.LDS: missing field 'broadcast'"),
        (lambda d: d["ops"]["LDS"].__setitem__("counter", "load"), "ops.LDS: counter: expected one of"),
        (lambda d: d["ops"]["LDS"].__setitem__("widths", [32, 48]), "ops.LDS.widths: unsupported width 48"),
        (lambda d: d.__setitem__("shared_memory_per_cta", 10**9), "shared_memory_per_cta: larger than"),
        (lambda d: d["timing"].pop("queue_depth"), "timing: missing field 'queue_depth'"),
    ],
)
def test_bad_field_is_named(tmp_path, edit, message):
    data = _sm90_data()
    edit(data)
    with pytest.raises(ConfigError) as exc:
        load_arch(_write(tmp_path, data))
    assert message in str(exc.value)
    assert "my.yaml" in str(exc.value)


def test_base_merges_and_cycles_are_errors(tmp_path):
    a = load_arch(_write(tmp_path, {"base": "sm_90", "name": "sm_90_16banks", "banks": 16}))
    assert (a.name, a.banks, sorted(a.ops)) == ("sm_90_16banks", 16, ["ATOMS", "LDGSTS", "LDS", "LDSM", "STS", "STSM"])
    first = tmp_path / "a.yaml"
    second = tmp_path / "b.yaml"
    first.write_text(f"base: {second}\n")
    second.write_text(f"base: {first}\n")
    with pytest.raises(ConfigError, match="cycle"):
        load_arch(str(first))


def test_unknown_arch_and_bad_yaml(tmp_path):
    with pytest.raises(ConfigError, match="unknown arch 'sm_99'"):
        load_arch("sm_99")
    p = tmp_path / "bad.yaml"
    p.write_text("banks: [1, 2\n")
    with pytest.raises(ConfigError, match="invalid YAML"):
        load_arch(str(p))


@pytest.mark.parametrize(
    "edit, message",
    [
        ({"bank_width": 3}, "bank_width: must be a power of two"),
        ({"banks": 30}, "banks: must be a multiple of 4"),
        ({"ops": {"LDS": {"merge_phases": 4}}}, "merge_phases: must be 1 or 2"),
    ],
)
def test_values_the_model_cannot_mean_are_errors(tmp_path, edit, message):
    """Reported by a user review: `base: sm_90` with `bank_width: 3` used to load and count nonsense."""
    with pytest.raises(ConfigError, match=message):
        load_arch(_write(tmp_path, {"base": "sm_90", "name": "odd", **edit}))
