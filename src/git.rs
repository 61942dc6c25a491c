//! Every git call tsq makes (the shared index's commit and cleanliness,
//! the history reader, the tracked-index check, `tsq impact`'s diff),
//! through one hardened command: a checkout's own configuration never
//! runs a program. No hooks
//! (`core.hooksPath`), no fsmonitor, no pager, no external diff or text
//! conversion, no credential helper or prompt, no network transport, no
//! optional locks; the environment's `GIT_DIR`/`GIT_WORK_TREE` are
//! dropped so the repository is the one holding the root.
//!
//! `safe.directory` is kept, never overridden: git refuses a repository
//! another user owns, and the refusal is reported with git's own fix
//! (`GitError::NotSafe`), which only the user can decide to apply.

use std::path::Path;
use std::process::{Command, Stdio};

#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("cannot run git ({0}); git must be on the PATH")]
    Missing(String),
    #[error(
        "git refuses {root}: the repository is owned by another user (git's safe.directory). If you trust it, run `git config --global --add safe.directory {root}`"
    )]
    NotSafe { root: String },
    #[error("git {args}: {stderr}")]
    Failed { args: String, stderr: String },
}

/// Settings that keep a checkout's configuration from running anything.
const HARDENED: &[&str] = &[
    "--no-pager",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.pager=cat",
    "-c",
    "core.untrackedCache=false",
    "-c",
    "diff.external=",
    "-c",
    "credential.helper=",
    "-c",
    "protocol.allow=never",
    "-c",
    "core.sshCommand=false",
];

/// `git` in the repository holding `root`, hardened (see the header).
/// `root: None` for callers that name `--git-dir` themselves.
pub fn command(root: Option<&Path>) -> Command {
    let mut c = Command::new("git");
    c.args(HARDENED);
    if let Some(root) = root {
        c.arg("-C").arg(root);
    }
    c.env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_PAGER", "cat")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_EXTERNAL_DIFF")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_SSH_COMMAND")
        .env_remove("GIT_ASKPASS")
        .stdin(Stdio::null());
    c
}

/// Runs `git args` in the repository holding `root`; its stdout.
pub fn run(root: &Path, args: &[&str]) -> Result<String, GitError> {
    Ok(String::from_utf8_lossy(&run_bytes(root, args)?).into_owned())
}

/// `run`, with stdout as bytes (a blob's text is decoded by the caller,
/// as a source read is).
pub fn run_bytes(root: &Path, args: &[&str]) -> Result<Vec<u8>, GitError> {
    let out = command(Some(root)).args(args).output().map_err(|e| GitError::Missing(e.to_string()))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
        if stderr.contains("dubious ownership") || stderr.contains("safe.directory") {
            return Err(GitError::NotSafe { root: root.display().to_string() });
        }
        return Err(GitError::Failed { args: args.join(" "), stderr });
    }
    Ok(out.stdout)
}

/// Whether git tracks anything under `rel` (relative to `root`): a
/// committed index directory. `false` outside a repository or without git.
pub fn tracks(root: &Path, rel: &str) -> bool {
    run(root, &["ls-files", "-z", "--cached", "--", rel]).is_ok_and(|out| !out.trim_matches('\0').is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        assert!(Command::new("git").arg("-C").arg(dir).args(args).output().unwrap().status.success(), "git {args:?}");
    }

    /// A repository whose own config names an fsmonitor and a pager that
    /// would write a file: the hardened command runs neither, and a
    /// tracked path is seen.
    #[test]
    fn a_checkouts_config_runs_nothing() {
        let dir = std::env::temp_dir().join(format!("tsq-git-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join(".tsq")).unwrap();
        git(&dir, &["init", "-q"]);
        let ran = dir.join("ran");
        let hook = dir.join("hook.sh");
        std::fs::write(&hook, format!("#!/bin/sh\ntouch {}\n", ran.display())).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        for (k, v) in [("core.fsmonitor", hook.to_str().unwrap()), ("core.pager", hook.to_str().unwrap()), ("user.email", "t@t"), ("user.name", "t")] {
            git(&dir, &["config", k, v]);
        }
        std::fs::write(dir.join(".tsq/meta.json"), "{}").unwrap();
        assert!(!tracks(&dir, ".tsq"));
        git(&dir, &["add", "-f", ".tsq"]);
        let _ = std::fs::remove_file(&ran);
        assert!(tracks(&dir, ".tsq"));
        run(&dir, &["status", "--porcelain"]).unwrap();
        run(&dir, &["log", "-n", "1"]).ok();
        assert!(!ran.exists(), "the checkout's fsmonitor or pager ran");
        assert!(!tracks(&dir, "src"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
