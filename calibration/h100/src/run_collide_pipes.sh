#!/usr/bin/env bash
# On the GPU machine, from the repository root: build timing_collide.cu and timing_pipes.cu, keep their
# SASS, run them (timing_collide over calibration/patterns/collide.txt, or over LIST when given, then
# without timing_pipes) and write everything to OUT.
set -euo pipefail
OUT=${1:?usage: run_collide_pipes.sh OUT [LIST]}
LIST=${2:-}
src=calibration/h100/src
mkdir -p "$OUT" /tmp/probes
{ nvidia-smi --query-gpu=name,driver_version,clocks.current.sm,clocks.max.sm --format=csv; nvcc --version | tail -2;
  date -u +date_utc:%Y-%m-%dT%H:%M:%SZ; } > "$OUT/env.txt"
probes=timing_collide
[ -n "$LIST" ] || probes="$probes timing_pipes"
for p in $probes; do
  nvcc -O3 -gencode arch=compute_90,code=sm_90 -o /tmp/probes/$p $src/$p.cu
  cuobjdump -sass /tmp/probes/$p > "$OUT/$p.sass"
done
/tmp/probes/timing_collide < "${LIST:-calibration/patterns/collide.txt}" > "$OUT/timing_collide.txt"
[ -n "$LIST" ] || /tmp/probes/timing_pipes > "$OUT/timing_pipes.txt"
wc -l "$OUT"/*.txt
