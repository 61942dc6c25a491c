#!/usr/bin/env bash
# The download a new user fetches, measured: builds the `dist` profile
# (timed; Cargo.toml says what it does), then reports the binary's size and
# its largest sections, and the platform tarball npm/build.sh makes from
# it, against the 60 MB target (issue 26). benches/README.md keeps the
# figures.
#
#   npm/dist-size.sh [--no-build] [--speed DIR QUERY...]
#
# --no-build measures the last build. --speed times each QUERY (`tsq
# search` arguments' first one: a `symbol =` lookup or a question, concise
# format) in fresh processes on the indexed workspace DIR, with the release
# binary ($TSQ_RELEASE_BIN, default the target dir's), then the dist one,
# 7 runs each, and prints both medians: the
# query speed the smaller binary must keep.
#
# A fat-LTO build of the ~600-crate binary takes long on 2 cores (see
# benches/README.md); it uses $CARGO_TARGET_DIR like every other build.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-$(pwd)/target}
build=1
if [ "${1:-}" = --no-build ]; then build=0; shift; fi
speed_dir=""
if [ "${1:-}" = --speed ]; then speed_dir=$2; shift 2; fi
if [ "$build" = 1 ]; then
  start=$(date +%s)
  cargo build --profile dist --locked --bin tsq
  echo "dist-size: cargo build --profile dist took $(( $(date +%s) - start )) s"
fi
bin="$target/dist/tsq"
[ -x "$bin" ] || { echo "dist-size: no $bin; run without --no-build" >&2; exit 1; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
echo "dist-size: binary $(mb "$(stat -c %s "$bin")") ($bin)"
echo "dist-size: largest sections:"
size -A "$bin" | awk 'NR > 2 && $2 > 1e6 { printf "  %-22s %8.1f MB\n", $1, $2 / 1e6 }' | sort -k2 -rn
out=$(mktemp -d)
TSQ_PROFILE=dist npm/build.sh "$out" >/dev/null
for t in "$out"/*.tgz; do
  echo "dist-size: $(basename "$t") $(mb "$(stat -c %s "$t")")"
done
platform=$(find "$out" -name "tsq-cli-linux-*.tgz" | head -1)
if [ -n "$platform" ]; then
  bytes=$(stat -c %s "$platform")
  if [ "$bytes" -le 60000000 ]; then verdict="within"; else verdict="over"; fi
  echo "dist-size: platform tarball $(mb "$bytes"): $verdict the 60 MB target"
fi
rm -rf "$out"
if [ -n "$speed_dir" ]; then
  release=${TSQ_RELEASE_BIN:-$target/release/tsq}
  [ -x "$release" ] || { echo "dist-size: no $release to compare with" >&2; exit 1; }
  for q in "$@"; do
    for name in release dist; do
      b=$bin
      [ "$name" = release ] && b=$release
      times=()
      for _ in 1 2 3 4 5 6 7; do
        s0=$(date +%s%N)
        "$b" search "$q" --root "$speed_dir" --format concise --json >/dev/null 2>&1 || true
        times+=($(( ($(date +%s%N) - s0) / 1000000 )))
      done
      med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 4p)
      echo "dist-size: speed $name \"$q\": median ${med} ms of 7"
    done
  done
fi
