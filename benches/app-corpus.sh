#!/usr/bin/env bash
# The large React application the benchmarks measure beside the library
# corpora of ../shared/corpus.sh (issue 47): GitHub Desktop, one TypeScript
# project of ~950 .ts/.tsx files (JSX throughout app/src/ui), whose largest
# files are app/src/lib/stores/app-store.ts (8,190 lines, one class) and
# app/src/ui/app.tsx (3,682 lines, the root component).
#
# Same contract as ../shared/corpus.sh: call the search tool's `fetch` for
# github:desktop/desktop once on this machine; this script checks out the
# pinned commit's source and config files and prints NAME<TAB>DIRECTORY.
set -euo pipefail
CACHE="${TSQ_CORPUS_DIR:-$HOME/.cache/tsq-corpus}"
MIRROR="${TSQ_MIRROR_DIR:-/work/.mirror}"
name=desktop repo=desktop/desktop commit=5a700425f9102a82bb76265d3cd6cdc0040205de
dir="$CACHE/$name"
if [[ ! -f "$dir/.tsq-corpus-done" ]]; then
  src="$MIRROR/${repo/\//+}/repo"
  if [[ ! -d "$src" ]]; then
    echo "app-corpus.sh: $name skipped: no snapshot of github:$repo here (call fetch for it first)" >&2
    exit 0
  fi
  rm -rf "$dir"
  mkdir -p "$CACHE"
  git clone -q --no-checkout "$src" "$dir"
  git -C "$dir" ls-tree -r --name-only "$commit" \
    | grep -E '(\.(ts|tsx|mts|cts|js|jsx|mjs|cjs|json)|(^|/)\.gitignore)$' \
    | xargs -d '\n' git -C "$dir" checkout -q "$commit" -- 2>/dev/null || true
  touch "$dir/.tsq-corpus-done"
fi
printf '%s\t%s\n' "$name" "$dir"
