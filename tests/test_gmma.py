"""Hopper's warpgroup MMA (kernel/isa/gmma.py): HGMMA, QGMMA, IGMMA against the H200, and the descriptor layouts
against a readable oracle.

The 47 wgmma probes of calibration/realk/hopper.json (source src/probe_hopper.cu, made by make_probe_hopper.py; one
wgmma.mma_async per launch over a 48 KiB image of small values, every swizzle mode, K- and MN-major, padded LBO/SBO,
mid-atom starts, base offsets, N 8..256, f16/bf16/tf32/e4m3/e5m2/s8, register A, sparse; measured on an H200,
ncu 2025.3.1) are traced as test_realk traces its kernels: the accumulators they write must equal the GPU's bit for
bit, smsp__inst_executed the ncu count, and the shared bytes each wgmma reads ncu's smsp__sass_data_bytes_mem_shared_op_gmma.
The vectorised descriptor decoding is checked against ``oracle``, written from CUTLASS's canonical layouts
(cute/atom/mma_traits_sm90_gmma.hpp) with a small CuTe layout evaluator, as test_swizzle checks its swizzles.
"""

from __future__ import annotations

import functools
import gzip
import json
import math

import numpy as np
import pytest
from conftest import REALK, trace_entry
from hypothesis import given
from hypothesis import strategies as st
from simsmem.kernel.isa import Env, build
from simsmem.kernel.isa.gmma import _columns, _fragment, _rows, _threads
from simsmem.kernel.machine import Geometry, Machine
from simsmem.kernel.memory import LOCAL_HI, SHARED_HI, GlobalMemory
from simsmem.kernel.sass import parse_instruction
from simsmem.tiles.hopper import addresses
from simsmem.traces.records import OPS, gmma_bytes

PROBES = [e for e in json.loads((REALK / "hopper.json").read_text()) if e["name"].startswith("hop_wg_")]


@functools.cache
def traced(name: str):
    """The entry, the executed count, the output buffer (argument 7) and the trace's rows of one probe."""
    entry = next(e for e in PROBES if e["name"] == name)
    launch, header, trace = trace_entry(entry)
    out = next(b.data for b in launch.memory.buffers if b.name.startswith("argument 7 "))
    return entry, header["executed"], out, trace.instructions


def test_all_probes_are_here():
    assert len(PROBES) == 47


@pytest.mark.parametrize("name", [e["name"] for e in PROBES])
def test_probe_matches_the_h200(name):
    entry, executed, out, _ = traced(name)
    gpu = np.frombuffer(gzip.decompress((REALK / "out" / f"{name}.arg6.bin.gz").read_bytes()), dtype=np.uint8)
    assert np.array_equal(gpu, out), f"{np.count_nonzero(gpu.view('<u4') != out.view('<u4'))} accumulator words differ"
    assert executed == entry["ncu"]["smsp__inst_executed.sum"]


@pytest.mark.parametrize("name", [e["name"] for e in PROBES])
def test_trace_row_of_the_wgmma(name):
    """The probe's one wgmma is one GMMA row of the trace (its warpgroup's first warp), with its descriptors, shape and
    operand type; its shared bytes are ncu's smsp__sass_data_bytes_mem_shared_op_gmma.sum (H200, hopper.json)."""
    entry, _, _, rows = traced(name)
    (i,) = np.flatnonzero(rows.op == OPS.index("GMMA"))
    g = rows[i]
    assert g.warp == 0
    assert int(gmma_bytes(rows.n[i : i + 1], rows.desc_a[i : i + 1], rows.sparse[i : i + 1])[0]) == entry["ncu"]["smsp__sass_data_bytes_mem_shared_op_gmma.sum"]
    da, db = (int(x, 16) + 0x40 for x in entry["args"][2:4])  # the kernel adds its dynamic shared memory's 0x400 >> 4
    assert g.desc_b == db and g.desc_a == (0 if entry["args"][4] != "zeros:0" else da)
    kernel = entry["kernel"]
    last = kernel.rsplit("_", 1)[1]
    assert g.tnsp == {"ta": "A", "tb": "B", "tab": "AB"}.get(last, "none") and g.sparse == ("_sp_" in kernel)
    assert g.gtype == kernel.split("_")[2 if kernel.startswith(("wg_rs_", "wg_sp_")) else 1]
    assert g.n == int(next(p for p in kernel.split("_") if p.startswith("n"))[1:])


# ----------------------------------------------------------------------------------------- the layouts' oracle

def cute(shape, stride, coord: int) -> int:
    """CuTe's layout function: a coordinate of a (nested) mode split colexicographically over its shape."""
    if isinstance(shape, int):
        return coord * stride
    offset = 0
    for s, d in zip(shape, stride):
        size = math.prod(s) if isinstance(s, tuple) else s
        offset += cute(s, d, coord % size)
        coord //= size
    return offset


def oracle(desc: int, row: int, k: int, size: int, mn_major: bool, rows: int) -> int:
    """The shared address of element (row, k) of an operand of ``rows`` rows along M or N: CUTLASS's canonical GMMA
    layouts (K-major in 16-byte units, MN-major in elements; T elements per 16 bytes), then Swizzle<b,4,3> bit by bit
    on the absolute address, its source bits less the base offset (measured: hop_wg_f16_n64_k_128B_row1_base)."""
    start, lbo, sbo = (desc & 0x3FFF) * 16, (desc >> 16 & 0x3FFF) * 16, (desc >> 32 & 0x3FFF) * 16
    base, mode = desc >> 49 & 7, desc >> 62
    b = {0: 0, 1: 3, 2: 2, 3: 1}[mode]  # swizzle bits: none, 128B, 64B, 32B
    t = 16 // size
    if not mn_major:
        if mode == 0:  # ((8,m),2):((1,SBO),LBO), K's 16-byte chunks LBO apart
            chunk = cute((8, rows // 8), (1, sbo // 16), row) + k // t * lbo // 16
        else:  # ((8,m),2):((2^b,SBO),1)
            chunk = cute((8, rows // 8), (1 << b, sbo // 16), row) + k // t
        address = start + 16 * chunk + k % t * size
    elif mode == 0:  # ((T,1,m),(8,k)):((1,T,SBO),(T,LBO))
        address = start + size * (cute((t, 1, rows // t), (1, t, sbo // size), row) + cute((8, 2), (t, lbo // size), k))
    else:  # ((T,2^b,m),(8,k)):((1,T,LBO),(2^b T,SBO))
        atoms = -(-rows // (t << b))
        address = start + size * (cute((t, 1 << b, atoms), (1, t, lbo // size), row) + cute((8, 2), (t << b, sbo // size), k))
    phase = (address >> 7) - base
    for j in range(b):
        address ^= (phase >> j & 1) << (4 + j)
    return address


def descriptors(mode: int) -> st.SearchStrategy[int]:
    field = st.integers(0, 0x3FFF)
    return st.builds(lambda start, lbo, sbo, base: start | lbo << 16 | sbo << 32 | base << 49 | mode << 62,
                     field, st.integers(1, 256), st.integers(1, 256), st.integers(0, 7))


@st.composite
def operands(draw):
    """A descriptor, the element size, whether MN-major, and the operand's rows (M or N) and depth (K)."""
    mode = draw(st.integers(0, 3))
    size = draw(st.sampled_from([1, 2, 4]))
    mn_major = draw(st.booleans()) and size == 2
    rows = draw(st.sampled_from([8, 16, 24, 64, 128, 256]))
    depth = 32 // size * (draw(st.sampled_from([1, 2])) if not mn_major and mode in (0, 1, 2) else 1)
    return draw(descriptors(mode)), size, mn_major, rows, depth


@given(operands())
def test_addresses_equal_the_canonical_layouts(op):
    desc, size, mn_major, rows, depth = op
    fast = addresses(np.array([desc], dtype=np.uint64), rows, depth, size, mn_major)[0]
    slow = [[oracle(desc, r, k, size, mn_major, rows) for k in range(depth)] for r in range(rows)]
    assert fast.tolist() == slow


@pytest.mark.parametrize("pairs", [2, 1])
@pytest.mark.parametrize("n", [8, 16, 24, 64, 128, 256])
def test_results_reach_the_threads_as_the_fragment_says(n, pairs):
    """``_threads`` (a transpose of 16-byte runs) puts several groups' 64 x N results, columns in ``_columns`` order,
    where ``_fragment``, the readable rule, says: thread t's element i is row 16 (t / 32) + (t % 32) / 4 + 8 (i >> 1 & 1),
    column 8 (i >> 2) + 2 (t % 4) + (i & 1); with an f16 accumulator (``pairs`` 1, columns in order) elements 2r and
    2r + 1 are the halves of register r. ``_rows`` takes them back."""
    D = np.arange(3 * 64 * n, dtype=np.uint16 if pairs == 1 else np.uint32).reshape(3, 64, n)  # each element its own value
    slow = np.stack([D[g].reshape(-1)[_fragment(n)] for g in range(3)], axis=1)  # (N/2, groups, 128)
    rows = D.view(np.uint32) if pairs == 1 else np.ascontiguousarray(D[:, :, _columns(n)])
    placed = _threads(rows, pairs)
    regs = np.ascontiguousarray(placed).view(np.uint32).reshape(-1, 3, 128)  # (registers, groups, threads)
    if pairs == 1:  # each register's halves: elements 2r, 2r + 1
        regs = regs.view(np.uint16).reshape(-1, 3, 128, 2).transpose(0, 3, 1, 2).reshape(n // 2, 3, 128)
    assert np.array_equal(regs, slow)
    assert np.array_equal(_rows(np.ascontiguousarray(placed)), rows)


@pytest.mark.parametrize("name", ["hop_wg_f16_n64_k_128B_row1", "hop_wg_f16_n64_tab_mn_64B", "hop_wg_bf16_n128_tb_mn_none"])
def test_addresses_of_several_descriptors_at_once(name):
    entry = next(e for e in PROBES if e["name"] == name)
    descs = np.array([int(x, 16) for x in entry["args"][2:4]], dtype=np.uint64)
    both = addresses(descs, 64, 16, 2, "_ta" in entry["kernel"])
    for d, got in zip(descs, both):
        assert np.array_equal(got, addresses(d, 64, 16, 2, "_ta" in entry["kernel"])[0])


def test_k_wider_than_the_swizzle_atom_is_refused():
    with pytest.raises(ValueError, match="32-byte swizzle atom"):
        addresses(np.array([3 << 62], dtype=np.uint64), 64, 32, 2, False)  # sparse B (64 bytes of K) in 32B mode


# ------------------------------------------------------------------------------- the warpgroup, on its own

def machine(code: list[str], shared: np.ndarray) -> Machine:
    """One CTA of 128 threads running ``code`` (SASS lines: ``@P0 BRA 0x50``) over the shared window ``shared``."""
    ins = []
    for k, line in enumerate(code):
        guard = line.split(" ", 1)[0] if line.startswith("@") else None
        opcode, _, args = line.removeprefix(f"{guard} " if guard else "").partition(" ")
        ins.append(parse_instruction(16 * k, {"predicate": guard, "opcode": opcode, "operands": args.replace(" ", "")}))
    m = Machine([build(i, Env({}, {})) for i in ins], ins, Geometry((1, 1, 1), (128, 1, 1)), [0], len(shared), {}, GlobalMemory(), 0,
                {"shared_hi": SHARED_HI, "local_hi": LOCAL_HI, "describe": "test"})
    m.shared[0] = shared
    return m


def reference(shared: np.ndarray, da: int, db: int, n: int, c: np.ndarray, neg_a: bool) -> np.ndarray:
    """f16 m64nNk16, both K-major, D = A B^T + C as each thread holds it: (128, N/2) float32, element by element."""
    half = shared.view(np.float16)

    def element(desc, row, k):
        return float(half[oracle(desc, row, k, 2, False, 64) // 2])
    out = np.zeros((128, n // 2), dtype=np.float32)
    for t in range(128):
        w, lane = divmod(t, 32)
        for i in range(n // 2):
            row, col = 16 * w + lane // 4 + 8 * (i >> 1 & 1), 8 * (i >> 2) + 2 * (lane % 4) + (i & 1)
            dot = sum(element(da, row, k) * element(db, col, k) for k in range(16))
            out[t, i] = (-dot if neg_a else dot) + float(c[t, i])
    return out


@pytest.mark.parametrize("keep", [True, False])
def test_warps_arriving_apart_wait_for_their_warpgroup(keep):
    """Warps 2 and 3 take a detour, so 0 and 1 reach the HGMMA first and wait; once all four are there it runs once,
    accumulating into D unless the scale-d predicate is false."""
    rng = np.random.default_rng(29)
    shared = np.zeros(0x400 + 8192, dtype=np.uint8)
    shared[0x400:] = (rng.integers(-4, 5, 4096) / 2).astype(np.float16).view(np.uint8)
    da, db = (0x400 >> 4) | 1 << 62 | 64 << 32 | 1 << 16, (0x1400 >> 4) | 1 << 62 | 64 << 32 | 1 << 16  # 128B, SBO 1024
    m = machine(["S2R R0, SR_TID.X", "ISETP.GE.U32.AND P0, PT, R0, 0x40, PT", "@P0 BRA 0x50",
                 "HGMMA.64x16x16.F32 R24, gdesc[UR4].negA, R24, UP0, gsb0", "EXIT", "NOP", "BRA 0x30"], shared)
    m.UR[4:8] = np.array([da & 0xFFFFFFFF, da >> 32, db & 0xFFFFFFFF, db >> 32], dtype=np.uint32)[:, None]
    m.UP[0] = keep
    c = (rng.integers(-8, 9, (128, 8)) / 4).astype(np.float32)
    m.R[24:32] = c.T.view(np.uint32)
    steps, mmas = [], []
    m.on_step = lambda ins, warps: steps.append((ins.name, np.flatnonzero(warps).tolist()))
    m.on_gmma = lambda ins, warps, info: mmas.append(len(steps))
    m.run(1000)
    assert steps[3:] == [("HGMMA", [0, 1]), ("NOP", [2, 3]), ("BRA", [2, 3]), ("HGMMA", [2, 3]), ("EXIT", [0, 1, 2, 3])]
    assert mmas == [7]  # once, when warps 2 and 3 arrived
    assert m.executed == 4 * 5 + 2 * 2
    want = reference(shared, da, db, 16, c if keep else np.zeros_like(c), neg_a=True)
    assert np.array_equal(m.R[24:32].T.view(np.float32), want)


@pytest.mark.parametrize("text", [
    "HGMMA.64x64x16.F32 R24, gdesc[UR4], RZ, !UPT, gsb0", "HGMMA.64x64x16.F32 R24, R56, gdesc[UR4], RZ, !UPT, gsb0",
    "HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4].tnspB, RZ, !UPT, gsb0", "HGMMA.64x64x8.F32.TF32 R24, gdesc[UR4], RZ, !UPT, gsb0",
    "QGMMA.64x64x32.F32.E4M3.E4M3 R24, gdesc[UR4], RZ, !UPT, gsb0", "QGMMA.64x128x32.F16.E5M2.E5M2 R24, gdesc[UR4], RZ, !UPT, gsb0",
    "IGMMA.64x64x32.S8.S8 R24, gdesc[UR4], RZ, !UPT, gsb0", "HGMMA.SP.64x64x32.F32 R24, gdesc[UR4], RZ, !UPT, R56, 0x0, gsb0",
    "HGMMA.64x64x16.F16 R24, gdesc[UR4], RZ, !UPT, gsb0", "HGMMA.64x64x16.F32 R24, gdesc[UR12], R24",
    "HGMMA.64x64x16.F32 R24, gdesc[UR12], R24, gsb0", "HGMMA.64x64x16.F32 R24, gdesc[UR4].tnspA.tnspB, R24, UP0, gsb0",
    "IGMMA.64x8x32.U8.S8.SAT R24, gdesc[UR8], R24, gsb0", "HGMMA.64x8x16.F32 R24, -R28, gdesc[UR4].tnspB, R24, gsb0",
    "HGMMA.64x8x16.F16 RZ, gdesc[URZ], RZ, !UPT, gsb0",  # what ptxas leaves of a wgmma whose results are never used
])
def test_every_form_parses_and_builds(text):
    opcode, _, args = text.partition(" ")
    ins = parse_instruction(0, {"opcode": opcode, "operands": args.replace(" ", "")})
    desc = next(o for o in ins.operands if o.kind == "gdesc")
    assert desc.index in (4, 8, 12, 63) and set(desc.suffix) <= {"tnspA", "tnspB"}
    assert getattr(build(ins, Env({}, {})), "plain", None) is False  # a step of its own, not "unsupported"
