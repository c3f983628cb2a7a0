"""Kernel parameters as real code passes them: a struct by value (``bytes:``, ``struct:``), ``__constant__`` and
``__device__`` data (``--global``, a manifest's ``globals``), and a module's initialised data.

Kernels: calibration/realk/src/params.cu (written here; PTX by nvcc 13.0.88, ptx/params.ptx), launched as
manifest_params.json says (made by make_params.py). Not measured on a GPU yet: no test here holds a hardware number.
- Evidence (independent of simsmem's model): every output equals its numpy reference (calibration/realk/ref.py,
  exact: the inputs make every sum exact in f32), so the struct's bytes are where nvcc's code reads them and the
  symbols' data reaches the SASS; the struct layout matches the offsets the PTX's ``ld.param`` read; the initialised
  bytes of the PTX's ``.const``/``.global`` declarations are what the launch holds.
- Derived by hand (from the kernels' access patterns and the bank model's rule: a shared access takes as many
  wavefronts as the most distinct 4-byte words any bank holds among its lanes): the shared-memory counters of every
  entry. They guard simsmem's output until the entries are measured (`measure.sh manifest_params.json`).
- The CLI's refusals: simsmem's own texts (regression guards).
"""

from __future__ import annotations

import functools
import json
import os
import re
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import REALK, trace_entry
from simsmem.cli import main
from simsmem.config import load_arch
from simsmem.corpus import entry_launch
from simsmem.errors import SimsmemError
from simsmem.kernel import ptx as ptxtext
from simsmem.kernel import structs, toolchain
from simsmem.kernel.launch import make_launch
from simsmem.kernel.program import load_program
from simsmem.kernel.tensormap import TensorMap
from simsmem.kernel.tracer import describe, select_ctas, trace_stream
from simsmem.results.analysis import analyse
from simsmem.traces import read_trace

from calibration.realk import ref

ENTRIES = {e["name"]: e for e in json.loads((REALK / "manifest_params.json").read_text())}
PTX = REALK / "ptx" / "params.ptx"


@functools.cache
def _traced(name: str):
    """The entry's launch after the run (global memory holds the outputs) and its simulated metrics."""
    launch, _, trace = trace_entry(ENTRIES[name])
    return launch, analyse(trace, load_arch("sm_90")).metrics


def _output(launch, arg: int) -> np.ndarray:
    return next(b.data for b in launch.memory.buffers if b.name.startswith(f"argument {arg + 1} "))


def _inputs(entry: dict) -> dict[int, bytes]:
    """The bytes of the entry's npy: arguments, as collect.py gives them to ref.py."""
    return {i: np.load(REALK / a[4:]).tobytes() for i, a in enumerate(entry["args"]) if a.startswith("npy:")}


@pytest.mark.parametrize("name", list(ENTRIES))
def test_outputs_equal_the_host_reference(name):
    launch, _ = _traced(name)
    for arg, (want, tol) in ref.REFS[name](ENTRIES[name], _inputs(ENTRIES[name])).items():
        mismatches, ok, _ = ref.compare(_output(launch, arg), want, tol)
        assert ok, f"argument {arg + 1}: {mismatches} elements differ"


def _counts(m: dict, op: str) -> tuple[int, int]:
    """(wavefronts, bank conflicts) of shared op ``op``."""
    return (m.get(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum", 0), m.get(f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum", 0))


#: (st wavefronts, st conflicts, ld wavefronts, ld conflicts) from the access patterns (src/params.cu's head comment).
#: cute_sgemm: 4 CTAs x 8 warps x 2 k-tiles; per warp and tile 4 transposed A stores (32 wavefronts each at pitch 32,
#: 1 at 33 or swizzled) and 4 B stores (1 each), 32 x (1 B + 4 broadcast A) loads. conv_rows_const: 8 CTAs x 8 warps,
#: a centre store each, the halo stores of the 32 warps holding a row's first or last 8 pixels, 17 loads each.
#: stencil_init: 4 CTAs x 8 warps, a centre store each, warp 0's two halo stores, 5 loads each.
DERIVED = {
    "params_cute_sgemm_ld32": (64 * (4 * 32 + 4), 64 * 4 * 31, 64 * 32 * 5, 0),
    "params_cute_sgemm_ld33": (64 * 8, 0, 64 * 32 * 5, 0),
    "params_cute_sgemm_swz_relu": (64 * 8, 0, 64 * 32 * 5, 0),
    "params_conv_rows_struct": (64 + 32 + 32, 0, 64 * 17, 0),
    "params_conv_rows_bytes": (64 + 32 + 32, 0, 64 * 17, 0),
    "params_stencil_init": (32 + 4 * 2, 0, 32 * 5, 0),
    "params_stencil_globals": (32 + 4 * 2, 0, 32 * 5, 0),
}


@pytest.mark.parametrize("name", list(DERIVED))
def test_shared_counters_as_derived(name):
    m = _traced(name)[1]
    assert _counts(m, "st") + _counts(m, "ld") == DERIVED[name]


@pytest.mark.parametrize("name", ["params_lut_hist_spread", "params_lut_hist_narrow"])
def test_histogram_atomics_follow_the_device_table(name):
    """Each warp's ATOMS takes the most distinct bins any bank holds: the lookup table (a __device__ array the host
    filled) decides it, so a table that did not reach the kernel would count differently."""
    entry = ENTRIES[name]
    table = np.load(REALK / entry["globals"]["d_lut"][4:])
    bins = (table[np.load(REALK / entry["args"][1][4:])] & 63).reshape(-1, 32)  # a warp-instruction per 32 bytes
    waves = [max(len(set(row[row % 32 == bank].tolist())) for bank in range(32)) for row in bins]
    assert _counts(_traced(name)[1], "atom") == (sum(waves), sum(waves) - len(waves))


_PTX_TYPES = {"u8": 1, "s8": 1, "b8": 1, "u16": 2, "u32": 4, "s32": 4, "b32": 4, "f32": 4, "u64": 8, "s64": 8, "b64": 8, "f64": 8}


@pytest.mark.parametrize("name, param", [("params_cute_sgemm_ld32", 0), ("params_conv_rows_struct", 2)])
def test_struct_layout_is_nvccs(name, param):
    """Every offset the PTX reads the struct at (nvcc's C layout) is a field of the struct: argument, of the same size."""
    text, kernel = ENTRIES[name]["args"][param], ENTRIES[name]["kernel"]
    fields, _, _ = structs.layout(text[len("struct:"):])
    at = {f.offset: f.size for f in fields}
    reads = [(int(off or 0), _PTX_TYPES[ty]) for ty, off in re.findall(rf"ld\.param(?:\.v\d)?\.(\w+)\s+[^\[]*\[{kernel}_param_{param}\+?(\d*)\]", PTX.read_text())]
    assert reads, "the PTX reads no field of the struct"
    assert all(at.get(off) == size for off, size in reads), (reads, at)


def test_bytes_and_struct_give_the_same_parameter():
    (_, a), (_, b) = (entry_launch(ENTRIES[n], REALK) for n in ("params_conv_rows_struct", "params_conv_rows_bytes"))
    assert np.array_equal(a.constants[0], b.constants[0])
    assert ENTRIES["params_conv_rows_bytes"]["args"][2] == "bytes:" + struct.pack("<iif", 256, 8, 0.5).hex()


def _ptx_initialiser(name: str) -> bytes:
    m = re.search(rf"\.(?:const|global) \.align \d+ \.b8 {name}\[(\d+)\] = \{{([^}}]*)\}}", PTX.read_text())
    return bytes(int(v) for v in m[2].split(",")).ljust(int(m[1]), b"\0")  # ptxas pads a short list with zeros


def test_initialised_module_data_reaches_the_launch():
    program, launch = entry_launch(ENTRIES["params_stencil_init"], REALK)
    weights = next(c for c in program.module.constant_vars if c.name == "c_weights")
    assert bytes(launch.constants[3][weights.offset : weights.offset + weights.size]) == _ptx_initialiser("c_weights")
    taps = next(b for b in launch.memory.buffers if b.name == "__device__ variable d_taps")
    assert bytes(taps.data) == _ptx_initialiser("d_taps")


def test_a_global_shorter_than_its_variable_overwrites_its_first_bytes(tmp_path):
    """As cudaMemcpyToSymbol of fewer bytes: the rest keeps the initialised data."""
    np.save(tmp_path / "w.npy", np.array([1.0, -1.0], dtype=np.float32))
    entry = ENTRIES["params_stencil_init"]
    program = load_program(PTX, "stencil_init")
    launch = make_launch(program, tuple(entry["grid"]), tuple(entry["block"]), 0, entry["args"], REALK, symbols={"c_weights": f"npy:{tmp_path / 'w.npy'}"})
    ctas = select_ctas(launch, None)
    trace_stream(program, launch, ctas, describe(program, launch, ctas, entry["args"], 0)).read()
    x = np.pad(np.load(REALK / entry["args"][1][4:]).astype(np.float64), 4)
    want = sum(w * x[4 + t : 4 + t + 1024] for w, t in zip([1.0, -1.0, 0.375, 0.25, 0.0625], [-4, -2, 0, 2, 4]))
    assert np.array_equal(_output(launch, 0).view(np.float32), want.astype(np.float32))


#: a kernel taking a pointer, a struct holding a pointer, and a CUtensorMap
_TINY = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .align 8 .b8 s[16], .param .align 64 .b8 m[128]) { ret; }
"""


def test_arg_i_counts_arguments_from_0_as_the_launcher_does(tmp_path):
    (tmp_path / "k.ptx").write_text(_TINY)
    program = load_program(tmp_path / "k.ptx", "k")
    launch = make_launch(program, (1, 1, 1), (32, 1, 1), 0, ["zeros:8192", "struct:ptr=arg:0,i32=7", "tmap:f16:64x64:64x32:none:arg:0"], tmp_path)
    params = launch.constants[0][program.kernel.param_base :]
    address = struct.unpack_from("<Q", params, program.kernel.params[1].offset)[0]
    assert launch.memory.buffer(address).name.startswith("argument 1 ")
    assert struct.unpack_from("<i", params, program.kernel.params[1].offset + 8)[0] == 7
    assert TensorMap.decode(bytes(params[program.kernel.params[2].offset :][:128])).address == address


def test_a_cubins_struct_parameter_has_no_declared_alignment(tmp_path):
    """A cubin gives sizes only: the struct is padded to its own alignment and must fill the parameter."""
    (tmp_path / "k.cubin").write_bytes(toolchain.ptx_to_cubin(_TINY, "k.ptx", "sm_90"))
    program = load_program(tmp_path / "k.cubin", "k")
    launch = make_launch(program, (1, 1, 1), (32, 1, 1), 0, ["zeros:64", "struct:i32=1,i32=2,i64=3", "bytes:" + "00" * 128], tmp_path)
    assert bytes(launch.constants[0][program.kernel.param_base + 8 :][:16]) == struct.pack("<iiq", 1, 2, 3)
    with pytest.raises(SimsmemError, match="the fields take 8 bytes"):
        make_launch(program, (1, 1, 1), (32, 1, 1), 0, ["zeros:64", "struct:i32=1,i32=2", "bytes:" + "00" * 128], tmp_path)


@pytest.mark.parametrize("text, value", [
    ("struct:i8=-1,u8=255,i16=-2,u16=0xffff,i32=-3,u32=4294967295,i64=-4,u64=0xffffffffffffffff",
     struct.pack("<bBhH2xiIqQ", -1, 255, -2, 0xFFFF, -3, 2**32 - 1, -4, 2**64 - 1)),
    ("struct:f16=1.5,bf16=-2.5,f32=0.1,f64=0.1", np.float16(1.5).tobytes() + bytes.fromhex("20c0") + struct.pack("<fd", 0.1, 0.1)),
    ("struct:i8=1,{i64=2,i8=3},i8=4", struct.pack("<b7xqb7xb7x", 1, 2, 3, 4)),  # the nested struct's tail padding
    ("struct:{i32=1,i8=2},i8=3", struct.pack("<ib3xb3x", 1, 2, 3)),
])
def test_fields_are_laid_out_as_c_does(text, value):
    assert structs.encode(text, len(value), None, lambda f: 0) == value


def test_bf16_rounds_to_nearest_even():
    # 1 + 2**-8 lies halfway between two bf16 values: it rounds to the even one (1.0); 1 + 3 * 2**-8 rounds up
    assert structs.encode("struct:bf16=1.00390625,bf16=1.01171875", 4, None, lambda f: 0) == bytes.fromhex("803f" + "823f")


def _conv(arg: str, *extra: str) -> list:
    return ["trace", PTX, "--kernel", "conv_rows_const", "--grid", "4,2", "--block", "64,4", "--arg=zeros:8192",
            f"--arg=npy:{REALK / 'data/params_image.npy'}", f"--arg={arg}", *extra]


@pytest.mark.parametrize("arg, what", [
    ("bytes:0001", "exactly 24 hex digits"),
    ("bytes:" + "zz" * 12, "hex digits only"),
    ("struct:i32=256,i32=8,f32=0.5,i32=1", "the fields take 16 bytes as C lays them out (16 before the tail padding); the parameter has 12"),
    ("struct:i32=256,i32=8", "the fields take 8 bytes"),
    ("struct:i64=1,f32=0.5", "field 1 (i64) needs 8-byte alignment; the parameter is .align 4"),
    ("struct:int=256,i32=8,f32=0.5", "field 1: expected TYPE=VALUE"),
    ("struct:i32=256,i32=8,f32=abc", "field 3 (f32): expected a number"),
    ("struct:i32=4294967296,i32=8,f32=0.5", "field 1 (i32): 4294967296 does not fit 4 bytes"),
    ("struct:u32=-1,i32=8,f32=0.5", "field 1 (u32): -1 does not fit 4 bytes unsigned"),
    ("struct:{i32=256,i32=8,f32=0.5", "a '{' with no '}'"),
    ("struct:f16=70000,i16=0,i32=8,f32=0.5", "field 1 (f16): 70000 does not fit a f16"),
    ("12", "a struct passed by value takes bytes:HEX (24 hex digits) or struct:TYPE=VALUE"),
])
def test_a_struct_that_does_not_fit_names_the_parameter(tmp_path, refused, arg, what):
    refused(*_conv(arg, "-o", tmp_path / "o.npz"), where=("--arg argument 3", "conv_rows_const_param_2", ".align 4 .b8[12]"), what=what)
    assert not (tmp_path / "o.npz").exists()


@pytest.mark.parametrize("field, what", [
    ("ptr=foo", "field 1 (ptr): expected zeros:BYTES, npy:PATH or arg:I"),
    ("ptr=arg:1", "arg:1: not an earlier zeros: or npy: argument (counted from 0)"),
    ("ptr=npy:/nonexistent.npy", "cannot read a .npy file"),
])
def test_a_bad_pointer_field_names_the_parameter(tmp_path, refused, field, what):
    text = ENTRIES["params_cute_sgemm_ld32"]["args"][0].replace("ptr=npy:data/params_gemm_a.npy", field)
    refused("trace", PTX, "--kernel", "cute_sgemm", "--grid", "2,2", "--block", "32,8", "--smem", "8192", f"--arg={text}", "--arg=zeros:16384",
            "-o", tmp_path / "o.npz", where=("argument 1", "cute_sgemm_param_0"), what=what)


@pytest.mark.parametrize("option, where, what", [
    ("nope=zeros:4", "--global nope", ("no __constant__ or __device__ variable of that name in params.ptx (its variables: c_filter (__constant__, "
                                       "68 bytes), c_weights (__constant__, 20 bytes), d_lut (__device__, 256 bytes), d_taps (__device__, 20 bytes))")),
    ("c_filter=zeros:72", "--global c_filter", "zeros:72 holds 72 bytes; the __constant__ variable c_filter holds 68"),
    ("d_lut=zeros:257", "--global d_lut", "zeros:257 holds 257 bytes; the __device__ variable d_lut holds 256"),
    ("c_filter=1.5", "--global c_filter", "expected npy:PATH or zeros:BYTES, got '1.5'"),
    ("c_filter=npy:/nonexistent.npy", "--global c_filter", "cannot read a .npy file"),
    ("c_filter", "--global", "expected NAME=npy:PATH or NAME=zeros:BYTES, got 'c_filter'"),
])
def test_a_global_that_does_not_fit_names_the_symbol(tmp_path, refused, option, where, what):
    refused(*_conv("struct:i32=256,i32=8,f32=0.5", f"--global={option}", "-o", tmp_path / "o.npz"), where=(where,), what=what)


def test_a_global_given_twice_is_refused(tmp_path, refused):
    refused(*_conv("struct:i32=256,i32=8,f32=0.5", "--global=c_filter=zeros:4", "--global=c_filter=zeros:8", "-o", tmp_path / "o.npz"),
            where=("--global c_filter",), what="given twice")


def test_the_trace_header_records_the_globals(tmp_path):
    filt = f"npy:{REALK / 'data/params_filter.npy'}"
    assert main([str(a) for a in _conv("bytes:00010000080000000000003f", f"--global=c_filter={filt}", "-q", "-o", tmp_path / "o.json")]) == 0
    assert read_trace(tmp_path / "o.json").kernel["globals"] == {"c_filter": filt}


def test_a_manifest_entry_whose_globals_are_not_names_and_data_is_refused():
    entry = dict(ENTRIES["params_lut_hist_spread"], globals=["d_lut", "npy:data/params_lut_spread.npy"])
    with pytest.raises(SimsmemError, match="params_lut_hist_spread: globals"):
        entry_launch(entry, REALK)


#: struct parameters of every alignment, for the launcher test: (PTX declaration, struct: argument)
_SHAPES = [
    (".align 8 .b8 a[48]", "struct:i8=-1,{i64=0x123456789,i8=3},u16=65535,f64=-0.1,i32=-7"),
    (".align 4 .b8 b[12]", "struct:f16=1.5,bf16=-2.5,f32=3.4e38,{i8=1,u8=2},i16=-300"),
    (".align 16 .b8 c[32]", "struct:u64=18446744073709551615,f32=1e-45,f16=65504,bf16=1.00390625,i8=5"),
    (".align 2 .b8 d[8]", "struct:u8=255,i8=-128,{i16=-1},bf16=nan,f16=-nan"),
    (".align 128 .b8 e[256]", "struct:i32=3,tmap=(f16:64x8x2@128,1024:64x8x1:128B:zeros:4096),u8=1"),  # a dry run's map: zeros
]


@pytest.mark.slow
def test_the_launcher_lays_structs_out_as_simsmem_does(tmp_path):
    """calibration/realk/launch.cu (built here with g++ against the pip CUDA headers and a stub libcuda: --dry-run
    touches no GPU) prints each bytes:/struct: argument's bytes: they are simsmem's, for the corpus's entries (their
    pointers null in a dry run) and for structs of every field type and alignment."""
    include = Path(toolchain.tool("ptxas")).parent.parent / "include"
    subprocess.run(["g++", "-O1", "-std=c++17", "-x", "c++", f"-I{include}", "-c", "-o", tmp_path / "launch.o", REALK / "launch.cu"], check=True)
    names = sorted(set(re.findall(r"\bU (cu\w+)", subprocess.run(["nm", tmp_path / "launch.o"], capture_output=True, text=True, check=True).stdout)))
    (tmp_path / "stub.c").write_text("".join(f"int {n}(void) {{ return 999; }}\n" for n in names))
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", tmp_path / "libcuda.so", tmp_path / "stub.c"], check=True)
    subprocess.run(["g++", "-o", tmp_path / "launch", tmp_path / "launch.o", f"-L{tmp_path}", "-lcuda", f"-Wl,-rpath,{tmp_path}"], check=True)
    ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(" + ", ".join(f".param {d}" for d, _ in _SHAPES) + ") { ret; }\n"
    (tmp_path / "k.ptx").write_text(ptx)
    shapes = {"name": "shapes", "ptx": "k.ptx", "kernel": "k", "grid": [1, 1, 1], "block": [32, 1, 1], "smem": 0, "args": [t for _, t in _SHAPES]}
    rel = os.path.relpath(REALK, tmp_path)  # the launcher takes paths from the manifest's folder
    corpus = json.dumps(list(ENTRIES.values())).replace("npy:data/", f"npy:{rel}/data/").replace('"ptx/', f'"{rel}/ptx/')
    (tmp_path / "m.json").write_text(json.dumps(json.loads(corpus) + [shapes]))
    out = subprocess.run([tmp_path / "launch", tmp_path / "m.json", "--dry-run"], capture_output=True, text=True, check=True).stdout
    printed = {(name, int(arg)): data for name, arg, data in re.findall(r"^PARAM (\S+) arg(\d+) ([0-9a-f]*)$", out, re.MULTILINE)}
    ours = {}
    for e, text in [(e, PTX.read_text()) for e in ENTRIES.values()] + [(shapes, ptx)]:
        for i, (a, p) in enumerate(zip(e["args"], ptxtext.entries(text)[e["kernel"]])):
            if a.startswith(("bytes:", "struct:")):
                ours[e["name"], i] = (structs.from_hex(a, p.size) if a[0] == "b" else structs.encode(a, p.size, p.align, lambda f: bytes(f.size))).hex()
    assert len(ours) == 10 and printed == ours
