#!/usr/bin/env bash
# Installs ONNX Runtime's shared library, which the local embedder loads at
# run time (ort's load-dynamic mode: nothing is downloaded by the build).
#
#   vendor-models/install-onnxruntime.sh [DEST_DIR]
#
# Takes libonnxruntime.so from the `onnxruntime` wheel on PyPI (pinned,
# sha256-checked) and copies it to DEST_DIR (default /usr/local/lib/tsq when
# run as root, else ~/.local/lib/tsq), one of the places tsq looks (see
# README "Local model"). Idempotent: an existing, matching copy is kept.
set -euo pipefail
version=1.32.0
wheel=onnxruntime-1.32.0-cp311-cp311-manylinux_2_28_x86_64.whl
wheel_sha=5a34fc4dfeb5a7b4a74c95dcba1e773d722abda720b474edf1b0c419dc6d163d
if [ "$(id -u)" = 0 ]; then default=/usr/local/lib/tsq; else default="$HOME/.local/lib/tsq"; fi
dest="${1:-$default}"
if [ -f "$dest/libonnxruntime.so" ] && [ "$(cat "$dest/VERSION" 2>/dev/null)" = "$version" ]; then
  echo "onnxruntime $version already in $dest"; exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
pip download --no-deps -q -d "$work" --only-binary=:all: --python-version 3.11 \
  --platform manylinux_2_28_x86_64 "onnxruntime==$version"
got="$(sha256sum "$work/$wheel" | cut -d' ' -f1)"
[ "$got" = "$wheel_sha" ] || { echo "install-onnxruntime.sh: sha256 mismatch: expected $wheel_sha, got $got" >&2; exit 1; }
python3 - "$work/$wheel" "$work" "onnxruntime/capi/libonnxruntime.so.$version" onnxruntime/LICENSE onnxruntime/ThirdPartyNotices.txt <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in sys.argv[3:]:
        z.extract(name, sys.argv[2])
PY
mkdir -p "$dest"
cp "$work/onnxruntime/capi/libonnxruntime.so.$version" "$dest/libonnxruntime.so"
cp "$work/onnxruntime/LICENSE" "$dest/LICENSE-onnxruntime"
cp "$work/onnxruntime/ThirdPartyNotices.txt" "$dest/ThirdPartyNotices-onnxruntime.txt"
echo "$version" > "$dest/VERSION"
echo "installed onnxruntime $version to $dest/libonnxruntime.so"
