"""Offline: BM25 over each file's past subjects, beside and in place of the history votes.
Reads a dump of the ranking without history (TSQ_BENCH_FEATURES_ROW="tsq, default without history evidence")."""
import collections, math, re, sys
from common import load, attach_logs, boosted, report
qs = load(sys.argv[1])
attach_logs(qs)
camel = re.compile(r'(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])')
STOP = set('a an the of to in on for and or with by from is are be as at it this that when not no into via use using'.split())
def terms(t): return [w[:-1] if len(w) > 3 and w.endswith('s') and not w.endswith('ss') else w for w in re.findall(r'[a-z0-9]+', camel.sub(' ', t).lower()) if len(w) > 1 and w not in STOP]
def bm25(docs, qt, k1=1.2, b=0.75):
    n = len(docs); avg = sum(map(len, docs.values())) / max(n, 1)
    df = collections.Counter(t for d in docs.values() for t in set(d) if t in qt)
    idf = {t: math.log(1 + (n - df[t] + .5) / (df[t] + .5)) for t in qt}
    out = {}
    for k, d in docs.items():
        c = collections.Counter(d); norm = k1 * (1 - b + b * len(d) / max(avg, 1))
        s = sum(idf[t] * c[t] * (k1 + 1) / (c[t] + norm) for t in qt if c[t])
        if s > 0: out[k] = s
    return out
def engine_votes(q, K=20):
    docs = {i: terms(s) for i, (s, _) in enumerate(q['_log'])}; qt = set(terms(q['query']))
    sc = sorted(bm25(docs, qt).items(), key=lambda x: (-x[1], x[0]))
    avg = sum(map(len, docs.values())) / max(len(docs), 1)
    n = len(docs); df = collections.Counter(t for d in docs.values() for t in set(d) if t in qt)
    own = sum(math.log(1 + (n - df[t] + .5) / (df[t] + .5)) * 2.2 / (1 + 1.2 * (1 - .75 + .75 * len(qt) / max(avg, 1))) for t in qt)
    v = collections.Counter()
    for i, s in sc[:K]:
        fs = q['_log'][i][1]
        for f in fs: v[f] += s / len(fs)
    return {f: min(x / own, 1) for f, x in v.most_common(10)} if own else {}
def file_docs(q, limit=None, per_file_cap=None):
    d = collections.defaultdict(list)
    for s, fs in q['_log'][:limit]:
        if len(fs) > 20: continue
        t = terms(s)
        for f in fs:
            d[f].extend(t)
    return d
def fh_votes(q, files=10, limit=None, b=0.75):
    sc = bm25(file_docs(q, limit), set(terms(q['query'])), b=b)
    if not sc: return {}
    mx = max(sc.values())
    return {f: s / mx for f, s in sorted(sc.items(), key=lambda x: -x[1])[:files]}
def mk(*parts, take=True):
    return boosted(*parts, take=take)
rows = [('engine votes 0.5', mk((0.5, engine_votes))),
        ('file-history 0.3', mk((0.3, fh_votes))), ('file-history 0.5', mk((0.5, fh_votes))),
        ('file-history 0.3 b0.3', mk((0.3, lambda q: fh_votes(q, b=0.3)))),
        ('file-history 0.3 last1000', mk((0.3, lambda q: fh_votes(q, limit=1000)))),
        ('engine 0.5 + fh 0.2', mk((0.5, engine_votes), (0.2, fh_votes))),
        ('engine 0.5 + fh 0.3', mk((0.5, engine_votes), (0.3, fh_votes))),
        ('engine 0.4 + fh 0.2', mk((0.4, engine_votes), (0.2, fh_votes)))]
report(qs, rows, 'no history', against_first=True)
