#!/usr/bin/env bash
# Makes (or reuses) the stand-in for the official `node:<version>-bookworm-slim` image: no image
# registry is reachable from these machines, so the Dockerfile's NODE_IMAGE is built locally from a
# Debian bookworm minbase (debootstrap, Debian's own mirror) plus this machine's Node and npm, laid
# out as the official image lays them out (/usr/local/bin/node, the `node` user with uid 1000).
#
# Cached outside the work tree, keyed by the Node version: the image in buildah's storage, and the
# debootstrap tarball under $CACHE_DIR so a wiped storage is re-imported in seconds.
# Prints the image name on stdout (everything else goes to stderr).
set -euo pipefail

node_version="$(node -p 'process.versions.node')"
image="localhost/node:${node_version}-bookworm-slim-standin"
cache_dir="${DYNAMIC_EVENTS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/dynamic-events}"
rootfs_tar="$cache_dir/bookworm-minbase.tar"

if buildah inspect --type image "$image" >/dev/null 2>&1; then
  echo "base image: reusing $image" >&2
  echo "$image"
  exit 0
fi

mkdir -p "$cache_dir"
if [ ! -s "$rootfs_tar" ]; then
  echo "base image: debootstrap bookworm minbase (once; cached in $rootfs_tar)" >&2
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  debootstrap --variant=minbase bookworm "$work/rootfs" http://deb.debian.org/debian >&2
  # The official slim image ships no apt lists or caches either; they would only bloat every layer.
  rm -rf "$work/rootfs/var/lib/apt/lists/"* "$work/rootfs/var/cache/apt/"*.bin
  tar -C "$work/rootfs" -cf "$rootfs_tar.partial" .
  mv "$rootfs_tar.partial" "$rootfs_tar"
  rm -rf "$work"
fi

echo "base image: importing $image (node $node_version from this machine)" >&2
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
tar -C "$stage" -xf "$rootfs_tar"
install -D -m 0755 "$(command -v node)" "$stage/usr/local/bin/node"
npm_root="$(npm root -g)/npm"
mkdir -p "$stage/usr/local/lib/node_modules"
cp -a "$npm_root" "$stage/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$stage/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$stage/usr/local/bin/npx"
# npm goes through a TLS proxy whose CA this machine trusts: the build's `npm ci` must trust it too.
install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$stage/etc/ssl/certs/ca-certificates.crt"
# The official image's `node` user and group (1000:1000), which the Dockerfile's USER refers to.
echo 'node:x:1000:1000::/home/node:/bin/bash' >>"$stage/etc/passwd"
echo 'node:x:1000:' >>"$stage/etc/group"
install -d -o 1000 -g 1000 "$stage/home/node"

# buildah has no `import`: an empty container, the tree added as one layer, then committed.
tar -C "$stage" -cf "$stage.tar" .
trap 'rm -rf "$stage" "$stage.tar"' EXIT
ctr="$(buildah from scratch)"
buildah add --quiet "$ctr" "$stage.tar" / >&2
buildah config \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="$node_version" \
  --env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
  --cmd '["node"]' "$ctr"
buildah commit --quiet --rm "$ctr" "$image" >&2
echo "$image"
