#!/usr/bin/env python3
"""Offline: history votes by the local model's similarity of commit subjects, beside BM25 votes."""
import json, math, sys, os, pickle, re, collections, glob
import numpy as np, onnxruntime as ort
from tokenizers import Tokenizer
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')); sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from file_orderings import load, metrics, default, boot
from prior import log
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
qs = load(sys.argv[1])
commit = {}
for p in glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'changes-train-*.jsonl')):
    for l in open(p):
        if l.strip(): j = json.loads(l); commit[j['id']] = j['commit']
WS = {'vue': os.environ.get('TSQ_BENCH_COPIES', '/var/tmp/words') + '/tsq-bench-search-vue', 'trpc': os.environ.get('TSQ_BENCH_COPIES', '/var/tmp/words') + '/tsq-bench-search-trpc'}
def repo(q): return q['id'].split('-')[2]
held = {}
cache = os.environ.get('TSQ_STUDY_DIR', '/var/tmp/study') + '/subj-emb.pkl'
emb = pickle.load(open(cache, 'rb')) if os.path.exists(cache) else {}
for q in qs:
    r = repo(q)
    lg = log(r, commit[q['id']])
    ok = lambda f: held.setdefault(f, os.path.isfile(os.path.join(WS[r], f)))
    q['_log'] = [(s, [f for f in fs if ok(f)]) for s, fs in lg]
    q['_log'] = [(s, fs) for s, fs in q['_log'] if fs]
subjects = sorted({s for q in qs for s, _ in q['_log']} | {q['query'] for q in qs})
todo = [s for s in subjects if s not in emb]
print('embedding', len(todo), file=sys.stderr)
if todo:
    for s, v in zip(todo, embed(todo)): emb[s] = v
    pickle.dump(emb, open(cache, 'wb'))
# BM25 votes as the engine computes them (relative).
STOP = None
def terms(t): return [w[:-1] if len(w) > 3 and w.endswith('s') and not w.endswith('ss') else w for w in re.findall(r'[a-z0-9]+', words(t).lower()) if len(w) > 1]
def bm25_votes(q, K=20):
    docs = [terms(s) for s, _ in q['_log']]; qt = set(terms(q['query']))
    n = len(docs); avg = sum(map(len, docs)) / max(n, 1)
    idf = {t: math.log(1 + (n - sum(t in d for d in docs) + .5) / (sum(t in d for d in docs) + .5)) for t in qt}
    sc = []
    for i, d in enumerate(docs):
        norm = 1.2 * (1 - .75 + .75 * len(d) / max(avg, 1))
        s = sum(idf[t] * d.count(t) * 2.2 / (d.count(t) + norm) for t in qt if t in d)
        if s > 0: sc.append((s, i))
    sc.sort(key=lambda x: (-x[0], x[1]))
    own = sum(idf[t] * 2.2 / (1 + 1.2 * (1 - .75 + .75 * len(qt) / max(avg, 1))) for t in qt)
    v = collections.Counter()
    for s, i in sc[:K]:
        fs = q['_log'][i][1]
        for f in fs: v[f] += s / len(fs)
    return {f: min(x / own, 1) for f, x in v.most_common(10)} if own else {}
def sem_votes(q, K=20, floor=0.5, power=1.0, files=10):
    if not q['_log']: return {}
    S = np.stack([emb[s] for s, _ in q['_log']]); c = S @ emb[q['query']]
    top = np.argsort(-c)[:K]
    v = collections.Counter()
    for i in top:
        if c[i] <= floor: continue
        fs = q['_log'][i][1]; w = ((c[i] - floor) / (1 - floor)) ** power
        for f in fs: v[f] += w / len(fs)
    return {f: min(x, 1) for f, x in v.most_common(files)}
def mk(votef, w=0.5, take=True):
    def order(q):
        top = q['chunks'][0][1] if q['chunks'] else 1
        sc = {}
        for c in q['chunks']: sc[c[0]] = max(sc.get(c[0], 0), c[1])
        for f, v in votef(q).items():
            if f in sc: sc[f] += w * top * v
            elif take: sc[f] = w * top * v
        return sorted(sc, key=lambda k: -sc[k])
    return order
rows = [('bm25 votes 0.5 (engine)', mk(bm25_votes)),
        ('sem K20 floor.5 0.5', mk(lambda q: sem_votes(q))), ('sem K20 floor.6 0.5', mk(lambda q: sem_votes(q, floor=.6))),
        ('sem K10 floor.5 0.5', mk(lambda q: sem_votes(q, K=10))), ('sem K20 floor.4 0.5', mk(lambda q: sem_votes(q, floor=.4))),
        ('sem K20 floor.5 0.3', mk(lambda q: sem_votes(q), 0.3)),
        ('bm25 + sem .5 each', mk(lambda q: {f: min(1, a + b) for f in set(bm25_votes(q)) | set(sem_votes(q)) for a, b in [(bm25_votes(q).get(f, 0), sem_votes(q).get(f, 0))]})),
        ('bm25 + sem/2', mk(lambda q: (lambda a, b: {f: min(1, a.get(f, 0) + .5 * b.get(f, 0)) for f in set(a) | set(b)})(bm25_votes(q), sem_votes(q))))]
by = collections.defaultdict(list)
for q in qs: by[repo(q)].append(q)
for name, sub in [('all', qs)] + sorted(by.items()):
    base, bper = metrics(sub, default)
    print(f'{name} {len(sub)} q  no history  ' + ' '.join(f'{x:.3f}' for x in base))
    ref = None
    for rn, o in rows:
        m, per = metrics(sub, o)
        if ref is None: ref = per
        d, lo, hi = boot(per, ref)
        print(f'  {rn:<28}' + ' '.join(f'{x:.3f}' for x in m) + f'   vs engine-like {d:+.3f} [{lo:+.3f}, {hi:+.3f}]')
