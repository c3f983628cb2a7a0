"""``simsmem compare``: the seed kernels' traces against the real ncu reports of those kernels.

Provenance: calibration/h100/ncu_csv/seed_kernels_details.csv and seed_kernels_raw.csv (H100 80GB HBM3,
Nsight Compute 2025.3.1, CUDA 13.0; kernels of calibration/h100/src/seeds.cu) against
traces/seeds/*.json (the same kernels as traces).
"""

import pytest

from conftest import H100, ROOT
from simsmem.cli import main

TRACES = ROOT / "traces"
DETAILS = H100 / "ncu_csv" / "seed_kernels_details.csv"
RAW = H100 / "ncu_csv" / "seed_kernels_raw.csv"
SEEDS = ["v2_wmma", "v3_wmma_padding", "v4_mma", "v5_mma_swizzle", "trans_direct1", "trans_direct2",
         "trans_shm1", "trans_shm2", "trans_pad", "trans_swizzle"]
OP_LD_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"


#: seed traces with generic stores on shared memory and no kernel header: the SASS-level op_shared_st is not modelled there
GENERIC_STORES = ("v4_mma", "v5_mma_swizzle")


@pytest.mark.parametrize("report, compared", [(DETAILS, 30), (RAW, 8)], ids=["details", "raw"])
@pytest.mark.parametrize("seed", SEEDS)
def test_every_seed_kernel_matches_its_real_report(seed, report, compared, capsys):
    """The kernel is found by the trace's name; every modelled counter in the report matches.

    The details page holds 30 counters simsmem models (the SASS-level op_shared_{ld,st,atom} and op_ldsm among them; smsp__sass_data_bytes_mem_shared_op_ldgsts, the L1-level l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts and the four wgmma ones, op_gmma, all 0
    in these kernels; the wavefronts by command, cmd_read and cmd_write); the raw page (fewer metrics requested) 8 of them.
    """
    assert main(["compare", str(TRACES / "seeds" / f"{seed}.json"), str(report)]) == 0
    out = capsys.readouterr().out
    compared -= report == DETAILS and seed in GENERIC_STORES
    assert f"all {compared} modelled counters match" in out
    assert "MISMATCH" not in out


def test_shows_measured_and_simulated_and_lists_what_is_not_modelled(capsys):
    assert main(["compare", str(TRACES / "seeds" / "trans_shm1.json"), str(DETAILS)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if OP_LD_CONFLICTS in line)
    assert row.count("63,488") == 2 and "match" in row  # measured 63,488; simulated 63,488
    # op_misc and the total that includes it are listed, with their measured values, never flagged: a trace file has no
    # kernel execution to count op_misc from.
    misc = next(line for line in out.splitlines() if "mem_shared_op_misc.sum " in line)
    assert "not modelled" in misc
    # bank reads: ncu's total adds the kernel's global accesses, which a trace without a traced kernel's header lacks
    reads = next(line for line in out.splitlines() if "l1tex__data_bank_reads.sum " in line)
    assert reads.strip("│ ").endswith("not modelled")
    assert "not modelled: l1tex__data_bank_reads.sum: ncu adds the kernel's global accesses through L1" in out


def _edited(tmp_path, kernel, metric, value):
    """The details report with one value of one kernel replaced."""
    lines = DETAILS.read_text().splitlines(keepends=True)
    out = [line.replace(line.rsplit(",", 1)[1], f'"{value}"\n') if f'"{kernel}(' in line and f'"{metric}"' in line else line for line in lines]
    assert out != lines
    path = tmp_path / "edited.csv"
    path.write_text("".join(out))
    return path


def test_a_mismatch_is_flagged_and_exits_1(tmp_path, capsys):
    report = _edited(tmp_path, "v2_wmma", OP_LD_CONFLICTS, "9")
    assert main(["compare", str(TRACES / "seeds" / "v2_wmma.json"), str(report)]) == 1
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if OP_LD_CONFLICTS in line)
    assert "MISMATCH" in row and "9" in row and "8" in row
    assert "1 of 30 modelled counters differ" in out


def test_counters_not_modelled_are_never_flagged(tmp_path, capsys):
    report = _edited(tmp_path, "v2_wmma", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum", "1,234")
    assert main(["compare", str(TRACES / "seeds" / "v2_wmma.json"), str(report)]) == 0
    assert "1,234" in capsys.readouterr().out


def test_kernel_flag_picks_another_kernel(capsys):
    """trans_shm1's trace against trans_shm2's measurements: shm2 conflicts on stores, shm1 on loads."""
    assert main(["compare", str(TRACES / "seeds" / "trans_shm1.json"), str(DETAILS), "--kernel", "7"]) == 1
    out = capsys.readouterr().out
    assert "vs kernel 7 trans_shm2" in out and "MISMATCH" in out


def test_grid_size_differing_from_the_trace_is_pointed_out(tmp_path, capsys):
    """A trace of one CTA of trans_shm1 (the seed trace says ctas: 64, the report's grid is 8x8)."""
    one_cta = tmp_path / "trans_shm1.json"
    one_cta.write_text((TRACES / "seeds" / "trans_shm1.json").read_text().replace('"ctas":64', '"ctas":1'))
    assert main(["compare", str(one_cta), str(DETAILS)]) == 1
    assert "the report's grid (8, 8, 1) has 64 CTAs, the trace's launch 1" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        ([str(TRACES / "seeds" / "v2_wmma.json"), str(TRACES / "seeds" / "v2_wmma.json")], "no ncu CSV header"),
        ([str(TRACES / "seeds" / "v2_wmma.json"), str(DETAILS), "--kernel", "nope"], "--kernel: no kernel 'nope'"),
        ([str(TRACES / "ldsm_x4.json"), str(DETAILS)], "holds 10 kernels, pick one with --kernel"),
        ([str(TRACES / "seeds" / "v2_wmma.json"), "missing.csv"], "missing.csv: cannot read ncu report"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message, capsys):
    assert main(["compare", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_report_without_modelled_counters_is_an_error(tmp_path, capsys):
    report = tmp_path / "r.csv"
    report.write_text('"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n"0","k(int)","dram__bytes.sum","byte","5"\n')
    assert main(["compare", str(TRACES / "ldsm_x4.json"), str(report)]) == 2
    assert "has none of the counters simsmem models" in capsys.readouterr().err


def test_quiet_writes_nothing_to_stderr(capsys):
    assert main(["compare", str(TRACES / "seeds" / "v2_wmma.json"), str(RAW), "--quiet"]) == 0
    assert capsys.readouterr().err == ""
