"""all-MiniLM-L6-v2's forward pass in JAX (BERT: 6 layers, 384 wide, 12
heads, exact GELU, mean pooling, normalized), on the float weights of
model.safetensors, for fine-tuning."""
import jax
import jax.numpy as jnp

LAYERS, HEADS, HIDDEN = 6, 12, 384


def layer_norm(x, g, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / jnp.sqrt(var + 1e-12) * g + b


def dense(p, name, x):
    return x @ p[f"{name}.weight"].T + p[f"{name}.bias"]


def encode(p, ids, mask):
    b, t = ids.shape
    x = p["embeddings.word_embeddings.weight"][ids] + p["embeddings.position_embeddings.weight"][:t][None] + p["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, p["embeddings.LayerNorm.weight"], p["embeddings.LayerNorm.bias"])
    bias = (1.0 - mask)[:, None, None, :] * -1e9
    d = HIDDEN // HEADS
    for i in range(LAYERS):
        l = f"encoder.layer.{i}"
        split = lambda y: y.reshape(b, t, HEADS, d).transpose(0, 2, 1, 3)
        q, k, v = (split(dense(p, f"{l}.attention.self.{n}", x)) for n in ("query", "key", "value"))
        att = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / jnp.sqrt(float(d)) + bias, axis=-1)
        ctx = (att @ v).transpose(0, 2, 1, 3).reshape(b, t, HIDDEN)
        x = layer_norm(x + dense(p, f"{l}.attention.output.dense", ctx), p[f"{l}.attention.output.LayerNorm.weight"], p[f"{l}.attention.output.LayerNorm.bias"])
        h = jax.nn.gelu(dense(p, f"{l}.intermediate.dense", x), approximate=False)
        x = layer_norm(x + dense(p, f"{l}.output.dense", h), p[f"{l}.output.LayerNorm.weight"], p[f"{l}.output.LayerNorm.bias"])
    pooled = (x * mask[:, :, None]).sum(1) / jnp.maximum(mask.sum(1, keepdims=True), 1.0)
    return pooled / jnp.maximum(jnp.linalg.norm(pooled, axis=-1, keepdims=True), 1e-12)
