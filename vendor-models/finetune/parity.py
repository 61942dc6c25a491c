"""The JAX forward pass against ONNX Runtime on the vendored int8 model:
cosine of the vectors of a few texts (int8 rounding keeps it near 0.99)."""
import sys
import numpy as np, jax.numpy as jnp, onnxruntime as ort
from common import read_safetensors, Reader, pad
from model import encode
p = {k: jnp.asarray(v) for k, v in read_safetensors(sys.argv[1]).items()}
r = Reader(sys.argv[3])
texts = ["where do we refresh tokens?", "export function useQuery(options) { return useBaseQuery(options, QueryObserver) }", "class QueryClient { fetchQuery() {} }"]
seqs = [r.query(t) for t in texts]
ids, mask = pad(seqs)
a = np.asarray(encode(p, jnp.asarray(ids), jnp.asarray(mask)))
s = ort.InferenceSession(sys.argv[2])
names = [i.name for i in s.get_inputs()]
feed = {"input_ids": ids.astype(np.int64), "attention_mask": mask.astype(np.int64), "token_type_ids": np.zeros_like(ids, dtype=np.int64)}
o = s.run(None, {k: v for k, v in feed.items() if k in names})[0]
if o.ndim == 3:
    o = (o * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
o = o / np.linalg.norm(o, axis=1, keepdims=True)
print("inputs", names, "cosines", (a * o).sum(1))
