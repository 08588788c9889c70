#!/usr/bin/env bash
# `make bench`: kubectl-jobset against the kubectl floor on the test control plane.
#
# For each template mode in BENCH_TEMPLATES (uniform: every JobSet the same template;
# distinct: every JobSet its own env value and args, as real fleets have) it starts a fresh
# control plane, grows a fleet of JobSets (M replicatedJobs of one Job each, in one
# namespace) to each size in BENCH_SIZES, lets the real JobSet controller create the Jobs,
# and then, for each round-trip time in BENCH_RTT_MS (0 = loopback; otherwise every request
# goes through the repo's delaying proxy, `netproxy delay`, adding RTT/2 each way), measures
# BENCH_RUNS alternating runs of: wall time, API requests (from the -v=6 request log, named
# by verb and resource) and peak RSS, for
#   the floor:   kubectl get jobs -A -o json   (and kubectl get jobsets -A -o json)
#   the raw floor: the lists a command needs fetched raw, in parallel (bench/rawfloor.rs,
#                the `rawfloor` example): JobSets + Jobs for `list`, + revisions for `diff`
#   kubectl jobset list -A | diff -A --summary (first look, then steady state) | history js0
# "First look" deletes every recorded revision first (nothing recorded yet, no recorder) and
# runs diff --record; "steady state" is a plain diff over the recorded fleet, timed right
# after its raw floor (the bench records the fleet once before the first round, and each
# round's first look records it again). Medians go to BENCHMARKS.md; "× raw floor" is the
# median of the per-run ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/requests.sh

SIZES=${BENCH_SIZES:-1000 3000 10000}
RTTS=${BENCH_RTT_MS:-0 20}
TEMPLATE_MODES=${BENCH_TEMPLATES:-uniform distinct}
M=${BENCH_RJOBS:-2}
RUNS=${BENCH_RUNS:-5}
OUT=${BENCH_OUT:-BENCHMARKS.md}
NS=bench
export KJS_STATE_DIR=${KJS_STATE_DIR:-$PWD/target/bench-cluster}
CLUSTER=tests/cluster/cluster.sh
work=$(mktemp -d)
proxy_pid=
stop_proxy() { if [ -n "$proxy_pid" ]; then kill "$proxy_pid" 2>/dev/null || true; wait "$proxy_pid" 2>/dev/null || true; proxy_pid=; fi; }
trap 'stop_proxy; $CLUSTER down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

log() { printf 'bench: %s\n' "$*" >&2; }

# BENCH_BUILD=0 measures the release binaries already in target/release as they are.
if [ "${BENCH_BUILD:-1}" != 0 ]; then
  nice cargo build --release --locked --bin kubectl-jobset --example netproxy --example rawfloor >&2
fi
PLUGIN=$PWD/target/release/kubectl-jobset
NETPROXY=$PWD/target/release/examples/netproxy
RAWFLOOR=$PWD/target/release/examples/rawfloor
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# jobset NAME INDEX MODE: M replicatedJobs of one Job each; `distinct` gives every JobSet
# its own env value and args.
jobset() {
  printf -- '---\napiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: %s\n  labels: {fleet: bench}\nspec:\n  replicatedJobs:\n' "$1"
  for r in $(seq 1 "$M"); do
    printf '  - name: rj%s\n    replicas: 1\n    template:\n      spec:\n        template:\n          spec:\n            containers:\n            - name: main\n              image: busybox:1.36\n              command: [sleep, "3600"]\n              resources: {limits: {cpu: 100m, memory: 64Mi}}\n' "$r"
    if [ "$3" = distinct ]; then
      printf '              args: ["--shard=%s", "--role=rj%s"]\n              env: [{name: SHARD, value: "%s"}]\n' "$2" "$r" "$2"
    fi
  done
}

# measure NAME CMD...: one run; appends "name wall_ms rss_kb requests bytes" to $work/samples
# and the plugin's requests, named, to $work/requests.NAME.
measure() {
  local name=$1; shift
  local t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -f '%M' -o "$work/rss" "$@" >"$work/stdout" 2>"$work/stderr" || true
  t1=$(date +%s%N)
  local requests
  requests=$(grep -cE '^(GET|POST|PATCH|PUT|DELETE) https|"Response" verb=|round_trippers.go.*(GET|POST) https' "$work/stderr" || true)
  echo "$name $(( (t1 - t0) / 1000000 )) $(tail -1 "$work/rss") $requests $(wc -c < "$work/stdout")" >> "$work/samples"
  grep -E '^(GET|POST|PATCH|PUT|DELETE) https' "$work/stderr" | name_requests > "$work/requests.$name" || true
}

# name_requests: a -v=6 request log's lines become counted kinds ("2 LIST jobs"), by kind.
name_requests() { request_kinds | cut -f1,3 | tr '\t' ' ' | sort -k2; }

# fetched PATH...: bytes of the compact JSON the API server sends for these lists. The API
# server pretty-prints for a curl user agent (1.6-3x the bytes), so curl names itself otherwise.
fetched() {
  local total=0 path
  for path in "$@"; do
    total=$(( total + $(curl -sS -A kubectl-jobset-bench --cacert "$KJS_STATE_DIR/pki/ca.crt" -H "Authorization: Bearer $(cat "$KJS_STATE_DIR/admin.token")" \
      "$API$path" | wc -c) ))
  done
  echo "$total"
}

# forget_history: deletes every recorded revision (one DELETE of the collection).
forget_history() {
  curl -sS -o /dev/null -X DELETE --cacert "$KJS_STATE_DIR/pki/ca.crt" \
    -H "Authorization: Bearer $(cat "$KJS_STATE_DIR/admin.token")" \
    "$API/apis/apps/v1/namespaces/$NS/controllerrevisions?labelSelector=kubectl-jobset.io%2Fjobset-name"
}

# use_rtt MS: points $MKC (the measured commands' kubeconfig) at the API server, directly
# (0) or through a delaying proxy adding MS/2 each way.
use_rtt() {
  stop_proxy
  if [ "$1" = 0 ]; then MKC=$KUBECONFIG; return; fi
  local port=${API#https://127.0.0.1:}
  coproc PROXY { exec "$NETPROXY" delay --upstream "127.0.0.1:$port" --delay-ms $(( $1 / 2 )) --seed 1; }
  proxy_pid=$PROXY_PID
  local line; read -r line <&"${PROXY[0]}"
  local addr=${line#listening on }
  sed "s#server: $API#server: https://$addr#" "$KUBECONFIG" > "$work/rtt.kubeconfig"
  MKC=$work/rtt.kubeconfig
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) {print 0} else if (NR%2) {print a[(NR+1)/2]} else {print int((a[NR/2]+a[NR/2+1])/2)}}'; }
stat() { awk -v n="$1" -v col="$2" '$1==n {print $col}' "$work/samples" | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / (b ? b : 1)}'; }
# paired CMD RAW: the median of CMD's wall time ÷ RAW's, run by run (the k-th of each).
paired() {
  awk -v c="$1" -v r="$2" '$1 == c {cw[++nc] = $2} $1 == r {rw[++nr] = $2}
    END {for (i = 1; i <= nc && i <= nr; i++) printf "%.4f\n", cw[i] / (rw[i] ? rw[i] : 1)}' "$work/samples" |
    sort -g | awk '{a[NR] = $1} END {if (NR == 0) print "-"; else if (NR % 2) printf "%.2f", a[(NR + 1) / 2]; else printf "%.2f", (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}

report=$work/report.md
: > "$report"
: > "$work/growth"
for mode in $TEMPLATE_MODES; do
  $CLUSTER down >/dev/null 2>&1 || true
  $CLUSTER up >/dev/null
  eval "$($CLUSTER env)"
  API=$(grep 'server:' "$KUBECONFIG" | awk '{print $2}')
  KC="kubectl --kubeconfig $KUBECONFIG"
  $KC create namespace $NS >/dev/null
  created=0
  echo "## Templates: $mode" >> "$report"
  echo >> "$report"
  for size in $SIZES; do
    log "[$mode] growing the fleet to $size JobSets x $M replicatedJobs"
    : > "$work/fleet.yaml"
    for i in $(seq "$created" $((size - 1))); do jobset "js$i" "$i" "$mode" >> "$work/fleet.yaml"; done
    t0=$(date +%s)
    $KC create -n $NS -f "$work/fleet.yaml" >/dev/null
    created=$size
    want=$((size * M))
    until [ "$($KC get jobs -n $NS -o name | wc -l)" -ge "$want" ]; do sleep 2; done
    grown_s=$(( $(date +%s) - t0 ))
    log "[$mode] the controller created $want Jobs in ${grown_s}s"
    # What each command fetches, as the API server sends it (compact JSON, managedFields included).
    "$PLUGIN" --kubeconfig "$KUBECONFIG" diff -A --summary --record >/dev/null 2>&1 || true
    jobsets_bytes=$(fetched /apis/jobset.x-k8s.io/v1alpha2/jobsets)
    jobs_bytes=$(fetched "/apis/batch/v1/jobs?labelSelector=jobset.sigs.k8s.io%2Fjobset-name")
    revisions_bytes=$(fetched "/apis/apps/v1/controllerrevisions?labelSelector=kubectl-jobset.io%2Fjobset-name")
    one_bytes=$(fetched "/apis/jobset.x-k8s.io/v1alpha2/namespaces/$NS/jobsets/js0" \
      "/apis/batch/v1/namespaces/$NS/jobs?labelSelector=jobset.sigs.k8s.io%2Fjobset-name%3Djs0" \
      "/apis/apps/v1/namespaces/$NS/controllerrevisions?labelSelector=kubectl-jobset.io%2Fjobset-name%3Djs0")
    for rtt in $RTTS; do
      use_rtt "$rtt"
      log "[$mode] N=$size RTT=${rtt}ms: $RUNS alternating runs"
      : > "$work/samples"
      for _ in $(seq 1 "$RUNS"); do
        measure floor-jobs kubectl --kubeconfig "$MKC" get jobs -A -o json -v=6
        measure floor-jobsets kubectl --kubeconfig "$MKC" get jobsets -A -o json -v=6
        # The fixed cost (runtime, TLS, one connection): a list that finds nothing.
        measure idle "$PLUGIN" --kubeconfig "$MKC" list -n bench-empty
        # Each command right after its raw floor: a pair sees the same load on the shared
        # machine, and "× raw floor" is the median of the pairs' ratios.
        measure raw-list "$RAWFLOOR" --kubeconfig "$MKC" --lists jobsets,jobs
        measure list "$PLUGIN" --kubeconfig "$MKC" list -A -v=6
        measure raw-diff "$RAWFLOOR" --kubeconfig "$MKC" --lists jobsets,jobs,revisions
        measure diff "$PLUGIN" --kubeconfig "$MKC" diff -A --summary -v=6
        forget_history
        measure first-diff "$PLUGIN" --kubeconfig "$MKC" diff -A --summary --record -v=6
        measure history "$PLUGIN" --kubeconfig "$MKC" history -n $NS js0 -v=6
      done
      stop_proxy
      floor=$(stat floor-jobs 2)
      {
        echo "### $mode templates, RTT $rtt ms, N = $size JobSets ($want Jobs)"
        echo
        echo "Growing the fleet to N (creating the JobSets not there yet, and waiting for the JobSet controller to create their Jobs) took ${grown_s} s."
        echo
        echo "Floor (\`kubectl get jobs -A -o json\`): $floor ms. Raw floor (the lists fetched raw, in parallel): $(stat raw-list 2) ms for \`list\`'s two, $(stat raw-diff 2) ms for \`diff\`'s three. JSON on the wire: JobSets $(( jobsets_bytes / 1024 )) KiB, Jobs $(( jobs_bytes / 1024 )) KiB, revisions $(( revisions_bytes / 1024 )) KiB."
        echo
        echo "| command | median wall time | × kubectl floor | × raw floor | API requests | peak RSS | JSON fetched | RSS ÷ fetched | (RSS − idle) ÷ fetched |"
        echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
        idle_rss=$(stat idle 3)
        for name in floor-jobs floor-jobsets raw-list raw-diff list first-diff diff history; do
          wall=$(stat $name 2); rss=$(stat $name 3); req=$(stat $name 4)
          raw=-
          case $name in list) raw=$(paired list raw-list) ;; first-diff|diff) raw=$(paired $name raw-diff) ;; esac
          case $name in
            raw-list) label='raw floor of `list`: JobSets and Jobs'; bytes=$(( jobsets_bytes + jobs_bytes )) ;;
            raw-diff) label='raw floor of `diff`: JobSets, Jobs and revisions'; bytes=$(( jobsets_bytes + jobs_bytes + revisions_bytes )) ;;
            floor-jobsets) label='`kubectl get jobsets -A -o json`'; bytes=$jobsets_bytes ;;
            floor-jobs) label='`kubectl get jobs -A -o json` (the floor)'; bytes=$jobs_bytes ;;
            list) label='`kubectl jobset list -A`'; bytes=$(( jobsets_bytes + jobs_bytes )) ;;
            first-diff) label='`kubectl jobset diff -A --summary --record`, first look'; bytes=$(( jobsets_bytes + jobs_bytes + revisions_bytes )) ;;
            diff) label='`kubectl jobset diff -A --summary`, steady state'; bytes=$(( jobsets_bytes + jobs_bytes + revisions_bytes )) ;;
            history) label='`kubectl jobset history js0`'; bytes=$one_bytes ;;
          esac
          mem=$(awk -v a="$rss" -v b="$bytes" 'BEGIN {printf "%.2f", a * 1024 / b}')
          above=$(awk -v a="$rss" -v i="$idle_rss" -v b="$bytes" 'BEGIN {printf "%.2f", (a - i) * 1024 / b}')
          case $name in floor-*|raw-*) above=- ;; esac
          echo "| $label | $wall ms | $(ratio "$wall" "$floor") | $raw | $req | $(( rss / 1024 )) MiB | $(( bytes / 1024 )) KiB | $mem | $above |"
          echo "$mode $rtt $size $name $wall $rss $req" >> "$work/growth"
        done
        echo
        for name in first-diff diff list history; do
          echo "Requests of \`$name\` (last run): $(awk '{printf "%s%s × %s", sep, $1, substr($0, index($0, $2)); sep = "; "}' "$work/requests.$name")."
          echo
        done
      } >> "$report"
    done
  done
done

help_ms=$(for _ in $(seq 1 21); do
  t0=$(date +%s%N); "$PLUGIN" --help >/dev/null; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000 ))
done | median)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

{
  echo "# Benchmarks"
  echo
  echo "Measured by \`make bench\` (bench/run.sh) on $(date -u +%Y-%m-%d), $(nproc) cores, $(awk '/MemTotal/ {printf "%d GiB", $2/1048576}' /proc/meminfo),"
  echo "against the test control plane (kube-apiserver, etcd, the upstream JobSet controller v0.12.0)"
  echo "with the release build. Load average (1, 5, 15 min) $load_before when the run started and $load_after"
  echo "when it ended: the machine is shared, so absolute times carry noise; the ratios to the floor, taken"
  echo "from alternating runs, carry less. Medians of $RUNS alternating runs; \"× raw floor\" is the median"
  echo "of the runs' own ratios, each command timed right after its raw floor (the first look, after"
  echo "the steady diff, against the same raw floor)."
  echo
  echo "- **The floor** is \`kubectl get jobs -A -o json\` over the same link, timed the same way"
  echo "  (\`kubectl get jobsets -A -o json\` is shown beside it). **The raw floor** is the physical one:"
  echo "  the lists the command needs, fetched in parallel over the plugin's own client stack, paged as"
  echo "  it pages, every body read to its end and dropped (bench/rawfloor.rs). **Idle** is a \`list\` of"
  echo "  an empty namespace: its RSS is the fixed cost that (RSS − idle) ÷ fetched leaves out."
  echo "- **RTT**: 0 is loopback; otherwise every request of the measured commands (kubectl's too) goes"
  echo "  through \`netproxy delay\` (tests/support/netproxy.rs, the \`netproxy\` cargo example), which holds"
  echo "  every chunk for RTT/2 in each direction."
  echo "- **Templates**: \`uniform\` fleets share one template; in \`distinct\` fleets every JobSet has its own"
  echo "  env value and args in each replicatedJob."
  echo "- **First look**: every recorded revision deleted just before (nothing recorded, no recorder): the"
  echo "  diff, with \`--record\` (reads record only when asked), records one revision per JobSet."
  echo "  **Steady state**: a plain \`diff -A --summary\` over the recorded fleet (it writes nothing, nor"
  echo "  dry-runs), just before the first look."
  echo "- Requests are counted from the \`-v=6\` request log of each command, and named by verb and"
  echo "  resource (\`LIST\` is a list's first page). \"JSON fetched\" is what the API server sends for the"
  echo "  lists a command makes (compact JSON, managedFields included), measured with curl under its own"
  echo "  user agent (the API server pretty-prints for curl's, 1.7–3× the bytes); a fixed"
  echo "  ~8 MiB (runtime, TLS) dominates RSS when little is fetched (\`history\` of one JobSet)."
  echo
  echo "Reproduce: \`make bench\`, or \`BENCH_TEMPLATES=\"$TEMPLATE_MODES\" BENCH_RTT_MS=\"$RTTS\" BENCH_SIZES=\"$SIZES\" BENCH_RUNS=$RUNS BENCH_RJOBS=$M bench/run.sh\`."
  echo "The fleet is in one namespace; each JobSet has $M replicatedJobs with one Job each."
  echo
  cat "$report"
  echo "### Cost of growth"
  echo
  echo "| templates | RTT | command | wall time, first N → last N | × | peak RSS, first N → last N | × |"
  echo "|---|---:|---|---|---:|---|---:|"
  first=$(echo $SIZES | awk '{print $1}'); last=$(echo $SIZES | awk '{print $NF}')
  for mode in $TEMPLATE_MODES; do for rtt in $RTTS; do
    for name in list first-diff diff history floor-jobs raw-diff; do
      a=$(awk -v m="$mode" -v r="$rtt" -v s="$first" -v n=$name '$1==m && $2==r && $3==s && $4==n {print $5" "$6}' "$work/growth")
      b=$(awk -v m="$mode" -v r="$rtt" -v s="$last" -v n=$name '$1==m && $2==r && $3==s && $4==n {print $5" "$6}' "$work/growth")
      set -- $a $b
      echo "| $mode | $rtt ms | $name | $1 ms → $3 ms | $(ratio "$3" "$1") | $(( $2 / 1024 )) MiB → $(( $4 / 1024 )) MiB | $(ratio "$4" "$2") |"
    done
  done; done
  echo
  echo "(N grows $(ratio "$last" "$first")× from $first to $last.)"
  echo
  echo "\`kubectl jobset --help\`: median $(( help_ms / 1000 )).$(printf '%03d' $(( help_ms % 1000 ))) ms over 21 runs."
  cat bench/reading.md
  # Measured by the throttling fault test and by `make bench-recorder`, not here; kept as written.
  cat bench/throttling.md
  echo
  cat bench/recorder.md
} > "$OUT"
log "wrote $OUT"
