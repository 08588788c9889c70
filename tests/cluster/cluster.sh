#!/usr/bin/env bash
# A real, local Kubernetes control plane for kubectl-jobset's e2e tests and playground:
# etcd, kube-apiserver (TLS on 127.0.0.1, token auth, RBAC), kube-controller-manager
# (job, garbage-collector and namespace controllers) and the unmodified upstream JobSet
# controller with its webhooks served on loopback and registered by URL, and beside it
# Kueue (sigs.k8s.io/kueue, the version tests/cluster/kueue/go.mod requires), also with
# its webhooks registered by URL, for the jobset.x-k8s.io/jobset and batch/job
# integrations. Kueue manages only objects labelled kueue.x-k8s.io/queue-name (Kueue
# adds that label itself in a namespace that has a LocalQueue named `default`: never
# name one so in tests). `up` creates a ResourceFlavor default-flavor and a ClusterQueue
# cluster-queue (cpu 4, memory 8Gi, all namespaces) that tests may patch; tests create
# their own LocalQueues.
# No Docker, no kubelet, no scheduler: Pods stay Pending, and the job subcommands
# below play the kubelet's part.
#
# usage: cluster.sh up|down|status|env|build
#        cluster.sh fail-job NAMESPACE JOB [MESSAGE]   job gets FailureTarget; the job controller fails it
#        cluster.sh ready-job NAMESPACE JOB            marks the Job's pods Ready
#        cluster.sh complete-job NAMESPACE JOB         job gets SuccessCriteriaMet; the job controller completes it
#        cluster.sh stop-component NAME | start-component NAME   (apiserver, jobset, kueue; for fault tests;
#                                                      while Kueue is stopped, its webhooks refuse JobSet and Job writes)
#        cluster.sh kubectl ARGS...                    the harness's kubectl with the harness's kubeconfig
#        cluster.sh adopt KUBECONFIG                   point the e2e tests at an existing cluster (kind, ...)
#
# State (certificates, kubeconfig, logs, pids, etcd data) lives in $KJS_STATE_DIR,
# default <repo>/.e2e-cluster. Binaries come from build.sh's cache.
# KJS_APISERVER_EXTRA_ARGS: more kube-apiserver flags for `up` and `start-component
# apiserver`, e.g. low in-flight limits that make it answer 429 (the throttling test).
# KJS_KUEUE=0: `up` (and `build`) leave Kueue out entirely: no build, no CRDs, no
# webhooks, no queues; a cluster without Kueue. Default 1.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
STATE=${KJS_STATE_DIR:-$repo/.e2e-cluster}
START_TIMEOUT=${KJS_START_TIMEOUT:-120}
# Namespaces with this label get the upstream rule: templates immutable on UPDATE.
IMMUTABLE_LABEL=kubectl-jobset.test/immutable-templates
# Test users (token auth, no groups): RBAC tests bind roles to them. e2e-fleet is bound
# cluster-wide only while the throttling test runs (system:masters is never throttled).
TEST_USERS="e2e-alice e2e-bob e2e-carol e2e-dave e2e-fleet"
KUEUE_WANTED=${KJS_KUEUE:-1}
case "$KUEUE_WANTED" in 0|1) ;; *) printf 'cluster: error: KJS_KUEUE must be 0 or 1\n' >&2; exit 2 ;; esac
# Kueue (cmd/kueue/main.go of v0.17.0) reads a metrics certificate from this fixed path
# whenever internal cert management is off, even with metrics off; nothing moves it.
KUEUE_METRICS_CERTS=/etc/kueue/metrics/certs

log() { printf 'cluster: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# The running cluster's components; load_ports adds kueue when it runs Kueue.
components="etcd apiserver controller-manager jobset"

pid_of() { cat "$STATE/pids/$1.pid" 2>/dev/null || true; }
alive() { local pid; pid=$(pid_of "$1"); [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; }

tails() {
  for c in etcd apiserver controller-manager jobset kueue; do
    if [ -f "$STATE/logs/$c.log" ]; then
      printf '\n----- last lines of %s -----\n' "$STATE/logs/$c.log" >&2
      tail -n 25 "$STATE/logs/$c.log" >&2
    fi
  done
}

fail_start() {
  log "error: $*"
  tails
  stop_all
  exit 1
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

bins() {
  BIN=$("$here/build.sh")
  [ -x "$BIN/kube-apiserver" ] || die "no binaries in $BIN"
  KUEUE_BIN=
  if [ "$KUEUE_WANTED" = 1 ]; then
    KUEUE_BIN=$("$here/build.sh" kueue)
    [ -x "$KUEUE_BIN/kueue" ] || die "no kueue binary in $KUEUE_BIN"
  fi
}

kc() { "$BIN/kubectl" --kubeconfig "$STATE/admin.kubeconfig" "$@"; }

# start NAME CMD... : runs CMD in its own process group, logging to logs/NAME.log.
start() {
  local name=$1; shift
  setsid "$@" >"$STATE/logs/$name.log" 2>&1 < /dev/null &
  echo $! > "$STATE/pids/$name.pid"
}

# wait_for NAME DESCRIPTION CMD... : polls CMD until it succeeds; fails fast if NAME died.
wait_for() {
  local name=$1 what=$2; shift 2
  local deadline=$(( $(date +%s) + START_TIMEOUT ))
  until "$@" >/dev/null 2>&1; do
    alive "$name" || fail_start "$name exited while waiting for $what"
    [ "$(date +%s)" -lt "$deadline" ] || fail_start "timed out after ${START_TIMEOUT}s waiting for $what"
    sleep 0.3
  done
}

make_certs() {
  local d=$STATE/pki
  mkdir -p "$d/webhook"
  (
    cd "$d"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 -subj "/CN=kubectl-jobset-e2e-ca" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
    leaf() {
      openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$2" 2>/dev/null
      printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\nbasicConstraints=CA:FALSE\n' "$3" > "$1.ext"
      openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 -out "$1.crt" -extfile "$1.ext" 2>/dev/null
    }
    leaf apiserver kube-apiserver "IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:10.0.0.1"
    leaf webhook/tls jobset-webhook "IP:127.0.0.1,DNS:localhost"
    mkdir -p kueue-webhook
    leaf kueue-webhook/tls kueue-webhook "IP:127.0.0.1,DNS:localhost"
    # A client certificate user (no groups), for tests of certificate credentials.
    openssl req -newkey rsa:2048 -nodes -keyout e2e-cert-user.key -out e2e-cert-user.csr -subj "/CN=e2e-cert-user" 2>/dev/null
    printf 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\nbasicConstraints=CA:FALSE\n' > e2e-cert-user.ext
    openssl x509 -req -in e2e-cert-user.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
      -out e2e-cert-user.crt -extfile e2e-cert-user.ext 2>/dev/null
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
  )
  local token
  token=$(openssl rand -hex 32)
  printf '%s\n' "$token" > "$STATE/admin.token"
  printf '%s,admin,admin-uid,"system:masters"\n' "$token" > "$d/tokens.csv"
  mkdir -p "$STATE/users"
  for u in $TEST_USERS; do
    token=$(openssl rand -hex 32)
    printf '%s\n' "$token" > "$STATE/users/$u.token"
    printf '%s,%s,%s-uid\n' "$token" "$u" "$u" >> "$d/tokens.csv"
  done
  chmod 600 "$d"/*.key "$d/tokens.csv" "$STATE/admin.token" "$STATE"/users/*.token
}

# write_kubeconfig FILE USER TOKEN
write_kubeconfig() {
  local ca
  ca=$(base64 -w0 "$STATE/pki/ca.crt")
  cat > "$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kubectl-jobset-e2e
  cluster:
    server: https://127.0.0.1:$API_PORT
    certificate-authority-data: $ca
users:
- name: $2
  user:
    token: $3
contexts:
- name: kubectl-jobset-e2e
  context: {cluster: kubectl-jobset-e2e, user: $2, namespace: default}
current-context: kubectl-jobset-e2e
EOF
  chmod 600 "$1"
}

# A kubeconfig whose user authenticates with the client certificate.
write_cert_kubeconfig() {
  local ca cert key
  ca=$(base64 -w0 "$STATE/pki/ca.crt"); cert=$(base64 -w0 "$STATE/pki/e2e-cert-user.crt"); key=$(base64 -w0 "$STATE/pki/e2e-cert-user.key")
  cat > "$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kubectl-jobset-e2e
  cluster: {server: "https://127.0.0.1:$API_PORT", certificate-authority-data: "$ca"}
users:
- name: e2e-cert-user
  user: {client-certificate-data: "$cert", client-key-data: "$key"}
contexts:
- name: kubectl-jobset-e2e
  context: {cluster: kubectl-jobset-e2e, user: e2e-cert-user, namespace: default}
current-context: kubectl-jobset-e2e
EOF
  chmod 600 "$1"
}

webhook_configs() {
  local ca url
  ca=$(base64 -w0 "$STATE/pki/ca.crt")
  url=https://127.0.0.1:$WEBHOOK_PORT
  cat <<EOF
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: jobset-mutating-webhook-configuration}
webhooks:
- name: mjobset.kb.io
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  clientConfig: {url: "$url/mutate-jobset-x-k8s-io-v1alpha2-jobset", caBundle: "$ca"}
  rules:
  - {apiGroups: [jobset.x-k8s.io], apiVersions: [v1alpha2], operations: [CREATE], resources: [jobsets]}
- name: mpod.kb.io
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  clientConfig: {url: "$url/mutate--v1-pod", caBundle: "$ca"}
  objectSelector:
    matchExpressions: [{key: jobset.sigs.k8s.io/jobset-name, operator: Exists}]
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: jobset-validating-webhook-configuration}
webhooks:
# Create-time validation everywhere, as upstream.
- name: vjobset.kb.io
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  clientConfig: {url: "$url/validate-jobset-x-k8s-io-v1alpha2-jobset", caBundle: "$ca"}
  rules:
  - {apiGroups: [jobset.x-k8s.io], apiVersions: [v1alpha2], operations: [CREATE], resources: [jobsets]}
# Upstream's update validation (immutable templates) only in labelled namespaces;
# elsewhere the cluster behaves like a controller that allows opportunistic updates.
- name: vjobset-update.kb.io
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  clientConfig: {url: "$url/validate-jobset-x-k8s-io-v1alpha2-jobset", caBundle: "$ca"}
  namespaceSelector:
    matchLabels: {$IMMUTABLE_LABEL: "true"}
  rules:
  - {apiGroups: [jobset.x-k8s.io], apiVersions: [v1alpha2], operations: [UPDATE], resources: [jobsets]}
- name: vpod.kb.io
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  clientConfig: {url: "$url/validate--v1-pod", caBundle: "$ca"}
  objectSelector:
    matchExpressions: [{key: jobset.sigs.k8s.io/jobset-name, operator: Exists}]
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
EOF
}

load_ports() {
  # shellcheck disable=SC1091
  . "$STATE/ports.env"
  KUEUE=${KUEUE:-0}
  components="etcd apiserver controller-manager jobset"
  if [ "$KUEUE" = 1 ]; then
    components="$components kueue"
    KUEUE_BIN=$(cat "$STATE/kueue-bin-dir")
  fi
}

start_apiserver() {
  local extra
  read -r -a extra <<< "${KJS_APISERVER_EXTRA_ARGS:-}"
  [ ${#extra[@]} -eq 0 ] || log "kube-apiserver extra flags: ${extra[*]}"
  start apiserver "$BIN/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --bind-address=127.0.0.1 --secure-port="$API_PORT" \
    --advertise-address=127.0.0.1 --endpoint-reconciler-type=none \
    --tls-cert-file="$STATE/pki/apiserver.crt" --tls-private-key-file="$STATE/pki/apiserver.key" \
    --token-auth-file="$STATE/pki/tokens.csv" \
    --client-ca-file="$STATE/pki/ca.crt" \
    --authorization-mode=RBAC \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$STATE/pki/sa.pub" \
    --service-account-signing-key-file="$STATE/pki/sa.key" \
    --service-cluster-ip-range=10.0.0.0/24 \
    --disable-admission-plugins=ServiceAccount \
    --allow-privileged=true --v=1 ${extra[@]+"${extra[@]}"}
  wait_for apiserver "kube-apiserver /readyz" \
    curl -fsS --cacert "$STATE/pki/ca.crt" -H "Authorization: Bearer $(cat "$STATE/admin.token")" \
    "https://127.0.0.1:$API_PORT/readyz"
}

start_jobset() {
  cat > "$STATE/jobset-config.yaml" <<EOF
apiVersion: config.jobset.x-k8s.io/v1alpha1
kind: Configuration
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: false
webhook:
  host: 127.0.0.1
  port: $WEBHOOK_PORT
  certDir: $STATE/pki/webhook
metrics:
  bindAddress: "0"
health:
  healthProbeBindAddress: 127.0.0.1:$HEALTH_PORT
# Alpha features (sigs.k8s.io/jobset v0.12.0 pkg/features, off by default upstream), on here
# so that JobSets using them can be created and their round trips tested.
featureGates:
  RestartJob: true
  InPlaceRestart: true
  ElasticJobSet: true
EOF
  KUBECONFIG=$STATE/admin.kubeconfig start jobset "$BIN/jobset" \
    --config="$STATE/jobset-config.yaml" --leader-elect=false --zap-log-level=info
  wait_for jobset "JobSet controller /readyz" curl -fsS "http://127.0.0.1:$HEALTH_PORT/readyz"
}

# ---- Kueue ----

# Kueue's URL webhooks: those of its core kinds and of the two integrations it runs
# (paths and rules as in config/components/webhook/manifests.yaml of the Kueue module).
# Its Pod, Deployment and StatefulSet webhooks serve integrations that are off here:
# not registered, so they cannot slow or block anything.
kueue_webhook_configs() {
  local ca url
  ca=$(base64 -w0 "$STATE/pki/ca.crt")
  url=https://127.0.0.1:$KUEUE_WEBHOOK_PORT
  # hook NAME PATH GROUP VERSION OPERATIONS RESOURCES
  hook() {
    cat <<EOF
- name: $1
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  clientConfig: {url: "$url$2", caBundle: "$ca"}
  rules:
  - {apiGroups: ["$3"], apiVersions: [$4], operations: [$5], resources: [$6]}
EOF
  }
  printf 'apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\n'
  printf 'metadata: {name: kueue-mutating-webhook-configuration}\nwebhooks:\n'
  hook mjob.kb.io /mutate-batch-v1-job batch v1 CREATE jobs
  hook mjobset.kb.io /mutate-jobset-x-k8s-io-v1alpha2-jobset jobset.x-k8s.io v1alpha2 CREATE jobsets
  hook mclusterqueue.kb.io /mutate-kueue-x-k8s-io-v1beta2-clusterqueue kueue.x-k8s.io v1beta2 CREATE clusterqueues
  hook mresourceflavor.kb.io /mutate-kueue-x-k8s-io-v1beta2-resourceflavor kueue.x-k8s.io v1beta2 CREATE resourceflavors
  hook mworkload.kb.io /mutate-kueue-x-k8s-io-v1beta2-workload kueue.x-k8s.io v1beta2 CREATE workloads
  printf -- '---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\n'
  printf 'metadata: {name: kueue-validating-webhook-configuration}\nwebhooks:\n'
  hook vjob.kb.io /validate-batch-v1-job batch v1 "CREATE, UPDATE" jobs
  hook vjobset.kb.io /validate-jobset-x-k8s-io-v1alpha2-jobset jobset.x-k8s.io v1alpha2 "CREATE, UPDATE" jobsets
  hook vclusterqueue.kb.io /validate-kueue-x-k8s-io-v1beta2-clusterqueue kueue.x-k8s.io v1beta2 "CREATE, UPDATE" clusterqueues
  hook vcohort.kb.io /validate-kueue-x-k8s-io-v1beta2-cohort kueue.x-k8s.io v1beta2 "CREATE, UPDATE" cohorts
  hook vresourceflavor.kb.io /validate-kueue-x-k8s-io-v1beta2-resourceflavor kueue.x-k8s.io v1beta2 "CREATE, UPDATE" resourceflavors
  hook vworkload.kb.io /validate-kueue-x-k8s-io-v1beta2-workload kueue.x-k8s.io v1beta2 "CREATE, UPDATE" "workloads, workloads/status"
}

# Kueue's CRDs, server-side (several are too large for client-side apply). Installed
# with JobSet's, before kube-controller-manager, so that its garbage collector knows
# Workloads (owned by their JobSets) from the start. Only v1beta2 is used, so the
# CRDs stay without their conversion webhook.
install_kueue_crds() {
  kc apply --server-side --field-manager=kubectl-jobset-e2e -f "$KUEUE_BIN/kueue-crds/" >/dev/null \
    || fail_start "could not install the Kueue CRDs"
  wait_for apiserver "the Kueue CRDs to be established" \
    kc wait --for=condition=Established --timeout=5s -f "$KUEUE_BIN/kueue-crds/"
  wait_for apiserver "kueue.x-k8s.io/v1beta2 to be served" kc get --raw /apis/kueue.x-k8s.io/v1beta2
}

# The certificate Kueue insists on reading (KUEUE_METRICS_CERTS above): a self-signed
# one, written once and shared by every harness cluster on the machine (metrics are
# off, so it is never served). Writing under /etc needs root, which the harness has on
# this machine. Made in a temporary directory and renamed into place, so a concurrent
# `up` never reads half of it.
kueue_metrics_cert() {
  have_cert() { [ -s "$KUEUE_METRICS_CERTS/tls.crt" ] && [ -s "$KUEUE_METRICS_CERTS/tls.key" ]; }
  have_cert && return 0
  local tmp=$KUEUE_METRICS_CERTS.tmp-$$
  mkdir -p "$tmp" 2>/dev/null \
    || fail_start "Kueue reads $KUEUE_METRICS_CERTS/tls.{crt,key}, and that directory cannot be written here (run as root, create them, or set KJS_KUEUE=0)"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=kueue-metrics-unused" \
    -keyout "$tmp/tls.key" -out "$tmp/tls.crt" 2>/dev/null || fail_start "could not make Kueue's metrics certificate"
  # Fails when another `up` got there first (its pair is as good), or over a non-empty leftover.
  mv -T "$tmp" "$KUEUE_METRICS_CERTS" 2>/dev/null || rm -rf "$tmp"
  have_cert || fail_start "$KUEUE_METRICS_CERTS has no tls.crt and tls.key; remove it and retry"
}

start_kueue() {
  kueue_metrics_cert
  cat > "$STATE/kueue-config.yaml" <<EOF
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: kueue-system
# Only objects labelled kueue.x-k8s.io/queue-name are Kueue's (the default, stated).
manageJobsWithoutQueueName: false
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: false
webhook:
  host: 127.0.0.1
  port: $KUEUE_WEBHOOK_PORT
  certDir: $STATE/pki/kueue-webhook
metrics:
  bindAddress: "0"
health:
  healthProbeBindAddress: 127.0.0.1:$KUEUE_HEALTH_PORT
integrations:
  frameworks: [batch/job, jobset.x-k8s.io/jobset]
EOF
  # VisibilityOnDemand off: its API server needs an APIService, and Kueue exits when it
  # cannot start it.
  KUBECONFIG=$STATE/admin.kubeconfig start kueue "$KUEUE_BIN/kueue" \
    --config="$STATE/kueue-config.yaml" --feature-gates=VisibilityOnDemand=false --zap-log-level=info
  wait_for kueue "Kueue /readyz" curl -fsS "http://127.0.0.1:$KUEUE_HEALTH_PORT/readyz"
}

# A dry-run create of a queued JobSet goes through Kueue's JobSet webhooks, which
# suspend it.
kueue_smoke_test() {
  kc create --dry-run=server -o jsonpath='{.spec.suspend}' -f - <<EOF | grep -q true
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: smoke, namespace: default, labels: {kueue.x-k8s.io/queue-name: smoke}}
spec:
  replicatedJobs:
  - name: w
    template:
      spec:
        template:
          spec:
            containers: [{name: c, image: busybox}]
EOF
}

# The shared queue: tests create LocalQueues in their namespaces that point at it.
kueue_queues() {
  kc create -f - >/dev/null <<EOF || fail_start "could not create the ResourceFlavor and the ClusterQueue"
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cluster-queue}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default-flavor
      resources:
      - {name: cpu, nominalQuota: 4}
      - {name: memory, nominalQuota: 8Gi}
EOF
  wait_for kueue "ClusterQueue cluster-queue to be active" \
    kc wait --for=condition=Active --timeout=5s clusterqueue/cluster-queue
}

# What `up` does for Kueue once the JobSet controller and its webhooks run.
up_kueue() {
  kc create namespace kueue-system >/dev/null || fail_start "could not create namespace kueue-system"
  start_kueue
  kueue_webhook_configs | kc apply -f - >/dev/null || fail_start "could not register the Kueue webhooks"
  wait_for kueue "the Kueue webhooks to answer" kueue_smoke_test
  kueue_queues
}

cmd_up() {
  if [ -f "$STATE/ports.env" ]; then
    local had; had=$(sed -n 's/^KUEUE=//p' "$STATE/ports.env")
    if [ "${had:-0}" != "$KUEUE_WANTED" ]; then
      log "the cluster in $STATE runs with KJS_KUEUE=${had:-0}, not $KUEUE_WANTED; replacing it"
      stop_all
    elif cmd_status >/dev/null 2>&1; then
      log "already running"
      cmd_env
      return 0
    else
      log "a previous cluster in $STATE is not healthy; removing it"
      stop_all
    fi
  fi
  bins
  command -v python3 >/dev/null || die "python3 is needed to pick free ports"
  command -v openssl >/dev/null || die "openssl is needed to make certificates"
  local t0; t0=$(date +%s)
  rm -rf "$STATE"
  mkdir -p "$STATE/logs" "$STATE/pids" "$STATE/bin"
  printf '%s\n' "$BIN" > "$STATE/bin-dir"
  printf '%s\n' "$KUEUE_BIN" > "$STATE/kueue-bin-dir"
  ln -sf "$BIN/kubectl" "$STATE/bin/kubectl"
  {
    echo "ETCD_PORT=$(free_port)"; echo "ETCD_PEER_PORT=$(free_port)"; echo "API_PORT=$(free_port)"
    echo "KCM_PORT=$(free_port)"; echo "WEBHOOK_PORT=$(free_port)"; echo "HEALTH_PORT=$(free_port)"
    echo "KUEUE=$KUEUE_WANTED"; echo "KUEUE_WEBHOOK_PORT=$(free_port)"; echo "KUEUE_HEALTH_PORT=$(free_port)"
  } > "$STATE/ports.env"
  load_ports
  make_certs
  write_kubeconfig "$STATE/admin.kubeconfig" admin "$(cat "$STATE/admin.token")"
  for u in $TEST_USERS; do
    write_kubeconfig "$STATE/users/$u.kubeconfig" "$u" "$(cat "$STATE/users/$u.token")"
  done
  write_cert_kubeconfig "$STATE/users/e2e-cert-user.kubeconfig"

  start etcd "$BIN/etcd" --name=e2e --data-dir="$STATE/etcd" \
    --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster="e2e=http://127.0.0.1:$ETCD_PEER_PORT" --unsafe-no-fsync=true --log-level=warn
  wait_for etcd "etcd /health" curl -fsS "http://127.0.0.1:$ETCD_PORT/health"

  start_apiserver

  # Server-side apply: the CRD is too large for client-side apply's annotation.
  kc apply --server-side --field-manager=kubectl-jobset-e2e -f "$BIN/jobset.x-k8s.io_jobsets.yaml" >/dev/null \
    || fail_start "could not install the JobSet CRD"
  wait_for apiserver "the JobSet CRD to be established" \
    kc wait --for=condition=Established --timeout=5s crd/jobsets.jobset.x-k8s.io
  wait_for apiserver "jobset.x-k8s.io/v1alpha2 to be served" kc get --raw /apis/jobset.x-k8s.io/v1alpha2
  [ "$KUEUE" = 0 ] || install_kueue_crds

  start controller-manager "$BIN/kube-controller-manager" --kubeconfig="$STATE/admin.kubeconfig" \
    --controllers=job-controller,garbage-collector-controller,namespace-controller \
    --leader-elect=false --bind-address=127.0.0.1 --secure-port="$KCM_PORT" --v=1 \
    --kube-api-qps=200 --kube-api-burst=400
  wait_for controller-manager "kube-controller-manager /healthz" curl -fsSk "https://127.0.0.1:$KCM_PORT/healthz"

  start_jobset
  webhook_configs | kc apply -f - >/dev/null || fail_start "could not register the JobSet webhooks"

  # A marker only this harness writes: e2e tests refuse clusters without it.
  local cluster_id; cluster_id=$(openssl rand -hex 16)
  printf '%s\n' "$cluster_id" > "$STATE/cluster-id"
  kc create configmap kubectl-jobset-e2e -n kube-system --from-literal=cluster-id="$cluster_id" >/dev/null \
    || fail_start "could not write the harness marker"

  # Smoke test: a dry-run create goes through both JobSet webhooks and gets defaulted.
  wait_for jobset "the JobSet webhooks to answer" smoke_test
  [ "$KUEUE" = 0 ] || up_kueue
  log "up in $(( $(date +%s) - t0 ))s (state: $STATE)"
  cmd_env
}

smoke_test() {
  kc create --dry-run=server -o jsonpath='{.spec.successPolicy.operator}' -f - <<EOF | grep -q All
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: smoke, namespace: default}
spec:
  replicatedJobs:
  - name: w
    template:
      spec:
        template:
          spec:
            containers: [{name: c, image: busybox}]
EOF
}

stop_one() {
  local name=$1 pid
  pid=$(pid_of "$name")
  [ -n "$pid" ] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$STATE/pids/$name.pid"
}

stop_all() {
  for c in kueue jobset controller-manager apiserver etcd; do stop_one "$c"; done
}

cmd_down() {
  if [ ! -d "$STATE" ]; then
    log "not running (no state in $STATE)"
    return 0
  fi
  stop_all
  rm -rf "$STATE"
  log "stopped and removed $STATE"
}

cmd_status() {
  [ -f "$STATE/ports.env" ] || { echo "not running (no state in $STATE)"; return 1; }
  load_ports
  local ok=0
  for c in $components; do
    if alive "$c"; then echo "$c: running (pid $(pid_of "$c"))"; else echo "$c: not running"; ok=1; fi
  done
  return $ok
}

cmd_env() {
  [ -f "$STATE/admin.kubeconfig" ] || die "not running: run '$0 up' first"
  printf 'export KUBECONFIG=%q\n' "$STATE/admin.kubeconfig"
  printf 'export PATH=%q:"$PATH"\n' "$STATE/bin"
}

# Marks a condition on a Job's status with a JSON patch (the job controller does the rest).
add_job_condition() {
  local ns=$1 job=$2 type=$3 reason=$4 message=$5 now count
  now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  local cond="{\"type\":\"$type\",\"status\":\"True\",\"reason\":\"$reason\",\"message\":\"$message\",\"lastProbeTime\":\"$now\",\"lastTransitionTime\":\"$now\"}"
  count=$(kc get job -n "$ns" "$job" -o jsonpath='{.status.conditions}')
  if [ -z "$count" ]; then
    kc patch job -n "$ns" "$job" --subresource=status --type=json -p "[{\"op\":\"add\",\"path\":\"/status/conditions\",\"value\":[$cond]}]"
  else
    kc patch job -n "$ns" "$job" --subresource=status --type=json -p "[{\"op\":\"add\",\"path\":\"/status/conditions/-\",\"value\":$cond}]"
  fi
}

cmd_ready_job() {
  local ns=$1 job=$2 now pod
  now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  for pod in $(kc get pods -n "$ns" -l "batch.kubernetes.io/job-name=$job" -o name); do
    kc patch -n "$ns" "$pod" --subresource=status --type=strategic \
      -p "{\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"lastTransitionTime\":\"$now\"}]}}"
  done
}

# Marks an existing cluster (one running the JobSet controller and its webhooks) as the
# test cluster: the e2e tests refuse any cluster without this marker. Deliberate, so a
# test can never touch a cluster by accident.
cmd_adopt() {
  local source=${1:-}
  [ -f "$source" ] || die "usage: adopt KUBECONFIG (the file must exist)"
  [ ! -f "$STATE/ports.env" ] || die "$STATE holds a running harness cluster; run '$0 down' first"
  command -v kubectl >/dev/null || die "adopt needs kubectl on PATH"
  mkdir -p "$STATE/bin"
  cp "$source" "$STATE/admin.kubeconfig"
  chmod 600 "$STATE/admin.kubeconfig"
  ln -sf "$(command -v kubectl)" "$STATE/bin/kubectl"
  local cluster_id; cluster_id=$(openssl rand -hex 16)
  printf '%s\n' "$cluster_id" > "$STATE/cluster-id"
  kubectl --kubeconfig "$STATE/admin.kubeconfig" create configmap kubectl-jobset-e2e -n kube-system \
    --from-literal=cluster-id="$cluster_id" --dry-run=client -o yaml \
    | kubectl --kubeconfig "$STATE/admin.kubeconfig" apply -f - >/dev/null
  log "adopted the cluster of $source as the e2e test cluster (state: $STATE)"
  log "note: tests that use the harness's RBAC users or immutable-templates namespaces need the same setup there"
}

main() {
  local cmd=${1:-}
  [ $# -gt 0 ] && shift
  case "$cmd" in
    build) bins; echo "$BIN" ;;
    up) cmd_up ;;
    down) cmd_down ;;
    status) cmd_status ;;
    env) cmd_env ;;
    adopt) cmd_adopt "$@" ;;
    fail-job|ready-job|complete-job|kubectl|stop-component|start-component)
      [ -f "$STATE/ports.env" ] || die "not running: run '$0 up' first"
      BIN=$(cat "$STATE/bin-dir"); load_ports
      case "$cmd" in
        fail-job) [ $# -ge 2 ] || die "usage: fail-job NAMESPACE JOB [MESSAGE]"
          add_job_condition "$1" "$2" FailureTarget BackoffLimitExceeded "${3:-simulated failure (cluster.sh fail-job)}" ;;
        complete-job) [ $# -eq 2 ] || die "usage: complete-job NAMESPACE JOB"
          add_job_condition "$1" "$2" SuccessCriteriaMet CompletionsReached "simulated success (cluster.sh complete-job)" ;;
        ready-job) [ $# -eq 2 ] || die "usage: ready-job NAMESPACE JOB"; cmd_ready_job "$1" "$2" ;;
        kubectl) kc "$@" ;;
        stop-component) case "${1:-}" in
            apiserver|jobset) stop_one "$1" ;;
            kueue) [ "$KUEUE" = 1 ] || die "this cluster runs without Kueue"; stop_one kueue ;;
            *) die "stop-component apiserver|jobset|kueue" ;; esac ;;
        start-component) case "${1:-}" in
            apiserver) start_apiserver ;;
            jobset) start_jobset ;;
            kueue) [ "$KUEUE" = 1 ] || die "this cluster runs without Kueue"; start_kueue ;;
            *) die "start-component apiserver|jobset|kueue" ;; esac ;;
      esac ;;
    *) sed -n '2,/^set -euo pipefail$/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
}

main "$@"
