#!/bin/bash
# measure_hopper_ws.sh -- issue 37's corpus (manifest_hopper_ws.json) on an H100/H200 in one call: measure.sh (two ncu
# runs, a 240 s budget) with the counter probes' metrics (ncu_metrics_counters.txt) and every counter this ncu lists
# whose name speaks of distributed shared memory, clusters or multicast (at most 40). The candidates are tried once
# together on one entry first, and left out if that ncu call fails, so that one unknown name cannot cost the run.
#
#   OUT=/some/empty/dir bash calibration/realk/measure_hopper_ws.sh
#
# $OUT gets measure.sh's realk_measure.tar.gz and more_metrics.txt (the metrics added, and whether the try passed).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${OUT:?set OUT to the output folder}"
mkdir -p "$OUT"
MORE=/tmp/hopper_ws_metrics.txt
cp "$HERE/ncu_metrics_counters.txt" "$MORE"
timeout 60 ncu --query-metrics >/tmp/hopper_ws_query.txt 2>&1
names() { grep -E '^(smsp|sm|l1tex|lts)__' | grep -E 'dsmem|dshared|distributed|cluster|multicast|remote|cga' | sort -u | head -40; }
awk '$2 == "Counter" {print $1}' /tmp/hopper_ws_query.txt | names >/tmp/hopper_ws_names.txt
[ -s /tmp/hopper_ws_names.txt ] || awk '{print $1}' /tmp/hopper_ws_query.txt | tr -d '"' | names >/tmp/hopper_ws_names.txt  # no type column
sed 's/$/.sum/' /tmp/hopper_ws_names.txt >/tmp/hopper_ws_candidates.txt
cd "$HERE" || exit 1
nvcc -O2 -o /tmp/realk_launch launch.cu -lcuda || exit 1
if timeout 60 ncu --metrics "$(paste -sd, /tmp/hopper_ws_candidates.txt)" /tmp/realk_launch manifest_hopper_ws.json \
     --only dsm_ld_remote_s1 >/tmp/hopper_ws_try.txt 2>&1 && grep -q "^OK " /tmp/hopper_ws_try.txt; then
  cat /tmp/hopper_ws_candidates.txt >>"$MORE"
  echo "# the candidates below passed the try" >>"$OUT/more_metrics.txt"
else
  echo "# the try of the candidates failed; left out:" >>"$OUT/more_metrics.txt"
  tail -5 /tmp/hopper_ws_try.txt | sed 's/^/# /' >>"$OUT/more_metrics.txt"
fi
cat /tmp/hopper_ws_candidates.txt >>"$OUT/more_metrics.txt"
MORE_METRICS=$MORE RUNS=${RUNS:-2} BUDGET_S=${BUDGET_S:-240} bash "$HERE/measure.sh" manifest_hopper_ws.json
