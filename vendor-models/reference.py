#!/usr/bin/env python3
"""Writes fixtures/embed/minilm-reference.json: what ONNX Runtime computes
for the vendored all-MiniLM-L6-v2 (vendor-models/minilm/model-w4.onnx, the
file tsq embeds; derive_w4.py makes it) on a few
texts. tsq runs the model with its own forward pass (src/embed/minilm.rs,
which rounds the dense layers' activations to 8 bits: src/embed/int8.rs);
`minilm::tests` checks it against these float vectors within that rounding,
so the reference must come from the model's own runtime, never from tsq.

    python3 -m venv /tmp/ref && /tmp/ref/bin/pip install onnxruntime==1.32.0 tokenizers numpy
    /tmp/ref/bin/python vendor-models/reference.py > fixtures/embed/minilm-reference.json

Each case is `[CLS] tokens [SEP]` (the tokenizer's ids, no padding), run
alone; the vector is mean-pooled over its tokens and L2-normalized, as tsq
does. One case runs as a padded batch with another, so the mask is covered.
"""
import json, os, sys
import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

here = os.path.dirname(os.path.abspath(__file__))
tok = Tokenizer.from_file(os.path.join(here, "minilm", "tokenizer.json"))
tok.no_padding()
tok.no_truncation()
sess = ort.InferenceSession(os.path.join(here, "minilm", "model-w4.onnx"), providers=["CPUExecutionProvider"])
CLS, SEP = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")

texts = [
    "where do we refresh tokens?",
    "x",
    "export function createTRPCClient<TRouter extends AnyRouter>(opts: CreateTRPCClientOptions<TRouter>) { return new TRPCUntypedClient(opts); }",
    "packages/query-core/src/queryClient.ts > QueryClient > invalidateQueries",
    # long enough to be cut at 128 tokens, as a window is
    " ".join(f"const value{i} = compute(value{i - 1}, options.retryDelay);" for i in range(1, 40)),
]

def ids_of(text):
    body = tok.encode(text, add_special_tokens=False).ids[:126]
    return [CLS] + body + [SEP]

def run(batch):
    width = max(len(s) for s in batch)
    ids = np.zeros((len(batch), width), dtype=np.int64)
    mask = np.zeros((len(batch), width), dtype=np.int64)
    for r, s in enumerate(batch):
        ids[r, : len(s)] = s
        mask[r, : len(s)] = 1
    (hidden,) = sess.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})
    out = []
    for r, s in enumerate(batch):
        v = hidden[r, : len(s)].mean(axis=0)
        out.append(v / np.linalg.norm(v))
    return out

cases = []
seqs = [ids_of(t) for t in texts]
for text, seq in zip(texts, seqs):
    (v,) = run([seq])
    cases.append({"text": text, "ids": seq, "vector": [float(f"{x:.7g}") for x in v]})
# The first text again, padded in a batch beside the longest one.
padded = run([seqs[0], seqs[-1]])[0]
cases.append({"text": texts[0] + " (padded in a batch)", "ids": seqs[0], "vector": [float(f"{x:.7g}") for x in padded]})
json.dump({"model": "vendor-models/minilm/model-w4.onnx", "runtime": f"onnxruntime {ort.__version__}", "cases": cases}, sys.stdout, indent=None)
sys.stdout.write("\n")
