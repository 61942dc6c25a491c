#!/usr/bin/env python3
"""Offline: history priors (how often/recently a file changed) and co-change over the features dump."""
import collections, math, sys
from common import load, file_table, attach_logs, report

def make(w_prior=0.0, n=200, w_co=0.0, co_top=1, decay=None):
    def order(q):
        t = file_table(q)
        top = q['chunks'][0][1] if q['chunks'] else 1
        commits = q['_log']
        sc = {f: max(c[1] for c in cs) for f, cs in t.items()}
        if w_prior:
            cnt = collections.Counter()
            for i, (_, fs) in enumerate(commits[:n]):
                for f in fs:
                    cnt[f] += (decay ** i) if decay else 1.0
            mx = max((cnt[f] for f in sc), default=0)
            if mx > 0:
                for f in sc:
                    sc[f] += w_prior * top * math.log1p(cnt[f]) / math.log1p(mx)
        if w_co:
            first = sorted(sc, key=lambda f: -sc[f])[:co_top]
            for a in first:
                with_a = [fs for _, fs in commits if a in fs]
                if not with_a: continue
                co = collections.Counter(f for fs in with_a for f in fs if f != a)
                for f in sc:
                    if f != a:
                        sc[f] += w_co * top * co[f] / len(with_a)
        return sorted(sc, key=lambda f: -sc[f])
    return order

if __name__ == '__main__':
    qs = load(sys.argv[1])
    attach_logs(qs, held_only=False)
    rows = [("prior 0.1 n200", make(0.1, 200)), ("prior 0.2 n200", make(0.2, 200)), ("prior 0.1 n1000", make(0.1, 1000)),
            ("prior 0.2 n1000", make(0.2, 1000)), ("prior 0.1 n50", make(0.1, 50)), ("prior 0.2 n5000", make(0.2, 5000)),
            ("prior 0.2 decay .99", make(0.2, 5000, decay=0.99)), ("prior 0.2 decay .995", make(0.2, 5000, decay=0.995)),
            ("co 0.1", make(w_co=0.1)), ("co 0.2", make(w_co=0.2)), ("co 0.3", make(w_co=0.3)), ("co 0.2 top2", make(w_co=0.2, co_top=2)),
            ("prior 0.1 + co 0.2", make(0.1, 1000, 0.2))]
    report(qs, rows, 'default')
