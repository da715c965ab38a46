#!/usr/bin/env bash
# `npm run test:containers`: builds the three images from deploy/docker/Dockerfile and runs the
# stack in containers the way the chart runs its pods (test/containers/*.test.ts). On a machine with
# apt it installs what is missing (docker.io, buildah, debootstrap) and starts dockerd. When that is
# impossible (no root, no apt) it fails: a container check that cannot run must never pass.
set -euo pipefail
cd "$(dirname "$0")/../.."

fatal() { echo "FATAL: $*" >&2; exit 1; }
step() { printf '\n--> %s\n' "$*"; }
declare -A took
timed() { # name, command...: runs it, records how long it took, and returns its status
  # The status must be returned explicitly: called as `timed ... || status=$?`, set -e is off inside
  # the function, and a bare "$@" followed by the assignment returned 0 for a failed command (a
  # failed container test passed the step that way).
  local name="$1" start=$SECONDS rc=0
  shift
  "$@" || rc=$?
  took[$name]=$((SECONDS - start))
  return "$rc"
}

install_tools() {
  local missing=()
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v buildah >/dev/null || missing+=(buildah)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  [ ${#missing[@]} -eq 0 ] && { echo "docker, buildah and debootstrap present"; return; }
  [ "$(id -u)" = 0 ] || fatal "need ${missing[*]} and cannot install them without root"
  command -v apt-get >/dev/null || fatal "need ${missing[*]} and there is no apt-get to install them"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

start_dockerd() {
  docker info >/dev/null 2>&1 && { echo "dockerd already running"; return; }
  [ "$(id -u)" = 0 ] || fatal "dockerd is not running and only root can start it"
  # No image registry or bridge NAT is needed (containers use the host network): no iptables rules.
  setsid dockerd --iptables=false >/var/log/dynamic-events-dockerd.log 2>&1 </dev/null &
  for _ in $(seq 1 30); do docker info >/dev/null 2>&1 && return; sleep 1; done
  fatal "dockerd did not answer within 30 s (see /var/log/dynamic-events-dockerd.log)"
}

step "container tools"; timed tools install_tools
step "docker daemon"; timed dockerd start_dockerd
step "stand-in Node base image"
base_image=""
started=$SECONDS
base_image="$(bash test/containers/base-image.sh)" || fatal "could not make the base image"
took[base]=$((SECONDS - started))
step "host build (the tests import the proto package's health client)"; timed host-build npm run build --silent
step "images"; timed images bash test/containers/build-images.sh "$base_image" localhost/dynamic-events test

export CONTAINER_BASE_IMAGE="$base_image" CONTAINER_IMAGE_PREFIX=localhost/dynamic-events CONTAINER_IMAGE_TAG=test
step "container tests"
status=0
timed tests npx vitest run -c test/containers/vitest.config.ts || status=$?

printf '\ncontainer step timings (s): tools %s, dockerd %s, base image %s, host build %s, images %s, tests %s\n' \
  "${took[tools]}" "${took[dockerd]}" "${took[base]}" "${took[host-build]}" "${took[images]}" "${took[tests]:-failed}"
exit "$status"
