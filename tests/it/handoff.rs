//! The warm hand-off (`tsq::handoff`): `tsq lookup` and `tsq impact` run
//! beside a `tsq serve` on the same workspace are answered by its warm
//! engine and print what they print when they answer themselves
//! (`--local`); a client in another environment, a private directory
//! opened to others, and a server killed mid-life all leave the command
//! answering in its own process.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::TempDir;

/// `tsq` in `dir` with the test's runtime directory; `TSQ_LOG=debug`
/// shows who answered (the log level is not part of the ticket).
fn tsq(dir: &Path, runtime: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tsq"));
    cmd.current_dir(dir).args(args).env("XDG_RUNTIME_DIR", runtime).env("TSQ_EMBEDDER", "none").env("TSQ_LOG", "debug");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn handed(o: &Output) -> bool {
    String::from_utf8_lossy(&o.stderr).contains("answered by the tsq serve at")
}

/// Whether a stderr line is progress (`tsq: <phase> 3/7`), which only a
/// command answering alone prints.
pub(crate) fn is_progress(line: &str) -> bool {
    line.rsplit(' ').next().and_then(|last| last.split_once('/')).is_some_and(|(a, b)| a.parse::<u64>().is_ok() && b.parse::<u64>().is_ok())
}

/// What a user sees: stdout, the `tsq: …` stderr lines (not the debug
/// log's, not progress), the exit code.
fn seen(o: &Output) -> (String, Vec<String>, Option<i32>) {
    let stderr = String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| (l.starts_with("tsq: ") || l.starts_with("  caused by")) && !is_progress(l))
        .map(String::from)
        .collect();
    (String::from_utf8_lossy(&o.stdout).into_owned(), stderr, o.status.code())
}

/// The socket a server made under `runtime`, waited for.
fn socket_of(runtime: &Path) -> PathBuf {
    for _ in 0..600 {
        if let Some(s) =
            std::fs::read_dir(runtime.join("tsq")).ok().and_then(|d| d.flatten().map(|e| e.path()).find(|p| p.extension().is_some_and(|x| x == "sock")))
        {
            return s;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("no socket under {}", runtime.display());
}

/// The server, killed when the test ends (a failed assertion included).
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn commands_beside_tsq_serve_are_answered_by_its_engine_and_print_what_they_print_alone() {
    use std::os::unix::fs::PermissionsExt;
    let ws = crate::impact::workspace("handoff");
    let runtime = TempDir::new("handoff-runtime");
    let log = runtime.0.join("serve.log");
    let mut server = Server(
        Command::new(env!("CARGO_BIN_EXE_tsq"))
            .args(["serve", "--listen-only", "--root"])
            .arg(&ws.0)
            .env("XDG_RUNTIME_DIR", &runtime.0)
            .env("TSQ_EMBEDDER", "none")
            .env("TSQ_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap(),
    );
    let socket = socket_of(&runtime.0);
    let run = |env: &[(&str, &str)], args: &[&str]| tsq(&ws.0, &runtime.0, env, args);
    let both = |args: &[&str]| {
        let here: Vec<&str> = std::iter::once("--local").chain(args.iter().copied()).collect();
        (run(&[], args), run(&[], &here))
    };

    // Answers, nothing found, a refused query: the same bytes and codes.
    for args in [
        &["lookup", "symbol = Base > describe"][..],
        &["lookup", "symbol = total", "--json"],
        &["lookup", "symbol = report", "--format", "concise"],
        &["lookup", "symbol = nothingNamedThis"],
        &["lookup", "symbol = a >> b"],
        &["impact", "no-such-rev"],
    ] {
        let (served, alone) = both(args);
        assert!(handed(&served), "{args:?} was answered by the server: {}", String::from_utf8_lossy(&served.stderr));
        assert!(!handed(&alone), "{args:?} --local answered alone");
        assert_eq!(seen(&served), seen(&alone), "{args:?}");
    }
    let (_, _, code) = seen(&run(&[], &["lookup", "symbol = a >> b"]));
    assert_eq!(code, Some(2));

    // An API edit: the server's re-index answers `tsq impact` as a fresh
    // process would (the same changes, dependents and tests).
    crate::impact::edit(
        &ws,
        "packages/core/src/shapes.ts",
        "describe(x: number): string {\n    return \"b\"",
        "describe(x: number, y?: number): string {\n    return \"b\"",
    );
    let served = run(&[], &["impact", "--json"]);
    assert!(handed(&served));
    let alone = run(&[], &["--local", "impact", "--json"]);
    let (a, b): (serde_json::Value, serde_json::Value) = (serde_json::from_slice(&served.stdout).unwrap(), serde_json::from_slice(&alone.stdout).unwrap());
    assert_eq!(crate::impact::changed(&a), crate::impact::changed(&b));
    assert_eq!(crate::impact::affected(&a), crate::impact::affected(&b));
    assert!(crate::impact::affected(&a).iter().any(|(_, _, name, _)| name == "report"), "{a}");
    assert_eq!(a["tests"], b["tests"]);
    // And the lookup after the edit shows the new signature.
    let (served, alone) = both(&["lookup", "symbol = Base > describe"]);
    assert!(handed(&served) && seen(&served) == seen(&alone));
    assert!(seen(&served).0.contains("y?: number"), "{}", seen(&served).0);

    // Another environment (a setting the server would not read) answers alone.
    let other = run(&[("TSQ_CALL_DEPTH", "2")], &["lookup", "symbol = total"]);
    assert!(!handed(&other) && other.status.code() == Some(0));
    assert!(String::from_utf8_lossy(&other.stderr).contains("another tsq build or environment"), "{}", String::from_utf8_lossy(&other.stderr));

    // A private directory opened to others is not used, and says so.
    let dir = runtime.0.join("tsq");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let open = run(&[], &["lookup", "symbol = total"]);
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    assert!(!handed(&open) && open.status.code() == Some(0));
    assert!(String::from_utf8_lossy(&open.stderr).contains("is not a private directory of this user"), "{}", String::from_utf8_lossy(&open.stderr));

    // A server killed mid-life leaves its socket; the next command answers alone.
    server.0.kill().unwrap();
    server.0.wait().unwrap();
    assert!(socket.exists());
    let (after, alone) = both(&["lookup", "symbol = total"]);
    assert!(!handed(&after) && after.status.code() == Some(0));
    assert_eq!(seen(&after), seen(&alone));
    let served_log = std::fs::read_to_string(&log).unwrap();
    assert!(served_log.contains("answering the CLI's commands on this workspace"), "{served_log}");
}
