"""``WARPSYNC.ALL`` joins a warp whose threads took apart paths (kernel/isa/control.py). ptxas puts one where the
paths meet before a CTA barrier when the path only thread 0 takes holds a call (CuTe's asserts in a build without
-DNDEBUG: ``cute_gemm.cu``'s mbarrier initialisation, docs/hopper.md). Without the join, the side that reached the
barrier last ran on alone past it: a ``vote.sync`` saw half a warp, a wgmma waited forever for lanes its warp had
left behind. Derived from the PTX ISA (``vote.sync`` with a full mask counts every lane); a regression guard."""

from __future__ import annotations

import numpy as np
from simsmem.kernel.tracer import launch_kernel

#: thread 0 stores n (past a call to __assertfail taken when n is 0), then every thread meets at bar.sync and votes
_PTX = """.version 8.0
.target sm_90
.address_size 64
.extern .func __assertfail(.param .b64 message, .param .b64 file, .param .b32 line, .param .b64 function, .param .b64 size);
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  ld.param.u32 %r6, [n];
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  setp.ne.u32 %p2, %r6, 0;
  @%p2 bra STORE;
  { .param .b64 a0; .param .b64 a1; .param .b32 a2; .param .b64 a3; .param .b64 a4;
    st.param.b64 [a0], %rd1; st.param.b64 [a1], %rd1; st.param.b32 [a2], 1; st.param.b64 [a3], %rd1; st.param.b64 [a4], 1;
    call.uni __assertfail, (a0, a1, a2, a3, a4); }
STORE:
  st.global.u32 [%rd2+256], %r6;
SKIP:
  bar.sync 0;
  ld.global.u32 %r7, [%rd2+256];
  setp.ne.u32 %p3, %r7, 0;
  vote.sync.ballot.b32 %r5, %p3, -1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r5;
  ret;
}
"""


def test_a_warp_votes_whole_after_thread_0_ran_alone(tmp_path):
    (tmp_path / "k.ptx").write_text(_PTX)
    stream, launch = launch_kernel(tmp_path / "k.ptx", "k", (1, 1, 1), (64, 1, 1), 0, ["zeros:512", "3"], base=tmp_path)
    stream.read()
    out = next(b.data for b in launch.memory.buffers if b.name.startswith("argument 1 ")).view(np.uint32)
    assert (out[:64] == 0xFFFFFFFF).all() and out[64] == 3
