"""``simsmem explain`` of wgmma and TMA rows (``explain_block``): the banks their pieces touch.

Evidence: every wgmma layout measured on the H200 (calibration/realk/hopper.json: the 47 hop_wg_* probes and the 24
held-out hold_wg_* ones, ncu 2025.3.1) has 0 bank conflicts and bytes / 128 wavefronts; the explanation's reason, each
core matrix's 8 rows on 8 different 16-byte bank groups, must hold for every one of those descriptors.
"""

from __future__ import annotations

import json

import pytest
from conftest import ROOT
from simsmem.cli import main
from simsmem.explain.block import explain_block
from simsmem.explain.distinct import of_trace
from simsmem.results.analysis import analyse
from simsmem.tiles.hopper import box_addresses
from simsmem.traces import Instruction, InstructionBatch, Trace

REALK = ROOT / "calibration" / "realk"
HOPPER = json.loads((REALK / "hopper.json").read_text())


def gmma_row(entry: dict) -> Instruction:
    """The GMMA row of a wgmma probe: its descriptors made absolute (the kernel adds 0x400 >> 4), shape from its name."""
    k = entry["kernel"]
    parts = k.split("_")
    gtype = parts[2] if k.startswith(("wg_rs_", "wg_sp_")) else parts[1]
    n = int(next(p for p in parts if p.startswith("n") and p[1:].isdigit())[1:])
    last = parts[-1]
    da, db = (int(x, 16) + 0x40 for x in entry["args"][2:4])
    return Instruction("GMMA", (None,) * 32, n=n, gtype=gtype, desc_a=0 if k.startswith("wg_rs_") else da, desc_b=db,
                       tnsp={"ta": "A", "tb": "B", "tab": "AB"}.get(last, "none"), sparse=k.startswith("wg_sp_"))


@pytest.mark.parametrize("entry", [e for e in HOPPER if e["kernel"].startswith("wg_")], ids=lambda e: e["name"])
def test_every_measured_wgmma_layout_reads_whole_bank_rows(entry, sm90):
    trace = Trace(InstructionBatch.from_instructions([gmma_row(entry)]))
    result = analyse(trace, sm90)
    ex = explain_block(of_trace(trace, sm90), 0)
    pieces = sum(len(p.groups) for p in ex.parts)
    assert pieces == result.metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum"] == entry["ncu"]["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum"]
    assert all(len(set(g)) == 8 for p in ex.parts for g in p.groups.tolist()), "a core matrix with two rows on one bank group"
    assert entry["ncu"]["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum"] == 0
    assert "whose 8 rows cover the 32 banks once" in ex.summary


def test_a_tma_box_is_shown_where_it_lands(sm90):
    """A 64x32 f16 box with the 128B swizzle at 0x800 (hop_tma_ld_2d_f16_128B's): its rows' 16-byte chunks are the
    addresses the machine writes (the same ``box_addresses``, checked there byte for byte against the H200's read-back)."""
    row = Instruction("UTMALDG", (None,) * 32, smem=0x800, size=4096, box=(64, 32), elem=2, swizzle="128B")
    (part,) = explain_block(of_trace(Trace(InstructionBatch.from_instructions([row])), sm90), 0).parts
    assert part.starts.shape == (32, 8)
    assert part.starts.tolist() == box_addresses(0x800, (64, 32), 2, 128).reshape(32, 64)[:, ::8].tolist()
    assert part.starts[1].tolist() == [0x890, 0x880, 0x8B0, 0x8A0, 0x8D0, 0x8C0, 0x8F0, 0x8E0]  # row 1: chunks XOR 1


def test_explain_cli_names_the_block_op(tmp_path, capsys):
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps({"simsmem_trace": 1, "instructions": [
        {"warp": 0, "op": "UBLKCP", "smem": 1024, "size": 4096},
        {"warp": 0, "op": "GMMA", "n": 64, "gtype": "f16", "desc_a": "0x4000004000010040", "desc_b": "0x4000004000010440"}]}))
    assert main(["explain", str(trace), "--index", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("instruction 1 (warp 0): GMMA m64n64k16 f16: 32 wavefronts, ideal 32, 0 bank conflicts")
    assert main(["explain", str(trace), "--index", "0", "--quiet"]) == 0
    assert "UBLKCP.S.G: 4096 bytes written to shared memory from 0x400 (1024 bank words)" in capsys.readouterr().out
