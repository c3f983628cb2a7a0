#!/usr/bin/env bash
# measure.sh -- the GPU side of calibration/isa: every entry of manifest.json launched once by the realk launcher with
# --dump-out (one process an entry; isa_trap is expected to fail), then one ncu run of smsp__inst_executed.sum over the
# entries that ran, and this machine's ptxas on every PTX (compared with cubin/). Everything goes to
# $OUT/isa_measure.tar.gz: env.txt, status.txt, launch.log, dump/NAME.argI.bin, ncu.csv, ncu.log, ptxas.txt.
#   OUT=/path/to/empty/dir [LAUNCH_CU=path/to/launch.cu] bash calibration/isa/measure.sh
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${OUT:?set OUT to the output folder}"
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
W="$OUT/isa_measure"
rm -rf "$W" && mkdir -p "$W/dump"
LAUNCH_CU=$(cd "$(dirname "${LAUNCH_CU:-$HERE/../realk/launch.cu}")" && pwd)/$(basename "${LAUNCH_CU:-launch.cu}")
trap 'tar czf "$OUT/isa_measure.tar.gz" -C "$W" . && rm -rf "$W"' EXIT
cd "$HERE" || exit 1
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2; ptxas --version | tail -1; ncu --version | tail -1
  echo "launcher: $LAUNCH_CU"
} >"$W/env.txt" 2>&1
nvcc -O2 -o /tmp/isa_launch "$LAUNCH_CU" -lcuda >>"$W/env.txt" 2>&1 || { echo "launcher did not build" >>"$W/env.txt"; exit 1; }
names=$(python3 -c 'import json; print(" ".join(e["name"] for e in json.load(open("manifest.json"))))')
: >"$W/status.txt"
for name in $names; do
  timeout -k 5 60 /tmp/isa_launch manifest.json --only "$name" --dump-out "$W/dump" >>"$W/launch.log" 2>&1
  echo "$name $?" >>"$W/status.txt"
done
ok=$(awk '$2 == 0 {print $1}' "$W/status.txt" | paste -sd, -)
timeout -k 10 240 ncu --csv --page raw --print-units base --clock-control none \
  --metrics smsp__inst_executed.sum,smsp__thread_inst_executed.sum /tmp/isa_launch manifest.json --only "$ok" \
  >"$W/ncu.csv" 2>"$W/ncu.log"
echo "ncu rc=$?" >>"$W/status.txt"
for p in ptx/*.ptx; do
  b=$(basename "$p" .ptx)
  arch=sm_90; case $b in *_sm90a) arch=sm_90a;; esac
  ptxas -arch=$arch "$p" -o "/tmp/isa_$b.cubin" && cmp -s "/tmp/isa_$b.cubin" "cubin/$b.cubin" && echo "$b identical" || echo "$b DIFFERS"
done >"$W/ptxas.txt" 2>&1
