//! Issue 74, items 2 and 5 to 7: what a hostile checkout can make tsq
//! read or run. A committed `.tsq` is refused with the fix; git never
//! runs the checkout's fsmonitor or hooks; a source linked out of the
//! root is never read, a config that extends a device is read bounded;
//! the fallback index lives in a directory of the user's own.

use super::journals::planted_clone;
use super::{git, ok_json, peak_rss_kb, refused, repo_at, root_arg, run, store, text, tsq, TempDir};

/// A repository that commits an index: every command is refused (exit 2)
/// with the command that untracks it; once untracked, the clone's index
/// is treated as one this install did not make and answers.
#[cfg(unix)]
#[test]
fn a_committed_index_is_refused_with_the_fix() {
    let base = TempDir::new("hostile-tracked");
    let ws = base.0.join("ws");
    planted_clone(&base.0, &ws, &[("meta.json", "{}"), ("notes.txt", "committed")], &[]);
    let root = root_arg(&ws);
    for args in [vec!["index", "--root", &root, "--no-structure"], vec!["lookup", "symbol = total", "--root", &root], vec!["status", "--root", &root]] {
        let out = run(tsq(&args));
        refused(&out, "git rm -r --cached .tsq");
        assert_eq!(std::fs::read_to_string(ws.join(".tsq/meta.json")).unwrap(), "{}", "`tsq {}` wrote into the committed index", args[0]);
    }
    git(&ws, &["rm", "-r", "-q", "--cached", ".tsq"]);
    ok_json(run(tsq(&["index", "--root", &root, "--no-structure", "--json"])));
    let out = run(tsq(&["lookup", "symbol = total", "--root", &root]));
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(ws.join(".tsq/notes.txt")).unwrap(), "committed", "the user's file stays");
}

/// The checkout's own git config names an fsmonitor and hooks that
/// would write a file: publish, pull and index never run them.
#[cfg(unix)]
#[test]
fn git_never_runs_the_checkouts_fsmonitor_or_hooks() {
    let base = TempDir::new("hostile-fsmonitor");
    let ws = base.0.join("ws");
    repo_at(&ws);
    let ran = base.0.join("ran");
    let script = base.0.join("evil.sh");
    std::fs::write(&script, format!("#!/bin/sh\necho \"$0 $*\" >> {}\n", ran.display())).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let hooks = ws.join(".git/hooks");
    for hook in ["post-checkout", "pre-commit", "post-index-change", "reference-transaction"] {
        std::fs::copy(&script, hooks.join(hook)).unwrap();
    }
    git(&ws, &["config", "core.fsmonitor", script.to_str().unwrap()]);
    git(&ws, &["config", "core.pager", script.to_str().unwrap()]);
    let _ = std::fs::remove_file(&ran);
    let (_, url) = store(&base.0);
    let root = root_arg(&ws);
    ok_json(run(tsq(&["publish", "--to", &url, "--root", &root, "--json"])));
    ok_json(run(tsq(&["index", "--from", &url, "--root", &root, "--json"])));
    ok_json(run(tsq(&["index", "--root", &root, "--json"])));
    assert!(!ran.exists(), "the checkout's program ran: {}", std::fs::read_to_string(&ran).unwrap_or_default());
}

/// A source file that is a link out of the root (skipped by the walk,
/// imported by a walked file) is never read by the compiler: its text
/// (a secret's literal type) appears in no answer.
#[cfg(unix)]
#[test]
fn a_source_linked_out_of_the_root_is_never_read() {
    let base = TempDir::new("hostile-source-link");
    let ws = base.0.join("ws");
    repo_at(&ws);
    let outside = base.0.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.ts"), "export const token = \"SECRET-7f3a\" as const;\n").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.ts"), ws.join("packages/core/src/secret.ts")).unwrap();
    std::fs::write(
        ws.join("packages/core/src/leak.ts"),
        "import { token } from './secret';\nexport function leak() { return token; }\nexport const copy = token;\n",
    )
    .unwrap();
    let root = root_arg(&ws);
    ok_json(run(tsq(&["index", "--root", &root, "--json"])));
    for args in [
        vec!["lookup", "symbol = leak", "--root", &root, "--format", "json"],
        vec!["lookup", "symbol = copy", "--root", &root, "--format", "json"],
        vec!["inspect", "symbol = leak", "--root", &root, "--json"],
        vec!["search", "where is the token leaked", "--root", &root, "--format", "json"],
    ] {
        let out = run(tsq(&args));
        assert!(out.status.code() != Some(2), "{}", text(&out));
        assert!(!String::from_utf8_lossy(&out.stdout).contains("SECRET-7f3a"), "`tsq {}` read through the link: {}", args[0], text(&out));
    }
}

/// A `tsconfig.json` that extends a link to `/dev/zero`: read bounded (the
/// compiler host takes only regular files within the cap), so indexing
/// ends in bounded memory instead of reading forever.
#[cfg(unix)]
#[test]
fn a_config_that_extends_a_device_is_read_bounded() {
    let ws = TempDir::new("hostile-dev-zero");
    repo_at(&ws.0);
    std::os::unix::fs::symlink("/dev/zero", ws.0.join("zero.json")).unwrap();
    std::fs::write(ws.0.join("packages/core/tsconfig.json"), "{ \"extends\": \"../../zero.json\", \"include\": [\"src\"] }\n").unwrap();
    let Some((out, kb)) = peak_rss_kb(&tsq(&["index", "--root", &root_arg(&ws.0), "--json"])) else {
        eprintln!("SKIPPED a_config_that_extends_a_device_is_read_bounded: no /usr/bin/time (apt-get install time)");
        return;
    };
    assert!(out.status.code() == Some(0) || out.status.code() == Some(2), "{}", text(&out));
    eprintln!("peak RSS with a config extending /dev/zero: {kb} KB");
    assert!(kb < 1_500_000, "peak RSS {kb} KB: the device was read");
    let out = run(tsq(&["lookup", "symbol = total", "--root", &root_arg(&ws.0)]));
    assert!(out.status.success(), "{}", text(&out));
}

/// When `.tsq` is a file, the index goes to a directory of the user's own
/// (created 0700); one that another user made first is refused.
#[cfg(unix)]
#[test]
fn the_fallback_index_lives_in_a_private_directory() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let base = TempDir::new("hostile-fallback");
    let ws = base.0.join("ws");
    repo_at(&ws);
    std::fs::write(ws.join(".tsq"), "not a directory").unwrap();
    let cache = base.0.join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let mut c = tsq(&["index", "--root", &root_arg(&ws), "--no-structure", "--json"]);
    c.env("XDG_CACHE_HOME", &cache);
    let out = run(c);
    assert!(out.status.success(), "{}", text(&out));
    let private = cache.join("tsq");
    assert!(String::from_utf8_lossy(&out.stderr).contains(&private.display().to_string()), "says where: {}", text(&out));
    let meta = std::fs::symlink_metadata(&private).unwrap();
    assert!(meta.is_dir() && meta.permissions().mode() & 0o777 == 0o700, "{:o}", meta.permissions().mode());
    // Another user's directory, or one open to others, in its place.
    let cache2 = base.0.join("cache2");
    std::fs::create_dir_all(cache2.join("tsq")).unwrap();
    std::fs::set_permissions(cache2.join("tsq"), std::fs::Permissions::from_mode(0o777)).unwrap();
    let mut c = tsq(&["index", "--root", &root_arg(&ws), "--no-structure"]);
    c.env("XDG_CACHE_HOME", &cache2);
    refused(&run(c), "open to other users");
    if std::fs::metadata(&cache).unwrap().uid() == 0 {
        // As root, a directory owned by `nobody`.
        std::fs::set_permissions(cache2.join("tsq"), std::fs::Permissions::from_mode(0o700)).unwrap();
        let chown = std::process::Command::new("chown").arg("65534").arg(cache2.join("tsq")).status().unwrap();
        assert!(chown.success());
        let mut c = tsq(&["index", "--root", &root_arg(&ws), "--no-structure"]);
        c.env("XDG_CACHE_HOME", &cache2);
        refused(&run(c), "owned by another user");
    }
}
