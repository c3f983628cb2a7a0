#!/bin/bash
# source_counters.sh -- ncu's per-SASS-instruction counters (the Source page) for some manifest entries: which
# instruction of a kernel carries how many shared-memory wavefronts and bank conflicts.
#
#   OUT=/some/dir bash calibration/realk/source_counters.sh MANIFEST.json NAME[,NAME...]
#
# Run from anywhere on a machine with nvcc, ncu and a GPU; writes $OUT/source_NAME.csv (ncu --page source --csv
# --print-source sass, one row per SASS instruction) and $OUT/source.log. SAMPLING (default auto) is ncu's
# --warp-sampling-interval: the warp-state samples come every 2^(5+SAMPLING) cycles.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${OUT:?set OUT to the output folder}"
cd "$HERE"
nvcc -O2 -o /tmp/realk_launch launch.cu -lcuda > "$OUT/source.log" 2>&1 || exit 1
for name in ${2//,/ }; do
  timeout 120 ncu --target-processes all --set full --warp-sampling-interval "${SAMPLING:-auto}" --import-source no -k regex:. -o "/tmp/src_$name" -f \
    /tmp/realk_launch "$1" --only "$name" >> "$OUT/source.log" 2>&1
  timeout 120 ncu --import "/tmp/src_$name.ncu-rep" --page source --csv --print-source sass > "$OUT/source_$name.csv" 2>> "$OUT/source.log"
  echo "$name rc=$?" >> "$OUT/source.log"
done
