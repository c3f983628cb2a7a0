#!/bin/bash
# measure_timing.sh -- Nsight Compute TIMING runs (cycles, warp stalls, shared-memory counters) of realk manifests.
# A sibling of measure.sh (same launcher, same ncu invocation and CSV import; no plain runs, no output dumps, no
# builds of the corpus): each group of entries is profiled RUNS times, one ncu process per group and run.
#
#   OUT=/some/empty/dir bash calibration/realk/measure_timing.sh
#
# Parameters (environment):
#   RUNS      ncu runs per group (default 3); MAXRUNS (default RUNS): further runs, group by group, while time is left
#   BUDGET_S  no ncu run is started after this many seconds (default 480)
#   METRICS   metric list file, relative to calibration/realk (default ncu_metrics_timing.txt); metrics the installed
#             ncu does not list are dropped (metrics_dropped.txt)
#   TIMING_GROUPS  space-separated TAG:MANIFEST:FILTER[:EXTRA_METRICS_FILE], measured in this order (priority order);
#             FILTER is all, core (manifest.json's entries but the held-out LDGSTS .cg probes and the LDGSTS form
#             probes), ldgsts (those two kinds only), or +NAME+NAME... (those entries). Default: core, timing probes, hopper, ldgsts.
#   DUMP      argument tags whose zeros: buffers to keep from each ncu process (e.g. "arg0", or "arg0 arg2"; default
#             none): the launcher's --dump-out (the last replay's contents) into dumps/ncu_runK_TAG[_SUFFIX]/NAME.argI.bin;
#             the other arguments' dumps are deleted as soon as the process ends
# Output: $OUT/realk_timing.tar.gz with env.txt, log.txt, metrics*.txt, groups/TAG.names (entries in launch order),
# ncu_runK_TAG.csv (--csv --page raw --print-units base, imported from the report, which is then deleted),
# ncu_runK_TAG.stdout (launcher: ENTRY/ATTR/BUF/OK lines), ncu_runK_TAG.log (ncu's messages); a retry of one entry
# that a run missed is ncu_runK_TAG_NAME.*. collect_timing.py turns it into timing_h200.json.
set -u
T0=$(date +%s)
BUDGET_S=${BUDGET_S:-480}
RUNS=${RUNS:-3}
MAXRUNS=${MAXRUNS:-$RUNS}
METRICS_FILE=${METRICS:-ncu_metrics_timing.txt}
GROUPS_SPEC=${TIMING_GROUPS:-"core:manifest.json:core probes:manifest_timing.json:all:ncu_metrics_timing_probes.txt hopper:manifest_hopper.json:all ldgsts:manifest.json:ldgsts"}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${OUT:?set OUT to the output folder}"
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
W="$OUT/realk_timing"
rm -rf "$W"
mkdir -p "$W/groups"
LOG="$W/log.txt"
LAUNCH=/tmp/realk_launch

log() { echo "[$(date +%H:%M:%S) +$(( $(date +%s) - T0 ))s] $*" | tee -a "$LOG"; }
elapsed() { echo $(( $(date +%s) - T0 )); }
pack() {
  log "packing (elapsed $(elapsed) s)"
  rm -f "$W"/*.ncu-rep
  tar czf "$OUT/realk_timing.tar.gz.tmp" -C "$W" . && mv "$OUT/realk_timing.tar.gz.tmp" "$OUT/realk_timing.tar.gz" \
    && ls -l "$OUT/realk_timing.tar.gz" && rm -rf "$W"
}
trap pack EXIT

cd "$HERE" || exit 1
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname)"
  echo "git: $(git -C "$HERE" rev-parse HEAD 2>/dev/null || echo none)"
  echo "command: OUT=\$OUT RUNS=$RUNS MAXRUNS=$MAXRUNS BUDGET_S=$BUDGET_S METRICS=$METRICS_FILE TIMING_GROUPS='$GROUPS_SPEC'${DUMP:+ DUMP='$DUMP'} bash calibration/realk/measure_timing.sh"
  nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv 2>&1
  nvidia-smi 2>&1 | head -15
  echo "--- nvcc"; nvcc --version 2>&1
  echo "--- ncu"; ncu --version 2>&1
} >"$W/env.txt"
log "env.txt written"
log "BEGIN build_launcher"
nvcc -O2 -o "$LAUNCH" launch.cu -lcuda >>"$LOG" 2>&1 || { log "FATAL: launcher did not build"; exit 1; }
log "END build_launcher"

# ------------------------------------------------------------------------------------------------ groups
for g in $GROUPS_SPEC; do
  IFS=: read -r tag m filt extra <<<"$g"
  python3 - "$m" "$filt" >"$W/groups/$tag.names" <<'PY'
import json, sys
m, filt = sys.argv[1], sys.argv[2]
held = ("held-out LDGSTS .cg probe", "LDGSTS form probe")
for e in json.load(open(m)):
    is_l = any(h in e.get("origin", "") for h in held)
    if filt == "all" or (filt == "core" and not is_l) or (filt == "ldgsts" and is_l) or e["name"] in filt.split("+")[1:]:
        print(e["name"])
PY
  log "group $tag: $m ($filt) $(wc -l <"$W/groups/$tag.names") entries${extra:+, extra metrics $extra}"
done

# ------------------------------------------------------------------------------------------------ metrics
timeout 120 ncu --query-metrics >"$W/query_metrics.txt" 2>&1
log "ncu --query-metrics rc=$? ($(wc -l <"$W/query_metrics.txt") lines)"
check_metrics() {  # check_metrics FILE -> kept metrics on stdout, dropped ones appended to metrics_dropped.txt
  local mt base
  for mt in $(grep -v '^\s*$' "$1"); do
    base=${mt%.*}
    if [ "$(wc -l <"$W/query_metrics.txt")" -lt 50 ] || grep -qE "^[[:space:]]*\"?$base\b" "$W/query_metrics.txt"; then
      echo "$mt"
    else
      echo "$mt" >>"$W/metrics_dropped.txt"; log "metric not in this ncu: $mt (dropped)" >&2
    fi
  done
}
: >"$W/metrics_dropped.txt"
check_metrics "$METRICS_FILE" >"$W/metrics.txt"
METRICS=$(paste -sd, "$W/metrics.txt")
log "$(wc -l <"$W/metrics.txt") metrics kept, $(wc -l <"$W/metrics_dropped.txt") dropped"

# ------------------------------------------------------------------------------------------------ ncu runs
ncu_over() {  # ncu_over TAG MANIFEST ONLY_LIST TIMEOUT METRICS
  local tag=$1 m=$2 only=$3 to=$4 met=$5
  echo "$only" | tr ',' '\n' >"$W/$tag.names"
  log "BEGIN ncu $tag ($m, $(echo "$only" | tr ',' '\n' | wc -l) entries, timeout $to s)"
  local dump=()
  [ -n "${DUMP:-}" ] && { mkdir -p "$W/dumps/$tag"; dump=(--dump-out "$W/dumps/$tag"); }
  timeout -k 10 "$to" ncu --csv --page raw --print-units base --clock-control none --metrics "$met" \
    --export "$W/$tag" --force-overwrite --log-file "$W/$tag.log" \
    "$LAUNCH" "$m" --only "$only" ${dump[@]+"${dump[@]}"} >"$W/$tag.stdout" 2>&1
  local rc=$?
  if [ -n "${DUMP:-}" ]; then  # keep the buffers of the arguments DUMP names
    local f keep a
    for f in "$W/dumps/$tag"/*.bin; do
      [ -e "$f" ] || continue
      keep=0
      for a in $DUMP; do case "$f" in *."$a".bin) keep=1 ;; esac; done
      [ $keep = 1 ] || rm -f "$f"
    done
  fi
  if [ -f "$W/$tag.ncu-rep" ]; then
    ncu --import "$W/$tag.ncu-rep" --csv --page raw --print-units base >"$W/$tag.csv" 2>>"$LOG"
    rm -f "$W/$tag.ncu-rep"
  fi
  local nrow nok
  nrow=$(grep -c '^"[0-9]' "$W/$tag.csv" 2>/dev/null); nok=$(grep -c '^OK ' "$W/$tag.stdout" 2>/dev/null)
  log "END ncu $tag rc=$rc rows=${nrow:-0} ok=${nok:-0}"
}
missing_of() {  # missing_of TAG NAMESFILE: the names of NAMESFILE without an OK line in TAG.stdout, in order
  local name
  for name in $(cat "$2"); do grep -q "^OK [0-9]* $name\$" "$W/$1.stdout" 2>/dev/null || echo "$name"; done
}
run_group() {  # run_group SPEC K
  local tag m filt extra met only left name rtag
  IFS=: read -r tag m filt extra <<<"$1"
  only=$(paste -sd, "$W/groups/$tag.names")
  [ -z "$only" ] && return
  met=$METRICS
  if [ -n "${extra:-}" ]; then
    [ -f "$W/metrics_$tag.txt" ] || check_metrics "$extra" >"$W/metrics_$tag.txt"
    [ -s "$W/metrics_$tag.txt" ] && met="$METRICS,$(paste -sd, "$W/metrics_$tag.txt")"
  fi
  left=$(( BUDGET_S - $(elapsed) ))
  [ $left -lt 30 ] && { log "time budget spent: $tag run $2 skipped"; return; }
  rtag="ncu_run${2}_$tag"
  ncu_over "$rtag" "$m" "$only" $(( left < 400 ? left : 400 )) "$met"
  # entries without an OK line (the launcher died or ncu stopped): the first of them alone, then the rest together
  local missing culprit r=0
  missing=$(missing_of "$rtag" "$W/groups/$tag.names")
  while [ -n "$missing" ] && [ $r -lt 4 ]; do
    r=$((r + 1))
    culprit=${missing%%$'\n'*}
    left=$(( BUDGET_S - $(elapsed) )); [ $left -lt 30 ] && break
    ncu_over "${rtag}_$culprit" "$m" "$culprit" $(( left < 60 ? left : 60 )) "$met"
    printf '%s\n' "$missing" | tail -n +2 >"$W/${rtag}_r$r.names"
    [ -s "$W/${rtag}_r$r.names" ] || break
    left=$(( BUDGET_S - $(elapsed) )); [ $left -lt 30 ] && break
    ncu_over "${rtag}_r$r" "$m" "$(paste -sd, "$W/${rtag}_r$r.names")" $(( left < 300 ? left : 300 )) "$met"
    missing=$(missing_of "${rtag}_r$r" "$W/${rtag}_r$r.names")
  done
}
for g in $GROUPS_SPEC; do
  for k in $(seq 1 "$RUNS"); do run_group "$g" "$k"; done
done
for k in $(seq $(( RUNS + 1 )) "$MAXRUNS"); do
  for g in $GROUPS_SPEC; do run_group "$g" "$k"; done
done
log "ncu runs done (elapsed $(elapsed) s)"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >>"$W/env.txt" 2>&1
du -sh "$W" | tee -a "$LOG"
exit 0
