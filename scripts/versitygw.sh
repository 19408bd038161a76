#!/usr/bin/env bash
# Installs Versity Gateway (versitygw, Apache-2.0), a real S3-compatible server, from its Go module into
# ~/.cache/ldhub-ci/versitygw/<version>, once per version, and prints the binary's path. site/objstore's tests
# publish to it (LDHUB_VERSITYGW names another). It is the S3 server CI uses because it costs a fraction of
# SeaweedFS's build (docs/scaling.md, "The S3 server the tests use"); scripts/seaweedfs.sh still builds that one.
# No debug information (-s -w) and no local paths (-trimpath): a smaller binary, less to link.
set -euo pipefail
version=v1.8.0
dir="${LDHUB_CI_CACHE:-$HOME/.cache/ldhub-ci}/versitygw/$version"
if [ ! -x "$dir/versitygw" ]; then
  rm -rf "$dir.tmp"
  mkdir -p "$dir.tmp" "$dir"
  GOBIN="$dir.tmp" go install -trimpath -ldflags='-s -w' "github.com/versity/versitygw/cmd/versitygw@$version" >&2
  mv "$dir.tmp/versitygw" "$dir/versitygw"
  rmdir "$dir.tmp"
fi
echo "$dir/versitygw"
