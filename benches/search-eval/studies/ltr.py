import json, os, math, sys, random
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from file_orderings import load, metrics, default, boot, ndcg
qs = load(sys.argv[1])
NAMES = ['s2', 'rank', 'whole', 'vote', 'count', 'bm25', 'vec']
def feats(q):
    top = q['chunks'][0][1] if q['chunks'] else 1
    t = {}
    for c in q['chunks']: t.setdefault(c[0], []).append(c)
    order = []
    for c in q['chunks']:
        if c[0] not in order: order.append(c[0])
    whole = {p: s for p, s in q['whole']}; wmax = max(whole.values(), default=1) or 1
    votes = {p: v for p, v in q['votes']}; vmax = max(votes.values(), default=1) or 1
    out = {}
    for r, f in enumerate(order):
        cs = sorted((c[1] for c in t[f]), reverse=True)
        out[f] = (cs[0] / top, [cs[1] / top if len(cs) > 1 else 0, 1 / (1 + r), whole.get(f, 0) / wmax, votes.get(f, 0) / vmax,
                   math.log1p(len(cs)) / math.log1p(60), max(c[2] for c in t[f]), max(c[3] for c in t[f])])
    return out
for q in qs: q['_f'] = feats(q)
def mk(w):
    def order(q):
        return sorted(q['_f'], key=lambda f: -(q['_f'][f][0] + sum(a * b for a, b in zip(w, q['_f'][f][1]))))
    return order
def score(sub, w): return metrics(sub, mk(w))[0][0]
def fit(sub):
    w = [0.0] * len(NAMES); best = score(sub, w)
    for _ in range(3):
        for i in range(len(w)):
            for d in [-0.3, -0.2, -0.1, -0.05, 0.05, 0.1, 0.2, 0.3]:
                w2 = list(w); w2[i] += d
                s = score(sub, w2)
                if s > best + 1e-4: best, w = s, w2
    return w, best
vue = [q for q in qs if 'vue' in q['id']]; trpc = [q for q in qs if 'trpc' in q['id']]
for tr, te, name in [(vue, trpc, 'vue->trpc'), (trpc, vue, 'trpc->vue'), (qs, qs, 'all->all')]:
    w, b = fit(tr)
    base, bper = metrics(te, default); m, per = metrics(te, mk(w))
    print(name, 'w', dict(zip(NAMES, [round(x, 2) for x in w])), 'train', round(b, 3), 'test base', [round(x, 3) for x in base], 'test', [round(x, 3) for x in m], boot(per, bper))
