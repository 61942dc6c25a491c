import json, math, sys, os, re, collections, glob, pickle
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')); sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from file_orderings import load, metrics, default, boot
from prior import log
qs = load(sys.argv[1])
commit = {}
for p in glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'changes-train-*.jsonl')):
    for l in open(p):
        if l.strip(): j = json.loads(l); commit[j['id']] = j['commit']
WS = {'vue': os.environ.get('TSQ_BENCH_COPIES', '/var/tmp/words') + '/tsq-bench-search-vue', 'trpc': os.environ.get('TSQ_BENCH_COPIES', '/var/tmp/words') + '/tsq-bench-search-trpc'}
def repo(q): return q['id'].split('-')[2]
held = {}
camel = re.compile(r'(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])')
STOP = set('a an the of to in on for and or with by from is are be as at it this that when not no into via use using'.split())
def terms(t): return [w[:-1] if len(w) > 3 and w.endswith('s') and not w.endswith('ss') else w for w in re.findall(r'[a-z0-9]+', camel.sub(' ', t).lower()) if len(w) > 1 and w not in STOP]
for q in qs:
    r = repo(q); lg = log(r, commit[q['id']])
    ok = lambda f: held.setdefault((r, f), os.path.isfile(os.path.join(WS[r], f)))
    q['_log'] = [(s, fs) for s, fs in ((s, [f for f in fs if ok(f)]) for s, fs in lg) if fs]
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
    def order(q):
        top = q['chunks'][0][1] if q['chunks'] else 1
        sc = {}
        for c in q['chunks']: sc[c[0]] = max(sc.get(c[0], 0), c[1])
        for w, vf in parts:
            for f, v in vf(q).items():
                if f in sc: sc[f] += w * top * v
                elif take: sc[f] = w * top * v
        return sorted(sc, key=lambda k: -sc[k])
    return order
rows = [('engine votes 0.5', mk((0.5, engine_votes))),
        ('file-history 0.3', mk((0.3, fh_votes))), ('file-history 0.5', mk((0.5, fh_votes))),
        ('file-history 0.3 b0.3', mk((0.3, lambda q: fh_votes(q, b=0.3)))),
        ('file-history 0.3 last1000', mk((0.3, lambda q: fh_votes(q, limit=1000)))),
        ('engine 0.5 + fh 0.2', mk((0.5, engine_votes), (0.2, fh_votes))),
        ('engine 0.5 + fh 0.3', mk((0.5, engine_votes), (0.3, fh_votes))),
        ('engine 0.4 + fh 0.2', mk((0.4, engine_votes), (0.2, fh_votes)))]
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
        print(f'  {rn:<28}' + ' '.join(f'{x:.3f}' for x in m) + f'   vs engine {d:+.3f} [{lo:+.3f}, {hi:+.3f}]')
