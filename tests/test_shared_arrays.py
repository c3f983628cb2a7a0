"""Where ptxas puts a kernel's ``.shared`` arrays (``kernel/shared.py``), against the addresses its SASS computes.
Evidence from the pinned toolchain (ptxas 13.0.88 -O3, the corpus's PTX): one CTA of every distinct kernel of
calibration/realk/manifest.json (and two of manifest_hopper_ws.json) is traced (the tracer executes ptxas's SASS, so
its addresses are where ptxas put the arrays); every shared address it touches lies inside an array the trace header
names (so every kernel that touches shared memory got names: the placement rule ended exactly at ``.nv.shared``'s
size).
"""

import json

import numpy as np
import pytest
from conftest import ROOT
from simsmem.kernel.tracer import trace_kernel
from simsmem.traces.records import IS_LANES

REALK = ROOT / "calibration" / "realk"
# with two of manifest_hopper_ws.json whose arrays come from a device function (and one of their own first) in a
# module that declares an extern buffer they do not use
HOPPER = [e for e in json.loads((REALK / "manifest_hopper_ws.json").read_text()) if e["name"] in ("tmap_by_pointer", "tmap_built")]
ENTRIES = list({(e["ptx"], e["kernel"]): e for e in json.loads((REALK / "manifest.json").read_text()) + HOPPER}.values())


@pytest.mark.slow
@pytest.mark.parametrize("e", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_every_shared_address_is_in_a_named_array(e):
    stream = trace_kernel(REALK / e["ptx"], e["kernel"], tuple(e["grid"]), tuple(e["block"]), e["smem"], e["args"], ctas=[(0, 0, 0)], base=REALK)
    rows = [c.instructions for c in stream.chunks]
    addrs = np.concatenate([b.addrs[IS_LANES[b.op]].ravel() for b in rows] or [np.zeros(0, dtype=np.int32)])
    addrs = addrs[addrs >= 0]
    arrays = stream.kernel["shared"]["arrays"]
    inside = np.zeros(addrs.shape, dtype=bool)
    for a in arrays:
        inside |= (addrs >= a["base"]) & (addrs < a["base"] + max(a["bytes"], 1))
    assert inside.all(), f"{addrs[~inside][:4]} outside {arrays}"
