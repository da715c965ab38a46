#!/usr/bin/env bash
# Builds the three targets of deploy/docker/Dockerfile with buildah (BuildKit's cache mounts are
# understood; Debian's docker 20.10 builder does not know them) and hands each image to the docker
# daemon, which runs the containers. Usage: build-images.sh NODE_IMAGE TAG_PREFIX TAG
#
# --layers keeps each instruction's result in buildah's storage keyed by its inputs, so an
# unchanged lockfile reuses the `npm ci` layers and an unchanged source tree reuses everything:
# the same cache `docker build` keeps, nothing a clean build would produce differently.
set -euo pipefail
node_image="$1" prefix="$2" tag="$3"
cd "$(dirname "$0")/../.."

# The base too, so the image test can tell the layers above it (sizes reported in the README).
buildah push --quiet "$node_image" "docker-daemon:$node_image"

for service in registry-service media-service ingest-gateway; do
  image="$prefix/$service:$tag"
  started=$SECONDS
  buildah bud --quiet --layers --network host \
    --build-arg NODE_IMAGE="$node_image" \
    -f deploy/docker/Dockerfile --target "$service" -t "$image" . >/dev/null
  # docker-daemon: transfers only layers the daemon lacks; the base layer is shared by all three.
  buildah push --quiet "$image" "docker-daemon:$image"
  echo "built $image in $((SECONDS - started)) s"
done
