"""The Python API: a CUDA source string, a kernel file and a ``@triton.jit`` function, each traced in one call.

Provenance: the transpose's and the stencil's counts are derived by hand in the tests' docstrings (bank = word % 32);
reduce1_strided's are the H100's (calibration/realk/manifest.json, ncu 2025.3.1); outputs are checked against numpy.
"""

from __future__ import annotations

import gzip
import json
import sys

import numpy as np
import pytest
from conftest import REALK
from simsmem.api import trace
from simsmem.cli import main
from simsmem.errors import SimsmemError
from simsmem.traces import load_trace

TRANSPOSE = r"""
extern "C" __global__ void transpose(float *out, const float *in, int n) {
    __shared__ float tile[32][32];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
"""


def test_cuda_source_in_one_call():
    """A 64x64 transpose through tile[32][32]: the column reads put a warp's 32 lanes 128 bytes apart, all in one bank
    (32 wavefronts where 1 would do: 31 conflicts per LDS); 4 CTAs x 8 warps x 4 LDS = 128 loads, 3,968 conflicts. The
    row stores are conflict-free. The output, copied back into ``out``, is the transpose."""
    n = 64
    a = np.arange(n * n, dtype=np.float32).reshape(n, n)
    out = np.zeros_like(a)
    run = trace(TRANSPOSE, grid=(2, 2), block=(32, 8), args=[out, a, n])
    assert np.array_equal(out, a.T)
    assert run.counters["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 128 * 31
    assert run.counters["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"] == 0
    rows = run.instructions
    rows = rows.to_dict("records") if hasattr(rows, "to_dict") else rows
    loads = [r for r in rows if r["sass"].startswith("LDS")]
    assert len(loads) == 4 and all(r["bank_conflicts"] == 32 * 31 and r["line"].endswith("kernel.cu:8") for r in loads)
    assert run.cycles and run.cycles > 0
    text = run.explain()
    assert "31 bank conflicts" in text and "kernel.cu:8" in text
    best = run.fixes()[0]  # one padding column: every column read conflict-free, 1 wavefront per LDS (derived)
    assert best.statement == "__shared__ float tile[32][33]" and best.bank_conflicts == 0 and best.cycles < run.cycles


def test_a_corpus_file_as_the_h100_counted_it():
    """reduce1_strided from its PTX file, arguments as arrays and numbers: the H100's counters and smsp__inst_executed."""
    entry = next(e for e in json.loads((REALK / "manifest.json").read_text()) if e["name"] == "reduce1_strided")
    data = np.load(REALK / entry["args"][0][4:])
    out = np.zeros(int(entry["args"][1][6:]) // data.itemsize, dtype=data.dtype)
    run = trace(REALK / entry["ptx"], entry=entry["kernel"], grid=entry["grid"], block=entry["block"], smem=entry["smem"],
                args=[data, out, int(entry["args"][2])], timed=False)
    for name in ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"):
        assert run.counters[name] == entry["ncu"][name], name
    assert run.trace.kernel["executed"] == entry["ncu"]["smsp__inst_executed.sum"]


def test_triton_in_one_call():
    """A Triton kernel: block, shared memory and the two scratch pointers come from Triton's metadata; the softmax of
    8 rows of 1024 equals numpy's, and its cross-warp reductions go through shared memory."""
    triton = pytest.importorskip("triton")  # the [test] extra installs it; a plain install may not have it
    tl = triton.language

    @triton.jit
    def softmax(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * stride + offs, mask=offs < n_cols, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        e = tl.exp(x)
        tl.store(out_ptr + row * stride + offs, e / tl.sum(e, axis=0), mask=offs < n_cols)

    a = np.random.default_rng(0).standard_normal((8, 1024)).astype(np.float32)
    out = np.zeros_like(a)
    run = trace(softmax, grid=8, args=[out, a, 1024, 1024], BLOCK=1024, num_warps=8, timed=False)
    ref = np.exp(a - a.max(1, keepdims=True))
    assert np.abs(out - ref / ref.sum(1, keepdims=True)).max() < 1e-6
    assert run.trace.kernel["block"] == [256, 1, 1]
    assert run.counters["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"] > 0


@pytest.mark.slow  # Triton compiles a wgmma kernel (about 4 s)
def test_a_triton_tma_matmul_with_device_built_tensor_maps():
    """Triton's ``tl.make_tensor_descriptor``: each program writes its three tensor maps into Triton's global scratch
    (sized from the metadata, a program's share times the grid's), then loads A's and B's tiles by TMA, runs wgmma and
    stores C by TMA. C equals numpy's (small integers: exact in f32). Derived by hand: 4 programs x 4 K steps x 2
    m64n128k16 halves x 4 k16 = 512 wgmmas of 64x32 + 128x32 bytes, 6,144 wavefronts of 128 bytes. Triton's loads run
    in all 4 warps of a program, their guard true in one (warp-level 4 times SASS-level: the guard rule of
    results/metrics.py); its stores sit behind a branch one warp takes (equal). The kernel is docs/hopper.md's, as
    calibration/realk/src/triton_tma.py defines it for the H200 (tests/test_triton_tma.py judges that launch against its
    runs); here a regression guard of ``simsmem.trace`` on a Triton function."""
    pytest.importorskip("triton")
    sys.path.insert(0, str(REALK / "src"))
    from triton_tma import matmul_tma

    rng = np.random.default_rng(0)
    a, b = (rng.integers(-2, 3, (256, 256)).astype(np.float16) for _ in range(2))
    c = np.zeros((256, 256), dtype=np.float32)
    run = trace(matmul_tma, grid=(2, 2), args=[a, b, c, 256, 256, 256], BM=128, BN=128, BK=64, num_warps=4, timed=False)
    assert np.array_equal(c, a.astype(np.float32) @ b.astype(np.float32))
    n = run.counters
    assert n["smsp__sass_inst_executed_op_shared_gmma.sum"] == 512 and n["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum"] == 6144
    assert n["smsp__inst_executed_op_tma_ld.sum"] == 4 * n["smsp__sass_inst_executed_op_tma_ld.sum"] >= 4 * 32  # 4 x 4 x (A, B) copies
    assert n["smsp__inst_executed_op_tma_st.sum"] == n["smsp__sass_inst_executed_op_tma_st.sum"] > 0


def test_a_cluster_launch_as_the_command_line_gives_it(tmp_path):
    """cluster_sregs_launch (hopper.json, H200, runs/2026-11-29-hopper-ws: 2x1x1 clusters set at launch by cuLaunchKernelEx)
    traced with ``cluster=``: every word of the cluster registers it writes equals the GPU's, and the trace (header and
    rows) equals ``simsmem trace --cluster 2,1,1``'s. Without it the grid is clusters of one CTA, as cluster_sregs_plain."""
    entry = next(e for e in json.loads((REALK / "hopper.json").read_text()) if e["name"] == "cluster_sregs_launch")
    gpu = np.frombuffer(gzip.decompress((REALK / "out" / "cluster_sregs_launch.arg0.bin.gz").read_bytes()), dtype=np.uint32)
    outs = [np.zeros(int(entry["args"][0][6:]) // 4, dtype=np.uint32) for _ in range(2)]
    runs = [trace(REALK / entry["ptx"], entry=entry["kernel"], grid=entry["grid"], block=entry["block"], args=[out], cluster=cluster,
                  timed=False) for out, cluster in zip(outs, (entry["cluster"], None))]
    assert np.array_equal(outs[0], gpu) and not np.array_equal(outs[1], gpu)
    assert runs[0].trace.kernel["executed"] == entry["ncu"]["smsp__inst_executed.sum"]
    path = tmp_path / "t.jsonl"
    assert main(["trace", str(REALK / entry["ptx"]), "--kernel", entry["kernel"], "--grid", ",".join(map(str, entry["grid"])),
                 "--block", ",".join(map(str, entry["block"])), "--cluster", ",".join(map(str, entry["cluster"])),
                 "--arg", entry["args"][0], "-o", str(path), "-q"]) == 0
    cli = load_trace(path)
    assert cli.kernel["cluster"] == runs[0].trace.kernel["cluster"] == entry["cluster"]
    assert cli.kernel["executed"] == runs[0].trace.kernel["executed"]
    assert list(cli.instructions) == list(runs[0].trace.instructions)


@pytest.mark.parametrize("call, part", [
    (lambda: trace("no_such_kernel.cu", block=32), "no such file"),
    (lambda: trace(TRANSPOSE, grid=1), "give block="),
    (lambda: trace(TRANSPOSE, grid=1, block=32, args=[object(), 1, 2]), "an argument of type object"),
    (lambda: trace(TRANSPOSE, grid=1, block=32, args=[1]), "takes 3 arguments"),
    (lambda: trace(TRANSPOSE, grid=1, block=32, BLOCK=4), "are for a @triton.jit kernel"),
    (lambda: trace(TRANSPOSE, grid=3, block=32, args=[np.zeros(1), np.zeros(1), 1], cluster=2), "not a whole number of clusters"),
])
def test_bad_calls_raise_one_error(call, part):
    with pytest.raises(SimsmemError, match=part):
        call()


def test_argument_strings_read_files_from_the_working_folder(monkeypatch):
    """An ``npy:`` string is read from where the caller is, as ``simsmem trace --arg`` reads it (reduce1_strided: the
    H100's load wavefronts)."""
    entry = next(e for e in json.loads((REALK / "manifest.json").read_text()) if e["name"] == "reduce1_strided")
    monkeypatch.chdir(REALK)
    run = trace(entry["ptx"], entry=entry["kernel"], grid=entry["grid"], block=entry["block"], smem=entry["smem"], args=entry["args"], timed=False)
    name = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
    assert run.counters[name] == entry["ncu"][name]
