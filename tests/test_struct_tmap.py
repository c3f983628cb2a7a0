"""A tensor map inside a struct passed by value (``struct:...,tmap=SPEC,...``): a CuTe TMA atom, whose ``CUtensorMap``
sits at a 64-byte aligned offset of a larger parameter (calibration/realk/manifest_cute.json; docs/hopper.md, "Your
Hopper kernel"). The field's 128 bytes are the ``tmap:`` argument's of the same spec; refusals name the argument and
the field. simsmem's own layout rule and texts (regression guards); the launcher's: tests/test_cute_gemm.py."""

from __future__ import annotations

import pytest
from simsmem.kernel.launch import make_launch
from simsmem.kernel.program import load_program
from simsmem.kernel.tensormap import TensorMap

#: a CuTe-like signature: a buffer, a TMA atom (.align 128, 256 bytes), a map by value, a struct of an int and a map
_PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 t, .param .align 128 .b8 atom[256], .param .align 64 .b8 m[128], .param .align 64 .b8 s[192],
                  .param .align 8 .b8 small[16]) { ret; }
"""
SPEC = "f16:64x8x2@128,1024:64x8x1:128B:arg:0"


@pytest.fixture
def kernel(tmp_path):
    (tmp_path / "k.ptx").write_text(_PTX)
    return load_program(tmp_path / "k.ptx", "k"), tmp_path


def _params(kernel, args):
    program, folder = kernel
    launch = make_launch(program, (1, 1, 1), (32, 1, 1), 0, args, folder)
    base = launch.constants[0][program.kernel.param_base :]
    return [bytes(base[p.offset : p.offset + p.size]) for p in program.kernel.params]


def test_a_tmap_field_holds_the_map_a_tmap_argument_gets(kernel):
    """A TMA atom: the map at 0, CuTe's empty AuxTmaParams (a u8) after it, padded to the parameter's .align 128; and
    after an i32, the map at the next multiple of 64 (strides with commas in parentheses)."""
    atom, plain, after, _ = _params(kernel, ["zeros:4096", f"struct:tmap=({SPEC}),u8=0", f"tmap:{SPEC}", f"struct:i32=7,tmap=({SPEC})",
                                             "struct:i64=1,i64=2"])[1:]
    assert atom == plain + bytes(128) and after == (7).to_bytes(4, "little") + bytes(60) + plain
    assert TensorMap.decode(plain).strides == (128, 1024)


def test_a_tmap_field_without_strides_needs_no_parentheses(kernel):
    spec = "f16:64x16:64x8:none:arg:0"
    atom, plain = _params(kernel, ["zeros:2048", f"struct:tmap={spec},u8=0", f"tmap:{spec}", f"struct:i32=1,tmap={spec}", "struct:i64=1,i64=2"])[1:3]
    assert atom[:128] == plain


GOOD = ["zeros:4096", f"struct:tmap=({SPEC}),u8=0", f"tmap:{SPEC}", f"struct:i32=1,tmap=({SPEC})", "struct:i64=1,i64=2"]


@pytest.mark.parametrize("arg, text, where, what", [
    (1, "struct:tmap=f16:64x16:64x8:16B:arg:0,u8=0", "field 1 (tmap)", "swizzle is none, 32B, 64B or 128B, not '16B'"),
    (1, "struct:tmap=f16:64x16:64x8:none:arg:3,u8=0", "field 1 (tmap)", "arg:3: not an earlier zeros: or npy: argument"),
    (1, "struct:tmap=f16:64x64:64x8:none:zeros:1024,u8=0", "field 1 (tmap)", "the tensor spans 8192 bytes, its buffer holds 1024"),
    (1, f"struct:tmap=({SPEC})", "", ("the fields take 128 bytes as C lays them out (128 before the tail padding); the parameter has "
                                      "256 (a CuTe TMA atom's AuxTmaParams follow its map: an empty one is a u8)")),
    (1, f"struct:tmap=({SPEC},u8=0", "", "a '(' with no ')'"),
    (4, f"struct:i64=1,tmap=({SPEC})", "", "field 2 (tmap) needs 64-byte alignment; the parameter is .align 8"),
])
def test_a_bad_tmap_field_names_the_argument_and_field(kernel, refused, arg, text, where, what):
    folder = kernel[1]
    args = [text if k == arg else a for k, a in enumerate(GOOD)]
    refused("trace", folder / "k.ptx", "--kernel", "k", "--grid", "1", "--block", "32", *(f"--arg={a}" for a in args), "-o", folder / "o.npz",
            where=(f"--arg argument {arg + 1} ", where), what=what)
    assert not (folder / "o.npz").exists()
