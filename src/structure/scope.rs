//! Which programs hold which files: the scope of a live answer. The
//! Language Service answers find-references and incoming calls of a
//! declaration from the programs that hold its file only
//! (`js/answers/31_calls.js`, `scope.holders`), so a reference in a file none of
//! them holds (vue's runtime tests, for a declaration of
//! `packages-private/dts-test`) is not one. The rows hold every file's
//! occurrences; this record says which of them a live answer would see.
//!
//! Each occurrence request reports the workspace files of every program
//! it built or used (`programs` in the response); a full pass starts the
//! record afresh and marks it complete when every project has reported.
//! An incremental sync replaces the programs it rebuilt; a program it did
//! not rebuild that holds a re-indexed file gains that file's imports
//! (transitively), so a scope only ever errs on the wide side, as the
//! rows did before there was one. Without a complete record nothing is
//! filtered.
//!
//! The record also holds what `tsq inspect`'s coverage rests on, so that
//! inspect is answered from the rows too: the workspace's projects (as
//! loaded at the last sync) and each program's unresolved imports (an
//! entry per importing file, `file: cannot resolve 'x'`). A program the
//! sync did not rebuild keeps its list while each re-indexed file it holds
//! has the same entries in its owner's new list; otherwise its list is
//! unknown until it is rebuilt, and inspects that need it run live.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::StructureError;
use crate::answer::{Coverage, SymbolMetadata, WorkspaceInfo};
use crate::index::Index;
use crate::ts::protocol::ProgramFiles;

const RECORD: &str = "occurrence-scope";

/// Each project's program, as its workspace files.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Scope {
    /// Every project reported since the last full pass began and it ended.
    complete: bool,
    programs: BTreeMap<String, BTreeSet<String>>,
    /// Each program's unresolved imports, in the Language Service's
    /// order; `None` once unknown (see the module doc).
    unresolved: BTreeMap<String, Option<Vec<String>>>,
    /// The workspace as the last sync loaded it (build log cleared).
    info: Option<WorkspaceInfo>,
    /// Each program's files of the root that the walk does not index
    /// (`ProgramFiles::reads`): inputs of all its files.
    #[serde(default)]
    reads: BTreeMap<String, BTreeSet<String>>,
    /// File -> the projects whose programs hold it (built on first use
    /// after a change, not after each of a sync's many updates).
    #[serde(skip)]
    holders: OnceLock<HashMap<String, Vec<String>>>,
}

impl Scope {
    /// The stored record (empty, and filtering nothing, when there is none).
    pub fn load(index: &Index) -> Scope {
        index.record(RECORD).and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default()
    }

    pub fn save(&self, index: &Index) -> Result<(), StructureError> {
        let json = serde_json::to_string(self).unwrap_or_default();
        Ok(index.put_record(RECORD, &json)?)
    }

    /// A full pass begins: nothing is known until it ends (`complete`).
    pub(crate) fn restart(&mut self) {
        *self = Scope::default();
    }

    /// A full pass ended with every project reported.
    pub(crate) fn completed(&mut self) {
        self.complete = true;
    }

    /// Programs as one request reported them.
    pub fn update(&mut self, programs: Vec<ProgramFiles>) {
        for p in programs {
            self.unresolved.insert(p.project.clone(), Some(p.unresolved));
            self.reads.insert(p.project.clone(), p.reads.into_iter().collect());
            self.programs.insert(p.project, p.files.into_iter().collect());
        }
        self.reindex();
    }

    /// Every file some program read that the walk does not index.
    pub(crate) fn program_reads(&self) -> impl Iterator<Item = &String> {
        self.reads.values().flatten()
    }

    /// The files of every program that read `input` (a file the walk does
    /// not index), and whether any did.
    pub(crate) fn readers_of(&self, input: &str) -> BTreeSet<String> {
        self.reads.iter().filter(|(_, r)| r.contains(input)).filter_map(|(p, _)| self.programs.get(p)).flatten().cloned().collect()
    }

    /// The workspace as loaded for this sync.
    pub(crate) fn set_info(&mut self, info: &WorkspaceInfo) {
        let mut info = info.clone();
        info.build_log.clear();
        self.info = Some(info);
    }

    /// Re-indexed `file`'s unresolved imports are those of the first
    /// program this request reported (`reported`, in the request's order:
    /// owners first) that holds it: a program that holds it and was not
    /// reported keeps its list only if it says the same of `file`.
    pub(crate) fn check_unresolved(&mut self, file: &str, reported: &[String]) {
        let prefix = format!("{file}: ");
        let entries = |list: &[String]| -> Vec<String> { list.iter().filter(|u| u.starts_with(&prefix)).cloned().collect() };
        let owner = reported.iter().find(|p| self.programs.get(*p).is_some_and(|f| f.contains(file)));
        let now: Option<Vec<String>> = owner.and_then(|o| self.unresolved.get(o)).and_then(|l| l.as_deref()).map(entries);
        for (project, files) in &self.programs {
            if reported.contains(project) || !files.contains(file) {
                continue;
            }
            let Some(slot) = self.unresolved.get_mut(project) else { continue };
            if slot.as_deref().map(entries) != now {
                *slot = None;
            }
        }
    }

    /// Re-indexed `file` now imports `imports`: every program that holds
    /// it and was not reported again (`reported`) holds those too, and
    /// what they import (`all`: every file's imports).
    pub(crate) fn follow_imports(&mut self, file: &str, imports: &[String], reported: &HashSet<String>, all: &HashMap<String, (Vec<String>, Vec<String>)>) {
        for (project, files) in self.programs.iter_mut() {
            if reported.contains(project) || !files.contains(file) {
                continue;
            }
            let mut stack: Vec<&str> = imports.iter().map(String::as_str).collect();
            while let Some(f) = stack.pop() {
                if files.insert(f.to_string()) {
                    stack.extend(all.get(f).into_iter().flat_map(|(i, _)| i.iter().map(String::as_str)));
                }
            }
        }
        self.reindex();
    }

    /// Deleted files leave every program, and their unresolved imports
    /// every list.
    pub(crate) fn forget(&mut self, deleted: &[String]) {
        for files in self.programs.values_mut() {
            for d in deleted {
                files.remove(d);
            }
        }
        for list in self.unresolved.values_mut().flatten() {
            list.retain(|u| !deleted.iter().any(|d| u.strip_prefix(d.as_str()).is_some_and(|r| r.starts_with(": "))));
        }
        self.reindex();
    }

    /// The programs changed: the holders map is built again on next use.
    fn reindex(&mut self) {
        self.holders = OnceLock::new();
    }

    fn holders(&self) -> &HashMap<String, Vec<String>> {
        self.holders.get_or_init(|| {
            let mut holders: HashMap<String, Vec<String>> = HashMap::new();
            for (project, files) in &self.programs {
                for f in files {
                    holders.entry(f.clone()).or_default().push(project.clone());
                }
            }
            holders
        })
    }

    /// `tsq inspect`'s workspace and coverage for these matches, as the
    /// live Language Service computes them with every program built
    /// (`js/answers/39_inspect.js`), none built by this answer; `None` when the
    /// record cannot tell (incomplete, a match's file held by no known
    /// program, or a holder's unresolved imports unknown).
    pub fn coverage(&self, matches: &[SymbolMetadata]) -> Option<(WorkspaceInfo, Coverage)> {
        let info = self.info.as_ref().filter(|_| self.complete)?;
        let order: Vec<&str> = info.projects.iter().map(|p| p.name.as_str()).collect();
        let mut used: Vec<String> = Vec::new();
        let mut partial: Vec<String> = Vec::new();
        for m in matches {
            if !used.contains(&m.project) {
                used.push(m.project.clone());
            }
            let mut holders: Vec<&String> = self.holders().get(m.symbol.file_path.as_deref()?)?.iter().collect();
            holders.sort_by_key(|h| order.iter().position(|o| o == h).unwrap_or(usize::MAX));
            for h in holders {
                for u in self.unresolved.get(h)?.as_ref()? {
                    if !partial.contains(u) {
                        partial.push(u.clone());
                    }
                }
            }
        }
        let coverage = Coverage {
            projects_loaded: Vec::new(),
            projects_not_loaded: order.iter().map(|p| p.to_string()).collect(),
            projects_used: used,
            files_outside_projects: info.files_outside_projects.len() as u32,
            partial,
            config_errors: info.config_errors.clone(),
        };
        Some((info.clone(), coverage))
    }

    /// Whether a live answer about a declaration of `from` sees `file`:
    /// some program holding `from` holds `file` too. True when the record
    /// is incomplete or does not know `from`.
    pub(crate) fn sees(&self, from: &str, file: &str) -> bool {
        if !self.complete || from == file {
            return true;
        }
        match self.holders().get(from) {
            None => true,
            Some(projects) => projects.iter().any(|p| self.programs.get(p).is_some_and(|files| files.contains(file))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(project: &str, files: &[&str]) -> ProgramFiles {
        ProgramFiles { project: project.into(), files: files.iter().map(|f| f.to_string()).collect(), unresolved: Vec::new(), reads: Vec::new() }
    }

    #[test]
    fn a_program_not_rebuilt_keeps_its_unresolved_imports_while_a_held_file_says_the_same() {
        let mut s = Scope::default();
        let mut a = program("a", &["a.ts", "shared.ts"]);
        a.unresolved = vec!["a.ts: cannot resolve 'x'".into(), "shared.ts: cannot resolve 'y'".into()];
        let mut b = program("b", &["b.ts", "shared.ts"]);
        b.unresolved = vec!["shared.ts: cannot resolve 'y'".into()];
        s.update(vec![a, b.clone()]);
        // shared.ts re-indexed in b (its owner), a not rebuilt: same entries.
        let reported = vec!["b".to_string()];
        s.update(vec![b.clone()]);
        s.check_unresolved("shared.ts", &reported);
        assert!(s.unresolved["a"].is_some());
        // Now shared.ts resolves 'y': a's list is unknown.
        b.unresolved.clear();
        s.update(vec![b]);
        s.check_unresolved("shared.ts", &reported);
        assert!(s.unresolved["a"].is_none());
        // A deleted file's entries leave every list.
        s.forget(&["b.ts".to_string()]);
        assert_eq!(s.unresolved["b"], Some(vec![]));
    }

    #[test]
    fn a_file_sees_what_its_holders_hold_once_the_record_is_complete() {
        let mut s = Scope::default();
        s.update(vec![program("tsconfig.json", &["lib.ts", "lib.spec.ts"]), program("dts/tsconfig.json", &["dts/a.ts", "lib.ts"])]);
        // Incomplete: nothing is filtered.
        assert!(s.sees("dts/a.ts", "lib.spec.ts"));
        s.completed();
        assert!(!s.sees("dts/a.ts", "lib.spec.ts"), "the dts program does not hold the spec");
        assert!(s.sees("dts/a.ts", "lib.ts"));
        assert!(s.sees("lib.ts", "lib.spec.ts") && s.sees("lib.ts", "dts/a.ts"), "lib.ts is held by both");
        assert!(s.sees("unknown.ts", "lib.spec.ts"), "an unknown file is not filtered");
    }

    #[test]
    fn a_program_not_rebuilt_follows_a_held_files_new_imports() {
        let mut s = Scope::default();
        s.update(vec![program("a", &["a.ts", "b.ts"]), program("c", &["c.ts", "d.ts"])]);
        s.completed();
        let all: HashMap<String, (Vec<String>, Vec<String>)> =
            [("c.ts".to_string(), (vec!["d.ts".to_string()], vec![])), ("d.ts".to_string(), (vec![], vec![]))].into_iter().collect();
        assert!(!s.sees("a.ts", "d.ts"));
        // b.ts now imports c.ts, which imports d.ts; project "a" was not reported again.
        s.follow_imports("b.ts", &["c.ts".to_string()], &HashSet::new(), &all);
        assert!(s.sees("a.ts", "c.ts") && s.sees("a.ts", "d.ts"));
        s.forget(&["d.ts".to_string()]);
        assert!(!s.sees("c.ts", "d.ts"));
    }
}
