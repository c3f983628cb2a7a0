#!/usr/bin/env bash
# On the GPU machine, from the repository root: build timing_hopper.cu for sm_90a, keep its SASS, and run every row
# (one process and one kernel launch per row, `timeout 60` each, so a row that faults or hangs is reported and the
# others still run), twice (pass=1, pass=2: the spread between passes is the repeatability). Writes OUT/env.txt,
# OUT/build.log, OUT/timing_hopper.sass.gz and OUT/rows.txt.
#   bash calibration/h100/src/run_hopper_timing.sh OUT
set -uo pipefail
OUT=${1:?usage: run_hopper_timing.sh OUT}
src=calibration/h100/src
mkdir -p "$OUT" /tmp/th
{ nvidia-smi --query-gpu=name,driver_version,clocks.current.sm,clocks.max.sm,clocks.sm,temperature.gpu,power.draw --format=csv
  nvcc --version | tail -2; date -u +date_utc:%Y-%m-%dT%H:%M:%SZ; } > "$OUT/env.txt" 2>&1
nvcc -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -o /tmp/th/th $src/timing_hopper.cu > "$OUT/build.log" 2>&1 \
  || { tail -30 "$OUT/build.log"; echo FATAL: build failed; exit 1; }
cuobjdump -sass /tmp/th/th | gzip > "$OUT/timing_hopper.sass.gz"
for pass in 1 2; do
  for row in $(/tmp/th/th list); do
    timeout 60 /tmp/th/th "$row" | sed "s/^row /row pass=$pass /"
    rc=${PIPESTATUS[0]}
    [ "$rc" -ne 0 ] && echo "row pass=$pass name=$row failed rc=$rc"
  done
done 2>&1 | tee "$OUT/rows.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv >> "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
