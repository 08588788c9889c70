#!/usr/bin/env bash
# `make bench`: kubectl-jobset against the kubectl floor on the test control plane.
#
# Builds a fleet of JobSets (M replicatedJobs each, one Job per replicatedJob, in one
# namespace) at each size in BENCH_SIZES, lets the real JobSet controller create the
# Jobs, then measures, BENCH_RUNS times each: wall time, API requests (from the -v=6
# request log) and peak RSS, for
#   kubectl jobset list -A | kubectl jobset diff -A --summary | kubectl jobset history
# and, side by side, the floor any client pays to read the same objects:
#   kubectl get jobsets -A -o json   +   kubectl get jobs -A -o json
# Medians go to BENCHMARKS.md (BENCH_OUT), with the commands to reproduce.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${BENCH_SIZES:-100 1000}
M=${BENCH_RJOBS:-2}
RUNS=${BENCH_RUNS:-5}
OUT=${BENCH_OUT:-BENCHMARKS.md}
NS=bench
export KJS_STATE_DIR=${KJS_STATE_DIR:-$PWD/target/bench-cluster}
CLUSTER=tests/cluster/cluster.sh
work=$(mktemp -d)
trap '$CLUSTER down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

log() { printf 'bench: %s\n' "$*" >&2; }

cargo build --release --locked >&2
PLUGIN=$PWD/target/release/kubectl-jobset
$CLUSTER up >/dev/null
eval "$($CLUSTER env)"
KC="kubectl --kubeconfig $KUBECONFIG"

# jobset NAME: M replicatedJobs of one Job each.
jobset() {
  printf -- '---\napiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: %s\n  labels: {fleet: bench}\nspec:\n  replicatedJobs:\n' "$1"
  for r in $(seq 1 "$M"); do
    printf '  - name: rj%s\n    replicas: 1\n    template:\n      spec:\n        template:\n          spec:\n            containers:\n            - name: main\n              image: busybox:1.36\n              command: [sleep, "3600"]\n              resources: {limits: {cpu: 100m, memory: 64Mi}}\n' "$r"
  done
}

# measure NAME CMD...: one run; appends "name wall_ms rss_kb requests bytes" to $work/samples.
measure() {
  local name=$1; shift
  local t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -f '%M' -o "$work/rss" "$@" >"$work/stdout" 2>"$work/stderr" || true
  t1=$(date +%s%N)
  local requests
  requests=$(grep -cE '^(GET|POST|PATCH|PUT|DELETE) https|"Response" verb=|round_trippers.go.*(GET|POST) https' "$work/stderr" || true)
  echo "$name $(( (t1 - t0) / 1000000 )) $(tail -1 "$work/rss") $requests $(wc -c < "$work/stdout")" >> "$work/samples"
}

# fetched PATH...: bytes of the compact JSON the API server sends for these lists.
fetched() {
  local total=0 path
  for path in "$@"; do
    total=$(( total + $(curl -sS --cacert "$KJS_STATE_DIR/pki/ca.crt" -H "Authorization: Bearer $(cat "$KJS_STATE_DIR/admin.token")" \
      "$(grep 'server:' "$KUBECONFIG" | awk '{print $2}')$path" | wc -c) ))
  done
  echo "$total"
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) {print 0} else if (NR%2) {print a[(NR+1)/2]} else {print int((a[NR/2]+a[NR/2+1])/2)}}'; }
stat() { awk -v n="$1" -v col="$2" '$1==n {print $col}' "$work/samples" | median; }

$KC create namespace $NS >/dev/null
created=0
report=$work/report.md
: > "$report"
for size in $SIZES; do
  log "growing the fleet to $size JobSets x $M replicatedJobs"
  : > "$work/fleet.yaml"
  for i in $(seq "$created" $((size - 1))); do jobset "js$i" >> "$work/fleet.yaml"; done
  t0=$(date +%s)
  $KC create -n $NS -f "$work/fleet.yaml" >/dev/null
  created=$size
  want=$((size * M))
  until [ "$($KC get jobs -n $NS -o name | wc -l)" -ge "$want" ]; do sleep 2; done
  log "the controller created $want Jobs in $(( $(date +%s) - t0 ))s"
  # First look: records a history revision for every new JobSet.
  measure first-diff "$PLUGIN" diff -A --summary -v=6
  first_requests=$(awk '$1=="first-diff" {print $4}' "$work/samples" | tail -1)
  : > "$work/samples"
  for _ in $(seq 1 "$RUNS"); do
    measure floor-jobsets $KC get jobsets -A -o json -v=6
    measure floor-jobs $KC get jobs -A -o json -v=6
    measure list "$PLUGIN" list -A -v=6
    measure diff "$PLUGIN" diff -A --summary -v=6
    measure history "$PLUGIN" history -n $NS js0 -v=6
  done
  floor=$(( $(stat floor-jobsets 2) + $(stat floor-jobs 2) ))
  # What each command fetches, as the API server sends it (compact JSON, managedFields included).
  jobsets_bytes=$(fetched /apis/jobset.x-k8s.io/v1alpha2/jobsets)
  jobs_bytes=$(fetched "/apis/batch/v1/jobs?labelSelector=jobset.sigs.k8s.io%2Fjobset-name")
  revisions_bytes=$(fetched "/apis/apps/v1/controllerrevisions?labelSelector=kubectl-jobset.io%2Fjobset-name")
  one_bytes=$(fetched "/apis/jobset.x-k8s.io/v1alpha2/namespaces/$NS/jobsets/js0" \
    "/apis/batch/v1/namespaces/$NS/jobs?labelSelector=jobset.sigs.k8s.io%2Fjobset-name%3Djs0" \
    "/apis/apps/v1/namespaces/$NS/controllerrevisions?labelSelector=kubectl-jobset.io%2Fjobset-name%3Djs0")
  {
    echo "### N = $size JobSets, M = $M replicatedJobs ($want Jobs)"
    echo
    echo "Floor: $floor ms. JSON on the wire: JobSets $(( jobsets_bytes / 1024 )) KiB, Jobs $(( jobs_bytes / 1024 )) KiB, revisions $(( revisions_bytes / 1024 )) KiB."
    echo
    echo "| command | median wall time | × floor | API requests | peak RSS | JSON fetched | RSS ÷ fetched |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    for name in floor-jobsets floor-jobs list diff history; do
      wall=$(stat $name 2); rss=$(stat $name 3); req=$(stat $name 4)
      case $name in
        floor-jobsets) label='`kubectl get jobsets -A -o json`'; bytes=$jobsets_bytes ;;
        floor-jobs) label='`kubectl get jobs -A -o json`'; bytes=$jobs_bytes ;;
        list) label='`kubectl jobset list -A`'; bytes=$(( jobsets_bytes + jobs_bytes )) ;;
        diff) label='`kubectl jobset diff -A --summary`'; bytes=$(( jobsets_bytes + jobs_bytes + revisions_bytes )) ;;
        history) label='`kubectl jobset history js0`'; bytes=$one_bytes ;;
      esac
      ratio=$(awk -v a="$wall" -v b="$floor" 'BEGIN {printf "%.2f", a / b}')
      mem=$(awk -v a="$rss" -v b="$bytes" 'BEGIN {printf "%.2f", a * 1024 / b}')
      echo "| $label | $wall ms | $ratio | $req | $(( rss / 1024 )) MiB | $(( bytes / 1024 )) KiB | $mem |"
    done
    echo
    echo "First \`diff\` after the fleet grew (records one revision per new JobSet): $first_requests requests."
    echo
  } >> "$report"
  for name in list diff history floor-jobsets floor-jobs; do
    echo "$size $name $(stat $name 2) $(stat $name 3)" >> "$work/growth"
  done
done

help_ms=$(for _ in $(seq 1 21); do
  t0=$(date +%s%N); "$PLUGIN" --help >/dev/null; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000 ))
done | median)

{
  echo "# Benchmarks"
  echo
  echo "Measured by \`make bench\` (bench/run.sh) on $(date -u +%Y-%m-%d), $(nproc) cores, $(awk '/MemTotal/ {printf "%d GiB", $2/1048576}' /proc/meminfo),"
  echo "against the test control plane (kube-apiserver v1.36.3, etcd, the upstream JobSet controller v0.12.0)"
  echo "with the release build. Medians of $RUNS runs. The floor is what any client pays to read the same"
  echo "objects: \`kubectl get jobsets -A -o json\` plus \`kubectl get jobs -A -o json\`, timed the same way."
  echo "Requests are counted from the \`-v=6\` request log of each command (kubectl's too). \"JSON fetched\" is"
  echo "what the API server sends for the lists a command makes (compact JSON, managedFields included), measured"
  echo "with curl; a fixed ~8 MiB (runtime, TLS) dominates RSS when little is fetched (\`history\` of one JobSet)."
  echo
  echo "Reproduce: \`make bench\` (or \`BENCH_SIZES=\"100 1000\" BENCH_RUNS=5 BENCH_RJOBS=2 bench/run.sh\`)."
  echo "The fleet is in one namespace; each JobSet has $M replicatedJobs with one Job each."
  echo
  cat "$report"
  echo "### Cost of growth"
  echo
  echo "| command | wall time, first N → last N | × | peak RSS, first N → last N | × |"
  echo "|---|---|---:|---|---:|"
  first=$(echo $SIZES | awk '{print $1}'); last=$(echo $SIZES | awk '{print $NF}')
  for name in list diff history floor-jobsets floor-jobs; do
    a=$(awk -v s="$first" -v n=$name '$1==s && $2==n {print $3" "$4}' "$work/growth")
    b=$(awk -v s="$last" -v n=$name '$1==s && $2==n {print $3" "$4}' "$work/growth")
    set -- $a $b
    echo "| $name | $1 ms → $3 ms | $(awk -v a="$1" -v b="$3" 'BEGIN {printf "%.1f", b / (a ? a : 1)}') | $(( $2 / 1024 )) MiB → $(( $4 / 1024 )) MiB | $(awk -v a="$2" -v b="$4" 'BEGIN {printf "%.1f", b / a}') |"
  done
  echo
  echo "\`kubectl jobset --help\`: median $(( help_ms / 1000 )).$(printf '%03d' $(( help_ms % 1000 ))) ms over 21 runs."
  cat bench/reading.md
  # Measured by the throttling fault test, not here; kept as written.
  cat bench/throttling.md
} > "$OUT"
log "wrote $OUT"
