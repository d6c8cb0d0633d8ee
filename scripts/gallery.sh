#!/usr/bin/env bash
# Draws the gallery (docs/gallery.md): runs the examples it lists (cached
# nodes are reused from the store) and copies each figure's PNG into
# docs/gallery/<example>--<figure>.png.
#
#   scripts/gallery.sh [SPEC ...]      default: every example
#
# Environment: STORE (default .dpaudit/store), RESULTS (default a
# temporary folder), JOBS (-j, default 2), DPAUDIT (a dpaudit binary;
# default: go build ./cmd/dpaudit). Long examples take hours on two cores;
# pass the specs you want redrawn.
set -euo pipefail
cd "$(dirname "$0")/.."

bin="${DPAUDIT:-}"
if [ -z "$bin" ]; then
  bin="$(mktemp -d)/dpaudit"
  go build -o "$bin" ./cmd/dpaudit
fi
results="${RESULTS:-$(mktemp -d)}"
specs=("$@")
if [ ${#specs[@]} -eq 0 ]; then
  mapfile -t specs < <(find examples -name '*.yaml' | sort)
fi
mkdir -p docs/gallery
for spec in "${specs[@]}"; do
  base="$(basename "$spec" .yaml)"
  name="$(sed -n 's/^name: *//p' "$spec" | head -1)"
  if ! "$bin" run "$spec" -store "${STORE:-.dpaudit/store}" -results "$results" -j "${JOBS:-2}" >/dev/null; then
    echo "gallery: $spec failed; its figures are not redrawn" >&2
    continue
  fi
  for png in "$results/$name"/figures/*.png; do
    [ -e "$png" ] || continue
    cp "$png" "docs/gallery/$base--$(basename "$png")"
    echo "docs/gallery/$base--$(basename "$png")"
  done
done
