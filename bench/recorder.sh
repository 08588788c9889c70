#!/usr/bin/env bash
# `make bench-recorder`: `kubectl jobset recorder` over a fleet on the test control plane.
#
# Creates RECORDER_JOBSETS JobSets (default 1000) of two Jobs each in one namespace and
# lets the real JobSet controller create the Jobs, then measures, with one recorder:
#   - catch-up after a start: from the process start until every JobSet has its revision
#     and its attempt 0 credited (the recorder's own counters, read from /metrics);
#   - event-to-write lag at RECORDER_RATE edits per second (default 20) for
#     RECORDER_EDITS edits (default 400), each an image change of another JobSet:
#     the recorder's event_to_write_seconds histogram (p50, p99 as histogram buckets);
#   - resident memory (VmRSS after catch-up and after the edits, VmHWM peak);
#   - API requests while idle for RECORDER_IDLE seconds (default 30), from its -v=6
#     request log, by kind.
# Prints a Markdown section; RECORDER_OUT=FILE also writes it there. KEEP_CLUSTER=1 leaves
# the cluster and the fleet up, and a later run with KEEP_CLUSTER=1 reuses the fleet.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/requests.sh

N=${RECORDER_JOBSETS:-1000}
RATE=${RECORDER_RATE:-20}
EDITS=${RECORDER_EDITS:-400}
IDLE=${RECORDER_IDLE:-30}
PROFILE=${RECORDER_PROFILE:-release}
NS=bench-recorder
export KJS_STATE_DIR=${KJS_STATE_DIR:-$PWD/target/bench-recorder-cluster}
CLUSTER=tests/cluster/cluster.sh
work=$(mktemp -d)
recorder_pid=
cleanup() {
  [ -n "$recorder_pid" ] && kill "$recorder_pid" 2>/dev/null || true
  if [ -n "${KEEP_CLUSTER:-}" ]; then
    : # the fleet stays for the next run
  else
    $CLUSTER down >/dev/null 2>&1 || true
  fi
  # RECORDER_LOGS=DIR keeps the recorders' -v=6 logs (their timelines) for a closer look.
  if [ -n "${RECORDER_LOGS:-}" ]; then mkdir -p "$RECORDER_LOGS" && cp "$work"/*.log "$RECORDER_LOGS"/ 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

log() { printf 'bench-recorder: %s\n' "$*" >&2; }

if [ "$PROFILE" = release ]; then
  cargo build --release --locked --bin kubectl-jobset --example edits >&2
  PLUGIN=$PWD/target/release/kubectl-jobset
  EDITS_DRIVER=$PWD/target/release/examples/edits
else
  cargo build --locked --bin kubectl-jobset --example edits >&2
  PLUGIN=$PWD/target/debug/kubectl-jobset
  EDITS_DRIVER=$PWD/target/debug/examples/edits
fi
$CLUSTER up >/dev/null
eval "$($CLUSTER env)"
KC="kubectl --kubeconfig $KUBECONFIG"

if [ -n "${KEEP_CLUSTER:-}" ] && [ "$($KC get jobsets -n $NS -o name 2>/dev/null | wc -l)" -eq "$N" ]; then
  log "reusing the $N JobSets in namespace $NS"
  reuse=1
else
  reuse=
  $KC create namespace $NS >/dev/null
fi
if [ -z "$reuse" ]; then
log "creating $N JobSets (two Jobs each)"
for i in $(seq 0 $((N - 1))); do
  printf -- '---\napiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: js%s\nspec:\n  replicatedJobs:\n  - name: w\n    replicas: 2\n    template:\n      spec:\n        template:\n          spec:\n            containers:\n            - name: main\n              image: busybox:1.36\n              command: [sleep, "3600"]\n' "$i"
done > "$work/fleet.yaml"
t0=$(date +%s)
$KC create -n $NS -f "$work/fleet.yaml" >/dev/null
until [ "$($KC get jobs -n $NS -o name | wc -l)" -ge $((N * 2)) ]; do sleep 2; done
log "the controller created $((N * 2)) Jobs in $(( $(date +%s) - t0 ))s"
fi
# Catch-up starts from no history at all.
# One DELETE of the collection: `kubectl delete -l` deletes and then waits for each object
# in turn, minutes for a reused fleet of 10 000.
$KC delete --raw "/apis/apps/v1/namespaces/$NS/controllerrevisions?labelSelector=kubectl-jobset.io%2Fjobset-name" >/dev/null
until [ "$($KC get controllerrevisions -n $NS -l kubectl-jobset.io/jobset-name -o name | wc -l)" -eq 0 ]; do sleep 1; done

metrics() { curl -s "http://$addr/metrics"; }
# "create controllerrevisions 10000 (67 ms); …": the kinds of a -v=6 request log, most frequent first.
breakdown() { request_kinds | sort -rn | awk -F'\t' '{printf "%s%s %d (%d ms)", sep, $3, $1, $2; sep = "; "}'; }
value() { metrics | awk -v m="kubectl_jobset_recorder_$1" '$1 == m {print $2}'; }

# CPU seconds (user + system) of a control-plane process so far, by its pid file's name.
plane_cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$(cat "$KJS_STATE_DIR/pids/$1.pid")/stat"; }
plane=(apiserver etcd jobset controller-manager)
plane_before=(); for p in "${plane[@]}"; do plane_before+=("$(plane_cpu "$p")"); done
start_ns=$(date +%s%N)
"$PLUGIN" recorder -n $NS --metrics-addr 127.0.0.1:0 --lease-namespace $NS -v=6 2> "$work/recorder.log" &
recorder_pid=$!
until addr=$(grep -o 'http://[0-9.:]*' "$work/recorder.log" | head -1 | sed 's|http://||') && [ -n "$addr" ]; do sleep 0.05; done
# Every JobSet's attempt 0 credited (to its spec's revision; on a reused fleet, to the
# revision rebuilt from the Jobs of a JobSet edited since) and every spec recorded.
until [ "$(value attempts_credited_total)" -ge "$N" ] && [ "$(value revisions_recorded_total)" -ge "$N" ]; do sleep 0.05; done
catch_up_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
rss_catch_up=$(awk '/VmRSS/ {print $2}' /proc/$recorder_pid/status)
requests_catch_up=$(grep -cE '^(GET|POST|PATCH|PUT|DELETE) https' "$work/recorder.log" || true)
# By kind (verb and resource; LIST and WATCH apart from GET, dry runs apart from writes),
# with each kind's mean latency, most frequent first.
requests_by_kind=$(breakdown < "$work/recorder.log")
log "caught up in ${catch_up_ms} ms"
# What the control plane spent meanwhile: the catch-up's floor is the API server's and
# etcd's share of the 2 cores, not the recorder.
plane_during=$(i=0; for p in "${plane[@]}"; do
  printf '%s%s %s s' "${sep:-}" "$p" "$(awk -v a="${plane_before[$i]}" -v b="$(plane_cpu "$p")" 'BEGIN {printf "%.1f", b - a}')"
  sep=", "; i=$((i + 1)); done)
log "control plane CPU during the catch-up: $plane_during"

# CPU seconds (user + system) of the recorder, from /proc (fields 14 and 15, in clock ticks).
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$recorder_pid/stat"; }
cpu_catch_up=$(cpu_s)
lag_before=$(metrics | grep '^kubectl_jobset_recorder_event_to_write_seconds')
recorded_before=$(value revisions_recorded_total)
log "$EDITS image changes at $RATE per second"
# One process makes the edits, paced from the start, and watches for each edit's revision
# (the end-to-end lag); 20 kubectl processes a second would take the CPU being measured.
KUBECONFIG=$KUBECONFIG "$EDITS_DRIVER" --namespace $NS --jobsets "$N" --rate "$RATE" --count "$EDITS" \
  --tag "$start_ns" > "$work/edits.out"
log "edits: $(cat "$work/edits.out")"
edit_field() { tr ' ' '\n' < "$work/edits.out" | awk -F= -v k="$1" '$1 == k {print $2}'; }
edits_s=$(edit_field sent_s)
until [ "$(value revisions_recorded_total)" -ge $((recorded_before + EDITS)) ]; do sleep 0.1; done
rss_edits=$(awk '/VmRSS/ {print $2}' /proc/$recorder_pid/status)
cpu_per_1000=$(awk -v a="$cpu_catch_up" -v b="$(cpu_s)" -v n="$EDITS" 'BEGIN {printf "%.2f", (b - a) * 1000 / n}')

# Quantiles of the lag observed during the edits: bucket bounds from the histogram.
metrics | grep '^kubectl_jobset_recorder_event_to_write_seconds' > "$work/lag_after"
quantile() {
  printf '%s\n' "$lag_before" | awk -v q="$1" -v after="$work/lag_after" '
    /_bucket/ { before[$1] = $2 }
    END {
      while ((getline line < after) > 0) {
        split(line, f, " ")
        if (f[1] ~ /_bucket/) { n++; name[n] = f[1]; count[n] = f[2] - before[f[1]] }
      }
      total = count[n]
      for (i = 1; i <= n; i++) if (count[i] >= q * total) { match(name[i], /le="[^"]*"/); print substr(name[i], RSTART + 4, RLENGTH - 5); exit }
    }'
}
p50=$(quantile 0.5); p99=$(quantile 0.99)
lag_count=$(( $(awk '/_count/ {print $2}' "$work/lag_after") - $(printf '%s\n' "$lag_before" | awk '/_count/ {print $2}') ))

# The Events of a catch-up wait for its writes and go out after them: let them drain (no
# Event posted for 3 s, 300 s at most) so the idle window below is idle.
events_posted() { grep -cE '^POST https://[^ ]*/events' "$work/recorder.log" || true; }
drain_start=$(date +%s%N); quiet=0; last=$(events_posted)
while [ $quiet -lt 30 ] && [ $(( ($(date +%s%N) - drain_start) / 1000000000 )) -lt 300 ]; do
  sleep 0.1; now=$(events_posted)
  if [ "$now" = "$last" ]; then quiet=$((quiet + 1)); else quiet=0; last=$now; fi
done
log "Events drained ($last posted) $(( ($(date +%s%N) - drain_start) / 1000000 - 3000 )) ms after the edits' revisions"
log "idle for ${IDLE}s"
idle_from=$(wc -l < "$work/recorder.log")
sleep "$IDLE"
idle_log=$(tail -n +$((idle_from + 1)) "$work/recorder.log" | grep -E '^(GET|POST|PATCH|PUT|DELETE) https' || true)
idle_total=$(printf '%s' "$idle_log" | grep -c . || true)
idle_lease=$(printf '%s' "$idle_log" | grep -c '/leases/' || true)
idle_watch=$(printf '%s' "$idle_log" | grep -c 'watch=true' || true)
rss_peak=$(awk '/VmHWM/ {print $2}' /proc/$recorder_pid/status)
# The JobSet controller caches the same JobSets and Jobs (controller-runtime informers).
controller_pid=$(cat "$KJS_STATE_DIR/pids/jobset.pid")
controller_rss=$(awk '/VmRSS/ {print $2}' /proc/$controller_pid/status)
controller_peak=$(awk '/VmHWM/ {print $2}' /proc/$controller_pid/status)
kill -TERM "$recorder_pid"; wait "$recorder_pid" || true; recorder_pid=

# A restart with the history in place (the usual catch-up: nothing to write): from the
# process start until every JobSet is reconciled once.
log "restarting the recorder over the recorded fleet"
restart_ns=$(date +%s%N)
"$PLUGIN" recorder -n $NS --metrics-addr 127.0.0.1:0 --lease-namespace $NS -v=6 2> "$work/restart.log" &
recorder_pid=$!
until addr=$(grep -o 'http://[0-9.:]*' "$work/restart.log" | head -1 | sed 's|http://||') && [ -n "$addr" ]; do sleep 0.05; done
until [ "$(value reconciles_total)" -ge "$N" ]; do sleep 0.05; done
restart_ms=$(( ($(date +%s%N) - restart_ns) / 1000000 ))
sleep 1
restart_writes=$(grep -E '^(POST|PATCH|PUT|DELETE) https' "$work/restart.log" | grep -v 'dryRun=All' | grep -vc '/leases/' || true)
restart_dry_runs=$(grep -E '^POST https' "$work/restart.log" | grep -c 'dryRun=All' || true)
restart_peak=$(awk '/VmHWM/ {print $2}' /proc/$recorder_pid/status)
restart_cpu=$(cpu_s)
log "caught up after a restart in ${restart_ms} ms"
kill -TERM "$recorder_pid"; wait "$recorder_pid" || true; recorder_pid=

section=$(cat <<EOF
## Recorder

Measured by \`make bench-recorder\` (bench/recorder.sh) on $(date -u +%Y-%m-%d), $(nproc) cores shared with
other work running at the same time (load average $(cut -d' ' -f1 /proc/loadavg) at the end), against the
test control plane, with the $PROFILE build: one \`kubectl jobset recorder -n $NS\` over $N JobSets and
$((N * 2)) Jobs.

| measure | result | target |
|---|---:|---:|
| catch-up after a start (every JobSet recorded, attempt 0 credited) | $catch_up_ms ms | ≤ 5 s |
| requests during the catch-up (by kind, mean latency) | $requests_catch_up ($requests_by_kind) | |
| CPU of the control plane during the catch-up | $plane_during | |
| catch-up after a restart, the history in place (every JobSet reconciled once): time / CPU / peak RSS / writes (Lease aside) / dry runs (one per template the edits left pending) | $restart_ms ms / ${restart_cpu} s / $(( restart_peak / 1024 )) MiB / $restart_writes / $restart_dry_runs | |
| event-to-write lag, p50 / p99 ($lag_count writes, $EDITS edits at $RATE/s over ${edits_s} s) | ≤ ${p50} s / ≤ ${p99} s | p99 ≤ 1 s |
| edit-to-revision lag, end to end, p50 / p99 / max ($(edit_field missing) of $EDITS edits without a revision) | $(edit_field p50_ms) / $(edit_field p99_ms) / $(edit_field max_ms) ms | |
| CPU (user + system) of the catch-up / per 1000 edits | ${cpu_catch_up} s / ${cpu_per_1000} s | |
| RSS after catch-up / after the edits / peak | $(( rss_catch_up / 1024 )) / $(( rss_edits / 1024 )) / $(( rss_peak / 1024 )) MiB | ≤ 150 MiB |
| the JobSet controller (same objects cached): RSS at the end / peak | $(( controller_rss / 1024 )) / $(( controller_peak / 1024 )) MiB | |
| recorder peak ÷ controller peak | $(awk -v a="$rss_peak" -v b="$controller_peak" 'BEGIN {printf "%.2f", a / b}') | ≤ 0.25 |
| requests while idle for ${IDLE} s (Lease / watch restarts / other) | $idle_total ($idle_lease / $idle_watch / $(( idle_total - idle_lease - idle_watch ))) | watches and Lease only |

The event-to-write lag is the recorder's own histogram (\`kubectl_jobset_recorder_event_to_write_seconds\`),
from the watch event to the end of the write; quantiles are the upper bounds of its buckets. The
end-to-end lag is measured by the edit driver (bench/edits.rs, one process): from the API server's
answer to an edit until a watch of ControllerRevisions shows that edit's template recorded.
Idle requests are counted from the recorder's \`-v=6\` request log; the watches themselves stay
open (re-opened by the server every few minutes), the Lease is renewed every 5 s (GET + PUT).
EOF
)
printf '%s\n' "$section"
# RECORDER_OUT=bench/recorder.md keeps it for BENCHMARKS.md (make bench includes that file).
if [ -n "${RECORDER_OUT:-}" ]; then printf '%s\n' "$section" > "$RECORDER_OUT"; fi
