"""Fine-tunes all-MiniLM-L6-v2's float weights on data.py's pairs: in-batch
negatives (each question against every code text of its batch, scale 20,
as sentence-transformers' MultipleNegativesRankingLoss), AdamW, no dropout,
the pairs in data.py's fixed order, no question twice in a batch.

    python train.py pairs.jsonl model.safetensors tokenizer.json OUT.safetensors [STEPS]
"""
import json
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax

from common import Reader, pad, read_safetensors, write_safetensors
from model import encode

BATCH, LR, WARMUP, SCALE, QUERY_TOKENS = 32, 3e-5, 50, 20.0, 48


def batches(pairs, reader):
    pending = list(pairs)
    while pending:
        batch, seen, rest = [], set(), []
        for p in pending:
            if len(batch) < BATCH and p["query"].lower() not in seen:
                seen.add(p["query"].lower())
                batch.append(p)
            else:
                rest.append(p)
        pending = rest
        if len(batch) < BATCH:
            return
        q = pad([reader.query(p["query"])[:QUERY_TOKENS] for p in batch], QUERY_TOKENS)
        d = pad([reader.document(p["breadcrumb"], p["body"]) for p in batch], 128)
        yield q, d


def main():
    data, weights, tokenizer, out = sys.argv[1:5]
    steps = int(sys.argv[5]) if len(sys.argv) > 5 else 500
    reader = Reader(tokenizer)
    pairs = [json.loads(l) for l in open(data)]
    params = {k: jnp.asarray(v) for k, v in read_safetensors(weights).items()}
    schedule = optax.join_schedules([optax.linear_schedule(0.0, LR, WARMUP), optax.linear_schedule(LR, 0.0, max(steps - WARMUP, 1))], [WARMUP])
    opt = optax.adamw(schedule, weight_decay=0.01)
    state = opt.init(params)

    def loss_fn(p, q, d):
        qv = encode(p, *q)
        dv = encode(p, *d)
        logits = SCALE * qv @ dv.T
        return optax.softmax_cross_entropy_with_integer_labels(logits, jnp.arange(logits.shape[0])).mean()

    @jax.jit
    def step(p, s, q, d):
        loss, g = jax.value_and_grad(loss_fn)(p, q, d)
        upd, s = opt.update(g, s, p)
        return optax.apply_updates(p, upd), s, loss

    t0, losses = time.time(), []
    for i, (q, d) in enumerate(batches(pairs, reader)):
        if i == steps:
            break
        params, state, loss = step(params, state, tuple(map(jnp.asarray, q)), tuple(map(jnp.asarray, d)))
        losses.append(float(loss))
        if (i + 1) % 25 == 0:
            print(f"train: step {i + 1}/{steps} loss {np.mean(losses[-25:]):.3f} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    write_safetensors(out, {k: np.asarray(v) for k, v in params.items()})


if __name__ == "__main__":
    main()
