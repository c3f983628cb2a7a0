#!/usr/bin/env bash
# On the GPU machine, from the repository root: build timing_stall.cu, keep its SASS, run it plain and under
# Nsight Compute (warp-state counters and stall samples every 32 cycles per SASS instruction, one CTA per SM
# on all 132 SMs), and write everything to OUT.
set -uo pipefail
OUT=${1:?usage: run_stall.sh OUT}
src=calibration/h100/src
mkdir -p "$OUT" /tmp/probes
{ nvidia-smi --query-gpu=name,driver_version,clocks.current.sm,clocks.max.sm --format=csv; nvcc --version | tail -2;
  ncu --version | tail -1; date -u +date_utc:%Y-%m-%dT%H:%M:%SZ; } > "$OUT/env.txt"
nvcc -O3 -gencode arch=compute_90,code=sm_90 -o /tmp/probes/st $src/timing_stall.cu || exit 1
cuobjdump -sass /tmp/probes/st | gzip > "$OUT/timing_stall.sass.gz"
W1="4 5 6 7 8 12 16"; W2="4 8 16"
{ /tmp/probes/st 0 1 132 $W1; /tmp/probes/st 0 2 132 $W2; } > "$OUT/plain.txt"
R=/tmp/probes/r
{ ncu -f -o $R.a --section WarpStateStats --section SourceCounters --warp-sampling-interval 0 /tmp/probes/st 0 1 132 $W1
  ncu -f -o $R.b --section WarpStateStats --section SourceCounters --warp-sampling-interval 0 /tmp/probes/st 0 2 132 $W2; } > "$OUT/ncu.log" 2>&1
for x in a b; do
  ncu -i $R.$x.ncu-rep --page raw --csv | gzip > "$OUT/raw_$x.csv.gz"
  ncu -i $R.$x.ncu-rep --page source --csv --print-source sass | gzip > "$OUT/src_$x.csv.gz"
done
ls -la "$OUT"; tail -3 "$OUT/ncu.log"; cat "$OUT/plain.txt"
