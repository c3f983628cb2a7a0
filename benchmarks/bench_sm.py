"""The timed SM's speed: warp-instructions simulated per second (one core), for one SM of three corpus kernels.

    python benchmarks/bench_sm.py

Each kernel is traced once (not timed here: benchmarks/bench_trace.py times tracing), then its launch is timed three
times on sm_90; the best run is printed. The issue's target: at least 100,000 warp-instructions a second for a GEMM's CTA.
"""

import json
import time
from pathlib import Path

from simsmem.config import load_arch
from simsmem.kernel.tracer import StreamSink, trace_kernel
from simsmem.results.analysis import analyse_stream
from simsmem.sm import time_launch

REALK = Path(__file__).resolve().parent.parent / "calibration" / "realk"
KERNELS = ("sgemm_rb128_8x8", "hgemm_cpasync_swz", "triton_matmul_f16", "bitonic_sort_1024")


def main() -> None:
    arch = load_arch("sm_90")
    entries = {e["name"]: e for e in json.loads((REALK / "manifest.json").read_text())}
    for name in KERNELS:
        e = entries[name]
        sink = StreamSink(arch.sm.sms)
        stream = trace_kernel(REALK / e["ptx"], e["kernel"], tuple(e["grid"]), tuple(e["block"]), e["smem"], e["args"], base=REALK, sink=sink)
        result = analyse_stream(stream, arch, keep="all")
        streams = sink.streams()
        best, timing = float("inf"), None
        for _ in range(3):
            start = time.perf_counter()
            timing = time_launch(streams, result.trace.instructions, result.counts.wavefronts, arch, sink.resources)
            best = min(best, time.perf_counter() - start)
        n = timing.run.issued
        print(f"{name:22s} {n:8,} warp-instructions on one SM in {best * 1000:7.1f} ms: {n / best:10,.0f} per second")


if __name__ == "__main__":
    main()
