# kubectl-jobset: `make test` is the test command (lint, unit, HTTP-level and e2e tests
# on a real local control plane); `make playground` is the first-run command.
SHELL := /bin/bash
CLUSTER := tests/cluster/cluster.sh
# `make test` runs its own cluster, so it never touches a playground you have running.
TEST_STATE := $(CURDIR)/target/e2e-test-cluster
# `make soak` runs the seeded campaign (tests/soak) on a cluster of its own.
SOAK_STATE := $(CURDIR)/target/soak-cluster
SOAK_SECONDS ?= 600
PLAYGROUND_NS := demo

.PHONY: build test unit lint fmt soak cluster-build cluster-up cluster-down cluster-status cluster-env \
        playground completions release-archives bench bench-recorder

build:
	cargo build

lint:
	cargo fmt --all -- --check
	cargo clippy --all-targets --locked -- -D warnings

fmt:
	cargo fmt --all

# Unit, CLI and HTTP-level tests only (no cluster); e2e tests are reported as ignored.
unit:
	cargo test --locked

test: lint
	$(CLUSTER) build >/dev/null
	tests/cluster/build.sh krew >/dev/null
	cargo build --locked --all-targets
	KJS_STATE_DIR=$(TEST_STATE) $(CLUSTER) up >/dev/null
	@set -o pipefail; status=0; \
	KJS_STATE_DIR=$(TEST_STATE) cargo test --locked --no-fail-fast -- --include-ignored 2>&1 | tee target/test.log || status=$$?; \
	KJS_STATE_DIR=$(TEST_STATE) $(CLUSTER) down; \
	awk '/^test result:/ { p += $$4; f += $$6 } END { printf "total: %d passed, %d failed\n", p, f }' target/test.log; \
	exit $$status

# The seeded soak campaign (tests/soak/main.rs) for SOAK_SECONDS (default 600) on its own
# cluster, always stopped afterwards. It prints `soak seed: N` first; `SOAK_SEED=N make soak`
# replays the same choices. (`make test` runs it for 60 s.)
soak:
	$(CLUSTER) build >/dev/null
	tests/cluster/build.sh krew >/dev/null
	cargo build --locked --tests --examples
	@set -o pipefail; \
	trap 'KJS_STATE_DIR=$(SOAK_STATE) $(CLUSTER) down' EXIT; \
	KJS_STATE_DIR=$(SOAK_STATE) $(CLUSTER) up >/dev/null || exit 1; \
	KJS_STATE_DIR=$(SOAK_STATE) SOAK_SECONDS=$(SOAK_SECONDS) \
	  cargo test --locked --test soak -- --include-ignored --nocapture 2>&1 | tee target/soak.log

cluster-build:
	$(CLUSTER) build

cluster-up:
	$(CLUSTER) up

cluster-down:
	$(CLUSTER) down

cluster-status:
	$(CLUSTER) status

# eval "$(make -s cluster-env)": KUBECONFIG and the harness's kubectl (and, after
# `make playground`, kubectl-jobset) first on PATH.
cluster-env:
	@$(CLUSTER) env

playground: cluster-up
	cargo build --release
	@state=$${KJS_STATE_DIR:-$(CURDIR)/.e2e-cluster}; \
	ln -sf $(CURDIR)/target/release/kubectl-jobset $$state/bin/kubectl-jobset; \
	install -m 0755 completions/kubectl_complete-jobset $$state/bin/kubectl_complete-jobset; \
	eval "$$($(CLUSTER) env)"; \
	kubectl create namespace $(PLAYGROUND_NS) --dry-run=client -o yaml | kubectl apply -f - >/dev/null; \
	kubectl apply -n $(PLAYGROUND_NS) -f examples/demo-jobset.yaml; \
	echo; \
	echo "The playground is up. In your shell:"; \
	echo; \
	echo '  eval "$$(make -s cluster-env)"'; \
	echo '  kubectl jobset list -n $(PLAYGROUND_NS)'; \
	echo '  kubectl jobset set image -n $(PLAYGROUND_NS) demo trainer=busybox:1.37 --reason "busybox 1.37"'; \
	echo '  kubectl jobset diff -n $(PLAYGROUND_NS) demo'; \
	echo '  kubectl jobset restart -n $(PLAYGROUND_NS) demo          # or: $(CLUSTER) fail-job $(PLAYGROUND_NS) demo-workers-0'; \
	echo '  kubectl jobset status -n $(PLAYGROUND_NS) demo           # $(CLUSTER) ready-job $(PLAYGROUND_NS) JOB plays the kubelet'; \
	echo '  kubectl jobset history -n $(PLAYGROUND_NS) demo'; \
	echo '  kubectl jobset rollback -n $(PLAYGROUND_NS) demo'; \
	echo; \
	echo "Stop it with: make cluster-down"

# Regenerates the checked-in completion scripts (a test fails when they drift).
completions:
	cargo build
	for shell in bash zsh fish powershell; do \
	  target/debug/kubectl-jobset completion $$shell > completions/kubectl-jobset.$$shell; \
	done
	target/debug/kubectl-jobset completion kubectl > completions/kubectl_complete-jobset
	chmod +x completions/kubectl_complete-jobset

# Fleet benchmark against the kubectl floor on its own test cluster; writes BENCHMARKS.md.
bench:
	bench/run.sh

# The recorder over 1000 JobSets and 2000 Jobs on its own test cluster: catch-up, lag,
# memory and idle requests (prints the "Recorder" section of BENCHMARKS.md).
bench-recorder:
	bench/recorder.sh

# Builds release archives for krew and fills uri/sha256 into dist/krew-manifest.yaml.
release-archives:
	scripts/release-archives.sh
