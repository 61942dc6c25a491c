"""What the studies share: the tuning questions' commits, each commit's
history (`git log` of its parent, as `tsq-bench changes` reads it), the
files the bench copies hold, a file ordering lifted by file-level votes,
and the report by repository."""
import collections, glob, json, os, pickle, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..'))
from file_orderings import load, metrics, default, file_table, boot  # noqa: E402,F401

CACHE = os.environ.get('TSQ_STUDY_DIR', '/var/tmp/study')
COPIES = os.environ.get('TSQ_BENCH_COPIES', '/var/tmp/words')
WS = {r: f'{COPIES}/tsq-bench-search-{r}' for r in ('vue', 'trpc')}
MIRROR = os.environ.get('TSQ_MIRROR_DIR', '/work/.mirror')
MIRRORS = {'vue': f'{MIRROR}/vuejs+core/repo', 'trpc': f'{MIRROR}/trpc+trpc/repo'}


def repo(q):
    return q['id'].split('-')[2]


def commits():
    """Each tuning question's commit, by id."""
    out = {}
    for p in glob.glob(os.path.join(HERE, '..', 'changes-train-*.jsonl')):
        for line in open(p):
            if line.strip():
                j = json.loads(line)
                out[j['id']] = j['commit']
    return out


def log(r, commit):
    """(subject, files) of the commits before `commit`, newest first, cached."""
    os.makedirs(CACHE, exist_ok=True)
    cache = f'{CACHE}/log-{commit}.pkl'
    if os.path.exists(cache):
        return pickle.load(open(cache, 'rb'))
    out = subprocess.run(['git', '--git-dir', MIRRORS[r], 'log', '--no-merges', '--no-renames', '--format=%x00%s', '--name-only', '-n', '5000', commit + '^', '--'],
                         capture_output=True, text=True).stdout
    result = []
    for e in out.split('\0')[1:]:
        lines = e.splitlines()
        result.append((lines[0] if lines else '', [l.strip() for l in lines[1:] if l.strip()]))
    pickle.dump(result, open(cache, 'wb'))
    return result


def attach_logs(qs, held_only=True):
    """Each question's history as q['_log']; with `held_only`, only the files
    the bench copy holds and the commits left with any (`retain_files`)."""
    by_id = commits()
    held = {}
    for q in qs:
        r = repo(q)
        lg = log(r, by_id[q['id']])
        if held_only:
            ok = lambda f: held.setdefault((r, f), os.path.isfile(os.path.join(WS[r], f)))
            lg = [(s, fs) for s, fs in ((s, [f for f in fs if ok(f)]) for s, fs in lg) if fs]
        q['_log'] = lg


def boosted(*parts, take=True):
    """The dump's files by their best chunk, each lifted by `w × top × vote`
    for every (w, votes) part; with `take`, voted files retrieval missed are
    taken in at their lift alone (as `history::take_in` does)."""
    def order(q):
        top = q['chunks'][0][1] if q['chunks'] else 1
        sc = {}
        for c in q['chunks']:
            sc[c[0]] = max(sc.get(c[0], 0), c[1])
        for w, votes in parts:
            for f, v in votes(q).items():
                if f in sc:
                    sc[f] += w * top * v
                elif take:
                    sc[f] = w * top * v
        return sorted(sc, key=lambda k: -sc[k])
    return order


def report(qs, rows, base='dump', against_first=False):
    """NDCG@10 / Acc@1 / Acc@5 / found of each row, overall and by repository,
    with the paired interval against the dumped ranking (or the first row)."""
    by = collections.defaultdict(list)
    for q in qs:
        by[repo(q)].append(q)
    for name, sub in [('all', qs)] + sorted(by.items()):
        m, ref = metrics(sub, default)
        print(f'{name} {len(sub)} q  {base}  ' + ' '.join(f'{x:.3f}' for x in m))
        first = None
        for label, order in rows:
            m, per = metrics(sub, order)
            if first is None:
                first = per
            d, lo, hi = boot(per, first if against_first else ref)
            print(f'  {label:<28}' + ' '.join(f'{x:.3f}' for x in m) + f'   {d:+.3f} [{lo:+.3f}, {hi:+.3f}]')
