"""Every opcode the executor runs, against the GPU's bits, in the quick suite.

Evidence (hardware). calibration/isa: one-CTA kernels written here, launched by calibration/realk/launch.cu on one
NVIDIA H200 (driver 580.159.04, nvcc/ptxas 13.0.88, ncu 2025.3.1, 2026-11-29: calibration/isa/runs/2026-11-29), each
buffer dumped after the run (calibration/isa/out), ncu's smsp__inst_executed.sum in the manifest; and the realk ISA
kernels (calibration/realk/manifest.json isa_*, H100 80GB HBM3, 2026-11-27). Each is traced here from the cubin
ptxas 13.0.88 makes of its PTX (calibration/isa/cubin, checked against ptxas by the slow test at the end; the H200's
ptxas made the same bytes: runs/2026-11-29/ptxas.txt), so no ptxas runs in the quick suite.

Regression guard: ``test_every_opcode_is_checked`` pins the list of opcodes these kernels execute against the
registry, so an opcode added to the executor without a kernel here fails it.
"""

from __future__ import annotations

import functools
import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from simsmem.errors import SimsmemError
from simsmem.kernel.isa import modelled
from simsmem.kernel.launch import make_launch
from simsmem.kernel.program import load_program
from simsmem.kernel.tracer import StreamSink, describe, select_ctas, trace_stream

ROOT = Path(__file__).resolve().parent.parent
ISA, REALK = ROOT / "calibration" / "isa", ROOT / "calibration" / "realk"
OWN = json.loads((ISA / "manifest.json").read_text())
BORROWED = [e for e in json.loads((REALK / "manifest.json").read_text()) if e["name"].startswith("isa_")]
ENTRIES = {e["name"]: (e, ISA) for e in OWN} | {e["name"]: (e, REALK) for e in BORROWED}

#: Results the executor does not reproduce, by entry and (argument, row): row j of a buffer is its words j*n .. j*n+n-1
#: (n threads), which for an output buffer is the kernels' result j (each file's head says which is which). The set
#: that differs must be exactly this: a result that starts to match must leave it.
RACE = "the kernel's own race: byte stores at 1024 + t and 8-byte stores at 1024 + 8t overlap across warps (found after the run)"
ATOMS_MAX = "ATOMS.MAX/MIN with no type is unsigned on the GPU (atomicMax(unsigned*)); kernel/isa/memory.py takes it as signed"
ATOM_F32 = "ATOMG.E.ADD.F32.FTZ.RN flushes subnormal operands and results to zero and returns NaN as 0x7FFFFFFF; memory.py does neither"
ORDER = ("the old values 128 threads' atomicAdd(__half2) on 4 shared words return: which thread is served when (the "
         "sums, the next row, match)")
MUFU = "MUFU's approximations (ex2, lg2, sin, cos, rsqrt, tanh, rcp.approx and the fast intrinsics on them): simsmem rounds the exact value"
KNOWN = {
    "isa_memory": {**{(0, j): RACE for j in (3, 4, 5, 6)}, **{(0, j): ATOMS_MAX for j in (*range(14, 20), 27)},
                   **{(0, j): ATOM_F32 for j in (56, 60, 61)}, **{(2, j): ATOM_F32 for j in (0, 1, 3)}},
    "isa_float32": {(0, j): MUFU for j in (17, 21, 22, *range(26, 36), 37, 38, 39, 40)},
    "isa_float64": {(0, 33): MUFU},
    "isa_half": {(0, 21): MUFU, (0, 22): MUFU},
    "isa_atomics_packed": {(0, 26): ORDER},
}
#: smsp__inst_executed.sum where the GPU's count is not the executor's, and why.
COUNTS = {"isa_memory": "the f32 atomicAdd on 8 shared words of 128 threads is a CAS loop whose retries depend on how the "
                        "four warps interleave (H200 3841; the executor's lock-step 3752)",
          "isa_atomics_packed": "the generic __half2 atomicAdd on shared words is ptxas's QSPC + ATOMS.CAST.SPIN loop, whose "
                                "retries depend on how the four warps interleave (H200 1640; the executor's lock-step 1750)"}
#: Opcodes of the registry no kernel here executes, and why. Hopper's wgmma/TMA/mbarrier opcodes: the measured
#: entries of calibration/realk/hopper.json named (the slow test below traces them).
HOPPER = {"HGMMA": "hop_wg_f16_n64_k_128B", "IGMMA": "hop_wg_s8_n64_k_128B", "QGMMA": "hop_wg_e4m3_n64_k_128B",
          "WARPGROUP": "hop_wg_f16_n64_k_128B", "SYNCS": "hop_tma_ld_2d_f16_none", "UTMALDG": "hop_tma_ld_2d_f16_none",
          "UTMASTG": "hop_tma_st_2d_f16_none", "UTMACMDFLUSH": "hop_tma_st_2d_f16_none", "UBLKCP": "hop_bulk_ld_16",
          "UTMACCTL": "tmap_by_pointer",
          "USGXT": "triton_matmul_f16_sm90"}
#: Names ptxas 13.0 emitted for no probe here for sm_90 (it folds immediates into FADD/FMUL/FFMA/FMNMX/MOV/IADD3,
#: has no IADD/IMUL/IMOV, makes min/max of f64 DSETP+FSEL, and of the uniform datapath only what
#: calibration/isa/src/uniform.cu shows). Each shares its builder with a checked opcode, named second.
NOT_EMITTED = {
    "FADD32I": "FADD", "FMUL32I": "FMUL", "FFMA32I": "FFMA", "FMNMX32I": "FMNMX", "MOV32I": "MOV", "IMOV": "MOV", "IADD": "IADD3",
    "IADD32I": "IADD3", "IMUL": "IMAD", "IMNMX": "VIMNMX", "DMNMX": "DADD", "RED": "REDG",
    "UIADD": "UIADD3", "UIMUL": "UIMAD", "UIMNMX": "VIMNMX", "UVIMNMX": "VIMNMX", "UIABS": "IABS",
    "UVABSDIFF": "VABSDIFF", "UVIADD": "VIADD", "UVIADDMNMX": "VIADDMNMX", "UBMSK": "BMSK", "UPLOP3": "PLOP3", "UP2UR": "P2R",
    "UR2UP": "R2P", "RUR": "R2UR", "CREDUX": "REDUX", "JMP": "BRA", "KILL": "EXIT", "CCTLL": "CCTL", "ACQSHMINIT": "NOP",
    "UCGABAR": "UCGABAR_ARV",
    "ENDCOLLECTIVE": "WARPSYNC",  # only on the path a warp takes when a collective's lanes are not converged
}
#: Opcodes with a builder of their own that no kernel here executes, and why.
UNCHECKED = {"BMOV": "ptxas saves convergence barriers with it; no probe of nested divergence around calls made it emit one",
             **dict.fromkeys(("ARRIVES", "UBLKPF", "UTMAPF"), "added by e5a7bf2 (issue 37); no measured entry executes it yet")}


def _buffer(launch, i: int) -> np.ndarray:
    return next(b.data for b in launch.memory.buffers if b.name.startswith(f"argument {i + 1} ")).view("<u4")


@functools.cache
def traced(name: str):
    """The entry traced from its cached cubin: (entry, launch after the run, trace header, opcodes it executed)."""
    entry, base = ENTRIES[name]
    cubin = ISA / "cubin" / (f"realk_{Path(entry['ptx']).stem}" if base == REALK else Path(entry["ptx"]).stem)
    program = load_program(cubin.with_suffix(".cubin"), entry["kernel"])
    launch = make_launch(program, tuple(entry["grid"]), tuple(entry["block"]), entry["smem"], entry["args"], base)
    ctas = select_ctas(launch, None)
    sink = StreamSink(sms=len(ctas), ctas=frozenset(ctas))
    header = describe(program, launch, ctas, entry["args"], entry["smem"])
    trace_stream(program, launch, ctas, header, sink=sink).read()
    ran = {program.code[pc].name for s in sink.kept for pcs in s.pcs for pc in pcs}
    return entry, launch, header, ran


def dumped(name: str) -> dict[int, np.ndarray]:
    entry, base = ENTRIES[name]
    files = {i: base / "out" / f"{name}.arg{i}.bin.gz" for i, a in enumerate(entry["args"]) if a.startswith("zeros:")}
    return {i: np.frombuffer(gzip.decompress(f.read_bytes()), dtype="<u4") for i, f in files.items() if f.exists()}


#: Entries measured on the GPU that ran (isa_trap stops there); one not yet measured is checked by its own test file.
RAN = [n for n, (e, _) in ENTRIES.items() if "measured" in e and e.get("launch_rc", 0) == 0]


@pytest.mark.parametrize("name", RAN)
def test_outputs_match_the_gpu(name):
    """Every word of every buffer the GPU wrote, bit for bit, but the rows of KNOWN (which must differ); a buffer
    declared larger after the run (isa_atomg_cas's scratch) is compared over the bytes dumped."""
    entry, launch, _, _ = traced(name)
    n = int(np.prod(entry["block"])) * int(np.prod(entry["grid"]))
    gpu = dumped(name)
    assert gpu, f"{name}: no dumped buffer"
    differ = {(i, int(j)) for i, words in gpu.items() for j in np.unique(np.flatnonzero(words != _buffer(launch, i)[: len(words)]) // n)}
    assert differ == set(KNOWN.get(name, {})), f"differ: {sorted(differ - set(KNOWN.get(name, {})))}; now match: {sorted(set(KNOWN.get(name, {})) - differ)}"


@pytest.mark.parametrize("name", RAN)
def test_instructions_executed(name):
    """The executor's warp-level instruction count is ncu's smsp__inst_executed.sum (H200 or H100, one run)."""
    entry, _, header, _ = traced(name)
    if name in COUNTS:
        assert header["executed"] != entry["ncu"]["smsp__inst_executed.sum"], COUNTS[name]
    else:
        assert header["executed"] == entry["ncu"]["smsp__inst_executed.sum"]


def test_a_trap_stops_both():
    """isa_trap executes BPT.TRAP: the H200 failed the launch (CUDA_ERROR_LAUNCH_FAILED, launch.log; exit status 2),
    and the executor stops there, naming it."""
    entry, _ = ENTRIES["isa_trap"]
    assert entry["launch_rc"] == 2
    assert "isa_trap" in (ISA / "runs" / "2026-11-29" / "launch.log").read_text().split("CUDA_ERROR_LAUNCH_FAILED")[0].rsplit("ENTRY", 1)[1]
    with pytest.raises(SimsmemError, match="BPT.TRAP"):
        traced("isa_trap")


def test_every_opcode_is_checked():
    """Each opcode of the registry is executed by a kernel above, or named in HOPPER, NOT_EMITTED or UNCHECKED, none twice:
    an exemption whose opcode a kernel here executes, or that names no registered opcode, is stale."""
    ran = set().union(*(traced(n)[3] for n in RAN)) | {"BPT"}  # isa_trap's BPT.TRAP stops the trace where it runs
    hopper = json.loads((REALK / "hopper.json").read_text())
    measured = {e["name"] for e in hopper if "ncu" in e}
    assert all(HOPPER[op] in measured for op in HOPPER)
    assert all(NOT_EMITTED[op] in ran for op in NOT_EMITTED), "an exemption's twin is not checked"
    exempt = set(HOPPER) | set(NOT_EMITTED) | set(UNCHECKED)
    assert not ran & exempt, f"executed, yet exempted: {sorted(ran & exempt)}"
    assert exempt <= modelled(), f"exempted but not registered: {sorted(exempt - modelled())}"
    assert modelled() - exempt <= ran, f"no kernel executes: {sorted(modelled() - exempt - ran)}"


@pytest.mark.slow
@pytest.mark.parametrize("script", ["build.py", "make_data.py"])
def test_committed_files_are_what_the_scripts_make(script):
    """calibration/isa/build.py --check: the committed PTX, cubins and sass_opcodes are what nvcc and ptxas 13.0.88 make;
    make_data.py --check: the inputs are what its seeds make."""
    done = subprocess.run([sys.executable, str(ISA / script), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("op", sorted(HOPPER))
def test_hopper_entries_execute_their_opcode(op):
    """The corpus entry HOPPER names executes the opcode (traced from its PTX: ptxas runs)."""
    from simsmem.corpus import entry_launch

    entry = next(e for e in json.loads((REALK / "hopper.json").read_text()) if e["name"] == HOPPER[op])
    program, launch = entry_launch(entry, REALK)
    ctas = select_ctas(launch, None)[:1]
    sink = StreamSink(sms=1, ctas=frozenset(ctas))
    trace_stream(program, launch, ctas, describe(program, launch, ctas, entry["args"], entry["smem"]), sink=sink).read()
    assert op in {program.code[pc].name for s in sink.kept for pcs in s.pcs for pc in pcs}
