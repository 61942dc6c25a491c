#!/usr/bin/env bash
# Assembles the npm packages from a release build, as the native-tool
# ecosystem ships them (esbuild, Biome, oxlint): a main package `@tsq/cli`
# whose `bin` is a small JS launcher (npm/tsq/bin/tsq.js), and one package
# per platform chosen through optionalDependencies with os, cpu and libc.
#
#   npm/build.sh [OUT_DIR]     (default: target dir's npm/)
#
# Uses $CARGO_TARGET_DIR/<profile>/tsq (profile: $TSQ_PROFILE, default
# `dist`, falling back to `release`), strips it, packs it with brotli
# (npm/pack-binary.js; $TSQ_PACK_QUALITY, default 11, the smallest) and puts
# it with every license and NOTICE into the linux-x64-gnu package (the binary is the whole
# product: the model and its forward pass are inside it). Other platforms are
# listed in PLATFORMS: their packages are built when their binaries exist
# under npm/bin/<platform>/ (cross builds; none are made here). Then each
# package is `npm pack`ed. Nothing is published.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
target=${CARGO_TARGET_DIR:-$repo/target}
out=${1:-$target/npm}
profile=${TSQ_PROFILE:-dist}
[ -x "$target/$profile/tsq" ] || profile=release
bin="$target/$profile/tsq"
[ -x "$bin" ] || { echo "npm/build.sh: no $bin; run cargo build --profile dist (or --release) first" >&2; exit 1; }

# platform  os  cpu  libc
PLATFORMS="linux-x64-gnu linux x64 glibc
linux-arm64-gnu linux arm64 glibc
darwin-arm64 darwin arm64 -
darwin-x64 darwin x64 -
win32-x64-msvc win32 x64 -"

rm -rf "$out"
mkdir -p "$out"
licenses() {
  local dest=$1
  mkdir -p "$dest/licenses"
  cp LICENSE "$dest/licenses/LICENSE-tsq" 2>/dev/null || printf 'MIT License (see the tsq repository)\n' > "$dest/licenses/LICENSE-tsq"
  cp vendor-typescript/LICENSE.txt "$dest/licenses/LICENSE-typescript.txt"
  cp vendor-typescript/ThirdPartyNoticeText.txt "$dest/licenses/ThirdPartyNoticeText-typescript.txt"
  cp vendor-models/LICENSE "$dest/licenses/LICENSE-all-MiniLM-L6-v2"
  cp vendor-models/NOTICE "$dest/licenses/NOTICE-all-MiniLM-L6-v2"
}
optional=""
while read -r platform os cpu libc; do
  dir="$out/cli-$platform"
  src=""
  if [ "$platform" = linux-x64-gnu ] && [ "$(uname -s)-$(uname -m)" = Linux-x86_64 ]; then
    src=$bin
  elif [ -x "npm/bin/$platform/tsq" ] || [ -x "npm/bin/$platform/tsq.exe" ]; then
    src=$(ls npm/bin/$platform/tsq* | head -1)
  fi
  if [ -z "$src" ]; then
    echo "npm/build.sh: $platform: no binary (listed, not built)" >&2
    continue
  fi
  mkdir -p "$dir/bin"
  exe="$dir/bin/$(basename "$src")"
  cp "$src" "$exe"
  strip "$exe" 2>/dev/null || true
  # The binary ships brotli-packed; the launcher unpacks it on first use and
  # checks this sha256 (npm/tsq/bin/tsq.js).
  packed=$(node "$repo/npm/pack-binary.js" "$exe" "$exe.br") || { echo "npm/build.sh: packing $exe failed" >&2; exit 1; }
  read -r sha bytes <<< "$packed"
  rm "$exe"
  licenses "$dir"
  libc_field=""
  [ "$libc" != - ] && libc_field="\"libc\": [\"$libc\"],"
  cat > "$dir/package.json" <<JSON
{
  "name": "@tsq/cli-$platform",
  "version": "$version",
  "description": "tsq's native binary for $platform",
  "license": "MIT",
  "os": ["$os"],
  "cpu": ["$cpu"],
  $libc_field
  "files": ["bin", "licenses"],
  "preferUnplugged": true,
  "tsqPacked": { "file": "bin/$(basename "$exe").br", "sha256": "$sha", "size": $bytes }
}
JSON
  optional="$optional\"@tsq/cli-$platform\": \"$version\","
done <<< "$PLATFORMS"

main="$out/cli"
mkdir -p "$main/bin"
cp npm/tsq/bin/tsq.js "$main/bin/tsq.js"
cp npm/README.md "$main/README.md"
licenses "$main"
all_optional=""
while read -r platform _; do all_optional="$all_optional\"@tsq/cli-$platform\": \"$version\","; done <<< "$PLATFORMS"
cat > "$main/package.json" <<JSON
{
  "name": "@tsq/cli",
  "version": "$version",
  "description": "Code context for TypeScript and JavaScript from the real TypeScript compiler: a CLI and an MCP server",
  "license": "MIT",
  "bin": { "tsq": "bin/tsq.js" },
  "files": ["bin", "licenses", "README.md"],
  "engines": { "node": ">=18" },
  "optionalDependencies": { ${all_optional%,} }
}
JSON
for d in "$out"/cli*; do
  (cd "$out" && npm pack --silent "./$(basename "$d")" >/dev/null)
done
ls -la "$out"/*.tgz
