"""Shared pieces: safetensors reading and writing, and texts read as tsq
reads them (src/embed/local.rs: identifier words spaced, windows of
[CLS] breadcrumb body [SEP], 128 tokens)."""
import json
import struct

import numpy as np
from tokenizers import Tokenizer

WINDOW = 128
PREFIX_MAX = WINDOW // 4


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        if meta["dtype"] != "F32":
            continue
        a, b = meta["data_offsets"]
        out[name] = np.frombuffer(data[8 + n + a : 8 + n + b], dtype="<f4").reshape(meta["shape"]).copy()
    return out


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        arr = np.ascontiguousarray(tensors[name], dtype="<f4")
        b = arr.tobytes()
        header[name] = {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def starts_word(prev, c, nxt):
    # src/camel.rs
    return c.isupper() and prev.isalnum() and (prev.islower() or (nxt is not None and nxt.islower()))


def identifier_words(text):
    out, start = [], 0
    for i in range(1, len(text)):
        if starts_word(text[i - 1], text[i], text[i + 1] if i + 1 < len(text) else None):
            out.append(text[start:i])
            start = i
    out.append(text[start:])
    return " ".join(out)


class Reader:
    def __init__(self, tokenizer_json):
        self.tok = Tokenizer.from_file(tokenizer_json)
        self.tok.no_padding()
        self.tok.no_truncation()
        self.cls = self.tok.token_to_id("[CLS]")
        self.sep = self.tok.token_to_id("[SEP]")

    def ids(self, text):
        return self.tok.encode(identifier_words(text), add_special_tokens=False).ids

    def query(self, text):
        return [self.cls] + self.ids(text)[: WINDOW - 2] + [self.sep]

    def document(self, breadcrumb, body):
        """The first window tsq embeds for a chunk."""
        prefix = self.ids(breadcrumb)[:PREFIX_MAX]
        rest = WINDOW - 2 - len(prefix)
        return [self.cls] + prefix + self.ids(body)[:rest] + [self.sep]


def pad(seqs, length=None):
    length = length or max(len(s) for s in seqs)
    ids = np.zeros((len(seqs), length), dtype=np.int32)
    mask = np.zeros((len(seqs), length), dtype=np.float32)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = s
        mask[i, : len(s)] = 1
    return ids, mask
