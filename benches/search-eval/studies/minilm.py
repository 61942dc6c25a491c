"""The vendored MiniLM run by ONNX Runtime, its texts' identifiers spaced
as tsq's local embedder reads them (`embed::local::identifier_words`)."""
import os, re
import numpy as np, onnxruntime as ort
from tokenizers import Tokenizer
M = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'vendor-models', 'minilm')
tok = Tokenizer.from_file(M + '/tokenizer.json'); tok.no_padding(); tok.no_truncation()
sess = ort.InferenceSession(M + '/model-w4.onnx', providers=['CPUExecutionProvider'])
CLS, SEP = tok.token_to_id('[CLS]'), tok.token_to_id('[SEP]')
camel = re.compile(r'(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])')
def words(t): return camel.sub(' ', t)
names = [i.name for i in sess.get_inputs()]
def embed(texts, bs=64):
    out = []
    for i in range(0, len(texts), bs):
        ids = [[CLS] + tok.encode(words(t), add_special_tokens=False).ids[:126] + [SEP] for t in texts[i:i+bs]]
        L = max(map(len, ids)); a = np.zeros((len(ids), L), np.int64); m = np.zeros_like(a)
        for j, x in enumerate(ids): a[j, :len(x)] = x; m[j, :len(x)] = 1
        feed = {'input_ids': a, 'attention_mask': m}
        if 'token_type_ids' in names: feed['token_type_ids'] = np.zeros_like(a)
        h = sess.run(None, feed)[0]
        v = (h * m[..., None]).sum(1) / m.sum(1, keepdims=True)
        out.append(v / np.linalg.norm(v, axis=1, keepdims=True))
    return np.concatenate(out)
