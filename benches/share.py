#!/usr/bin/env python3
"""The shared index on a corpus monorepo, beside a local full index.

For each corpus (../shared/corpus.sh), made a git repository of one commit:
  1. CI: `tsq publish --to s3://…` on a clean checkout (a full index with
     the default embedder, then the upload) to moto's S3 server on
     loopback (.ci/install-moto), as a real bucket would be reached;
  2. a fresh clone: `tsq index --from`, then the first structural question
     (`tsq lookup 'symbol = FILE > FN'`): seconds to the first full
     answer, bytes pulled. CI signs (a key pair from `tsq publish
     --keygen`) and the reader trusts its public key, as a team sets it
     up; another clone pulls without trusting any key (the occurrence
     index is then rebuilt locally: its rows hold the checker's text,
     which no file of the checkout can confirm);
  3. the baseline, in the same run: another fresh clone, `tsq index`
     (the full local build), then the same question;
  4. one new commit (a body-only edit of FN), published by CI from its
     index; in the first clone `git pull` and `tsq index --from` again:
     seconds and bytes of the second pull, and the files re-indexed.
Nothing here is a test; figures go to benches/README.md.

  python3 benches/share.py [--tsq PATH] [--embedder local|none] CORPUS...
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from occurrences import body_edit_target, fresh_copies, timed  # noqa: E402

MOTO = os.environ.get("TSQ_MOTO_SERVER", "/var/tmp/tsq-moto/bin/moto_server")
BUCKET = "tsq-bench"


def git(root, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.invalid", GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.invalid")
    return subprocess.run(["git", "-C", root, *args], check=True, capture_output=True, text=True, env=env).stdout.strip()


def start_moto():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = subprocess.Popen([MOTO, "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    py = os.path.join(os.path.dirname(MOTO), "python")
    code = f"import boto3; boto3.client('s3', endpoint_url='http://127.0.0.1:{port}', aws_access_key_id='t', aws_secret_access_key='t', region_name='us-east-1').create_bucket(Bucket='{BUCKET}')"
    subprocess.run([py, "-c", code], check=True)
    return p, port


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tsq", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", "/var/tmp/tsq-target"), "release", "tsq"))
    ap.add_argument("--embedder", default="local")
    ap.add_argument("corpora", nargs="+")
    a = ap.parse_args()
    moto, port = start_moto()
    env = dict(os.environ, TSQ_EMBEDDER=a.embedder, AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}", AWS_ALLOW_HTTP="true", AWS_ACCESS_KEY_ID="t", AWS_SECRET_ACCESS_KEY="t", AWS_REGION="us-east-1", AWS_EC2_METADATA_DISABLED="true")
    env.pop("TSQ_SHARE_KEY", None)
    # The normal flow is signed: CI holds the signing key, readers trust its
    # public key. An unsigned pull keeps only what the checkout confirms
    # (chunks, files, texts) and rebuilds the occurrence index locally.
    keys = json.loads(subprocess.run([a.tsq, "publish", "--keygen", "--json"], check=True, capture_output=True, text=True).stdout)
    ci_env = dict(env, TSQ_SHARE_SIGNING_KEY=keys["signingKey"])
    reader = dict(env, TSQ_SHARE_PUBLIC_KEY=keys["publicKey"])
    rows = []
    try:
        for name, work, ci in fresh_copies(a.corpora, "tsq-share"):
            url = f"s3://{BUCKET}/{name}"
            git(ci, "init", "-q")
            git(ci, "add", "-A")
            git(ci, "commit", "-qm", "base")
            rel, fn, _ = body_edit_target(ci)
            query = f"symbol = {rel} > {fn}"
            secs, rss, out, rc = timed([a.tsq, "publish", "--to", url, "--json", "--root", ci], env=ci_env)
            assert rc == 0, "publish failed"
            pub = json.loads(out)
            print(f"{name}: publish (full index + upload) {secs:.1f} s, {rss:.0f} MB peak, {pub['files']} files, {pub['bytes'] / 1e6:.1f} MB", file=sys.stderr)

            sandbox = os.path.join(work, "sandbox")
            git(work, "clone", "-q", ci, sandbox)
            t = time.monotonic()
            secs_pull, rss_pull, out, rc = timed([a.tsq, "index", "--from", url, "--json", "--root", sandbox], env=reader)
            assert rc == 0, "pull failed"
            pulled = json.loads(out)
            secs_q, _, answer, rc = timed([a.tsq, "lookup", query, "--root", sandbox], env=reader)
            first = time.monotonic() - t
            assert rc == 0 and "index: from" in answer, answer[:2000]

            # The same pull by a reader who trusts no key.
            unsigned = os.path.join(work, "unsigned")
            git(work, "clone", "-q", ci, unsigned)
            secs_unsigned, rss_unsigned, out, rc = timed([a.tsq, "index", "--from", url, "--json", "--root", unsigned], env=env)
            assert rc == 0, "unsigned pull failed"
            unsigned_pull = json.loads(out)
            shutil.rmtree(unsigned, ignore_errors=True)

            local = os.path.join(work, "local")
            git(work, "clone", "-q", ci, local)
            t = time.monotonic()
            secs_idx, rss_idx, _, rc = timed([a.tsq, "index", "--json", "--root", local], env=env)
            assert rc == 0
            secs_lq, _, local_answer, rc = timed([a.tsq, "lookup", query, "--root", local], env=env)
            first_local = time.monotonic() - t

            # One new commit: a body-only edit of FN, published from CI's index.
            p = os.path.join(ci, rel)
            text = open(p, encoding="utf-8").read()
            _, _, at = body_edit_target(ci)
            open(p, "w", encoding="utf-8").write(text[:at] + "  void 0;\n" + text[at:])
            git(ci, "commit", "-qam", "edit")
            secs_pub2, _, out, rc = timed([a.tsq, "publish", "--to", url, "--json", "--root", ci], env=ci_env)
            assert rc == 0
            pub2 = json.loads(out)
            git(sandbox, "pull", "-q", "--ff-only")
            secs_pull2, _, out, rc = timed([a.tsq, "index", "--from", url, "--json", "--root", sandbox], env=reader)
            assert rc == 0
            pulled2 = json.loads(out)
            rows.append({
                "corpus": name,
                "files": pub["files"],
                "index MB": round(pub["bytes"] / 1e6, 1),
                "first answer, fresh clone + --from (s)": round(first, 1),
                "of which pull + sync (s)": round(secs_pull, 1),
                "pulled MB": round(pulled["pulled"]["bytesPulled"] / 1e6, 1),
                "re-indexed": pulled["reindexed"],
                "trust": pulled["pulled"]["trust"],
                "dropped by the check": len(pulled["checked"]["dropped"]),
                "unsigned pull (s), peak MB, re-indexed": f"{secs_unsigned:.1f}, {rss_unsigned:.0f}, {unsigned_pull['reindexed']}",
                "first answer, local full index (s)": round(first_local, 1),
                "local tsq index (s), peak MB": f"{secs_idx:.1f}, {rss_idx:.0f}",
                "pull peak MB": round(rss_pull),
                "second publish: uploaded MB of MB, s": f"{pub2['uploadedBytes'] / 1e6:.1f} of {pub2['bytes'] / 1e6:.1f}, {secs_pub2:.1f}",
                "second pull (s)": round(secs_pull2, 1),
                "second pull: files, MB": f"{pulled2['pulled']['downloaded']} of {pulled2['pulled']['files']}, {pulled2['pulled']['bytesPulled'] / 1e6:.1f}",
                "second pull re-indexed": pulled2["reindexed"],
                "same answer": answer.split("\n", 1)[1] == local_answer.split("\n", 1)[1] if "\n" in answer else False,
            })
            shutil.rmtree(work, ignore_errors=True)
    finally:
        moto.kill()
    print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
