//! The few facts a shared index needs from git: the checkout's commit,
//! whether it is clean, and its nearest ancestors (`git` on the PATH,
//! through the hardened `crate::git`).

use std::path::Path;

use super::ShareError;

fn git(root: &Path, args: &[&str]) -> Result<String, ShareError> {
    crate::git::run(root, args).map_err(|e| match e {
        crate::git::GitError::Missing(why) => ShareError::Git(format!("cannot run git ({why}); a shared index is keyed by commit, so git must be on the PATH")),
        e => ShareError::Git(e.to_string()),
    })
}

/// `git rev-parse HEAD`.
pub fn head(root: &Path) -> Result<String, ShareError> {
    let out =
        git(root, &["rev-parse", "--verify", "HEAD"]).map_err(|e| ShareError::Git(format!("{} is not a git checkout with a commit ({e})", root.display())))?;
    Ok(out.trim().to_string())
}

/// HEAD and its nearest ancestors, nearest first, at most `max`.
pub fn ancestors(root: &Path, max: usize) -> Result<Vec<String>, ShareError> {
    head(root)?;
    let max = format!("--max-count={}", max.max(1));
    Ok(git(root, &["rev-list", &max, "HEAD"])?.lines().map(str::to_string).filter(|l| !l.is_empty()).collect())
}

/// Paths that differ from HEAD (tracked changes and untracked files that
/// are not ignored): what a published index must not contain.
pub fn dirty(root: &Path) -> Result<Vec<String>, ShareError> {
    Ok(git(root, &["status", "--porcelain"])?.lines().map(|l| l.get(3..).unwrap_or(l).to_string()).collect())
}
