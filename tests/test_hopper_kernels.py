"""Hopper kernels as their authors write them (issue 37): SASS forms, tensor maps as the driver lays them out,
thread-block clusters and distributed shared memory.

Evidence (hardware): the tensor maps' bytes and the zero strides the driver took, from the H200 run of
calibration/realk/manifest_hopper_ws.json (runs/2026-11-29-hopper-ws: launch.cu's TMAP lines and status.txt; NVIDIA
H200, driver 580, Nsight Compute 2025.3.1); the DSMEM rule's check against that run's dsm_* probes is
tests/test_realk.py's (slow), with the warp-specialised GEMMs, clusters and stmatrix epilogues of that set.
Regression guards (simsmem's own semantics, each derived here by hand): tests/kernels/hopper_forms.cu's mbarrier
forms, the cluster launch checks, the parsing and the R2UR and generic-address forms.
"""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest
from conftest import REALK
from simsmem.cli import main
from simsmem.config import load_arch
from simsmem.errors import SimsmemError
from simsmem.kernel import tensormap
from simsmem.kernel.isa import Env, build
from simsmem.kernel.launch import CLUSTER_FIELDS, make_launch
from simsmem.kernel.machine import Geometry, Machine
from simsmem.kernel.memory import LOCAL_HI, SHARED_HI, GlobalMemory
from simsmem.kernel.program import load_program
from simsmem.kernel.sass import parse_instruction
from simsmem.kernel.tensormap import TensorMap
from simsmem.kernel.tracer import ctas_per_batch, execute, launch_kernel, select_ctas
from simsmem.results.analysis import analyse
from simsmem.sm.core import _depbars
from simsmem.traces import OPS

RUN = REALK / "runs" / "2026-11-29-hopper-ws"
FORMS = REALK.parent.parent / "tests" / "kernels" / "hopper_forms.cu"


def _ptx(tmp_path, body: str, params: str = ".param .u64 out", head: str = "") -> str:
    path = tmp_path / "k.ptx"
    path.write_text(f".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k({params}) {head} {{ {body} ret; }}\n")
    return path


# ------------------------------------------------------------------------------------------------ SASS forms

def test_depbar_waits_for_every_scoreboard_of_its_set():
    """``DEPBAR {5,4,3,2,1,0}`` (issue 37: "operand '{5' not understood"): one operand naming six scoreboards; the timed SM
    waits for each to be released (none may stay pending)."""
    ins = parse_instruction(0, {"opcode": "DEPBAR", "operands": "{5,4,3,2,1,0}"})
    assert [op.kind for op in ins.operands] == ["SBSET"] and [op.index for op in ins.operands[0].terms] == [5, 4, 3, 2, 1, 0]
    assert _depbars(ins) == tuple((b, 0) for b in (5, 4, 3, 2, 1, 0))
    assert _depbars(parse_instruction(0, {"opcode": "DEPBAR.LE", "operands": "SB0,0x1"})) == ((0, 1),)


def _machine(lines: list[str], threads: int = 32) -> Machine:
    ins = [parse_instruction(16 * k, {"opcode": op, "operands": args}) for k, (op, _, args) in enumerate(line.partition(" ") for line in lines)]
    return Machine([build(i, Env({}, {})) for i in ins], ins, Geometry((1, 1, 1), (threads, 1, 1)), [0], 0, {}, GlobalMemory(), 0,
                   {"shared_hi": SHARED_HI, "local_hi": LOCAL_HI, "describe": "test"})


def test_r2ur_with_a_predicate_says_which_threads_hold_another_value():
    """``R2UR P0, UR10, R5`` (ptxas's loop over a warp's distinct values, before a TMA store one thread of each
    warpgroup makes): UR10 gets the first acting thread's R5, P0 is set where a thread's R5 differs; ``.OR`` keeps a
    difference already found."""
    m = _machine(["R2UR P0, UR10, R5", "R2UR.OR P0, UR11, R6", "EXIT"])
    m.R[5] = np.where(np.arange(32) < 16, 7, 9)
    m.R[6] = np.where(np.arange(32) % 2 == 0, 3, 4)
    m.run(10)
    assert (m.UR[10] == 7).all() and (m.UR[11] == 3).all()
    assert m.P[0].tolist() == [t >= 16 or t % 2 == 1 for t in range(32)]


def test_mbarrier_forms_as_ptx_defines_them(tmp_path):
    """tests/kernels/hopper_forms.cu's mbar_forms: arrive (A1T0), arrive_drop (.OPTOUT), expect_tx and complete_tx
    (.RED.A0TR, .RED.A0TX), an arrive with a count (.ART0), each tested with mbarrier.test_wait (PHASECHK), and 32
    cp.async copies waited for through cp.async.mbarrier.arrive.noinc (ARRIVES.LDGSTSBAR.64.ARVCNT). Expected, by the
    PTX ISA: a phase completes once its pending arrivals are 0 and no transaction bytes are still to come;
    arrive_drop also lowers the count of every later phase."""
    np.save(tmp_path / "in.npy", np.arange(32, dtype=np.uint32) * 3 + 1)
    stream, launch = launch_kernel(FORMS, "mbar_forms", (1, 1, 1), (32, 1, 1), 0, [f"npy:{tmp_path / 'in.npy'}", "zeros:256"])
    stream.read()
    out = launch.memory.buffers[1].data.view(np.uint32)
    assert out[:7].tolist() == [0, 1, 1, 0, 1, 0, 1]
    assert out[32:].tolist() == (np.arange(32)[::-1] * 3 + 1).tolist()


def test_an_invalidated_mbarrier_stops_the_trace():
    """mbarrier.inval (SYNCS.CCTL.IV) ends the barrier: an arrive after it names the instruction and the barrier."""
    stream, _ = launch_kernel(FORMS, "mbar_inval", (1, 1, 1), (32, 1, 1), 0, ["zeros:128"])
    with pytest.raises(SimsmemError, match="no mbarrier was initialised at shared address"):
        stream.read()


def test_l2_prefetches_are_hints():
    """l2_prefetch: UTMAPF (a tensor map's box) and UBLKPF (256 bytes) prefetch into the L2, which simsmem does not model:
    they execute as hints, leave memory as it was, and the kernel goes on."""
    stream, launch = launch_kernel(FORMS, "l2_prefetch", (1, 1, 1), (32, 1, 1), 0,
                                   ["tmap:f32:64x64:16x16:none:zeros:16384", "zeros:256", "zeros:128"])
    assert stream.read() is not None and stream.kernel["executed"] > 0
    out, tensor = (next(b.data for b in launch.memory.buffers if b.name.startswith(f"argument {k} ")) for k in (3, 1))
    assert (out.view(np.uint32) == 1).all() and not tensor.any()


# ------------------------------------------------------------------------------------------------ tensor maps

def _tmap_lines() -> list[tuple[str, int, int, bytes]]:
    out = []
    for line in (RUN / "launch_plain.log").read_text().splitlines():
        if line.startswith("TMAP "):
            _, name, arg, base, hexs = line.split()
            out.append((name, int(arg[3:]), int(base[5:], 16), bytes.fromhex(hexs)))
    return out


def test_tensor_maps_are_laid_out_as_the_driver_lays_them_out():
    """The 18 maps cuTensorMapEncodeTiled made for the H200 run (2D to 3D; f16, f32; no, 64B and 128B swizzle; zero
    strides; boxes of 512 B to 16 KiB): simsmem's encoding of each tmap: argument equals the driver's 128 bytes, and
    decodes to the argument (its fields where ptxas 13.0 puts tensormap.replace's)."""
    import json

    entries = {e["name"]: e for e in json.loads((REALK / "manifest_hopper_ws.json").read_text())}
    lines = _tmap_lines()
    assert len(lines) == 18
    for name, k, base, driver in lines:
        dtype, dims, strides, box, swizzle, _ = tensormap.parse(entries[name]["args"][k])
        mine = TensorMap(dtype, base, dims, strides or tensormap.packed(dtype, dims), box, swizzle)
        assert mine.encode() == driver, f"{name} argument {k}"
        assert TensorMap.decode(driver) == mine


def test_a_zero_stride_is_a_stride_the_driver_takes():
    """A stride of 0 on an outer dimension, of size 1 and of size 4: both H200 runs of tma_load_3d over such maps passed
    (status.txt; their outputs equal simsmem's: tests/test_realk.py). A stride not a multiple of 16 is still refused."""
    status = (RUN / "status.txt").read_text()
    for tag, outer in (("unit", 1), ("four", 4)):
        assert f"hop_tma_ld_3d_zero_stride_{tag} ok" in status
        TensorMap("f16", 1 << 44, (64, 16, outer), (128, 0), (32, 8, min(outer, 2)), 64).check()
    with pytest.raises(tensormap.TensorMapError, match="multiples of 16"):
        TensorMap("f16", 1 << 44, (64, 16, 4), (128, 8), (32, 8, 2), 64).check()


def test_a_tensor_map_for_a_pointer_parameter_goes_to_global_memory(tmp_path):
    """``tmap:`` for a ``const CUtensorMap *`` passes the address of a 128-byte global buffer holding the map; for a
    32-bit parameter it names the argument and what it takes."""
    program = load_program(_ptx(tmp_path, "", ".param .u64 map, .param .u32 n"), "k")
    launch = make_launch(program, (1, 1, 1), (32, 1, 1), 0, ["tmap:f32:32x128:32x32:none:zeros:16384", "0"], tmp_path)
    address = struct.unpack_from("<Q", launch.constants[0], program.kernel.param_base)[0]
    held = launch.memory.buffer(address)
    assert held.data.size == 128 and TensorMap.decode(bytes(held.data)).dims == (32, 128)
    with pytest.raises(SimsmemError, match=r"argument 2 .*a 128-byte parameter .* or a pointer to one"):
        make_launch(program, (1, 1, 1), (32, 1, 1), 0, ["0", "tmap:f32:32x128:32x32:none:zeros:16384"], tmp_path)


# ------------------------------------------------------------------------------------------------ clusters

def test_a_cluster_launch_fills_the_cluster_fields_ptxas_reads(tmp_path):
    """Constant bank 0 at ptxas 13.0's offsets (``mov`` of each cluster register, compiled): clusters of 2x1x1 in a 4x2
    grid; without clusters, a cluster of one CTA (measured: cluster_sregs_plain's output, tests/test_realk.py)."""
    program = load_program(_ptx(tmp_path, ""), "k")
    bank = make_launch(program, (4, 2, 1), (32, 1, 1), 0, ["zeros:4"], tmp_path, cluster=(2, 1, 1)).constants[0]
    word = lambda at, n=1, f="I": struct.unpack_from(f"<{n}{f}", bank, CLUSTER_FIELDS[at])
    assert word("explicit") == (1,) and word("nctaid", 3) == (2, 1, 1) and word("reciprocal", 3, "f") == (0.5, 1.0, 1.0)
    assert word("nclusterid", 3) == (2, 2, 1) and word("nctarank") == (2,)
    plain = make_launch(program, (4, 2, 1), (32, 1, 1), 0, ["zeros:4"], tmp_path).constants[0]
    assert struct.unpack_from("<I", plain, CLUSTER_FIELDS["explicit"]) == (0,) and struct.unpack_from("<3I", plain, CLUSTER_FIELDS["nclusterid"]) == (4, 2, 1)


@pytest.mark.parametrize("grid, cluster, why", [((3, 1, 1), "2", "not a whole number of clusters"), ((32, 1, 1), "32", "at most 16"),
                                                 ((4, 1, 1), "0", "positive integers")])
def test_a_cluster_the_launch_cannot_have_is_refused_in_one_line(tmp_path, capsys, grid, cluster, why):
    out = tmp_path / "t.json"
    rc = main(["trace", str(_ptx(tmp_path, "")), "--kernel", "k", "--grid", ",".join(map(str, grid)), "--block", "32",
               "--cluster", cluster, "--arg", "zeros:4", "-o", str(out)])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and "--cluster" in err and why in err and len(err.splitlines()) == 1 and not out.exists()


def test_a_kernels_own_cluster_shape_cannot_be_changed_at_launch(tmp_path):
    program = load_program(_ptx(tmp_path, "", head=".reqnctapercluster 2, 1, 1"), "k")
    assert program.kernel.cluster == (2, 1, 1)
    assert make_launch(program, (4, 1, 1), (32, 1, 1), 0, ["zeros:4"], tmp_path).geometry.cluster == (2, 1, 1)
    with pytest.raises(SimsmemError, match="own cluster shape is 2,1,1"):
        make_launch(program, (4, 1, 1), (32, 1, 1), 0, ["zeros:4"], tmp_path, cluster=(4, 1, 1))


def test_a_clusters_ctas_run_together(tmp_path):
    """A --cta brings its cluster (2x2: CTAs 0, 1, 4, 5 of a 4x2 grid, by rank), and batches hold whole clusters."""
    program = load_program(_ptx(tmp_path, ""), "k")
    launch = make_launch(program, (4, 2, 1), (1024, 1, 1), 0, ["zeros:4"], tmp_path, cluster=(2, 2, 1))
    assert select_ctas(launch, [(1, 1, 0)]) == [0, 1, 4, 5]
    assert select_ctas(launch, None) == [0, 1, 4, 5, 2, 3, 6, 7]
    assert ctas_per_batch(launch) == 4  # 4096 threads: one cluster of four 1024-thread CTAs


@pytest.mark.parametrize("peer", [0, 1])
def test_only_a_ctas_own_shared_memory_counts_its_wavefronts(peer):
    """dsm_pair: each lane loads one word through a shared::cluster address (generic LD.E [R4]), of its own CTA (peer 0)
    or the other's; the words are the right CTA's either way. The H200's rule (runs/2026-11-29-hopper-ws, dsm_ld_*):
    the own CTA's counts as a generic shared load (1 wavefront a warp here), the other's adds no shared wavefront."""
    stream, launch = launch_kernel(FORMS, "dsm_pair", (2, 1, 1), (32, 1, 1), 0, ["zeros:256", str(peer)])
    metrics = analyse(stream.read(), load_arch("sm_90")).metrics
    out = launch.memory.buffers[0].data.view(np.uint32).reshape(2, 32)
    assert out.tolist() == [[100 * (rank ^ peer) + lane for lane in range(32)] for rank in (0, 1)]
    assert metrics.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 0) == (0 if peer else 2)


def test_a_copy_executed_with_its_guard_false_counts_only_at_warp_level():
    """tmap_by_pointer (H200, runs/2026-11-29-hopper-ws, hopper.json): the second box's ``@!UP1 UTMALDG`` runs in all four
    warps of each CTA, only thread 0's copies: smsp__inst_executed_op_tma_ld 10 (2 CTAs x (2 copies + 3 warps with the
    guard false)), smsp__sass_inst_executed_op_tma_ld 4. The guard-false rows have mask 0 and move no byte."""
    entry = next(e for e in json.loads((REALK / "hopper.json").read_text()) if e["name"] == "tmap_by_pointer")
    stream, _ = launch_kernel(REALK / entry["ptx"], entry["kernel"], tuple(entry["grid"]), tuple(entry["block"]), entry["smem"],
                              entry["args"], base=REALK)
    trace = stream.read()
    metrics = analyse(trace, load_arch("sm_90")).metrics
    for counter in ("smsp__inst_executed_op_tma_ld.sum", "smsp__sass_inst_executed_op_tma_ld.sum"):
        assert metrics[counter] == entry["ncu"][counter], counter
    b = trace.instructions
    off = (b.op == OPS.index("UTMALDG")) & (b.mask == 0)
    assert sorted(b.warp[off].tolist()) == [1, 2, 3, 5, 6, 7] and not b.size[off].any()


# ------------------------------------------------------------------------------------------------ the timed SM

@pytest.mark.slow
def test_the_timed_sm_runs_the_set_with_the_launchs_registers():
    """Every entry of issue 37's set (hopper.json, runs/2026-11-29-hopper-ws) is timed, at the occupancy of the registers the
    H200 launched it with (launch__registers_per_thread, in allocation units: 168 for the setmaxnreg GEMMs, whose
    warpgroups then trade them),
    and a cycle count below the H200's (clusters, DSMEM and multicast are not timed yet: 0.56 to 0.87 of it)."""
    import json

    from simsmem.kernel.tracer import StreamSink, trace_kernel
    from simsmem.results.analysis import analyse_stream, with_launch

    h200 = load_arch("sm_90_h200")
    names = {e["name"] for e in json.loads((REALK / "manifest_hopper_ws.json").read_text())}
    for e in (e for e in json.loads((REALK / "hopper.json").read_text()) if e["name"] in names):
        sink = StreamSink(h200.sm.sms)
        stream = trace_kernel(REALK / e["ptx"], e["kernel"], tuple(e["grid"]), tuple(e["block"]), e["smem"], e["args"], base=REALK,
                              sink=sink, cluster=tuple(e["cluster"]) if "cluster" in e else None)
        cycles = with_launch(analyse_stream(stream, h200, keep="all"), sink.streams(), sink.resources).metrics["sm__cycles_elapsed.max"]
        unit = h200.sm.register_unit  # registers are allocated in units of 8 (the driver reports 16 for ptxas's 10)
        assert -(-sink.resources["registers"] // unit) == -(-e["ncu"]["launch__registers_per_thread"] // unit), e["name"]
        assert 0.5 * e["ncu"]["sm__cycles_elapsed.max"] < cycles < e["ncu"]["sm__cycles_elapsed.max"], (e["name"], cycles)


def test_a_tma_load_with_a_cache_policy_copies_the_same(tmp_path):
    """tma_load_2d of calibration/realk (hop_tma_ld_2d_f16_none, measured on the H200) with an L2 cache hint added to its
    copy, as CuTe's TMA atoms write it: ptxas adds a desc[URn] policy operand, which changes nothing copied, so the
    kernel's output equals the unhinted one's (regression guard against the output the GPU gave for the plain one)."""
    entry = next(e for e in json.loads((REALK / "hopper.json").read_text()) if e["name"] == "hop_tma_ld_2d_f16_none")
    plain = (REALK / entry["ptx"]).read_text()
    copy = "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r13], [%rd4, {%r5, %r6}], [%r11];"
    assert plain.count(copy) == 1
    hinted = plain.replace(copy, "{ .reg .b64 pol; createpolicy.fractional.L2::evict_last.b64 pol, 1.0;\n\t"
                                 + copy.replace("bytes [", "bytes.L2::cache_hint [").replace("[%r11];", "[%r11], pol; }"))
    path = tmp_path / "hinted.ptx"
    path.write_text(hinted)
    outs = []
    for ptx in (REALK / entry["ptx"], path):
        program = load_program(ptx, entry["kernel"])
        assert ptx == REALK / entry["ptx"] or any(op.kind == "desc" for ins in program.code if ins.name == "UTMALDG" for op in ins.operands)
        launch = make_launch(program, tuple(entry["grid"]), tuple(entry["block"]), entry["smem"], entry["args"], REALK)
        for _ in execute(program, launch, select_ctas(launch, None)):
            pass
        outs.append(next(b.data for b in launch.memory.buffers if b.name.startswith("argument 8 ")).copy())
    assert outs[0].any() and (outs[0] == outs[1]).all()
