"""Real kernels traced by ``simsmem trace`` against what ncu measured on the H100 for the same PTX.

Provenance: calibration/realk/manifest.json. Every entry was launched from its PTX by calibration/realk/launch.cu
on one H100 80GB HBM3 (driver 580.159.04, ncu 2025.3.1, --clock-control none), five profiled runs each: the 8
kernels of ../shared/realk (measured 2026-11-27 by an earlier session), and the corpus, rule probes and LDGSTS-form
probes of this project (runs/2026-11-27, runs/2026-11-27-rules, runs/2026-11-27-ldgsts). ``ncu`` holds run 1,
``ncu_varies`` every counter that was not identical in the five runs: a simulated count must fall within the runs'
[min, max]. Output buffers are the GPU's (calibration/realk/out, from launch.cu --dump-out).

The entries in OPEN are measured behaviour the model does not reproduce yet; they are strict xfails, so a model that
starts to match them fails the test until the entry leaves OPEN (README, "Your kernel": what is not modelled).
"""

from __future__ import annotations

import functools
import gzip
import json

import numpy as np
import pytest
from conftest import REALK, launch_entry, trace_entry
from simsmem.config import load_arch
from simsmem.errors import SimsmemError
from simsmem.kernel.tracer import Execution, describe, trace_stream
from simsmem.results.analysis import analyse

pytestmark = pytest.mark.slow  # traces each corpus kernel on the CPU

#: manifest.json: measured on the H100; hopper.json: the Hopper probes and kernels (wgmma, TMA, bulk copies), on an
#: H200 (runs/2026-11-27-hopper, -hopper-gemm, -hopper-holdout: two ncu runs each) and once more on an H100
#: (runs/2026-11-27-hopper-h100, ``ncu_h100``: the same counts on every entry but one op_misc total); then issue 37's
#: warp-specialised GEMMs, clusters, DSMEM, stmatrix epilogues and tensor maps in memory (runs/2026-11-29-hopper-ws, H200)
MANIFEST = json.loads((REALK / "manifest.json").read_text()) + json.loads((REALK / "hopper.json").read_text())
#: The counters simsmem models for a kernel: per-op wavefronts and bank conflicts, instruction counts, the SASS-level
#: LDGSTS counters, and every warp-level SASS instruction executed.
COUNTERS = [f"l1tex__data_{k}_mem_shared_op_{op}.sum" for op in ("ld", "st", "atom") for k in ("pipe_lsu_wavefronts", "bank_conflicts_pipe_lsu")] + [
    "smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum", "smsp__inst_executed_op_shared_atom.sum",
    "smsp__inst_executed_op_ldsm.sum", "smsp__inst_executed_op_shared_stsm.sum", "smsp__inst_executed_op_ldgsts.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum", "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
    "smsp__inst_executed.sum",
    # SASS-level (a lane's guard true) and the generic and global memory instructions (kernel/isa/memory.py)
    *(f"smsp__sass_inst_executed_op_{op}.sum" for op in ("shared_ld", "shared_st", "shared_atom", "ldsm", "ldgsts", "global_atom", "global_red")),
    *(f"smsp__inst_executed_op_{op}.sum" for op in ("generic_ld", "generic_st", "generic_atom", "generic_atom_dot_alu", "generic_atom_dot_cas",
                                                    "global_red")),
    # wgmma and the TMA's copies (config block_ops)
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum",
    "smsp__sass_inst_executed_op_shared_gmma.sum", "smsp__inst_executed_pipe_tensor_op_gmma.sum", "smsp__sass_data_bytes_mem_shared_op_gmma.sum",
    "smsp__sass_inst_executed_op_tma_ld.sum", "smsp__sass_inst_executed_op_tma_st.sum", "smsp__inst_executed_op_tma_ld.sum",
    "smsp__inst_executed_op_tma_st.sum",
]
STORES = ("stores of a split warp that shared loads follow: the H100 counts extra store wavefronts that vary run to run, which "
          "this untimed count cannot give; the timed SM's split_store rule does (test_realk_timing, store counters)")
OPEN = {
    "hist256_atomic_misc_skewed": "which warp's lane arrives first at each bin decides which warps run the first-arrival branches; the H100's "
                                  "interleaving of warps is not lock-step (atom instructions 2922-2929 in five runs, simulated 2930)",
    "generic_smem_axpy": "generic ST.E of eight warps: 8 more store wavefronts than the shared-store rule gives (one warp alone matches: rule_generic_st_*)",
    "generic_mixed": "generic stores of several warps: extra store wavefronts, varying run to run (145-147)",
    "rule_generic_st128_contig": "a generic 128-bit store to 512 contiguous bytes: the H100 counts 5 wavefronts, STS.128's rule 4 "
                                 "(ncu's Source page, runs/2026-11-27-source, puts 4 on the ST.E.128: the fifth is in the l1tex total only)",
    "rule_sts_ldg_div_b256_g8": STORES,
    "rule_sts_alu_div_b256_g8": STORES,
}
#: Counters the timing of warps and CTAs decides on the GPU, and simsmem's untimed execution cannot: judged as at least
#: simsmem's count and at most ``slack`` above it, with the reason (H200, runs/2026-11-29-hopper-ws, two ncu runs).
SPIN = ("setmaxnreg's TRY_ALLOC loop runs again on the GPU until the producer warpgroup has given its registers back; the trace grants "
        "them at once. The timed SM adds those trips: tests/test_spin_loops.py judges its count against the runs")
ARRIVES = "the other CTA's remote mbarrier arrives (op_misc) landing while stmatrix stores: one more store conflict, and 0 or 1 store wavefront"
INCOMING = "the other CTA's red.shared::cluster served by this CTA's shared memory while its own atomics run: 7 to 14 more atom wavefronts (320, 327)"
TIMED = {("ws_gemm_tma", "smsp__inst_executed.sum"): (SPIN, 0.05), ("ws_gemm_multicast", "smsp__inst_executed.sum"): (SPIN, 0.05),
         ("ws_gemm_multicast", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"): (ARRIVES, 2),
         ("ws_gemm_multicast", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"): (ARRIVES, 2),
         ("dsmem_histogram", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"): (INCOMING, 0.1),
         ("dsmem_histogram", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"): (INCOMING, 0.15)}


#: The runs' counts (steps against the runaway limit), by entry, as ``traced`` fills them in.
EXECUTIONS: dict[str, Execution] = {}


@functools.cache
def traced(name: str):
    """The entry, its simulated metrics, and the global memory after the run (the output buffers)."""
    entry = next(e for e in MANIFEST if e["name"] == name)
    launch, _, trace = trace_entry(entry, EXECUTIONS.setdefault(name, Execution()))
    return entry, analyse(trace, load_arch("sm_90")).metrics, launch.memory


def measured(entry: dict, counter: str) -> tuple[int, int]:
    runs = entry.get("ncu_varies", {}).get(counter, [entry["ncu"][counter]]) + [entry.get("ncu_h100", {}).get(counter, entry["ncu"][counter])]
    return min(runs), max(runs)


def marks(name: str) -> list:
    return [pytest.mark.xfail(strict=True, reason=OPEN[name])] if name in OPEN else []


#: entries whose counters another entry already holds and whose tracing takes long: the mbarrier-state probes each spin
#: 100000 times reading the barrier's word (600k instructions, about 20 s here); hop_mbar_1_0_16 stays
SAME_AS = {"hop_mbar_3_256_256": "hop_mbar_1_0_16", "hop_mbar_2_4096_1024": "hop_mbar_1_0_16"}


@pytest.mark.parametrize("name", [pytest.param(e["name"], marks=marks(e["name"])) for e in MANIFEST if e["name"] not in SAME_AS])
def test_counters_match_the_h100(name):
    entry, metrics, _ = traced(name)
    off = []
    for counter in COUNTERS:
        if counter in entry["ncu"]:
            lo, hi = measured(entry, counter)
            ours = metrics.get(counter, 0)
            if (name, counter) in TIMED:
                slack = TIMED[name, counter][1]
                if not ours <= lo <= hi <= ours + (slack * ours if isinstance(slack, float) else slack):
                    off.append(f"{counter}: measured {lo}..{hi}, simulated {ours} + up to {slack} ({TIMED[name, counter][0]})")
            elif not lo <= ours <= hi:
                off.append(f"{counter}: H100 {lo}..{hi}, simulated {ours}")
    assert not off, "; ".join(off)


#: What the op_misc rule (kernel/misc.py) completes: op_misc and its bank conflicts, the total wavefronts and the wavefronts by
#: command. Printed for every entry of manifest.json (H100, five runs) but the total for those with LDGSTS; for the Hopper
#: kernels where the instructions they execute have a measured op_misc (kernel/misc.py, runs/2026-11-29-op-misc's addendum).
DERIVED = ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_misc.sum",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum")


def test_op_misc_and_totals_match_the_h100():
    """Every printed counter of DERIVED inside its H100 runs on every manifest.json entry (the H200's op_misc agreed on the
    five it measured: runs/2026-11-29-op-misc). How many are printed is a regression guard: all 247 entries judged (OPEN's
    six aside), the total on the 111 without LDGSTS."""
    entries = [e for e in MANIFEST[:len(json.loads((REALK / "manifest.json").read_text()))] if e["name"] not in OPEN]
    off, printed = _derived(entries)
    assert not off, off
    assert printed == dict(zip(DERIVED, (247, 247, 111, 247, 247))), printed


def test_op_misc_and_totals_match_the_h200_on_hopper():
    """Every printed counter of DERIVED inside its runs (H200, and the H100's where it ran) on every hopper.json entry but
    SAME_AS's (mbarrier probes, not modelled like hop_mbar_1_0_16): the Hopper instructions whose op_misc the H200's runs
    pin (runs/2026-11-29-op-misc, the addendum: wgmma with A in shared memory, TMA loads and bulk copies into shared
    memory, mbarrier init, arrive, try_wait and invalidation, tensor-map prefetches none; FENCE.VIEW.ASYNC.S one a warp).
    How many are printed is a regression guard: op_misc on 103 of the 169 traced (not modelled: TMA and bulk stores, wgmma
    with A in registers, fences after a wgmma, clusters, mbarrier test_waits and remote arrives, setmaxnreg), the total on
    the 100 of them without LDGSTS (op_misc on 1, cluster_sregs_plain, before the addendum); the wavefronts by command,
    which op_misc does not hold, on 139."""
    off, printed = _derived([e for e in json.loads((REALK / "hopper.json").read_text()) if e["name"] not in SAME_AS])
    assert not off, off
    assert printed == dict(zip(DERIVED, (103, 103, 100, 139, 139))), printed


def _derived(entries: list[dict]) -> tuple[list[str], dict[str, int]]:
    """The entries' printed DERIVED counters outside their measured runs, and how many of each were printed."""
    off, printed = [], dict.fromkeys(DERIVED, 0)
    for entry in entries:
        _, metrics, _ = traced(entry["name"])
        for counter in DERIVED:
            if counter in metrics and counter in entry["ncu"]:
                printed[counter] += 1
                lo, hi = measured(entry, counter)
                if not lo <= metrics[counter] <= hi:
                    off.append(f"{entry['name']} {counter}: measured {lo}..{hi}, simulated {metrics[counter]}")
    return off, printed


#: Outputs the emulation cannot reproduce bit for bit, and why (everything else must match the GPU's exactly).
RACES = ("probe_sts_b256", "probe_sts_b1024", "rule_sts_", "lg_sts_", "div_ifelse_order", "hist256_atomic_misc_skewed",  # several warps race to one word
         "hop_mbar_")  # the mbarrier's state tokens: opaque bits (ours say only the phase)
ROUNDED = {  # float results whose last bits depend on the hardware's accumulation order or approximations: max relative error
    "triton_attention_fwd": 1e-3, "triton_layernorm": 1e-6, "triton_row_softmax": 1e-6,
    "triton_matmul_f16_sm90": 1e-6, "triton_matmul_f16_sm90_w8": 1e-6, "triton_matmul_tf32_sm90": 1e-6,  # wgmma's f32 accumulation
}  # the mma.sync GEMMs (hgemm_*, triton_matmul_f16, _f16_s2, _tf32) are bit for bit since HMMA's sum rule (kernel/isa/matrix.py)


#: Output buffers that hold the GPU's own device addresses (tensor maps a kernel built), which a CPU run cannot have.
ADDRESSES = {"tmap_built": {1}}


def _dumped(entry: dict) -> list[int]:
    return [i for i, a in enumerate(entry["args"]) if (a.startswith("zeros:") or ":zeros:" in a) and a != "zeros:0"
            and (REALK / "out" / f"{entry['name']}.arg{i}.bin.gz").exists()  # a tmap: over zeros: is an output too
            and i not in ADDRESSES.get(entry["name"], ())]


def test_no_entry_comes_near_the_runaway_limit():
    """No entry reaches its default step limit (the limit that stops a loop that never ends in about 30 s): the mbarrier
    probes, which spin 100,000 times on purpose, take 88% of it, every other entry under 10% (regression guard on
    simsmem's own step counts, over the H100/H200-measured kernels)."""
    for e in MANIFEST:
        traced(e["name"])  # cached: the tests above traced all but SAME_AS's
    loads = {name: e.load for name, e in EXECUTIONS.items()}
    spinning = {name: load for name, load in loads.items() if name.startswith("hop_mbar_")}
    others = {name: load for name, load in loads.items() if name not in spinning}
    assert max(spinning.values()) < 0.9 and max(others.values()) < 0.1, sorted(loads.items(), key=lambda kv: -kv[1])[:3]


@pytest.mark.parametrize("name", [e["name"] for e in MANIFEST if _dumped(e) and not e["name"].startswith(RACES)
                                  and not e["name"].startswith("isa_")])  # the ISA kernels' outputs: tests/test_isa.py (quick)
def test_outputs_match_the_gpu(name):
    entry, _, memory = traced(name)
    for i in _dumped(entry):
        gpu = np.frombuffer(gzip.decompress((REALK / "out" / f"{name}.arg{i}.bin.gz").read_bytes()), dtype=np.uint8)
        ours = next(b.data for b in memory.buffers if b.name.startswith(f"argument {i + 1} "))
        if name in ROUNDED:
            dtype = np.float16 if name == "triton_attention_fwd" else np.float32
            g, o = gpu.view(dtype).astype(np.float64), ours.view(dtype).astype(np.float64)
            assert np.abs(g - o).max() <= ROUNDED[name] * np.abs(g).max(), f"argument {i + 1}"
        else:
            assert np.array_equal(gpu, ours), f"argument {i + 1}: {np.count_nonzero(gpu != ours)} bytes differ"


def _failed_on_the_gpu() -> list[dict]:
    """Held-out Hopper probes whose plain run the H200 stopped (runs/2026-11-27-hopper-holdout/status.txt)."""
    status = (REALK / "runs" / "2026-11-27-hopper-holdout" / "status.txt").read_text().split("\n")
    failed = {line.split()[1] for line in status if line.strip() and line.split()[2] != "ok"}
    return [e for e in json.loads((REALK / "manifest_hopper_holdout.json").read_text()) if e["name"] in failed]


@pytest.mark.parametrize("entry", _failed_on_the_gpu(), ids=lambda e: e["name"])
def test_what_the_gpu_refuses_stops_the_trace(entry):
    """The 9 held-out TMA probes the H200 stopped with CUDA_ERROR_ILLEGAL_INSTRUCTION (launch_plain.log) all start their box
    at a first coordinate that is not a multiple of 16 bytes (the 5 that ran all do): the trace stops there too, naming it."""
    program, launch, ctas = launch_entry(entry)
    with pytest.raises(SimsmemError, match="multiple of 16 bytes"):
        trace_stream(program, launch, ctas, describe(program, launch, ctas, entry["args"], entry["smem"])).read()
