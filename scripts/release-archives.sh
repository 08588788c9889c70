#!/usr/bin/env bash
# Builds release archives for krew and writes dist/krew-manifest.yaml (or $DIST/) with each
# platform's uri and sha256 filled in.
#
#   TARGETS="x86_64-unknown-linux-musl ..."  targets to build (default: the four krew platforms)
#   RELEASE_BASE_URL=...                      where the archives will be published
#   DIST=dir                                  where to write (default: dist)
#   BINARY=path                               package this prebuilt binary instead of building
#                                             (one target; tests/krew.rs uses it)
# Darwin targets need a macOS SDK: build them on macOS, or pass TARGETS for a partial run
# (platforms not built keep their previous uri/sha256 in the manifest).
set -euo pipefail
cd "$(dirname "$0")/.."

version=v$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
targets=${TARGETS:-x86_64-unknown-linux-musl aarch64-unknown-linux-musl x86_64-apple-darwin aarch64-apple-darwin}
base_url=${RELEASE_BASE_URL:-https://github.com/kubectl-jobset/kubectl-jobset/releases/download/$version}
dist=${DIST:-dist}
mkdir -p "$dist"
cp krew-manifest.yaml "$dist/krew-manifest.yaml"
sed -i "s/^  version: .*/  version: $version/" "$dist/krew-manifest.yaml"

for target in $targets; do
  binary=${BINARY:-target/$target/release/kubectl-jobset}
  if [ -z "${BINARY:-}" ]; then
    if ! rustup target list --installed | grep -qx "$target"; then
      echo "error: Rust target $target is not installed: rustup target add $target" >&2
      exit 1
    fi
    cargo build --release --locked --target "$target"
  fi
  archive=kubectl-jobset_${version}_${target}.tar.gz
  stage=$(mktemp -d)
  cp "$binary" README.md LICENSE "$stage/"
  cp -r completions "$stage/"
  tar -C "$stage" -czf "$dist/$archive" .
  rm -rf "$stage"
  sum=$(sha256sum "$dist/$archive" | cut -d' ' -f1)
  # Replace the uri of this target's platform and the sha256 line that follows it.
  awk -v t="$target" -v uri="$base_url/$archive" -v sum="$sum" '
    index($0, "uri:") && index($0, t ".tar.gz") { sub(/uri: .*/, "uri: " uri); hit = 1; print; next }
    hit && index($0, "sha256:") { sub(/sha256: .*/, "sha256: \"" sum "\""); hit = 0 }
    { print }' "$dist/krew-manifest.yaml" > "$dist/krew-manifest.yaml.tmp"
  mv "$dist/krew-manifest.yaml.tmp" "$dist/krew-manifest.yaml"
  echo "$dist/$archive $sum"
done
echo "wrote $dist/krew-manifest.yaml"
