//! What changed, as git says: the files that differ between a base and
//! the working tree (or the staging area), with the base's text of each,
//! read through the hardened git helper (`crate::git`). Only the root's
//! own files count (`git diff --relative`); a base text is decoded and
//! bounded as a source read is.

use std::path::Path;

use super::{Base, ImpactError};
use crate::source::ReadConfig;

/// How a file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FileStatus {
    Added,
    Modified,
    Deleted,
    /// Moved (git's rename detection); `before_path` is where it was.
    Renamed,
}

/// One changed file under the root (relative, `/`-separated).
#[derive(Debug, Clone)]
pub struct FileChange {
    pub path: String,
    pub status: FileStatus,
    /// The base's path (differs from `path` for a rename).
    pub before_path: String,
    /// The base's text: `None` for an added file, or one that could not be
    /// read (`unreadable` says why).
    pub before: Option<String>,
    pub unreadable: Option<String>,
}

/// The changed files and what the base is.
#[derive(Debug, Clone)]
pub struct Changes {
    /// The base as the answer names it: `HEAD (1a2b3c4)`, `the staging area`.
    pub base: String,
    pub files: Vec<FileChange>,
}

/// A revision a user named: never an option (`-x`), never a range.
fn checked_rev(rev: &str) -> Result<&str, ImpactError> {
    if rev.is_empty() || rev.starts_with('-') || rev.contains("..") || rev.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(ImpactError::UnknownRev(rev.to_string()));
    }
    Ok(rev)
}

/// The changes of the working tree against `base`.
pub fn collect(root: &Path, base: &Base, read: &ReadConfig) -> Result<Changes, ImpactError> {
    let git = |args: &[&str]| crate::git::run(root, args).map_err(ImpactError::from);
    match git(&["rev-parse", "--is-inside-work-tree"]) {
        Ok(o) if o.trim() == "true" => {}
        Err(e @ ImpactError::Git(crate::git::GitError::NotSafe { .. })) => return Err(e),
        _ => return Err(ImpactError::NotARepository(root.display().to_string())),
    }
    // The blob spec of the base side: `<rev>:./path` or `:./path` (the
    // staging area), relative to the root.
    let (label, spec, diff_args): (String, String, Vec<&str>) = match base {
        Base::Rev(rev) => {
            let rev = checked_rev(rev)?;
            let commit = git(&["rev-parse", "--verify", "--quiet", "--end-of-options", &format!("{rev}^{{commit}}")])
                .map_err(|_| ImpactError::UnknownRev(rev.to_string()))?;
            let commit = commit.trim().to_string();
            (format!("{rev} ({})", &commit[..commit.len().min(7)]), commit.clone(), vec![])
        }
        Base::Staged => {
            let head = git(&["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]).map_err(|_| ImpactError::UnknownRev("HEAD".into()))?;
            ("HEAD, for the staged changes".to_string(), head.trim().to_string(), vec!["--cached"])
        }
        Base::Worktree => ("the staging area".to_string(), String::new(), vec![]),
    };
    let mut args = vec!["diff", "--name-status", "-z", "--find-renames", "--relative", "--no-ext-diff", "--no-textconv"];
    args.extend(diff_args.iter().copied());
    if let Base::Rev(_) = base {
        args.push(&spec);
    }
    args.push("--");
    let out = git(&args)?;
    let mut files = parse_name_status(&out);
    if *base == Base::Staged {
        // The rows are the working tree's: a staged file with unstaged
        // edits on top would be answered for text that is not staged.
        let unstaged: Vec<String> =
            git(&["diff", "--name-only", "-z", "--relative", "--"])?.split('\0').filter(|s| !s.is_empty()).map(str::to_string).collect();
        let both: Vec<String> = files.iter().filter(|f| unstaged.contains(&f.path)).map(|f| f.path.clone()).collect();
        if !both.is_empty() {
            return Err(ImpactError::UnstagedEdits(both));
        }
    } else {
        // Files git does not track yet are changes of the working tree too.
        for path in git(&["ls-files", "--others", "--exclude-standard", "-z", "--"])?.split('\0').filter(|s| !s.is_empty()) {
            files.push(FileChange { path: path.to_string(), status: FileStatus::Added, before_path: path.to_string(), before: None, unreadable: None });
        }
    }
    for f in &mut files {
        if f.status == FileStatus::Added {
            continue;
        }
        let blob = format!("{spec}:./{}", f.before_path);
        match read_blob(root, &blob, read) {
            Ok(text) => f.before = Some(text),
            Err(why) => f.unreadable = Some(why),
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Changes { base: label, files })
}

/// A blob's text, bounded and decoded as the walk reads a source.
fn read_blob(root: &Path, blob: &str, read: &ReadConfig) -> Result<String, String> {
    let size = crate::git::run(root, &["cat-file", "-s", blob]).map_err(|e| e.to_string())?;
    let size: u64 = size.trim().parse().map_err(|_| format!("git cat-file -s {blob}: not a size"))?;
    if size > read.max_file_bytes {
        return Err(format!("the base version is {size} bytes, over the {} byte limit of a source file", read.max_file_bytes));
    }
    let bytes = crate::git::run_bytes(root, &["cat-file", "blob", blob]).map_err(|e| e.to_string())?;
    crate::source::decode(bytes).map_err(|e| e.to_string())
}

/// `git diff --name-status -z` output: `M\0path\0`, `R100\0old\0new\0`.
fn parse_name_status(out: &str) -> Vec<FileChange> {
    let mut parts = out.split('\0').filter(|s| !s.is_empty());
    let mut files = Vec::new();
    while let Some(code) = parts.next() {
        let first = code.chars().next().unwrap_or(' ');
        let Some(path) = parts.next() else { break };
        let (status, before_path, path) = match first {
            'A' => (FileStatus::Added, path, path),
            'D' => (FileStatus::Deleted, path, path),
            'R' | 'C' => {
                let Some(new) = parts.next() else { break };
                (if first == 'R' { FileStatus::Renamed } else { FileStatus::Added }, path, new)
            }
            _ => (FileStatus::Modified, path, path),
        };
        files.push(FileChange { path: path.to_string(), status, before_path: before_path.to_string(), before: None, unreadable: None });
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_status_reads_renames_and_every_status() {
        let files = parse_name_status("M\0a.ts\0R087\0old/b.ts\0new/b.ts\0D\0c.js\0A\0d.ts\0");
        let got: Vec<_> = files.iter().map(|f| (f.status, f.before_path.as_str(), f.path.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (FileStatus::Modified, "a.ts", "a.ts"),
                (FileStatus::Renamed, "old/b.ts", "new/b.ts"),
                (FileStatus::Deleted, "c.js", "c.js"),
                (FileStatus::Added, "d.ts", "d.ts"),
            ]
        );
    }

    #[test]
    fn a_rev_that_is_an_option_or_a_range_is_refused() {
        for bad in ["", "--output=/tmp/x", "-p", "HEAD..main", "a b", "x\ny"] {
            assert!(matches!(checked_rev(bad), Err(ImpactError::UnknownRev(_))), "{bad:?}");
        }
        assert!(checked_rev("HEAD~2").is_ok());
        assert!(checked_rev("origin/main").is_ok());
    }
}
