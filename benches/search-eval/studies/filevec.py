"""Offline: each file's mean vector (the bench copies' vectors.lance) as whole-file evidence."""
import collections, sys
import numpy as np, lance
from common import WS, load, repo, boosted, report
import minilm as se
qs = load(sys.argv[1])
files = {}
for r, d in WS.items():
    t = lance.dataset(d + '/.tsq/vectors.lance').to_table(columns=['relativePath', 'nodeKind', 'vector']).to_pydict()
    by = collections.defaultdict(list)
    for p, k, v in zip(t['relativePath'], t['nodeKind'], t['vector']):
        by[p].append(v)
    paths = sorted(by)
    cent = np.stack([np.mean(np.array(by[p], np.float32), 0) for p in paths])
    cent /= np.linalg.norm(cent, axis=1, keepdims=True)
    files[r] = (paths, cent, by)
    print(r, len(paths), file=sys.stderr)
qv = dict(zip([q['query'] for q in qs], se.embed([q['query'] for q in qs])))
def vec_votes(q, n=60, mode='centroid', k=3):
    paths, cent, by = files[repo(q)]
    v = qv[q['query']]
    if mode == 'centroid':
        s = cent @ v
    idx = np.argsort(-s)[:n]
    best = s[idx[0]]
    lo = s[idx[-1]]
    return {paths[i]: max(0.0, (s[i] - lo) / (best - lo)) for i in idx} if best > lo else {}
def mk(w, vf, take=False):
    return boosted((w, vf), take=take)
for q in qs: q['_fv'] = vec_votes(q)
rows = [(f'file vector {w} n60', mk(w, lambda q: q['_fv'])) for w in (0.1, 0.2, 0.3, 0.5)]
rows += [('file vector 0.2 take', mk(0.2, lambda q: dict(list(q['_fv'].items())[:10]), take=True))]
report(qs, rows, 'base')
