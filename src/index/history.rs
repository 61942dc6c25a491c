//! The workspace's commit history, kept beside the tables as the record
//! `history.json`: each commit's subject and the
//! files it changed, newest first. Read from `git log` at sync when the
//! workspace's `HEAD` moved; `search::history` ranks files by the subjects
//! of the past commits that resemble a question ("where would this change
//! go?"). A workspace that is not in a git repository, or a `git` that
//! fails, has no history, and ranking goes on without it.
//!
//! `git` runs with hooks and the file-system monitor off, no pager and no
//! optional locks: reading a hostile checkout's log runs none of its
//! commands and writes nothing.

use std::path::Path;
use std::process::Command;

use serde::{Deserialize, Serialize};

/// The record's name (`Index::record`): `layout::HISTORY` is its file,
/// local to the index directory (never published or pulled), removed by
/// `tsq clean`.
pub(crate) const RECORD: &str = "history";
/// The most commits read: recent history is what resembles new changes,
/// and 5,000 subjects are read in about a second and kept in about 1 MB.
pub const MAX_COMMITS: usize = 5000;
/// A commit changing more files than this says little about any one of
/// them (a rename, a format pass, a release); it is not kept.
pub const MAX_FILES: usize = 20;

/// One commit: its subject and the files it changed that still exist,
/// relative to the workspace root.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Commit {
    pub subject: String,
    pub files: Vec<String>,
}

/// A workspace's recent history.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct History {
    /// The commit it was read at.
    pub head: String,
    /// Newest first.
    pub commits: Vec<Commit>,
    /// Each subject's terms as ranking reads them, computed at the first
    /// question (`search::history`) and kept while the handle lives.
    #[serde(skip)]
    pub terms: std::sync::OnceLock<Vec<Vec<String>>>,
}

/// The commit `HEAD` names in the repository holding `root`, or `None`
/// when there is none.
pub fn head(root: &Path) -> Option<String> {
    let out = crate::git::command(Some(root)).args(["rev-parse", "--verify", "-q", "HEAD"]).output().ok()?;
    let sha = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !sha.is_empty()).then_some(sha)
}

impl History {
    /// The history of the repository holding `root` up to `HEAD`, limited
    /// to commits touching `root`'s tree, paths relative to `root`; `None`
    /// when `root` is in no repository.
    pub fn of_workspace(root: &Path) -> Option<History> {
        History::of_workspace_at(root, head(root)?)
    }

    /// `of_workspace` at `head`, already resolved.
    fn of_workspace_at(root: &Path, head: String) -> Option<History> {
        let mut c = crate::git::command(Some(root));
        c.args(["log", "--relative"]);
        let commits = read_log(c, &head, Some("."))?;
        Some(History { head, commits, ..Default::default() })
    }

    /// The history of `git_dir` up to `rev` (inclusive), paths relative to
    /// the repository's root: how `tsq-bench changes` reads, for each
    /// question, only the commits before it.
    pub fn of_git_dir(git_dir: &Path, rev: &str) -> Option<History> {
        let mut c = crate::git::command(None);
        c.arg("--git-dir").arg(git_dir).arg("log");
        let commits = read_log(c, rev, None)?;
        Some(History { head: rev.to_string(), commits, ..Default::default() })
    }

    /// Keeps only the files `keep` accepts (those the index holds), and
    /// the commits left with any.
    pub fn retain_files(&mut self, keep: impl Fn(&str) -> bool) {
        for c in &mut self.commits {
            c.files.retain(|f| keep(f));
        }
        self.commits.retain(|c| !c.files.is_empty());
        self.terms = Default::default();
    }
}

/// `git log` of `rev` (and `-- path`): merges left out, each commit's
/// subject and changed files.
fn read_log(mut c: Command, rev: &str, path: Option<&str>) -> Option<Vec<Commit>> {
    c.args(["--no-merges", "--no-renames", "--format=%x00%s", "--name-only", "-n"]).arg(MAX_COMMITS.to_string()).arg(rev).arg("--");
    if let Some(p) = path {
        c.arg(p);
    }
    let out = c.output().ok()?;
    if !out.status.success() {
        tracing::debug!(stderr = %String::from_utf8_lossy(&out.stderr), "git log failed; no history");
        return None;
    }
    Some(parse_log(&String::from_utf8_lossy(&out.stdout)))
}

/// Commits from `--format=%x00%s --name-only` output.
fn parse_log(text: &str) -> Vec<Commit> {
    text.split('\0')
        .skip(1)
        .filter_map(|entry| {
            let mut lines = entry.lines();
            let subject = lines.next()?.trim().to_string();
            let files: Vec<String> = lines.map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect();
            (!subject.is_empty() && !files.is_empty() && files.len() <= MAX_FILES).then_some(Commit { subject, files })
        })
        .collect()
}

/// The stored history, if any.
pub(crate) fn load(index: &super::Index) -> Option<History> {
    index.record(RECORD).and_then(|t| serde_json::from_str(&t).ok())
}

/// Reads the history again when `HEAD` moved since the stored one (or
/// none is stored); `Ok(false)` when nothing changed. Compared with the
/// handle's copy (`Index::history`), so a long-lived process parses the
/// record once, not at every sync. Files the index does not hold are
/// left out.
pub(crate) fn refresh(index: &super::Index) -> Result<bool, super::IndexError> {
    let Some(now) = head(index.root()) else {
        return Ok(false);
    };
    if index.history().is_some_and(|h| h.head == now) {
        return Ok(false);
    }
    let Some(mut history) = History::of_workspace_at(index.root(), now) else {
        return Ok(false);
    };
    let held: std::collections::HashSet<String> = index.indexed_paths()?.iter().cloned().collect();
    history.retain_files(|f| held.contains(f));
    let json = serde_json::to_string(&history).map_err(|e| super::IndexError::Lance(format!("history record: {e}")))?;
    index.put_record(RECORD, &json)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_is_the_local_file_the_layout_names() {
        assert_eq!(format!("{RECORD}.json"), super::super::layout::HISTORY);
        assert!(super::super::layout::is_local_only(super::super::layout::HISTORY));
    }

    #[test]
    fn no_repository_no_history() {
        assert!(History::of_workspace(&std::env::temp_dir().join(format!("tsq-no-repository-{}", std::process::id()))).is_none());
    }

    #[test]
    fn a_log_becomes_commits_without_empty_or_sweeping_ones() {
        let many: String = (0..=MAX_FILES).map(|i| format!("f{i}.ts\n")).collect();
        let text = format!("\0fix token refresh\n\nsrc/auth.ts\nsrc/token.ts\n\0docs only\n\n\0rename everything\n\n{many}\0add a\n\na.ts\n");
        let commits = parse_log(&text);
        assert_eq!(
            commits,
            vec![
                Commit { subject: "fix token refresh".into(), files: vec!["src/auth.ts".into(), "src/token.ts".into()] },
                Commit { subject: "add a".into(), files: vec!["a.ts".into()] },
            ]
        );
    }
}
