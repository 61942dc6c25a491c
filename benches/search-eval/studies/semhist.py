#!/usr/bin/env python3
"""Offline: history votes by the local model's similarity of commit subjects, beside BM25 votes.
Reads a dump of the ranking without history (TSQ_BENCH_FEATURES_ROW="tsq, default without history evidence")."""
import collections, math, os, pickle, re, sys
import numpy as np
from common import CACHE, load, attach_logs, boosted, report
from minilm import embed, words
qs = load(sys.argv[1])
attach_logs(qs)
cache = f'{CACHE}/subj-emb.pkl'
emb = pickle.load(open(cache, 'rb')) if os.path.exists(cache) else {}
todo = sorted(({s for q in qs for s, _ in q['_log']} | {q['query'] for q in qs}) - set(emb))
print('embedding', len(todo), file=sys.stderr)
if todo:
    emb.update(zip(todo, embed(todo)))
    pickle.dump(emb, open(cache, 'wb'))
# BM25 votes as the engine computes them (relative).
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
def mk(votef, w=0.5):
    return boosted((w, votef))
rows = [('bm25 votes 0.5 (engine)', mk(bm25_votes)),
        ('sem K20 floor.5 0.5', mk(lambda q: sem_votes(q))), ('sem K20 floor.6 0.5', mk(lambda q: sem_votes(q, floor=.6))),
        ('sem K10 floor.5 0.5', mk(lambda q: sem_votes(q, K=10))), ('sem K20 floor.4 0.5', mk(lambda q: sem_votes(q, floor=.4))),
        ('sem K20 floor.5 0.3', mk(lambda q: sem_votes(q), 0.3)),
        ('bm25 + sem .5 each', mk(lambda q: {f: min(1, a + b) for f in set(bm25_votes(q)) | set(sem_votes(q)) for a, b in [(bm25_votes(q).get(f, 0), sem_votes(q).get(f, 0))]})),
        ('bm25 + sem/2', mk(lambda q: (lambda a, b: {f: min(1, a.get(f, 0) + .5 * b.get(f, 0)) for f in set(a) | set(b)})(bm25_votes(q), sem_votes(q))))]
report(qs, rows, 'no history', against_first=True)
