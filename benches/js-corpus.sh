#!/usr/bin/env bash
# A plain CommonJS JavaScript library for the search eval
# (search-eval/untuned-express.jsonl): Express 4, whose API is declared by
# property assignment (`res.send = function`, `proto.handle = function`,
# `Layer.prototype.match = function`, `defineGetter(req, 'protocol', ...)`)
# rather than by classes or exports. Kept apart from ../shared/corpus.sh so the
# shared corpus list, and everything that iterates over it, is unchanged.
#
# Usage: benches/js-corpus.sh [NAME...]    (no NAME: all)
# Same contract as the npm branch of ../shared/corpus.sh: prints one line per
# corpus, NAME<TAB>DIRECTORY; re-runs are instant (cached).
# Cache: $TSQ_CORPUS_DIR, default ~/.cache/tsq-corpus.
set -euo pipefail
CACHE="${TSQ_CORPUS_DIR:-$HOME/.cache/tsq-corpus}"
mkdir -p "$CACHE"

# name        npm spec             subdirectory holding the code      what it exercises
NPM=(
  "express    express@4.21.2       package                            CommonJS, prototype and property-assignment declarations, getters"
)

want=("$@")
wanted() { ((${#want[@]} == 0)) || [[ " ${want[*]} " == *" $1 "* ]]; }

for row in "${NPM[@]}"; do
  read -r name spec sub _ <<<"$row"
  wanted "$name" || continue
  dir="$CACHE/$name"
  if [[ ! -d "$dir/$sub" ]]; then
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack "$spec" --silent >/dev/null 2>&1)
    mkdir -p "$dir"
    tar xzf "$tmp"/*.tgz -C "$dir"
    rm -rf "$tmp"
  fi
  printf '%s\t%s\n' "$name" "$dir/$sub"
done
