//! Shared test helpers: one warm engine per test binary.

#![allow(dead_code)]

pub mod inspect;
pub mod random_edits;
pub mod tsserver;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tsq::parse_pool::{FileParse, ParsePool, ParsePoolConfig};

pub fn engine() -> &'static ParsePool {
    static ENGINE: OnceLock<ParsePool> = OnceLock::new();
    ENGINE.get_or_init(|| ParsePool::new(&ParsePoolConfig::default()).expect("engine starts"))
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The workspaces of a fixture set (`fixtures/ts-ls`, `fixtures/occurrences`),
/// one directory each, in name order.
pub fn fixture_dirs(set: &str) -> Vec<PathBuf> {
    let dir = repo().join(set);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    dirs
}

/// Parses files relative to `root`, in order; panics on a skipped file.
pub fn parse(files: &[PathBuf], root: &Path) -> Vec<FileParse> {
    let mut out = Vec::new();
    engine().parse_files(files, root, &mut |r| match r {
        Ok(f) => out.push(f),
        Err(s) => panic!("{}: skipped: {}", s.path, s.message),
    });
    out
}

/// The source files of a fixture directory, sorted.
pub fn fixture_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(dir).expect("fixture dir").map(|e| e.expect("entry").path()).filter(|p| tsq::source::is_supported(p)).collect();
    files.sort();
    files
}

/// Corpus directories from `../shared/corpus.sh` (fetched from the npm
/// registry on first use, cached after). `None` when the script is absent.
pub fn corpora(names: &[&str]) -> Option<Vec<(String, PathBuf)>> {
    let script = repo().join("../shared/corpus.sh");
    if !script.exists() {
        return None;
    }
    let output = std::process::Command::new("bash").arg(&script).args(names).output().ok()?;
    assert!(output.status.success(), "corpus.sh failed: {}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout).ok()?;
    Some(text.lines().filter_map(|l| l.split_once('\t')).map(|(n, d)| (n.to_string(), PathBuf::from(d))).collect())
}

/// Compares `actual` with the golden file at `path` (writing it instead
/// under `TSQ_BLESS=1`); a difference is pushed to `failures` with the
/// first differing line. JSON goldens are compared as parsed values.
pub fn golden(path: &Path, actual: &str, failures: &mut Vec<String>) {
    if std::env::var_os("TSQ_BLESS").is_some() {
        std::fs::write(path, actual).unwrap();
        return;
    }
    let Ok(expected) = std::fs::read_to_string(path) else {
        failures.push(format!("{}: missing golden", path.display()));
        return;
    };
    let same = match (serde_json::from_str::<serde_json::Value>(&expected), serde_json::from_str::<serde_json::Value>(actual)) {
        (Ok(e), Ok(a)) if path.extension().is_some_and(|x| x == "json") => e == a,
        _ => expected == actual,
    };
    if !same {
        let at = expected.lines().zip(actual.lines()).position(|(a, b)| a != b).unwrap_or(0);
        failures.push(format!(
            "{}: differs at line {}\n  expected: {}\n  actual:   {}",
            path.display(),
            at + 1,
            expected.lines().nth(at).unwrap_or(""),
            actual.lines().nth(at).unwrap_or("")
        ));
    }
}

/// A directory under the system temp dir, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// An empty directory `tsq-<name>-<pid>`.
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("tsq-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// A copy of `src` (without any `.tsq/` index in it).
    pub fn copy_of(src: &Path, name: &str) -> TempDir {
        let t = TempDir::new(name);
        copy_tree(src, &t.0);
        t
    }

    pub fn write(&self, rel: &str, bytes: &[u8]) -> PathBuf {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Copies a tree, leaving out `.tsq/` (an index a README run may have left).
pub fn copy_tree(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let to = dst.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            if e.file_name() != ".tsq" {
                copy_tree(&e.path(), &to);
            }
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
}

/// `tsq serve` as a child process, its stdio as an rmcp transport: stdout
/// is read, stdin written. The child is killed when the transport's owner
/// drops it. (Spawned with tokio::process rather than rmcp's child-process
/// transport, whose extra dependencies would give the tests a feature set
/// the binary does not have.)
#[allow(dead_code)]
pub fn serve_stdio(mut cmd: tokio::process::Command) -> std::io::Result<(tokio::process::ChildStdout, tokio::process::ChildStdin, tokio::process::Child)> {
    use std::process::Stdio;
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).kill_on_drop(true);
    let mut child = cmd.spawn()?;
    let stdout = child.stdout.take().expect("piped stdout");
    let stdin = child.stdin.take().expect("piped stdin");
    Ok((stdout, stdin, child))
}

/// The workspaces both random-edit tests (structure, occurrences) edit,
/// each with its seed: two multi-file fixtures and, when
/// `../shared/corpus.sh` is there, rxjs's `internal/util`.
pub fn random_edit_workspaces(repo: &std::path::Path) -> Vec<(String, std::path::PathBuf, u64)> {
    let mut workspaces: Vec<(String, std::path::PathBuf, u64)> = vec![
        ("multi-project".into(), repo.join("fixtures/ts-ls/multi-project"), 0x9e37_79b9_7f4a_7c15u64),
        ("cross-module".into(), repo.join("fixtures/ts-ls/cross-module"), 0xdead_beef_cafe_f00d),
    ];
    match corpora(&["rxjs"]).and_then(|c| c.into_iter().next()) {
        Some((_, dir)) => workspaces.push(("rxjs internal/util".into(), dir.join("internal/util"), 0x0123_4567_89ab_cdef)),
        None => eprintln!("skipped the rxjs slice: ../shared/corpus.sh is not there"),
    }
    workspaces
}

/// A deterministic Ed25519 key pair named `name` (hex private seed, hex
/// public key) for the shared-index tests: `tsq publish` signs with the
/// first (`TSQ_SHARE_SIGNING_KEY`), readers verify with the second.
#[allow(dead_code)]
pub fn test_key_pair(name: &str) -> (String, String) {
    use sha2::Digest;
    let seed: String = sha2::Sha256::digest(name.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    let key = tsq::share::sign::signing_key(&seed).expect("a 32-byte seed");
    let public: String = key.verifying_key().as_bytes().iter().map(|b| format!("{b:02x}")).collect();
    (seed, public)
}

/// `git -C dir args…` with a fixed author; its trimmed stdout. Panics
/// with git's message when it fails.
#[allow(dead_code)]
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "tsq")
        .env("GIT_AUTHOR_EMAIL", "tsq@example.invalid")
        .env("GIT_COMMITTER_NAME", "tsq")
        .env("GIT_COMMITTER_EMAIL", "tsq@example.invalid")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// An answer's text without its header's backend parts (`structure: …`,
/// the token count, which covers that part too): what the rows and the
/// live Language Service must agree on.
pub fn without_backends(text: &str) -> String {
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let first: Vec<&str> = first.split(" | ").filter(|p| !p.contains("structure: ") && !p.ends_with(" tokens")).collect();
    format!("{}\n{rest}", first.join(" | "))
}

/// Fresh checkers the occurrence pass's memory bound started, summed over
/// a `TSQ_LOG=debug` log (`Workspace::occurrences`' debug line).
pub fn fresh_checkers(log: &str) -> u32 {
    bound_count(log, "memory bound: the request went on with fresh checkers", "fresh_checkers=")
}

/// Collections inside files by the same bound, summed over such a log.
pub fn collected_inside(log: &str) -> u32 {
    bound_count(log, "memory bound: collected inside files", "collected_inside=")
}

fn bound_count(log: &str, message: &str, field: &str) -> u32 {
    log.lines().filter(|l| l.contains(message)).filter_map(|l| l.split(field).nth(1)?.split_whitespace().next()?.parse::<u32>().ok()).sum()
}
