import json, math, sys, os, re, collections, pickle
import numpy as np, lance
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')); sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from file_orderings import load, metrics, default, boot
import semhist_embed as se
qs = load(sys.argv[1])
def repo(q): return q['id'].split('-')[2]
WS = {'vue': os.environ.get('TSQ_BENCH_COPIES', '/var/tmp/words') + '/tsq-bench-search-vue', 'trpc': os.environ.get('TSQ_BENCH_COPIES', '/var/tmp/words') + '/tsq-bench-search-trpc'}
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
    def order(q):
        top = q['chunks'][0][1] if q['chunks'] else 1
        sc = {}
        for c in q['chunks']: sc[c[0]] = max(sc.get(c[0], 0), c[1])
        for f, v in vf(q).items():
            if f in sc: sc[f] += w * top * v
            elif take: sc[f] = w * top * v
        return sorted(sc, key=lambda k: -sc[k])
    return order
for q in qs: q['_fv'] = vec_votes(q)
rows = [(f'file vector {w} n60', mk(w, lambda q: q['_fv'])) for w in (0.1, 0.2, 0.3, 0.5)]
rows += [('file vector 0.2 take', mk(0.2, lambda q: dict(list(q['_fv'].items())[:10]), take=True))]
by = collections.defaultdict(list)
for q in qs: by[repo(q)].append(q)
for name, sub in [('all', qs)] + sorted(by.items()):
    base, bper = metrics(sub, default)
    print(f'{name} {len(sub)} q  base  ' + ' '.join(f'{x:.3f}' for x in base))
    for rn, o in rows:
        m, per = metrics(sub, o); d, lo, hi = boot(per, bper)
        print(f'  {rn:<28}' + ' '.join(f'{x:.3f}' for x in m) + f'   {d:+.3f} [{lo:+.3f}, {hi:+.3f}]')
