#!/usr/bin/env python3
"""Issue 45, point 6: the static-embedding experiment (benches/README.md,
"A static embedding beside MiniLM"). Not shipped: it lost to MiniLM on
every set and to BM25 alone on two of four. Kept so the measurement can
be repeated.

Distils a static token table from the vendored all-MiniLM-L6-v2, as
model2vec does (Tulkens & van Dongen, 2024): every token of the
tokenizer's vocabulary is run through the model alone (`[CLS] token
[SEP]`) and its output mean-pooled; PCA brings the vectors to 256
dimensions; each row is weighted by SIF over a Zipf estimate of the
token's frequency (its rank in the vocabulary); rows are int8 with one
f32 scale each. A text's vector was then the mean of its tokens' rows,
normalized, over the same windows as MiniLM's (breadcrumb first): no
forward pass.

    python3 -m venv /tmp/ref && /tmp/ref/bin/pip install onnxruntime==1.32.0 tokenizers numpy
    /tmp/ref/bin/python benches/search-eval/derive_static.py /tmp/minilm-static-256.bin

The teacher is vendor-models/minilm/model-w4.onnx (Apache-2.0). The
same teacher gives the same bytes (the PCA is an SVD of the centred
table, signs fixed). 44 s on 2 cores.

Format (little-endian): b"TSQSTAT1", u32 vocabulary size, u32 dimension,
then one f32 scale per row, then vocabulary x dimension int8 values
(row r, column c = value * scale[r]).
"""
import os, struct, sys
import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

DIM = 256
SIF = 1e-4

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "vendor-models")
out_path = sys.argv[1]
tok = Tokenizer.from_file(os.path.join(here, "minilm", "tokenizer.json"))
vocab = tok.get_vocab()
size = max(vocab.values()) + 1
opts = ort.SessionOptions()
opts.intra_op_num_threads = int(os.environ.get("THREADS", "2"))
sess = ort.InferenceSession(os.path.join(here, "minilm", "model-w4.onnx"), opts, providers=["CPUExecutionProvider"])
CLS, SEP = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")

table = np.zeros((size, 384), dtype=np.float64)
batch = 1024
for start in range(0, size, batch):
    ids = np.array([[CLS, t, SEP] for t in range(start, min(size, start + batch))], dtype=np.int64)
    (hidden,) = sess.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)})
    table[start : start + len(ids)] = hidden.mean(axis=1)
    print(f"{start + len(ids)}/{size}", file=sys.stderr, end="\r")
print(file=sys.stderr)

# PCA to DIM dimensions (an SVD of the centred table; each component's
# sign fixed so that its largest coefficient is positive).
centred = table - table.mean(axis=0)
_, _, vt = np.linalg.svd(centred, full_matrices=False)
components = vt[:DIM]
signs = np.sign(components[np.arange(DIM), np.abs(components).argmax(axis=1)])
components *= signs[:, None]
reduced = centred @ components.T

# SIF weighting over a Zipf estimate of each token's probability by rank.
rank = np.arange(1, size + 1, dtype=np.float64)
p = (1.0 / rank) / (1.0 / rank).sum()
reduced *= (SIF / (SIF + p))[:, None]

scales = np.abs(reduced).max(axis=1) / 127.0
scales[scales == 0] = 1.0
q = np.clip(np.round(reduced / scales[:, None]), -127, 127).astype(np.int8)
with open(out_path, "wb") as f:
    f.write(b"TSQSTAT1")
    f.write(struct.pack("<II", size, DIM))
    f.write(scales.astype("<f4").tobytes())
    f.write(q.tobytes())
print(f"{out_path}: {size} tokens x {DIM}", file=sys.stderr)
