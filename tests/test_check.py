"""``simsmem check`` and ``simsmem.testing.assert_bank_conflicts``: a CI gate on bank conflicts.

Provenance: calibration/realk's sgemm_at32_naive and sgemm_at32_pad1 (their PTX, as the H100 ran it; manifest.json,
ncu 2025.3.1): the naive kernel's transposing stores have 15,872 store bank conflicts on the H100, the padded one's 0.
The messages' wording is the CLI's own (regression guards); the counts judged are the H100's (evidence).
"""

from __future__ import annotations

import json

import pytest

from conftest import REALK
from simsmem.cli import main
from simsmem.testing import assert_bank_conflicts

ENTRIES = {e["name"]: e for e in json.loads((REALK / "manifest.json").read_text())}
STORES = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"


def launch(name: str) -> list[str]:
    e = ENTRIES[name]
    return [str(REALK / e["ptx"]), "--kernel", e["kernel"], "--grid", ",".join(map(str, e["grid"])), "--block", ",".join(map(str, e["block"]))] + [
        f"--arg={a if not a.startswith('npy:') else 'npy:' + str(REALK / a[4:])}" for a in e["args"]]


def gate(capsys, name: str, *options: str) -> tuple[int, str]:
    rc = main(["check", *launch(name), *options])
    out, err = capsys.readouterr()
    assert err == "" and out.count("\n") == 1 and out.startswith("simsmem check: "), (out, err)
    return rc, out


def test_conflicting_stores_fail_the_gate_naming_the_source_line(capsys):
    rc, out = gate(capsys, "sgemm_at32_naive", "--max-bank-conflicts", "0", "--op", "STS")
    assert rc == 1
    h100 = ENTRIES["sgemm_at32_naive"]["ncu"][STORES]
    assert f"have {h100:,} bank conflicts (more than 0 allowed)" in out, out
    assert "worst: STS [R22], R27 at sgemm.ptx:" in out, out  # the PTX line of the store (the corpus's PTX has no .loc)


def test_the_padded_kernel_passes(capsys):
    rc, out = gate(capsys, "sgemm_at32_pad1", "--max-bank-conflicts", "0")
    assert rc == 0 and ENTRIES["sgemm_at32_pad1"]["ncu"]["l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"] == 0
    assert out.startswith("simsmem check: ok: the shared-memory instructions have 0 bank conflicts"), out


def test_a_bound_per_instruction(capsys):
    """The naive kernel's conflicts are spread over several stores: its total is over a bound that each store is under."""
    per = ENTRIES["sgemm_at32_naive"]["ncu"][STORES]
    rc, out = gate(capsys, "sgemm_at32_naive", "--max-bank-conflicts", str(per - 1), "--per-instruction", "--op", "STS")
    assert rc == 0, out
    rc, _ = gate(capsys, "sgemm_at32_naive", "--max-bank-conflicts", str(per - 1), "--op", "STS")
    assert rc == 1


def test_loads_alone_pass_where_stores_fail(capsys):
    rc, out = gate(capsys, "sgemm_at32_naive", "--max-bank-conflicts", "0", "--op", "LDS")
    assert rc == 0 and ENTRIES["sgemm_at32_naive"]["ncu"]["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 0, out


def test_the_pytest_helper():
    e = ENTRIES["sgemm_at32_naive"]
    args = [a if not a.startswith("npy:") else "npy:" + str(REALK / a[4:]) for a in e["args"]]
    with pytest.raises(AssertionError, match="too many bank conflicts.*worst: STS"):
        assert_bank_conflicts(REALK / e["ptx"], entry=e["kernel"], grid=e["grid"], block=e["block"], args=args, max_bank_conflicts=0)
    verdict = assert_bank_conflicts(REALK / e["ptx"], entry=e["kernel"], grid=e["grid"], block=e["block"], args=args,
                                    max_bank_conflicts=e["ncu"][STORES], op=["STS"])
    assert verdict.total == e["ncu"][STORES]


def test_a_missing_bound_is_a_usage_error(capsys):
    assert main(["check", *launch("sgemm_at32_pad1")]) == 2
    assert "--max-bank-conflicts" in capsys.readouterr().err
