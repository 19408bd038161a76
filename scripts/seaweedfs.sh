#!/usr/bin/env bash
# Builds SeaweedFS's `weed` (a real S3-compatible server) from its Go module into ~/.cache/ldhub-ci/seaweedfs, once
# per version, and prints the binary's path. site/objstore's tests publish to it (LDHUB_SEAWEEDFS names it).
# `go install module@version` refuses SeaweedFS because its go.mod has a replace directive (go-bip39 left GitHub),
# so it is built from a small wrapper module carrying the same directive; SeaweedFS's code is used unmodified.
set -euo pipefail
version=v0.0.0-20261109003541-7506e5f91cd6
cache="${LDHUB_CI_CACHE:-$HOME/.cache/ldhub-ci}/seaweedfs"
bin="$cache/weed-$version"
if [ ! -x "$bin" ]; then
  mod="$cache/mod-$version"
  mkdir -p "$mod"
  cat > "$mod/go.mod" <<MOD
module ldhub.invalid/seaweedfs-build

go 1.26.6

replace github.com/tyler-smith/go-bip39 => github.com/cosmos/go-bip39 v1.0.0
MOD
  printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/seaweedfs/seaweedfs/weed"\n' > "$mod/tools.go"
  (cd "$mod" && go get "github.com/seaweedfs/seaweedfs/weed@$version" &&
    go build -o "$bin.tmp" github.com/seaweedfs/seaweedfs/weed) >&2
  mv "$bin.tmp" "$bin"
fi
echo "$bin"
