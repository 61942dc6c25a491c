//! Issue 74, items 4 and 7: what a hostile checkout's `tsq.toml` or store
//! can make a pull do. A key or store the checkout names counts only once
//! the user trusts it (`tsq trust`, in the user's config directory); a
//! pull brings only a tsq index's own files, within a total cap, and
//! keeps the user's own files in `.tsq/`.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use super::{common, edit_manifest, index_content, ok_json, published, refused, root_arg, run, snapshot, text, tsq, TempDir};

/// `tsq args` with `config` as the user's config directory (where `tsq
/// trust` records what the user trusts).
fn as_user(config: &Path, args: &[&str]) -> Output {
    let mut c = tsq(args);
    c.env("XDG_CONFIG_HOME", config);
    run(c)
}

fn config_home(base: &Path) -> PathBuf {
    let dir = base.join("user-config");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The attacker's repository names its own store and the key that signs
/// its forged index. Before the user trusts that key, the pull is
/// unsigned and says why, never "verified"; `tsq trust` records the key
/// in the user's config directory (0600), and only then is it verified.
#[test]
fn a_key_the_checkout_names_counts_only_once_the_user_trusts_it() {
    let base = TempDir::new("hostile-trust-key");
    let config = config_home(&base.0);
    let (_, reader, url) = published(&base.0, Some("attacker"));
    let attacker_public = common::test_key_pair("attacker").1;
    std::fs::write(reader.join("tsq.toml"), format!("[share]\nfrom = \"{url}\"\npublicKey = \"{attacker_public}\"\n")).unwrap();
    let root = root_arg(&reader);
    let out = as_user(&config, &["index", "--from", &url, "--root", &root, "--json"]);
    assert!(out.status.success(), "{}", text(&out));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["pulled"]["trust"], "unsigned", "{got}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("you have not trusted") && err.contains("tsq trust"), "says why and what to do: {}", text(&out));
    let status = as_user(&config, &["status", "--root", &root]);
    let said = String::from_utf8_lossy(&status.stdout);
    assert!(said.contains("(unsigned)") && !said.contains("verified"), "{}", text(&status));
    // The user trusts what the checkout names: recorded outside it.
    let trusted = ok_json(as_user(&config, &["trust", "--root", &root, "--json"]));
    let file = PathBuf::from(trusted["file"].as_str().unwrap());
    assert!(file.starts_with(&config), "{trusted}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let listed = ok_json(as_user(&config, &["trust", "--list", "--json"]));
    assert_eq!(listed["publicKeys"], serde_json::json!([attacker_public]), "{listed}");
    assert_eq!(listed["stores"], serde_json::json!([url]), "{listed}");
    let got = ok_json(as_user(&config, &["index", "--from", &url, "--root", &root, "--json"]));
    assert_eq!(got["pulled"]["trust"], "verified", "{got}");
    // Another user (another config directory) has trusted nothing.
    let other = base.0.join("other-user-config");
    std::fs::create_dir_all(&other).unwrap();
    let got = ok_json(as_user(&other, &["index", "--from", &url, "--root", &root, "--json"]));
    assert_eq!(got["pulled"]["trust"], "unsigned", "{got}");
    // A trust file other users may write counts for nothing.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
        let out = as_user(&config, &["index", "--from", &url, "--root", &root, "--json"]);
        let got: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
        assert_eq!(got["pulled"]["trust"], "unsigned", "{got}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("chmod 600"), "{}", text(&out));
    }
    // A checkout with nothing to trust: exit 2 with what to do.
    let plain = base.0.join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    refused(&as_user(&config, &["trust", "--root", &root_arg(&plain)]), "nothing to trust");
}

/// A user's own files in `.tsq/` survive a pull byte for byte; a manifest
/// that names one is refused before anything moves.
#[test]
fn a_pull_keeps_the_users_own_files_in_the_index_directory() {
    let base = TempDir::new("hostile-user-files");
    let (store, reader, url) = published(&base.0, None);
    let dir = reader.join(".tsq");
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    std::fs::create_dir_all(dir.join("mine")).unwrap();
    std::fs::write(dir.join("mine/todo.md"), "- keep me").unwrap();
    std::fs::write(dir.join("config.toml"), "topK = 5\n").unwrap();
    let kept = |dir: &Path| snapshot(dir).into_iter().filter(|(k, _)| k == "notes.txt" || k.starts_with("mine") || k == "config.toml").collect::<Vec<_>>();
    let before = kept(&dir);
    assert_eq!(before.len(), 4, "{before:?}");
    ok_json(super::pull(&reader, &url, None));
    assert_eq!(kept(&dir), before, "the pull moved the user's files");
    // A store whose manifest names the user's file.
    edit_manifest(&store, |m| {
        let first = m["files"][0].clone();
        let mut planted = first.clone();
        planted["path"] = Value::String("notes.txt".into());
        m["files"].as_array_mut().unwrap().push(planted);
    });
    let index = index_content(&reader);
    refused(&super::pull(&reader, &url, None), "not in a tsq index");
    assert_eq!(kept(&dir), before);
    assert_eq!(index_content(&reader), index, "the refused pull changed the index");
}

/// A store whose index is larger in all than the pull cap is refused
/// before anything is downloaded; the cap is the user's to raise.
#[test]
fn a_pull_over_the_total_cap_is_refused_and_the_index_kept() {
    let base = TempDir::new("hostile-pull-cap");
    let (_, reader, url) = published(&base.0, None);
    let before = index_content(&reader);
    let mut c = tsq(&["index", "--from", &url, "--root", &root_arg(&reader), "--json"]);
    c.env("TSQ_SHARE_MAX_BYTES", "1000");
    let out = run(c);
    refused(&out, "over the pull cap");
    assert!(String::from_utf8_lossy(&out.stderr).contains("TSQ_SHARE_MAX_BYTES"), "{}", text(&out));
    assert_eq!(index_content(&reader), before);
    assert!(!reader.join(".tsq/incoming").exists());
    let mut c = tsq(&["index", "--from", &url, "--root", &root_arg(&reader), "--json"]);
    c.env("TSQ_SHARE_MAX_BYTES", "not-a-number");
    refused(&run(c), "TSQ_SHARE_MAX_BYTES");
}
