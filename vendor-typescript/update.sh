#!/usr/bin/env bash
# Re-vendors the `typescript` npm package into vendor-typescript/.
#
#   vendor-typescript/update.sh [VERSION]     (default: the version in VERSION)
#
# Fetches the tarball with `npm pack` from the npm registry, verifies it
# against the registry's published sha512 integrity, and copies the files
# tsq embeds: lib/typescript.js, every lib/lib.*.d.ts, LICENSE.txt and
# ThirdPartyNoticeText.txt. Files are copied unmodified.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="${1:-$(cat "$here/VERSION")}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

expected="$(npm view "typescript@$version" dist.integrity 2>/dev/null)"
[ -n "$expected" ] || { echo "update.sh: no integrity for typescript@$version" >&2; exit 2; }
( cd "$work" && npm pack "typescript@$version" --silent >/dev/null 2>&1 )
tgz="$work/typescript-$version.tgz"
actual="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
if [ "$actual" != "$expected" ]; then
  echo "update.sh: integrity mismatch: expected $expected, got $actual" >&2
  exit 1
fi
echo "integrity ok: $actual"
tar -xzf "$tgz" -C "$work"
pkg="$work/package"
rm -rf "$here/lib"
mkdir -p "$here/lib"
cp "$pkg/lib/typescript.js" "$here/lib/"
cp "$pkg"/lib/lib.*.d.ts "$here/lib/"
cp "$pkg/LICENSE.txt" "$pkg/ThirdPartyNoticeText.txt" "$here/"
echo "$version" > "$here/VERSION"
echo "$expected" > "$here/INTEGRITY"
echo "vendored typescript@$version: $(ls "$here/lib" | wc -l) files"
