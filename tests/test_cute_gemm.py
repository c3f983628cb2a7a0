"""Issue 37's CuTe GEMM as a CuTe user writes it (calibration/realk/manifest_cute.json: src/cute_gemm.cu against pip
nvidia-cutlass 4.2.0.0's headers; its TMA atoms passed by value, launched as ``struct:tmap=...,u8=0`` arguments) against
the H200.

Evidence, not regression guards: calibration/realk/cute_h200.json, 5 ncu runs (measure_timing.sh, group ``cute``;
runs/2026-11-29-cute, the prediction committed before the run), and the launcher's stdout of run 1 there (its TMAP lines:
the driver's maps of the atoms' tmap fields; its BUF line: C's hash). Independent of the GPU: C equals numpy's A @ B.T
(small integers, so exact), which puts the maps and the struct parameters where CuTe's code reads them; and the
arguments are the bytes CuTe's own host code builds (src/cute_host_params.cu, on the CPU). simsmem traces the whole grid
and times the launch with ``sm_90_h200``.
"""

import gzip
import json
import re
import statistics
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import REALK
from simsmem.config import load_arch
from simsmem.kernel import ptx as ptxtext
from simsmem.kernel import structs, tensormap, toolchain
from simsmem.kernel.tensormap import TensorMap
from simsmem.kernel.tracer import StreamSink, launch_kernel
from simsmem.results.analysis import analyse_stream, with_launch
from simsmem.results.metrics import MISC, TOTAL_WAVEFRONTS

from calibration.realk import make_cute

pytestmark = pytest.mark.slow  # one whole grid traced and timed (about 2 s), the host code built with nvcc (about 30 s)

H200 = load_arch("sm_90_h200")
ENTRY = json.loads((REALK / "manifest_cute.json").read_text())[0]
RUN = REALK / "runs" / "2026-11-29-cute"
CYCLES = "sm__cycles_elapsed.max"


@pytest.fixture(scope="module")
def simulated() -> tuple[dict, dict, np.ndarray]:
    """The timed metrics, the counters simsmem declares not modelled, and C after the run."""
    sink = StreamSink(H200.sm.sms)
    stream, launch = launch_kernel(REALK / ENTRY["ptx"], ENTRY["kernel"], tuple(ENTRY["grid"]), tuple(ENTRY["block"]), ENTRY["smem"],
                                   ENTRY["args"], base=REALK, sink=sink)
    result = with_launch(analyse_stream(stream, H200, keep="all"), sink.streams(), sink.resources)
    c = next(b.data for b in launch.memory.buffers if b.name.startswith("argument 4 "))
    return result.metrics, result.unmodelled, c


@pytest.fixture(scope="module")
def measured() -> dict[str, list]:
    return json.loads((REALK / "cute_h200.json").read_text())["cute_gemm"]


def _launcher() -> str:
    """launch.cu's stdout of the first ncu run."""
    return gzip.decompress((RUN / "ncu_run1_cute.stdout.gz").read_bytes()).decode()


def test_c_equals_numpy(simulated):
    assert np.array_equal(simulated[2].view(np.float32).reshape(256, 256), make_cute.product())


def test_counters(simulated, measured):
    """Every counter of the runs that simsmem prints: exact where the 5 runs agree, inside their range where they vary;
    the others are "not modelled" for the kernel or counters simsmem never prints. Cycles: test_cycles."""
    metrics, _, _ = simulated
    off, judged = [], 0
    for counter, runs in measured.items():
        if counter == CYCLES or counter not in metrics:
            continue
        judged += 1
        if not min(runs) <= metrics[counter] <= max(runs):
            off.append(f"{counter}: {min(runs)}..{max(runs)}, simulated {metrics[counter]}")
    assert judged == 35 and not off, (judged, off)


def test_unmodelled_counters_are_not_printed(simulated):
    """The totals that hold op_misc (the mbarriers' traffic) and the bank words of a kernel with an mbarrier are "not
    modelled", never a number."""
    metrics, unknown, _ = simulated
    for counter in ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "l1tex__data_bank_reads.sum", "l1tex__data_bank_writes.sum",
                    MISC, TOTAL_WAVEFRONTS):
        assert counter not in metrics and counter in unknown, counter


def test_cycles(simulated, measured):
    """sm__cycles_elapsed.max within the runs' range widened by 30% (test_realk_timing's bar for the corpus)."""
    ours, runs = simulated[0][CYCLES], measured[CYCLES]
    assert 0.7 * min(runs) <= ours <= 1.3 * max(runs), (ours, statistics.median(runs))


def test_the_atoms_maps_are_the_drivers():
    """Each tmap field's 128 bytes as cuTensorMapEncodeTiled made them on the H200 (the launcher's TMAP lines, argI.f1)
    equal simsmem's encoding of the field's spec over the same address."""
    lines = re.findall(r"^TMAP cute_gemm arg(\d+)\.f1 base=0x([0-9a-f]+) ([0-9a-f]{256})$", _launcher(), re.MULTILINE)
    assert sorted(int(k) for k, _, _ in lines) == [1, 2]
    for k, base, driver in lines:
        dtype, dims, strides, box, swizzle, _ = tensormap.parse("tmap:" + ENTRY["args"][int(k)].split("=", 1)[1].rsplit(",", 1)[0])
        mine = TensorMap(dtype, int(base, 16), dims, strides or tensormap.packed(dtype, dims), box, swizzle)
        assert mine.encode() == bytes.fromhex(driver), f"argument {k}"


def test_the_gpus_c_is_numpys():
    """The launcher's hash of C after the H200's run (its BUF line) is the hash of numpy's C."""
    found = re.search(r"^BUF cute_gemm arg3 out bytes=262144 nonzero=\d+ fnv=([0-9a-f]{16})$", _launcher(), re.MULTILINE)
    assert found and found[1] == make_cute.fnv(make_cute.product())


def test_the_manifest_passes_what_cutes_host_code_passes(tmp_path):
    """src/cute_host_params.cu runs cute_gemm.cu's host side on the CPU (a stub cuTensorMapEncodeTiled fills each map
    with 0xab): the shape, atoms and C stride it builds are the manifest's struct: arguments byte for byte (the maps
    aside), make_tma_atom asks for the maps the tmap fields describe (its L2 promotion aside), and --smem is
    sizeof(SharedStorage)."""
    nvcc = toolchain.tool("nvcc")
    subprocess.run([nvcc, "-std=c++17", "-arch=sm_90a", *toolchain.cutlass_flags(), "-L", str(Path(nvcc).parent.parent / "lib"),
                    str(REALK / "src" / "cute_host_params.cu"), "-o", str(tmp_path / "params")], check=True, capture_output=True)
    out = subprocess.run([tmp_path / "params"], check=True, capture_output=True, text=True).stdout
    printed = {int(k): v for k, v in re.findall(r"^PARAM arg(\d) \(\d+ bytes, alignof \d+\) ([0-9a-f]+)$", out, re.MULTILINE)}
    params = ptxtext.entries((REALK / ENTRY["ptx"]).read_text())[ENTRY["kernel"]]
    ours = {k: structs.encode(a, params[k].size, params[k].align, lambda f: b"\xab" * f.size).hex()
            for k, a in enumerate(ENTRY["args"]) if a.startswith("struct:")}
    assert printed == ours
    asked = re.findall(r"^ENCODE type=6 rank=2 address=\S+ dims (\d+) (\d+) strides (\d+) box (\d+) (\d+) element_strides 1 1 "
                       r"interleave=0 swizzle=3 ", out, re.MULTILINE)
    for numbers, arg in zip(asked, ENTRY["args"][1:3], strict=True):
        dtype, dims, strides, box, swizzle, _ = tensormap.parse("tmap:" + arg.split("=", 1)[1].rsplit(",", 1)[0])
        assert (dtype, *dims, *(strides or tensormap.packed(dtype, dims)), *box, swizzle) == ("f16", *map(int, numbers), 128)
    assert f"SMEM {ENTRY['smem']}\n" in out
