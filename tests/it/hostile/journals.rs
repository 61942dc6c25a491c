//! Planted swap journals (issue 74): a committed journal whose staging
//! areas link into a sibling's index, a journal this install did not seal,
//! and a killed swap that only the install that sealed it finishes.

use super::*;

/// The attacker's repository: the fixture, plus a commit that plants
/// `files` and `links` (path, target) under `.tsq/`, as `git add -f` keeps
/// them; then the victim's fresh clone at `to`.
#[cfg(unix)]
pub(super) fn planted_clone(base: &Path, to: &Path, files: &[(&str, &str)], links: &[(String, String)]) {
    let evil = base.join(format!("{}-origin", to.file_name().unwrap().to_string_lossy()));
    repo_at(&evil);
    for (rel, text) in files {
        let p = evil.join(".tsq").join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    for (rel, target) in links {
        let p = evil.join(".tsq").join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, p).unwrap();
    }
    git(&evil, &["add", "-f", ".tsq"]);
    git(&evil, &["commit", "-qm", "cache"]);
    clone(&evil, to);
}

/// The path a refusal names (`refusing to use <path>: <why>`).
#[cfg(unix)]
fn refused_path(out: &Output) -> PathBuf {
    let err = String::from_utf8_lossy(&out.stderr);
    let from = err.find("refusing to use ").unwrap_or_else(|| panic!("not a refusal: {}", text(out))) + "refusing to use ".len();
    let len = err[from..].find(": ").unwrap();
    PathBuf::from(&err[from..from + len])
}

/// The names of `.tsq/` entries tsq set aside (`refused-…`).
fn set_aside(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root.join(".tsq"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("refused-"))
        .collect();
    names.sort();
    names
}

const NOT_ACTED_ON: &str = "a swap journal this tsq will not act on";

/// Issue 74: a repository commits `.tsq/swap.json` and staging areas that
/// link into a sibling project's index, which a swap rolled forward
/// would rename into place (and Lance then write through). In a fresh
/// clone every command is refused before anything moves, naming the link
/// to remove; the sibling stays byte for byte as it was; once the named
/// links are gone, the journal is set aside (never rolled forward) and
/// the clone indexes and answers.
#[cfg(unix)]
#[test]
fn a_committed_journal_with_staging_links_never_reaches_a_sibling() {
    let base = TempDir::new("hostile-staged-links");
    let other = base.0.join("other");
    repo_at(&other);
    // A file the clone lacks: a sync of the clone through a link would
    // delete its rows.
    std::fs::write(other.join("packages/core/src/only_here.ts"), "export function onlyHere(): number { return 1; }\n").unwrap();
    ok_json(run(tsq(&["index", "--root", &root_arg(&other), "--no-structure", "--json"])));
    let mut tables: Vec<String> = std::fs::read_dir(other.join(".tsq"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".lance"))
        .collect();
    tables.sort();
    assert!(tables.contains(&"chunks.lance".to_string()), "{tables:?}");
    let before = snapshot(&other);
    // Plausible for the tsq that had no seal (`tsq-swap-1`), with a seal
    // this install never made.
    let journal = format!(r#"{{"magic":"tsq-swap-1","entries":{},"seal":"{}"}}"#, serde_json::to_string(&tables).unwrap(), "ab".repeat(32));
    // What the attack is, the files it plants, its links (path, target).
    type Shape<'a> = (&'a str, Vec<(&'a str, &'a str)>, Vec<(String, String)>);
    // Each link resolves into the sibling once it is where the swap puts it.
    let shapes: Vec<Shape<'_>> = vec![
        (
            "incoming/<table> -> the sibling's table",
            vec![("swap.json", journal.as_str())],
            tables.iter().map(|t| (format!("incoming/{t}"), format!("../../other/.tsq/{t}"))).collect(),
        ),
        ("incoming -> the sibling's index", vec![("swap.json", journal.as_str())], vec![("incoming".into(), "../../other/.tsq".into())]),
        (
            "outgoing -> the sibling's index, with a file for the swap to move out",
            vec![("swap.json", journal.as_str()), ("notes.txt", "moved into the sibling")],
            vec![("outgoing".into(), "../../other/.tsq".into())],
        ),
    ];
    for (i, (shape, files, links)) in shapes.iter().enumerate() {
        let ws = base.0.join(format!("ws{i}"));
        planted_clone(&base.0, &ws, files, links);
        assert!(std::fs::symlink_metadata(ws.join(".tsq").join(&links[0].0)).unwrap().file_type().is_symlink(), "{shape}: the clone has the link");
        let root = root_arg(&ws);
        for args in [
            vec!["index", "--root", &root, "--no-structure"],
            vec!["lookup", "symbol = total", "--root", &root],
            vec!["status", "--root", &root],
            vec!["clean", "--root", &root],
        ] {
            let out = run(tsq(&args));
            refused(&out, "is a symbolic link inside the index directory");
            assert!(String::from_utf8_lossy(&out.stderr).contains("Remove it"), "{shape}: says what to do: {}", text(&out));
            assert_eq!(snapshot(&other), before, "{shape}: `tsq {}` changed the sibling", args[0]);
        }
        // The user removes what each refusal names; then the clone works.
        let mut indexed = None;
        for _ in 0..=links.len() + 1 {
            let out = run(tsq(&["index", "--root", &root, "--no-structure", "--json"]));
            if out.status.code() != Some(2) {
                indexed = Some(out);
                break;
            }
            // Once no link is left: the committed index itself.
            if String::from_utf8_lossy(&out.stderr).contains("git rm -r --cached .tsq") {
                git(&ws, &["rm", "-r", "-q", "--cached", ".tsq"]);
                continue;
            }
            let named = refused_path(&out);
            assert!(named.starts_with(ws.join(".tsq")), "{shape}: {}", text(&out));
            assert!(std::fs::symlink_metadata(&named).unwrap().file_type().is_symlink(), "{shape}: {}", text(&out));
            std::fs::remove_file(&named).unwrap();
        }
        let out = indexed.unwrap_or_else(|| panic!("{shape}: still refused after removing every link"));
        assert!(out.status.success(), "{shape}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(NOT_ACTED_ON) && err.contains("not rolled forward"), "{shape}: the journal is reported: {}", text(&out));
        assert!(!ws.join(".tsq/swap.json").exists(), "{shape}");
        assert_eq!(set_aside(&ws).len(), 1, "{shape}: {:?}", set_aside(&ws));
        assert_eq!(std::fs::read_to_string(ws.join(".tsq").join(&set_aside(&ws)[0])).unwrap(), journal, "{shape}: kept as it came");
        let answer = run(tsq(&["lookup", "symbol = total", "--root", &root, "--format", "json"]));
        assert!(answer.status.success(), "{shape}: {}", text(&answer));
        assert_eq!(snapshot(&other), before, "{shape}: the sibling changed");
    }
}

/// A journal this install did not seal (another format, a made-up seal,
/// another install's seal), as a `git pull` of an attacker's commit would
/// leave it beside the user's own index with a planted `meta.json` staged:
/// set aside and reported, never rolled forward; the user's index is
/// byte for byte as it was and answers.
#[test]
fn a_journal_this_install_did_not_seal_is_set_aside_not_rolled_forward() {
    let ws = TempDir::new("hostile-forged-journal");
    repo_at(&ws.0);
    let root = root_arg(&ws.0);
    ok_json(run(tsq(&["index", "--root", &root, "--no-structure", "--json"])));
    let before = index_content(&ws.0);
    let dir = ws.0.join(".tsq");
    // A tsq with nowhere to keep a key (no absolute data directory): it
    // can neither verify a seal nor tell whether it made the index, so it
    // acts on nothing and keeps everything.
    let forged = [
        (r#"{"magic":"tsq-swap-1","entries":["meta.json"]}"#.to_string(), true),
        (format!(r#"{{"magic":"tsq-swap-2","entries":["meta.json"],"seal":"{}"}}"#, "0".repeat(64)), true),
        (format!(r#"{{"magic":"tsq-swap-2","entries":["meta.json"],"seal":"{}"}}"#, "0".repeat(64)), false),
    ];
    for (i, (journal, with_key)) in forged.iter().enumerate() {
        std::fs::create_dir_all(dir.join("incoming")).unwrap();
        std::fs::write(dir.join("incoming/meta.json"), r#"{"planted":true}"#).unwrap();
        std::fs::write(dir.join("swap.json"), journal).unwrap();
        let mut c = tsq(&["status", "--root", &root, "--json"]);
        if !with_key {
            c.env("XDG_DATA_HOME", "not-absolute").env_remove("HOME");
        }
        let out = run(c);
        assert!(out.status.success(), "{journal}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(NOT_ACTED_ON) && err.contains("swap.json"), "{journal}: says what it found: {}", text(&out));
        assert!(err.contains("renamed it to"), "{journal}: says what it did: {}", text(&out));
        assert_eq!(index_content(&ws.0), before, "{journal}: the index changed");
        assert!(!dir.join("swap.json").exists(), "{journal}");
        assert_eq!(set_aside(&ws.0).len(), i + 1, "{journal}: {:?}", set_aside(&ws.0));
        assert_eq!(std::fs::read_to_string(dir.join("incoming/meta.json")).unwrap(), r#"{"planted":true}"#, "{journal}: nothing moved in");
    }
    let answer = run(tsq(&["lookup", "symbol = total", "--root", &root, "--format", "json"]));
    assert!(answer.status.success(), "{}", text(&answer));
    // A later sync keeps what was set aside for the user to look at.
    ok_json(run(tsq(&["index", "--root", &root, "--no-structure", "--json"])));
    assert_eq!(set_aside(&ws.0).len(), forged.len());
}

/// A swap killed after its first rename is finished by the next open of
/// this install, whose key sealed its journal (0600, outside the
/// workspace); the same killed swap met by another install's tsq is set
/// aside instead, and the index it had moved out is kept whole.
#[test]
fn a_killed_swap_is_finished_only_by_the_install_that_sealed_it() {
    let base = TempDir::new("hostile-sealed-swap");
    let (store, reader, url) = published(&base.0, None);
    let manifest: Value = serde_json::from_slice(&std::fs::read(manifest_path(&store)).unwrap()).unwrap();
    let published: BTreeMap<String, String> =
        manifest["files"].as_array().unwrap().iter().map(|e| (e["path"].as_str().unwrap().to_string(), e["sha256"].as_str().unwrap().to_string())).collect();
    let killed_at_swap = || {
        let old = index_content(&reader);
        let mut c = tsq(&["index", "--from", &url, "--root", &root_arg(&reader)]);
        c.env("TSQ_TEST_PAUSE", "swap").stdout(Stdio::null()).stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        wait_for_pause(&mut child, "swap");
        child.kill().unwrap();
        child.wait().unwrap();
        let journal: Value = serde_json::from_slice(&std::fs::read(reader.join(".tsq/swap.json")).unwrap()).unwrap();
        assert_eq!(journal["seal"].as_str().map(str::len), Some(64), "the journal is sealed: {journal}");
        old
    };
    killed_at_swap();
    let key = data_home().join("tsq/install-id");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&key).unwrap().permissions().mode() & 0o777, 0o600, "{}", key.display());
    }
    // This install: rolled forward, nothing set aside.
    let out = run(tsq(&["status", "--root", &root_arg(&reader), "--json"]));
    assert!(out.status.success() && !String::from_utf8_lossy(&out.stderr).contains(NOT_ACTED_ON), "{}", text(&out));
    let now = index_content(&reader);
    for (path, sha) in published.iter().filter(|(p, _)| !unsigned_pull_empties(p)) {
        assert_eq!(now.get(path), Some(sha), "{path} of the pulled index is not in place");
    }
    assert!(set_aside(&reader).is_empty() && !reader.join(".tsq/swap.json").exists());
    ok_json(pull(&reader, &url, None));
    // Another install (its own key) meets the next killed swap.
    let old = killed_at_swap();
    let other = base.0.join("other-home");
    std::fs::create_dir_all(other.join("tsq")).unwrap();
    std::fs::write(other.join("tsq/install-id"), format!("{}\n", "11".repeat(32))).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(other.join("tsq/install-id"), std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let mut c = tsq(&["status", "--root", &root_arg(&reader), "--json"]);
    c.env("XDG_DATA_HOME", &other);
    let out = run(c);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(NOT_ACTED_ON) && err.contains("seal is not this install's"), "{}", text(&out));
    let aside = set_aside(&reader);
    let moved_out = aside.iter().find(|n| n.starts_with("refused-outgoing-")).unwrap_or_else(|| panic!("{aside:?}: {}", text(&out)));
    assert_eq!(content_of(&reader.join(".tsq").join(moved_out)), old, "the index the swap had moved out is kept whole");
    assert!(!reader.join(".tsq/swap.json").exists());
    // And a pull of this install puts the index back together.
    ok_json(pull(&reader, &url, None));
    let answer = run(tsq(&["lookup", "symbol = total", "--root", &root_arg(&reader), "--format", "json"]));
    assert!(answer.status.success(), "{}", text(&answer));
}
