import json, os, sys, re, collections
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from file_orderings import load, metrics, default, boot
qs = load(sys.argv[1])
def pkg(f, depth):
    parts = f.split('/')
    return '/'.join(parts[:depth]) if depth else '/'.join(parts[:-1])
def mk(pen, depth):
    def order(q):
        sc = {}
        for c in q['chunks']: sc[c[0]] = max(sc.get(c[0], 0), c[1])
        left = dict(sc); out = []; seen = collections.Counter()
        while left:
            f = max(left, key=lambda k: left[k] * (pen ** seen[pkg(k, depth)]))
            out.append(f); seen[pkg(f, depth)] += 1; del left[f]
        return out
    return order
by = collections.defaultdict(list)
for q in qs: by[q['id'].split('-')[2]].append(q)
for name, sub in [('all', qs)] + sorted(by.items()):
    base, bper = metrics(sub, default); print(name, [round(x, 3) for x in base])
    for pen in [1.05, 1.1, 1.2]:
        for depth in [0, 2, 4]:
            m, per = metrics(sub, mk(pen, depth)); d = boot(per, bper)
            print(f'  pen {pen} depth {depth}', [round(x, 3) for x in m], f'{d[0]:+.3f} [{d[1]:+.3f}, {d[2]:+.3f}]')
