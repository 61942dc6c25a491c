#!/usr/bin/env python3
"""Distills the static token table (vendor-models/static/tokens.bin) from the
bundled teacher, all-MiniLM-L6-v2 as tsq ships it (minilm/model-w4.onnx),
the model2vec way (Tulkens and van Dongen, 2024; MIT):

  1. every vocabulary entry t is run through the teacher alone, as
     `[CLS] t [SEP]`, and its output mean-pooled over the three positions;
  2. the 384-d vectors are reduced to DIM by PCA (centred, the top
     principal axes);
  3. each row is weighted by SIF over a Zipf estimate of its frequency
     (the vocabulary is roughly in frequency order): a / (a + p(rank)),
     a = 1e-4.

A text's vector is then the mean of its tokens' rows, L2-normalized
(src/embed/static_table.rs). Deterministic: ONNX Runtime on the CPU, no
sampling. Output: a little-endian file of `rows × DIM` int8 values, each
row with one f32 scale after it (value = int8 × scale / 127), preceded by
the header `TSQSTAT1`, rows (u32) and DIM (u32).

    python3 -m venv /tmp/d && /tmp/d/bin/pip install onnxruntime==1.32.0 tokenizers==0.23.3 numpy==2.4.6
    /tmp/d/bin/python vendor-models/derive_static.py vendor-models/static/tokens.bin
"""
import os
import struct
import sys

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

DIM = 256
SIF = 1e-4
BATCH = 1024

here = os.path.dirname(os.path.abspath(__file__))
tok = Tokenizer.from_file(os.path.join(here, "minilm", "tokenizer.json"))
opts = ort.SessionOptions()
opts.intra_op_num_threads = os.cpu_count() or 1
sess = ort.InferenceSession(os.path.join(here, "minilm", "model-w4.onnx"), opts, providers=["CPUExecutionProvider"])
CLS, SEP = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
rows = tok.get_vocab_size()

out = np.zeros((rows, 384), dtype=np.float32)
for start in range(0, rows, BATCH):
    ids = np.arange(start, min(rows, start + BATCH), dtype=np.int64)
    seq = np.stack([np.full_like(ids, CLS), ids, np.full_like(ids, SEP)], axis=1)
    (hidden,) = sess.run(["last_hidden_state"], {"input_ids": seq, "attention_mask": np.ones_like(seq), "token_type_ids": np.zeros_like(seq)})
    out[start : start + len(ids)] = hidden.mean(axis=1)
    print(f"{start + len(ids)}/{rows}", file=sys.stderr, end="\r")
print(file=sys.stderr)

centred = out - out.mean(axis=0)
# Principal axes by SVD of the centred table (float64 for a stable sign).
_, _, vt = np.linalg.svd(centred.astype(np.float64), full_matrices=False)
axes = vt[:DIM]
# A fixed sign per axis: its largest component positive.
axes *= np.sign(axes[np.arange(DIM), np.abs(axes).argmax(axis=1)])[:, None]
reduced = (centred.astype(np.float64) @ axes.T).astype(np.float32)

inv_rank = 1.0 / np.arange(2, rows + 2)
p = inv_rank / inv_rank.sum()
reduced *= (SIF / (SIF + p)).astype(np.float32)[:, None]

scale = np.abs(reduced).max(axis=1)
scale[scale == 0] = 1.0
q = np.clip(np.rint(reduced / scale[:, None] * 127), -127, 127).astype(np.int8)

with open(sys.argv[1], "wb") as f:
    f.write(b"TSQSTAT1")
    f.write(struct.pack("<II", rows, DIM))
    for r in range(rows):
        f.write(q[r].tobytes())
        f.write(struct.pack("<f", float(scale[r])))
print(f"wrote {sys.argv[1]}: {rows} rows x {DIM}", file=sys.stderr)
