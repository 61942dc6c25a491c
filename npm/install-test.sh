#!/usr/bin/env bash
# The npm install test (.ci/run, and each platform of the release workflow):
# assemble and `npm pack` the packages (npm/build.sh), install this
# machine's platform package and the main package from their tarballs into
# an empty project with no network beyond the local files, then use tsq as
# a user would:
#   npx tsq --version                  the first run unpacks the packed binary,
#                                      the second doesn't; the versions
#   a flipped byte in the packed binary  refused, with what to do
#   npx tsq index / npx tsq search     on the README sample
#   npx tsq doctor                     healthy, the built-in model answering
#   npx tsq serve, driven by the MCP Inspector CLI: tools/list, tools/call
# Every part is required: one that cannot run fails the test and says why.
# The MCP part needs the Inspector CLI in TSQ_MCP_INSPECTOR (.ci/run
# installs @modelcontextprotocol/inspector@0.15.0 into /var/tmp/tsq-npm).
# TSQ_INSTALL_TEST_SKIP_MCP=1 skips that part on purpose and says so loudly;
# .ci/run and the release workflow never set it.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
fail() { echo "install-test: FAILED: $*" >&2; exit 1; }

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x64-gnu ;;
  Linux-aarch64 | Linux-arm64) platform=linux-arm64-gnu ;;
  Darwin-arm64) platform=darwin-arm64 ;;
  Darwin-x86_64) platform=darwin-x64 ;;
  *) fail "no npm platform package for $(uname -s)-$(uname -m)" ;;
esac

# The MCP part's prerequisite is checked first, so that a missing Inspector
# fails before the packages are built.
skip_mcp=${TSQ_INSTALL_TEST_SKIP_MCP:-}
inspector=${TSQ_MCP_INSPECTOR:-}
install_inspector="install the MCP Inspector CLI and point TSQ_MCP_INSPECTOR at it, as .ci/run does:
  mkdir -p /var/tmp/tsq-npm && (cd /var/tmp/tsq-npm && npm install @modelcontextprotocol/inspector@0.15.0)
  export TSQ_MCP_INSPECTOR=/var/tmp/tsq-npm/node_modules/.bin/mcp-inspector
(or set TSQ_INSTALL_TEST_SKIP_MCP=1 to skip the MCP part on purpose)"
case "$skip_mcp" in
  "") ;;
  1) echo "install-test: WARNING: TSQ_INSTALL_TEST_SKIP_MCP=1: the MCP session (tsq serve driven by the MCP Inspector) is SKIPPED on purpose; this run does not test it" >&2 ;;
  *) fail "TSQ_INSTALL_TEST_SKIP_MCP must be 1 or unset, not '$skip_mcp'" ;;
esac
if [ -z "$skip_mcp" ]; then
  [ -n "$inspector" ] || fail "TSQ_MCP_INSPECTOR is not set, so the MCP session cannot be tested; $install_inspector"
  command -v "$inspector" >/dev/null || fail "TSQ_MCP_INSPECTOR=$inspector is not an executable; $install_inspector"
fi
command -v npm >/dev/null || fail "npm is not installed (apt-get install nodejs npm)"
command -v npx >/dev/null || fail "npx is not installed (it comes with npm)"

# The package's built-in model is under test: no remote embedder.
unset VOYAGE_API_KEY TSQ_EMBEDDER

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
[ -n "$version" ] || fail "no version in Cargo.toml"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The binary is packed as it is for release, at a quicker brotli quality
# unless TSQ_PACK_QUALITY says otherwise (the format is the same; quality 11
# takes minutes on a release build).
TSQ_PACK_QUALITY=${TSQ_PACK_QUALITY:-5} npm/build.sh "$work/pkgs" >/dev/null || fail "npm/build.sh failed (its message is above)"
main_tgz="$work/pkgs/tsq-cli-$version.tgz"
platform_tgz="$work/pkgs/tsq-cli-$platform-$version.tgz"
[ -f "$main_tgz" ] || fail "npm/build.sh made no main package ($(basename "$main_tgz"))"
[ -f "$platform_tgz" ] || fail "npm/build.sh made no package for this platform ($(basename "$platform_tgz")); for any platform but linux-x64-gnu it takes the binary from npm/bin/$platform/tsq"

mkdir -p "$work/project"
cd "$work/project"
printf '{ "name": "tsq-install-test", "version": "1.0.0", "private": true }\n' > package.json
# --offline: nothing from the registry; the platform package comes from its
# tarball, the other platforms' optional packages are skipped.
npm install --offline --no-audit --no-fund --loglevel=error "$platform_tgz" "$main_tgz" >/dev/null \
  || fail "npm install of $(basename "$platform_tgz") and $(basename "$main_tgz") failed (npm's message is above)"
bindir="node_modules/@tsq/cli-$platform/bin"
[ -f "$bindir/tsq.br" ] || fail "npm installed no $bindir/tsq.br (the packed binary)"
[ ! -e "$bindir/tsq" ] || fail "$bindir/tsq exists before the first run: the package should ship the binary packed only"

# The first run unpacks the binary (and says so on stderr); later runs don't.
out=$(npx --offline tsq --version 2>"$work/first.err") || fail "npx tsq --version failed: $out $(cat "$work/first.err")"
grep -q "unpacking the native binary" "$work/first.err" || fail "the first run did not say it unpacked the binary: $(cat "$work/first.err")"
[ -x "$bindir/tsq" ] || fail "the first run left no executable $bindir/tsq"
out=$(npx --offline tsq --version 2>&1) || fail "npx tsq --version failed: $out"
! grep -q "unpacking" <<<"$out" || fail "the second run unpacked the binary again: $out"
grep -qF "$version" <<<"$out" || fail "--version does not name $version: $out"
grep -q "TypeScript" <<<"$out" || fail "--version names no TypeScript version: $out"
grep -q "engine" <<<"$out" || fail "--version names no engine: $out"

cp -r "$repo/fixtures/search" "$work/sample"
rm -rf "$work/sample/.tsq"
log=$(npx --offline tsq index --root "$work/sample" --no-structure 2>&1) || fail "tsq index failed: $log"
answer=$(npx --offline tsq search "where do we get a new access token once the old one expired?" --root "$work/sample" 2>"$work/search.err") \
  || fail "tsq search failed: $(cat "$work/search.err")"
grep -q "refreshAccessToken" <<<"$answer" || fail "tsq search did not find refreshAccessToken: $answer"
first=$(head -1 <<<"$answer")
# The built-in model answered (on every platform: it runs inside the binary).
grep -q "embedder: all-MiniLM" <<<"$first" || fail "the built-in embedder did not answer: $first"
doctor=$(npx --offline tsq doctor --root "$work/sample" 2>&1) || fail "tsq doctor reports a problem: $doctor"
grep -Eq "local model +all-MiniLM-L6-v2-int8-w4-a8-words \(384d\), built in: loaded and answered" <<<"$doctor" \
  || fail "tsq doctor does not report the built-in model answering: $doctor"

# A damaged pack is refused with what to do, and nothing half-written is
# left to run: a flipped byte in a copy of the platform package.
cp -r "node_modules/@tsq/cli-$platform" "$work/pristine"
rm "$bindir/tsq"
node -e 'const fs = require("fs"); const f = process.argv[1]; const b = fs.readFileSync(f); b[b.length >> 1] ^= 0xff; fs.writeFileSync(f, b);' "$bindir/tsq.br"
if damaged=$(npx --offline tsq --version 2>&1); then fail "a damaged packed binary ran: $damaged"; fi
grep -Eq "(damaged|cannot be read).*reinstall" <<<"$damaged" || fail "a damaged packed binary gave no clear error: $damaged"
[ ! -e "$bindir/tsq" ] || fail "a damaged packed binary left $bindir/tsq behind"
[ -z "$(find "$bindir" -name '*.tmp')" ] || fail "a damaged packed binary left a temporary file in $bindir"
rm -rf "node_modules/@tsq/cli-$platform" && mv "$work/pristine" "node_modules/@tsq/cli-$platform"

if [ -z "$skip_mcp" ]; then
  # The Inspector prints one JSON object on stdout; node checks it.
  check_json() { # WHAT, a JS condition on the object `r`, the output
    # shellcheck disable=SC2016 # JavaScript's ${...}, not the shell's
    node -e '
      const [what, cond, out] = process.argv.slice(1);
      try {
        const r = JSON.parse(out.slice(out.indexOf("{")));
        if (!new Function("r", `return ${cond};`)(r)) throw new Error(`expected ${cond}`);
      } catch (e) {
        console.error(`install-test: ${what}: ${e.message}`);
        process.exit(1);
      }
    ' "$1" "$2" "$3"
  }
  list=$("$inspector" --cli npx --offline tsq serve --root "$work/sample" --method tools/list 2>"$work/mcp.err") \
    || fail "the MCP Inspector's tools/list failed: $(cat "$work/mcp.err") $list"
  check_json tools/list 'r.tools.some((t) => t.name === "codebase_search")' "$list" || fail "tools/list: $list"
  call=$("$inspector" --cli npx --offline tsq serve --root "$work/sample" --method tools/call --tool-name codebase_search --tool-arg "query=symbol = refreshAccessToken" 2>"$work/mcp.err") \
    || fail "the MCP Inspector's tools/call failed: $(cat "$work/mcp.err") $call"
  check_json tools/call '!r.isError && r.content[0].text.startsWith("Search: \"symbol = refreshAccessToken\"") && r.content.some((c) => c.text.startsWith("// src/auth/tokens.ts\n") && c.text.includes("function refreshAccessToken("))' "$call" \
    || fail "tools/call: $call"
  echo "install-test: npm packages install and answer, MCP session included (tsq $version, $platform)"
else
  echo "install-test: npm packages install and answer; the MCP session was SKIPPED (TSQ_INSTALL_TEST_SKIP_MCP=1) (tsq $version, $platform)"
fi
