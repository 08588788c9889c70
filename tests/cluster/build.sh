#!/usr/bin/env bash
# Builds the pinned upstream binaries the e2e control plane runs: kube-apiserver,
# kube-controller-manager, kubectl, etcd (tests/cluster/k8s/go.mod) and the JobSet
# controller (tests/cluster/jobset/go.mod), plus the JobSet CRD from the same module.
# `build.sh kueue` builds the Kueue manager (tests/cluster/kueue/go.mod) and copies
# its CRDs, in a cache entry of its own (so a Kueue change never rebuilds the rest).
# `build.sh krew` builds krew and validate-krew-manifest (tests/cluster/krew/go.mod) for
# tests/krew.rs, also in an entry of its own.
#
# The result goes to a cache directory outside the repository, keyed by everything
# that affects the bytes (wrapper go.mod/go.sum, Go version, platform, ldflags), so a
# second run builds nothing. Prints the directory on stdout.
#
# usage: build.sh [kueue|krew]
# JOBSET_E2E_BIN_DIR=/path skips the build and uses prebuilt binaries from there
# (for `build.sh kueue`: a `kueue` binary and a `kueue-crds/` directory there; for
# `build.sh krew`: `kubectl-krew` and `validate-krew-manifest`).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
K8S_VERSION=v1.36.3
JOBSET_VERSION=v0.12.0
# Kueue's version is the one its wrapper module requires.
KUEUE_VERSION=$(sed -n 's#^[[:space:]]*sigs\.k8s\.io/kueue \(v[^ ]*\).*#\1#p' "$here/kueue/go.mod")
what=${1:-core}
case "$what" in core|kueue|krew) ;; *) printf 'usage: build.sh [kueue|krew]\n' >&2; exit 2 ;; esac

log() { printf '%s\n' "$*" >&2; }

if [ -n "${JOBSET_E2E_BIN_DIR:-}" ] && [ "$what" = krew ]; then
  for b in kubectl-krew validate-krew-manifest; do
    [ -e "$JOBSET_E2E_BIN_DIR/$b" ] || { log "JOBSET_E2E_BIN_DIR=$JOBSET_E2E_BIN_DIR has no $b"; exit 1; }
  done
  printf '%s\n' "$JOBSET_E2E_BIN_DIR"
  exit 0
fi
if [ -n "${JOBSET_E2E_BIN_DIR:-}" ] && [ "$what" = kueue ]; then
  for b in kueue kueue-crds; do
    [ -e "$JOBSET_E2E_BIN_DIR/$b" ] || { log "JOBSET_E2E_BIN_DIR=$JOBSET_E2E_BIN_DIR has no $b (KJS_KUEUE=0 runs without Kueue)"; exit 1; }
  done
  printf '%s\n' "$JOBSET_E2E_BIN_DIR"
  exit 0
fi
if [ -n "${JOBSET_E2E_BIN_DIR:-}" ]; then
  for b in kube-apiserver kube-controller-manager kubectl etcd jobset jobset.x-k8s.io_jobsets.yaml; do
    [ -e "$JOBSET_E2E_BIN_DIR/$b" ] || { log "JOBSET_E2E_BIN_DIR=$JOBSET_E2E_BIN_DIR has no $b"; exit 1; }
  done
  printf '%s\n' "$JOBSET_E2E_BIN_DIR"
  exit 0
fi

command -v go >/dev/null 2>&1 || {
  log "error: 'go' is not on PATH. The e2e control plane is built from Go modules;"
  log "install Go >= 1.26, or set JOBSET_E2E_BIN_DIR to a directory of prebuilt binaries."
  exit 1
}

export CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS="-trimpath -buildvcs=false -mod=readonly"
cache_base=${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-jobset

# finish TMP OUT: marks a finished build complete and moves it into place.
finish() {
  sync "$1"/* 2>/dev/null || true
  touch "$1/.complete"
  # Another build may have finished first; its result is as good as ours.
  mv -T "$1" "$2" 2>/dev/null || rm -rf "$1"
}

# open_entry KIND KEY: the cache entry $out for KEY under KIND; on a hit, prints it and
# exits; otherwise makes an empty $tmp to build into (removed if the build fails).
open_entry() {
  out=$cache_base/$1/$2
  if [ -f "$out/.complete" ]; then
    printf '%s\n' "$out"
    exit 0
  fi
  mkdir -p "$cache_base/$1"
  tmp=$out.tmp-$$
  rm -rf "$tmp"
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp"
}

if [ "$what" = krew ]; then
  key=$({ cat "$here/krew/go.mod" "$here/krew/go.sum"; go env GOVERSION GOOS GOARCH; } | sha256sum | cut -c1-16)
  open_entry krew-bins "$key"
  log "building krew into $out (about 30 seconds)"
  (cd "$here/krew" && go build -ldflags "-s -w" -o "$tmp/" sigs.k8s.io/krew/cmd/krew sigs.k8s.io/krew/cmd/validate-krew-manifest)
  # kubectl runs `kubectl krew` as the plugin kubectl-krew.
  mv "$tmp/krew" "$tmp/kubectl-krew"
  finish "$tmp" "$out"
  trap - EXIT
  printf '%s\n' "$out"
  exit 0
fi

if [ "$what" = kueue ]; then
  # Fixed version stamps (no build date), so a rebuild is byte-identical and a cache hit.
  kueue_ldflags="-s -w -X sigs.k8s.io/kueue/pkg/version.GitVersion=$KUEUE_VERSION"
  kueue_ldflags="$kueue_ldflags -X sigs.k8s.io/kueue/pkg/version.BuildDate=2026-01-01T00:00:00Z"
  key=$({
    cat "$here/kueue/go.mod" "$here/kueue/go.sum"
    go env GOVERSION GOOS GOARCH
    printf '%s\n' "$kueue_ldflags"
  } | sha256sum | cut -c1-16)
  open_entry kueue-bins "$key"
  mkdir -p "$tmp/kueue-crds"
  start=$(date +%s)
  log "building Kueue $KUEUE_VERSION into $out (a cold build takes about 10 minutes on 2 cores)"
  (cd "$here/kueue" && go build -ldflags "$kueue_ldflags" -o "$tmp/kueue" sigs.k8s.io/kueue/cmd/kueue)
  kueue_dir=$(cd "$here/kueue" && go list -m -f '{{.Dir}}' sigs.k8s.io/kueue)
  cp "$kueue_dir"/config/components/crd/bases/*.yaml "$tmp/kueue-crds/"
  chmod u+w "$tmp"/kueue-crds/*.yaml   # module-cache files are read-only
  printf 'kueue %s\ngo %s\n' "$KUEUE_VERSION" "$(go env GOVERSION)" > "$tmp/VERSIONS"
  finish "$tmp" "$out"
  trap - EXIT
  log "built Kueue in $(( $(date +%s) - start ))s"
  printf '%s\n' "$out"
  exit 0
fi

minor=${K8S_VERSION#v1.}; minor=${minor%%.*}
k8s_ldflags="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  k8s_ldflags="$k8s_ldflags -X '$p.gitVersion=$K8S_VERSION' -X '$p.gitMajor=1' -X '$p.gitMinor=$minor'"
  k8s_ldflags="$k8s_ldflags -X '$p.gitCommit=0000000000000000000000000000000000000000' -X '$p.gitTreeState=clean'"
  k8s_ldflags="$k8s_ldflags -X '$p.buildDate=2026-01-01T00:00:00Z'"
done
jobset_ldflags="-s -w -X sigs.k8s.io/jobset/pkg/version.GitVersion=$JOBSET_VERSION"

key=$({
  cat "$here/k8s/go.mod" "$here/k8s/go.sum" "$here/jobset/go.mod" "$here/jobset/go.sum"
  go env GOVERSION GOOS GOARCH
  printf '%s\n%s\n' "$k8s_ldflags" "$jobset_ldflags"
} | sha256sum | cut -c1-16)
open_entry k8s-bins "$key"
start=$(date +%s)
log "building Kubernetes $K8S_VERSION, etcd and JobSet $JOBSET_VERSION into $out (a cold build takes a while)"

(cd "$here/k8s" && go build -ldflags "$k8s_ldflags" -o "$tmp/" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kubectl)
(cd "$here/k8s" && go build -ldflags "-s -w" -o "$tmp/etcd" go.etcd.io/etcd/server/v3)
(cd "$here/jobset" && go build -ldflags "$jobset_ldflags" -o "$tmp/jobset" sigs.k8s.io/jobset)

jobset_dir=$(cd "$here/jobset" && go list -m -f '{{.Dir}}' sigs.k8s.io/jobset)
cp "$jobset_dir/config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml" "$tmp/"
chmod u+w "$tmp/jobset.x-k8s.io_jobsets.yaml"
etcd_version=$(cd "$here/k8s" && go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
printf 'kubernetes %s\netcd %s\njobset %s\ngo %s\n' "$K8S_VERSION" "$etcd_version" "$JOBSET_VERSION" "$(go env GOVERSION)" > "$tmp/VERSIONS"
finish "$tmp" "$out"
trap - EXIT
log "built in $(( $(date +%s) - start ))s"
printf '%s\n' "$out"
