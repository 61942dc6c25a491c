#!/usr/bin/env python3
"""Offline file-level orderings over tsq-bench changes' TSQ_BENCH_FEATURES dump."""
import json, math, sys, random

def load(p):
    return [json.loads(l) for l in open(p) if l.strip()]

def ndcg(files, rel, k=10):
    dcg = sum(1/math.log2(i+2) for i, f in enumerate(files[:k]) if f in rel)
    idcg = sum(1/math.log2(i+2) for i in range(min(len(rel), k)))
    return dcg/idcg if idcg else 0

def metrics(qs, order):
    n = len(qs); s = [0,0,0,0]; per = []
    for q in qs:
        rel = set(q['relevant']); fs = order(q)
        v = ndcg(fs, rel); per.append(v)
        s[0] += v; s[1] += fs[:1] and fs[0] in rel; s[2] += any(f in rel for f in fs[:5]); s[3] += any(f in rel for f in fs)
    return [x/n for x in s], per

def default(q):
    seen = []; 
    for c in q['chunks']:
        if c[0] not in seen: seen.append(c[0])
    return seen

def file_table(q):
    t = {}
    for c in q['chunks']:
        t.setdefault(c[0], []).append(c)
    return t

def make(w_second=0.0, w_whole=0.0, w_vote=0.0, w_count=0.0, whole_take=0):
    def order(q):
        t = file_table(q)
        top = q['chunks'][0][1] if q['chunks'] else 1
        whole = {p: s for p, s in q['whole']}
        wmax = max(whole.values(), default=1) or 1
        votes = {p: v for p, v in q['votes']}
        files = set(t)
        if whole_take:
            files |= {p for p, _ in q['whole'][:whole_take]}
        sc = {}
        for f in files:
            cs = sorted((c[1] for c in t.get(f, [])), reverse=True)
            best = cs[0] if cs else 0
            s = best + w_second * (cs[1] if len(cs) > 1 else 0)
            s += w_whole * top * whole.get(f, 0) / wmax
            s += w_vote * top * votes.get(f, 0)
            s += w_count * top * math.log1p(len(cs)) / math.log1p(60)
            sc[f] = s
        return sorted(sc, key=lambda f: -sc[f])
    return order

def boot(a, b, n=2000):
    d = [x-y for x, y in zip(a, b)]; m = len(d); r = random.Random(1); ms = []
    for _ in range(n):
        ms.append(sum(d[r.randrange(m)] for _ in range(m))/m)
    ms.sort(); return sum(d)/m, ms[int(.025*n)], ms[int(.975*n)]

if __name__ == '__main__':
    qs = load(sys.argv[1])
    base, bper = metrics(qs, default)
    print(f"{len(qs)} q  default  " + " ".join(f"{x:.3f}" for x in base))
    rows = [("second 0.3", make(w_second=0.3)), ("second 0.5", make(w_second=0.5)),
            ("whole 0.1", make(w_whole=0.1)), ("whole 0.2", make(w_whole=0.2)), ("whole 0.3", make(w_whole=0.3)), ("whole 0.5", make(w_whole=0.5)),
            ("whole 0.2 take 10", make(w_whole=0.2, whole_take=10)),
            ("count 0.1", make(w_count=0.1)), ("count 0.2", make(w_count=0.2)),
            ("vote 0.25", make(w_vote=0.25)),
            ("whole 0.2 + vote 0.25", make(w_whole=0.2, w_vote=0.25)),
            ("whole 0.2 + second 0.3", make(w_whole=0.2, w_second=0.3))]
    for name, o in rows:
        m, per = metrics(qs, o)
        d, lo, hi = boot(per, bper)
        print(f"  {name:<26}" + " ".join(f"{x:.3f}" for x in m) + f"   {d:+.3f} [{lo:+.3f}, {hi:+.3f}]")
