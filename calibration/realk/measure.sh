#!/bin/bash
# measure.sh -- measure the new realk kernels on an H100: outputs once, then five Nsight Compute runs.
#
#   OUT=/some/empty/dir bash calibration/realk/measure.sh [MANIFEST.json ...]
#
# Run from the repository root (any directory works: paths are taken from this script's location) on a machine
# with nvcc 13.0, ncu 2025.3.1 and an H100. MANIFESTs are paths relative to calibration/realk/ (default:
# manifest_new.json, plus manifest_triton.json when it exists); the 8 entries of manifest.json are never run.
# Everything ends up in ONE file, $OUT/realk_measure.tar.gz (the work folder is removed after packing):
#   env.txt            GPU, driver, clocks, tool versions, date
#   log.txt            every step with its command line, exit status and time
#   manifests.txt      the manifests measured (paths relative to calibration/realk/)
#   entries.txt        "MANIFEST NAME" per entry, in launch order
#   status.txt         per entry: plain-run exit status ("ok" / "rc=N" / "skipped"); only ok entries are profiled
#   launch_plain.log   the launcher's stdout+stderr of the plain runs (ENTRY, ATTR, BUF, OK lines)
#   dump/NAME.argI.bin every zeros: buffer after the plain run (--dump-out)
#   metrics.txt        the metrics passed to ncu; metrics_dropped.txt those the installed ncu lacks
#   query_metrics.txt  ncu --query-metrics (which of the extra metrics exist)
#   ncu_runK_M.csv     ncu --csv --page raw --print-units base of run K (1..5) over manifest M (its basename),
#                      imported from ncu_runK_M.ncu-rep; ncu_runK_M_NAME.* a retry of one entry the run missed
#   ncu_runK_M.stdout  the launcher's own stdout under ncu (ENTRY/ATTR/BUF/OK lines: were outputs identical?)
#   ncu_runK_M.log     ncu's own messages (--log-file)
#   ncu_run1_M.ncu-rep the first run's reports (the later runs' are deleted once their CSV is made)
#   sass_machine/      ptxas + cuobjdump -sass / -res-usage of every PTX on this machine; ptx_machine/ nvcc -ptx
#                      of every CUDA source here (to confirm the committed PTX and SASS are what this toolkit makes)
# The whole script aims at well under 9 minutes: a time budget (BUDGET_S, default 480 s) stops starting new ncu runs
# once spent, and every launcher or ncu call has its own timeout. One failing kernel never stops the others: plain
# runs go one entry per process, ncu runs take the entries that passed, and entries an ncu run missed are retried
# one per ncu process.
set -u
T0=$(date +%s)
BUDGET_S=${BUDGET_S:-480}
RUNS=${RUNS:-5}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${OUT:?set OUT to the output folder}"
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)   # absolute: the script cds into calibration/realk
W="$OUT/realk_measure"
rm -rf "$W"
mkdir -p "$W/dump" "$W/sass_machine" "$W/ptx_machine"
LOG="$W/log.txt"
LAUNCH=/tmp/realk_launch

log() { echo "[$(date +%H:%M:%S) +$(( $(date +%s) - T0 ))s] $*" | tee -a "$LOG"; }
elapsed() { echo $(( $(date +%s) - T0 )); }
# run a logged command: step NAME CMD... (stdout+stderr appended to the log unless redirected by the caller)
step() {
  local name=$1; shift
  log "BEGIN $name: $*"
  "$@" >>"$LOG" 2>&1
  local rc=$?
  log "END $name rc=$rc"
  return $rc
}
pack() {
  log "packing (elapsed $(elapsed) s)"
  rm -f "$OUT/realk_measure.tar.gz"
  tar czf "$OUT/realk_measure.tar.gz.tmp" -C "$W" . && mv "$OUT/realk_measure.tar.gz.tmp" "$OUT/realk_measure.tar.gz"
  local rc=$?
  ls -l "$OUT/realk_measure.tar.gz" 2>/dev/null
  [ $rc -eq 0 ] && rm -rf "$W"
}
trap pack EXIT

# ------------------------------------------------------------------------------------------------ 0. environment
cd "$HERE" || exit 1
if [ $# -gt 0 ]; then MANIFESTS=("$@"); else
  MANIFESTS=(manifest_new.json)
  [ -f manifest_triton.json ] && MANIFESTS+=(manifest_triton.json)
fi
printf '%s\n' "${MANIFESTS[@]}" >"$W/manifests.txt"
log "manifests: ${MANIFESTS[*]}"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname)"
  echo "git: $(git -C "$HERE" rev-parse HEAD 2>/dev/null || echo none)"
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv 2>&1
  nvidia-smi 2>&1 | head -15
  echo "--- nvcc"; nvcc --version 2>&1
  echo "--- ptxas"; ptxas --version 2>&1
  echo "--- cuobjdump"; cuobjdump --version 2>&1
  echo "--- ncu"; ncu --version 2>&1
  echo "--- python"; python3 --version 2>&1
} >"$W/env.txt"
log "env.txt written"

# ------------------------------------------------------------------------------------------------ 1. builds
step build_launcher nvcc -O2 -o "$LAUNCH" launch.cu -lcuda || { log "FATAL: launcher did not build"; exit 1; }
for m in "${MANIFESTS[@]}"; do
  step dry_run_"$m" timeout 60 "$LAUNCH" "$m" --dry-run
done
# the toolkit here on the committed PTX / CUDA sources (reproducibility; failures only logged)
for p in $(cat "${MANIFESTS[@]}" | grep -o '"ptx": *"[^"]*"' | sed 's/.*"ptx": *"\(.*\)"/\1/' | sort -u); do
  b=$(basename "$p" .ptx)
  if timeout 120 ptxas -arch=sm_90 "$p" -o "/tmp/realk_$b.cubin" >>"$LOG" 2>&1; then
    cuobjdump -sass "/tmp/realk_$b.cubin" >"$W/sass_machine/$b.sass" 2>>"$LOG"
    cuobjdump -res-usage "/tmp/realk_$b.cubin" >"$W/sass_machine/$b.res" 2>>"$LOG"
  else
    log "ptxas failed on $p"
  fi
done
for s in $(cat "${MANIFESTS[@]}" | grep -o '"source": *"[^"]*\.cu"' | sed 's/.*"source": *"\(.*\)"/\1/' | sort -u); do
  b=$(basename "$s" .cu)
  timeout 120 nvcc -arch=sm_90 -ptx "$s" -o "$W/ptx_machine/$b.ptx" >>"$LOG" 2>&1 || log "nvcc -ptx failed on $s"
  if [ -f "$W/ptx_machine/$b.ptx" ]; then
    if cmp -s "$W/ptx_machine/$b.ptx" "ptx/$b.ptx"; then log "ptx/$b.ptx: identical to this machine's nvcc";
    else log "ptx/$b.ptx: DIFFERS from this machine's nvcc (kept in ptx_machine/)"; fi
  fi
done
log "builds done (elapsed $(elapsed) s)"

# ------------------------------------------------------------------------------------------------ 2. entries
: >"$W/entries.txt"
for m in "${MANIFESTS[@]}"; do
  if command -v python3 >/dev/null; then
    python3 -c 'import json,sys; [print(sys.argv[1], e["name"]) for e in json.load(open(sys.argv[1]))]' "$m" >>"$W/entries.txt"
  else
    grep -o '^ *"name": *"[^"]*"' "$m" | sed 's/.*"name": *"\(.*\)"/\1/' | sed "s|^|$m |" >>"$W/entries.txt"
  fi
done
log "$(wc -l <"$W/entries.txt") entries"

# ------------------------------------------------------------------------------------------------ 3. plain runs
: >"$W/status.txt"
: >"$W/launch_plain.log"
while read -r m name; do
  if [ $(( BUDGET_S - $(elapsed) )) -lt 150 ]; then
    echo "$m $name skipped" >>"$W/status.txt"; log "time budget: plain run of $m $name skipped"; continue; fi
  timeout -k 5 30 "$LAUNCH" "$m" --only "$name" --dump-out "$W/dump" >>"$W/launch_plain.log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then echo "$m $name ok" >>"$W/status.txt"; else
    echo "$m $name rc=$rc" >>"$W/status.txt"; log "plain run FAILED: $m $name rc=$rc"; fi
done <"$W/entries.txt"
log "plain runs: $(grep -c ' ok$' "$W/status.txt") ok, $(grep -vc ' ok$' "$W/status.txt") failed (elapsed $(elapsed) s)"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv >>"$W/env.txt" 2>&1

# ------------------------------------------------------------------------------------------------ 4. metrics
grep -v '^\s*$' ncu_metrics.txt >"$W/metrics.txt"
EXTRA="l1tex__data_bank_reads.sum l1tex__data_bank_writes.sum smsp__thread_inst_executed.sum
smsp__thread_inst_executed_pred_on.sum smsp__sass_inst_executed_op_shared_ld.sum
smsp__sass_inst_executed_op_shared_st.sum smsp__sass_inst_executed_op_shared_atom.sum
smsp__sass_inst_executed_op_ldsm.sum smsp__sass_inst_executed_op_ldgsts.sum smsp__inst_executed_op_generic_ld.sum
smsp__inst_executed_op_generic_st.sum
smsp__sass_inst_executed_op_tma.sum smsp__sass_inst_executed_op_tma_ld.sum smsp__sass_inst_executed_op_tma_st.sum
smsp__inst_executed_op_tma_ld.sum smsp__inst_executed_op_tma_st.sum smsp__inst_executed_pipe_tma.sum
smsp__inst_executed_pipe_tensor_op_gmma.sum smsp__l1tex_tmain_requests.sum smsp__l1tex_lsuin_requests_op_gmma.sum
l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st.sum
l1tex__m_xbar2l1tex_read_bytes_pipe_tma.sum l1tex__m_l1tex2xbar_write_bytes_pipe_tma.sum"
[ -n "${MORE_METRICS:-}" ] && EXTRA="$EXTRA $(grep -v '^\s*$' "$MORE_METRICS")"   # MORE_METRICS=FILE: more metrics, one a line
timeout 120 ncu --query-metrics >"$W/query_metrics.txt" 2>&1
log "ncu --query-metrics rc=$? ($(wc -l <"$W/query_metrics.txt") lines)"
: >"$W/metrics_dropped.txt"
FIRST=$(awk '$3 == "ok" {print $1, $2; exit}' "$W/status.txt")
for mt in $EXTRA; do
  base=${mt%.*}
  if [ "$(wc -l <"$W/query_metrics.txt")" -ge 50 ]; then
    grep -qE "^[[:space:]]*\"?$base\b" "$W/query_metrics.txt"; found=$?
  elif [ -n "$FIRST" ]; then   # no usable list: try the metric alone on the first entry that ran
    timeout -k 5 60 ncu --csv --page raw --metrics "$mt" "$LAUNCH" ${FIRST% *} --only ${FIRST#* } \
      >"$W/metric_try.txt" 2>&1
    found=$?
    grep -qi "failed to find metric\|not found\|invalid metric" "$W/metric_try.txt" && found=1
    cat "$W/metric_try.txt" >>"$LOG"
  else found=1; fi
  if [ $found -eq 0 ]; then echo "$mt" >>"$W/metrics.txt";
  else echo "$mt" >>"$W/metrics_dropped.txt"; log "metric not in this ncu: $mt (dropped)"; fi
done
rm -f "$W/metric_try.txt"
METRICS=$(paste -sd, "$W/metrics.txt")
log "$(wc -l <"$W/metrics.txt") metrics"

# ------------------------------------------------------------------------------------------------ 5. ncu runs
# one ncu process per manifest and run over the entries that passed; then the entries it missed one by one.
ncu_over() {  # ncu_over TAG MANIFEST ONLY_LIST TIMEOUT
  local tag=$1 m=$2 only=$3 to=$4
  log "BEGIN ncu $tag ($m, $(echo "$only" | tr ',' '\n' | wc -l) entries, timeout $to s)"
  timeout -k 10 "$to" ncu --csv --page raw --print-units base --clock-control none --metrics "$METRICS" \
    --export "$W/$tag" --force-overwrite --log-file "$W/$tag.log" \
    "$LAUNCH" "$m" --only "$only" >"$W/$tag.stdout" 2>&1
  local rc=$?
  if [ -f "$W/$tag.ncu-rep" ]; then
    ncu --import "$W/$tag.ncu-rep" --csv --page raw --print-units base >"$W/$tag.csv" 2>>"$LOG"
  fi
  log "END ncu $tag rc=$rc rows=$(grep -c '^"[0-9]' "$W/$tag.csv" 2>/dev/null || echo 0)"
}
for k in $(seq 1 "$RUNS"); do
  left=$(( BUDGET_S - $(elapsed) ))
  if [ $left -lt 40 ]; then log "time budget spent: ncu run $k and later skipped"; break; fi
  for m in "${MANIFESTS[@]}"; do
    mb=$(basename "$m" .json)
    ok=$(awk -v m="$m" '$1 == m && $3 == "ok" {print $2}' "$W/status.txt" | paste -sd, -)
    [ -z "$ok" ] && continue
    left=$(( BUDGET_S - $(elapsed) ))
    [ $left -lt 30 ] && { log "time budget spent during run $k"; break; }
    tag="ncu_run${k}_$mb"
    ncu_over "$tag" "$m" "$ok" $(( left < 300 ? left : 300 ))
    # entries without an OK line under ncu: retry each alone
    for name in $(echo "$ok" | tr ',' ' '); do
      grep -q "^OK [0-9]* $name\$" "$W/$tag.stdout" 2>/dev/null && continue
      left=$(( BUDGET_S - $(elapsed) ))
      [ $left -lt 30 ] && break
      ncu_over "${tag}_$name" "$m" "$name" $(( left < 60 ? left : 60 ))
    done
  done
  [ "$k" -gt 1 ] && rm -f "$W"/ncu_run"${k}"_*.ncu-rep
done
log "ncu runs done (elapsed $(elapsed) s)"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv >>"$W/env.txt" 2>&1
du -sh "$W" | tee -a "$LOG"
exit 0
