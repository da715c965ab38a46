#!/bin/sh
# Deletes from the given directories what Node never loads at run time, so a service's layers hold
# only what it runs: TypeScript declarations and sources, source maps (the sources they point at are
# not in the image), build info, type-only @types packages, and the docs npm packages ship.
# Licence files stay. Used by deploy/docker/Dockerfile on dist/ and production node_modules/.
set -eu
for dir in "$@"; do
  [ -d "$dir" ] || { echo "prune-runtime: no directory $dir" >&2; exit 1; }
  find "$dir" -type f \( -name '*.ts' -o -name '*.cts' -o -name '*.mts' -o -name '*.map' \
    -o -name '*.tsbuildinfo' -o -iname 'README*' -o -iname 'CHANGELOG*' -o -iname 'HISTORY*' \) -delete
  # Type-only packages: nothing imports them at run time (no `main`, only .d.ts).
  if [ -d "$dir/@types" ]; then rm -rf "$dir/@types"; fi
done
