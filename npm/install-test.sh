#!/usr/bin/env bash
# The npm install test (.ci/run): assemble and `npm pack` the packages
# (npm/build.sh), install the tarballs into an empty project with no
# network beyond the local files, then use tsq as a user would:
#   npx tsq --version                  tsq, TypeScript and engine versions
#   npx tsq index / npx tsq search     on the README sample
#   npx tsq serve, driven by the MCP Inspector CLI: tools/list, tools/call
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
npm/build.sh "$work/pkgs" >/dev/null
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
mkdir -p "$work/project"
cd "$work/project"
printf '{ "name": "tsq-install-test", "version": "1.0.0", "private": true }\n' > package.json
# --offline: nothing from the registry; the platform package comes from its
# tarball, the other platforms' optional packages are skipped.
npm install --offline --no-audit --no-fund --loglevel=error \
  "$work/pkgs/tsq-cli-linux-x64-gnu-$version.tgz" "$work/pkgs/tsq-cli-$version.tgz" >/dev/null
fail() { echo "install-test: $*" >&2; exit 1; }
out=$(npx --offline tsq --version)
echo "$out" | grep -q "$version" || fail "--version: $out"
echo "$out" | grep -q "TypeScript" || fail "--version names no TypeScript version: $out"
echo "$out" | grep -q "engine" || fail "--version names no engine: $out"
cp -r "$repo/fixtures/search" "$work/sample"
rm -rf "$work/sample/.tsq"
npx --offline tsq index --root "$work/sample" --no-structure >/dev/null 2>&1 || fail "tsq index failed"
answer=$(npx --offline tsq search "where do we get a new access token once the old one expired?" --root "$work/sample" 2>/dev/null)
echo "$answer" | grep -q "refreshAccessToken" || fail "tsq search did not find refreshAccessToken: $answer"
# libonnxruntime.so beside the binary: the local embedder answered.
echo "$answer" | head -1 | grep -q "embedder: all-MiniLM" || fail "the local embedder did not answer (libonnxruntime.so beside tsq): $(echo "$answer" | head -1)"
inspector=${TSQ_MCP_INSPECTOR:-}
if [ -z "$inspector" ]; then
  echo "install-test: TSQ_MCP_INSPECTOR not set; the MCP session was not tested" >&2
else
  list=$("$inspector" --cli npx --offline tsq serve --root "$work/sample" --method tools/list)
  echo "$list" | grep -q '"codebase_search"' || fail "tools/list: $list"
  call=$("$inspector" --cli npx --offline tsq serve --root "$work/sample" --method tools/call --tool-name codebase_search --tool-arg "query=symbol = refreshAccessToken")
  echo "$call" | grep -q 'refreshAccessToken' || fail "tools/call: $call"
fi
echo "install-test: npm packages install and answer (tsq $version)"
