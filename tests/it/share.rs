//! The shared team index (`tsq publish --to`, `tsq index --from`,
//! `[share] from` in `tsq serve`) against a real S3-compatible server on
//! loopback: moto's server (`.ci/install-moto`, pinned), started by each
//! test on its own port. Without moto a test says SKIPPED and why; CI
//! installs it and fails when it cannot.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use common::{git, TempDir};
use serde_json::Value;

const BUCKET: &str = "tsq-share";

fn moto_bin() -> Option<PathBuf> {
    let bin = std::env::var_os("TSQ_MOTO_SERVER").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/var/tmp/tsq-moto/bin/moto_server"));
    bin.is_file().then_some(bin)
}

/// moto's S3 server on a free loopback port, with the bucket created;
/// killed on drop. `None` (a recorded skip) when moto is not installed.
struct Moto {
    child: Child,
    port: u16,
    python: PathBuf,
}

impl Moto {
    fn start(test: &str) -> Option<Moto> {
        let Some(bin) = moto_bin() else {
            eprintln!("SKIPPED {test}: no moto S3 server (run .ci/install-moto, which installs moto[server] into /var/tmp/tsq-moto, or set TSQ_MOTO_SERVER)");
            return None;
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(&bin).args(["-H", "127.0.0.1", "-p", &port.to_string()]).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        let python = bin.with_file_name("python");
        let moto = Moto { child, port, python };
        // Up to 600 tries 100 ms apart: moto starts in a few seconds.
        let listening = (0..600).any(|_| {
            let up = std::net::TcpStream::connect(("127.0.0.1", port)).is_ok();
            if !up {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            up
        });
        assert!(listening, "moto_server never listened on 127.0.0.1:{port}");
        moto.python("s3.create_bucket(Bucket=BUCKET)");
        Some(moto)
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Runs boto3 code against the server (`s3`, `BUCKET` defined): the
    /// tests' hands on the bucket, apart from tsq's own client.
    fn python(&self, code: &str) -> String {
        let script = format!(
            "import boto3, json, sys\ns3 = boto3.client('s3', endpoint_url='{}', aws_access_key_id='test', aws_secret_access_key='test', region_name='us-east-1')\nBUCKET = '{BUCKET}'\n{code}\n",
            self.endpoint()
        );
        let out = Command::new(&self.python).arg("-c").arg(script).output().unwrap();
        assert!(out.status.success(), "boto3: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A git repository of the multi-project fixture, one commit.
fn origin(name: &str) -> TempDir {
    let t = TempDir::copy_of(&common::repo().join("fixtures/ts-ls/multi-project"), name);
    git(&t.0, &["init", "-q"]);
    git(&t.0, &["add", "-A"]);
    git(&t.0, &["commit", "-qm", "base"]);
    t
}

fn clone(from: &Path, name: &str) -> TempDir {
    let t = TempDir::new(name);
    std::fs::remove_dir_all(&t.0).unwrap();
    let out = Command::new("git").args(["clone", "-q"]).arg(from).arg(&t.0).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    t
}

fn commit_edit(repo: &Path, rel: &str, from: &str, to: &str) -> String {
    edit(repo, rel, from, to);
    git(repo, &["commit", "-qam", "edit"]);
    git(repo, &["rev-parse", "HEAD"])
}

fn edit(repo: &Path, rel: &str, from: &str, to: &str) {
    let p = repo.join(rel);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{rel} lacks {from:?}");
    std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
}

/// `tsq` with the S3 environment of `moto` (or none), BM25 only, and the
/// signing key `key`.
fn tsq(moto: Option<&Moto>, key: Option<&str>, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tsq"));
    c.args(args)
        .env("TSQ_EMBEDDER", "none")
        .env_remove("TSQ_SHARE_KEY")
        .env_remove("TSQ_SHARE_FROM")
        .env_remove("TSQ_SHARE_SIGNING_KEY")
        .env_remove("TSQ_SHARE_PUBLIC_KEY");
    // Nothing of the developer's own AWS setup.
    for var in ["AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3", "AWS_DEFAULT_REGION", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"] {
        c.env_remove(var);
    }
    if let Some(m) = moto {
        c.env("AWS_ENDPOINT_URL", m.endpoint())
            .env("AWS_ALLOW_HTTP", "true")
            .env("AWS_ACCESS_KEY_ID", "test")
            .env("AWS_SECRET_ACCESS_KEY", "test")
            .env("AWS_REGION", "us-east-1")
            .env("AWS_EC2_METADATA_DISABLED", "true");
    }
    if let Some(k) = key {
        let (private, public) = common::test_key_pair(k);
        c.env("TSQ_SHARE_SIGNING_KEY", private).env("TSQ_SHARE_PUBLIC_KEY", public);
    }
    c
}

/// The team's key: signed and trusted (the user's `TSQ_SHARE_PUBLIC_KEY`),
/// a pull keeps the occurrence rows; an unsigned one rebuilds them here
/// (README, "Threat model").
const TEAM: Option<&str> = Some("team");

fn run(mut c: Command) -> Output {
    c.output().unwrap()
}

fn ok_json(out: Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn publish(moto: Option<&Moto>, key: Option<&str>, url: &str, root: &Path) -> Value {
    ok_json(run(tsq(moto, key, &["publish", "--to", url, "--json", "--root", root.to_str().unwrap()])))
}

fn pull(moto: Option<&Moto>, key: Option<&str>, url: &str, root: &Path) -> Output {
    run(tsq(moto, key, &["index", "--from", url, "--json", "--root", root.to_str().unwrap()]))
}

fn lookup(root: &Path, query: &str) -> Value {
    ok_json(run(tsq(None, None, &["lookup", query, "--json", "--call-depth", "2", "--root", root.to_str().unwrap()])))
}

fn lookup_text(root: &Path, query: &str) -> String {
    let out = run(tsq(None, None, &["lookup", query, "--root", root.to_str().unwrap()]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn refused(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "expected a refusal (exit 2) mentioning {needle:?}; stderr: {err}");
    assert!(err.contains(needle), "stderr lacks {needle:?}: {err}");
}

/// Nothing of an index was left in `root` (a refused pull where there
/// was no index leaves no `.tsq/`).
fn no_index(root: &Path) {
    assert!(!root.join(".tsq").exists(), "an index was left in {}", root.display());
}

#[test]
fn a_pulled_index_answers_as_a_local_one_and_later_pulls_copy_only_new_files() {
    let Some(moto) = Moto::start("a_pulled_index_answers_as_a_local_one_and_later_pulls_copy_only_new_files") else { return };
    let url = format!("s3://{BUCKET}/team");
    let ci = origin("share-ci");
    let head = git(&ci.0, &["rev-parse", "HEAD"]);
    let first = publish(Some(&moto), TEAM, &url, &ci.0);
    assert_eq!(first["commit"], head.as_str());
    assert_eq!(first["alreadyPublished"], false);
    let files = first["files"].as_u64().unwrap();
    assert!(files > 5, "{first}");
    // The objects and the manifest are really in the bucket: one object
    // per distinct content, each uploaded once.
    let listed = moto.python("print('\\n'.join(o['Key'] for o in s3.list_objects_v2(Bucket=BUCKET, Prefix='team/')['Contents']))");
    assert!(listed.lines().any(|k| k.starts_with("team/indexes/") && k.ends_with(&format!("/{head}.json"))), "{listed}");
    let objects = listed.lines().filter(|k| k.starts_with("team/objects/")).count() as u64;
    assert!(objects > 5 && objects <= files, "{listed}");
    assert_eq!(first["uploaded"].as_u64(), Some(objects), "{first}");

    // A fresh clone pulls everything and re-indexes nothing.
    let sandbox = clone(&ci.0, "share-sandbox");
    let got = ok_json(pull(Some(&moto), TEAM, &url, &sandbox.0));
    assert_eq!(got["pulled"]["commit"], head.as_str(), "{got}");
    assert_eq!(got["pulled"]["downloaded"].as_u64(), Some(files), "{got}");
    assert_eq!(got["reindexed"], 0, "{got}");

    // Its answers are a local full index's.
    let local = clone(&ci.0, "share-local");
    ok_json(run(tsq(None, None, &["index", "--json", "--root", local.0.to_str().unwrap()])));
    for q in ["symbol = add", "symbol = checkout", "symbol = Money"] {
        assert_eq!(lookup(&sandbox.0, q)["results"], lookup(&local.0, q)["results"], "{q}");
    }
    let text = lookup_text(&sandbox.0, "symbol = add");
    assert!(text.contains(&format!("index: from {url}@{}", &head[..12])), "{text}");
    assert!(text.contains("Called by: checkout (packages/app/src/main.ts)"), "{text}");

    // An edit on top re-indexes the edited file alone.
    edit(&sandbox.0, "packages/core/src/math.ts", "return a + b;", "void 0;\n  return a + b;");
    let synced = ok_json(run(tsq(None, None, &["index", "--json", "--root", sandbox.0.to_str().unwrap()])));
    assert_eq!((synced["parsed"].as_u64(), synced["occurrences"]["indexed"].as_u64()), (Some(1), Some(1)), "{synced}");
    git(&sandbox.0, &["checkout", "--", "."]);

    // One new commit, published; the next pull downloads only new files.
    let second_head = commit_edit(&ci.0, "packages/app/src/main.ts", "currency: 'EUR'", "currency: 'USD'");
    let second = publish(Some(&moto), TEAM, &url, &ci.0);
    assert!(second["uploaded"].as_u64().unwrap() < second["files"].as_u64().unwrap(), "every object uploaded again: {second}");
    git(&sandbox.0, &["pull", "-q", "--ff-only"]);
    let again = ok_json(pull(Some(&moto), TEAM, &url, &sandbox.0));
    assert_eq!(again["pulled"]["commit"], second_head.as_str(), "{again}");
    let (downloaded, all) = (again["pulled"]["downloaded"].as_u64().unwrap(), again["pulled"]["files"].as_u64().unwrap());
    assert!(downloaded < all && again["pulled"]["reused"].as_u64().unwrap() > 0, "{again}");
    assert_eq!(again["reindexed"], 0, "{again}");
    let text = lookup_text(&sandbox.0, "symbol = checkout");
    assert!(text.contains("currency: 'USD'"), "{text}");
}

#[test]
fn an_ancestors_index_is_used_when_head_has_none_and_only_the_difference_is_reindexed() {
    let Some(moto) = Moto::start("an_ancestors_index_is_used_when_head_has_none_and_only_the_difference_is_reindexed") else { return };
    let url = format!("s3://{BUCKET}/ancestors");
    let ci = origin("share-anc-ci");
    let published = git(&ci.0, &["rev-parse", "HEAD"]);
    publish(Some(&moto), TEAM, &url, &ci.0);
    let dev = clone(&ci.0, "share-anc-dev");
    let head = commit_edit(&dev.0, "packages/core/src/math.ts", "return a + b;", "void 0;\n  return a + b;");
    let got = ok_json(pull(Some(&moto), TEAM, &url, &dev.0));
    assert_eq!((got["pulled"]["commit"].as_str(), got["pulled"]["head"].as_str()), (Some(published.as_str()), Some(head.as_str())), "{got}");
    assert_eq!(got["reindexed"], 1, "{got}");
    assert_eq!(got["index"]["occurrences"]["indexed"], 1, "{got}");
    let text = lookup_text(&dev.0, "symbol = add");
    assert!(text.contains("void 0;") && text.contains("1 files re-indexed locally"), "{text}");

    // Nothing published for any ancestor: a local build, and it says so.
    let other = origin("share-anc-other");
    let got = ok_json(pull(Some(&moto), TEAM, &url, &other.0));
    assert!(got["pulled"].is_null() && got["fallback"].as_str().unwrap().contains("built locally"), "{got}");
    assert!(lookup_text(&other.0, "symbol = add").contains("export function add"));
}

#[test]
fn tampered_wrong_version_and_wrongly_signed_indexes_are_refused() {
    let Some(moto) = Moto::start("tampered_wrong_version_and_wrongly_signed_indexes_are_refused") else { return };
    let ci = origin("share-bad-ci");
    let head = git(&ci.0, &["rev-parse", "HEAD"]);

    // Signed with k1: refused under k2, taken under k1.
    let signed = format!("s3://{BUCKET}/signed");
    assert_eq!(publish(Some(&moto), Some("k1"), &signed, &ci.0)["signed"], true);
    let reader = clone(&ci.0, "share-bad-reader");
    refused(&pull(Some(&moto), Some("k2"), &signed, &reader.0), "signature does not match");
    no_index(&reader.0);
    let got = ok_json(pull(Some(&moto), Some("k1"), &signed, &reader.0));
    assert_eq!(got["pulled"]["trust"], "verified", "{got}");

    // Unsigned: refused when a key is configured.
    let unsigned = format!("s3://{BUCKET}/unsigned");
    publish(Some(&moto), None, &unsigned, &ci.0);
    let reader = clone(&ci.0, "share-bad-reader2");
    refused(&pull(Some(&moto), Some("k1"), &unsigned, &reader.0), "unsigned");
    no_index(&reader.0);

    // One object's bytes changed in the bucket: refused, nothing installed.
    let key = moto.python("print([o['Key'] for o in s3.list_objects_v2(Bucket=BUCKET, Prefix='unsigned/objects/')['Contents'] if o['Size'] > 0][0])");
    moto.python(&format!("s3.put_object(Bucket=BUCKET, Key='{}', Body=b'not the index')", key.trim()));
    refused(&pull(Some(&moto), None, &unsigned, &reader.0), "does not match the manifest");
    no_index(&reader.0);

    // A manifest claiming another TypeScript: refused.
    let manifest = moto.python(&format!(
        "print([o['Key'] for o in s3.list_objects_v2(Bucket=BUCKET, Prefix='signed/indexes/')['Contents'] if o['Key'].endswith('/{head}.json')][0])"
    ));
    let manifest = manifest.trim();
    moto.python(&format!(
        "m = json.loads(s3.get_object(Bucket=BUCKET, Key='{manifest}')['Body'].read()); m['key']['typescript'] = '5.0.0'; m.pop('signature'); s3.put_object(Bucket=BUCKET, Key='{manifest}', Body=json.dumps(m).encode())"
    ));
    let reader = clone(&ci.0, "share-bad-reader3");
    refused(&pull(Some(&moto), None, &signed, &reader.0), "TypeScript 5.0.0");
    no_index(&reader.0);

    // A pull refused over an existing index leaves it as it was.
    let kept = clone(&ci.0, "share-bad-kept");
    ok_json(run(tsq(None, None, &["index", "--json", "--root", kept.0.to_str().unwrap()])));
    refused(&pull(Some(&moto), None, &signed, &kept.0), "TypeScript 5.0.0");
    assert!(lookup_text(&kept.0, "symbol = add").contains("Called by: checkout"));
}

#[test]
fn concurrent_publishers_of_one_commit_or_two_both_end_consistent() {
    let Some(moto) = Moto::start("concurrent_publishers_of_one_commit_or_two_both_end_consistent") else { return };
    let url = format!("s3://{BUCKET}/race");
    let ci = origin("share-race-ci");
    let (a, b) = (clone(&ci.0, "share-race-a"), clone(&ci.0, "share-race-b"));
    // Indexed first, so that the two uploads overlap.
    for r in [&a, &b] {
        ok_json(run(tsq(None, None, &["index", "--json", "--root", r.0.to_str().unwrap()])));
    }
    let spawn = |root: &Path| {
        tsq(Some(&moto), TEAM, &["publish", "--to", &url, "--json", "--root", root.to_str().unwrap()])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (pa, pb) = (spawn(&a.0), spawn(&b.0));
    let (ra, rb) = (ok_json(pa.wait_with_output().unwrap()), ok_json(pb.wait_with_output().unwrap()));
    let firsts = [&ra, &rb].iter().filter(|r| r["alreadyPublished"] == false).count();
    assert!(firsts >= 1, "neither publisher wrote the manifest: {ra} {rb}");
    let reader = clone(&ci.0, "share-race-reader");
    let got = ok_json(pull(Some(&moto), TEAM, &url, &reader.0));
    assert_eq!(got["reindexed"], 0, "{got}");

    // Two commits at once: both published, each pullable.
    let c1 = commit_edit(&a.0, "packages/app/src/main.ts", "currency: 'EUR'", "currency: 'GBP'");
    let c2 = commit_edit(&b.0, "packages/app/src/main.ts", "currency: 'EUR'", "currency: 'JPY'");
    let (pa, pb) = (spawn(&a.0), spawn(&b.0));
    let (ra, rb) = (ok_json(pa.wait_with_output().unwrap()), ok_json(pb.wait_with_output().unwrap()));
    assert_eq!((ra["commit"].as_str(), rb["commit"].as_str()), (Some(c1.as_str()), Some(c2.as_str())));
    assert_eq!((ra["alreadyPublished"].as_bool(), rb["alreadyPublished"].as_bool()), (Some(false), Some(false)));
    for (repo, commit, currency) in [(&a, &c1, "GBP"), (&b, &c2, "JPY")] {
        let reader = clone(&repo.0, &format!("share-race-{currency}"));
        let got = ok_json(pull(Some(&moto), TEAM, &url, &reader.0));
        assert_eq!(got["pulled"]["commit"], commit.as_str(), "{got}");
        assert_eq!(got["reindexed"], 0, "{got}");
        assert!(lookup_text(&reader.0, "symbol = checkout").contains(&format!("currency: '{currency}'")));
    }
}

#[test]
fn file_urls_dirty_checkouts_and_bad_urls() {
    let ci = origin("share-file-ci");
    let store = TempDir::new("share-file-store");
    let url = format!("file://{}", store.0.display());
    // A dirty checkout is not published.
    edit(&ci.0, "packages/core/src/math.ts", "return a + b;", "return b + a;");
    refused(&run(tsq(None, None, &["publish", "--to", &url, "--root", ci.0.to_str().unwrap()])), "differs from HEAD");
    git(&ci.0, &["checkout", "--", "."]);
    publish(None, TEAM, &url, &ci.0);
    let reader = clone(&ci.0, "share-file-reader");
    let got = ok_json(pull(None, TEAM, &url, &reader.0));
    assert_eq!(got["reindexed"], 0, "{got}");
    assert!(lookup_text(&reader.0, "symbol = total").contains(&format!("index: from {url}@")));
    for (bad, why) in [("http://example.invalid/x", "unsupported scheme"), ("file://relative/dir", "absolute path"), ("s3://", "no bucket")] {
        refused(&pull(None, None, bad, &reader.0), why);
    }
    // Not a git checkout: said so.
    let plain = TempDir::copy_of(&common::repo().join("fixtures/ts-ls/multi-project"), "share-file-plain");
    refused(&pull(None, None, &url, &plain.0), "not a git checkout");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tsq_serve_pulls_the_configured_share_on_start() -> anyhow::Result<()> {
    let ci = origin("share-serve-ci");
    let store = TempDir::new("share-serve-store");
    let url = format!("file://{}", store.0.display());
    publish(None, None, &url, &ci.0);
    let reader = clone(&ci.0, "share-serve-reader");
    std::fs::write(reader.0.join("tsq.toml"), format!("[share]\nfrom = \"{url}\"\n"))?;
    // The server's log goes to a file, so that a failure shows what it did.
    let logs = TempDir::new("share-serve-log");
    let config = logs.0.join("user-config");
    std::fs::create_dir_all(&config)?;
    let ask = |log: std::path::PathBuf| {
        let (root, config) = (reader.0.clone(), config.clone());
        async move {
            match serve_and_ask(&root, &log, &config).await {
                Ok(text) => Ok((text.clone(), format!("{text}\n--- tsq serve's log ---\n{}", std::fs::read_to_string(&log).unwrap_or_default()))),
                Err(e) => anyhow::bail!("{e:#}\n--- tsq serve's log ---\n{}", std::fs::read_to_string(&log).unwrap_or_default()),
            }
        }
    };
    // Issue 74: a store only the checkout names is not pulled on start
    // (a hostile checkout would name its own), and the log says how to
    // allow it.
    let (text, said) = ask(logs.0.join("untrusted.log")).await?;
    assert!(!text.contains("index: from"), "{said}");
    assert!(said.contains("named only by the checkout") && said.contains("tsq trust"), "{said}");
    // Once the user trusts it, serve pulls it.
    let mut trust = tsq(None, None, &["trust", "--root", reader.0.to_str().unwrap()]);
    trust.env("XDG_CONFIG_HOME", &config);
    assert!(run(trust).status.success());
    let (text, said) = ask(logs.0.join("serve.log")).await?;
    assert!(text.contains(&format!("index: from {url}@")), "{said}");
    assert!(text.contains("Called by: checkout (packages/app/src/main.ts)"), "{said}");
    Ok(())
}

/// `tsq serve --root root` (log in `log`, the user's config directory
/// `config`) asked `symbol = add`: its answer.
async fn serve_and_ask(root: &Path, log: &Path, config: &Path) -> anyhow::Result<String> {
    use anyhow::Context;
    use rmcp::model::CallToolRequestParams;
    use rmcp::ServiceExt;
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_tsq"));
    cmd.arg("serve")
        .arg("--root")
        .arg(root)
        .env("TSQ_EMBEDDER", "none")
        .env("TSQ_LOG", "debug")
        .env("XDG_CONFIG_HOME", config)
        .env_remove("TSQ_SHARE_KEY")
        .env_remove("TSQ_SHARE_FROM")
        .env_remove("TSQ_SHARE_PUBLIC_KEY")
        .stderr(std::fs::File::create(log)?);
    let (stdout, stdin, mut child) = common::serve_stdio(cmd).context("starting tsq serve")?;
    let client = ().serve((stdout, stdin)).await.context("the MCP handshake")?;
    let args = serde_json::json!({ "query": "symbol = add" }).as_object().unwrap().clone();
    let asked = client.call_tool(CallToolRequestParams::new("codebase_search").with_arguments(args)).await;
    let r = match asked {
        Ok(r) => r,
        Err(e) => {
            let status = child.try_wait().ok().flatten();
            anyhow::bail!("codebase_search failed: {e} (tsq serve: {})", status.map_or("still running".to_string(), |s| s.to_string()));
        }
    };
    let text: String = r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n");
    client.cancel().await.context("closing the MCP session")?;
    Ok(text)
}
