//! Which programs hold which files: the scope of a live answer. The
//! Language Service answers find-references and incoming calls of a
//! declaration from the programs that hold its file only
//! (`js/31_calls.js`, `scope.holders`), so a reference in a file none of
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

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::StructureError;
use crate::index::Index;
use crate::ts::protocol::ProgramFiles;

const RECORD: &str = "occurrence-scope";

/// Each project's program, as its workspace files.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Scope {
    /// Every project reported since the last full pass began and it ended.
    complete: bool,
    programs: BTreeMap<String, BTreeSet<String>>,
    /// File -> the projects whose programs hold it (built on load).
    #[serde(skip)]
    holders: HashMap<String, Vec<String>>,
}

impl Scope {
    /// The stored record (empty, and filtering nothing, when there is none).
    pub fn load(index: &Index) -> Scope {
        let mut s: Scope = index.record(RECORD).and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default();
        s.reindex();
        s
    }

    pub fn save(&self, index: &Index) -> Result<(), StructureError> {
        let json = serde_json::to_string(self).unwrap_or_default();
        Ok(index.put_record(RECORD, &json)?)
    }

    /// A full pass begins: nothing is known until it ends (`complete`).
    pub fn restart(&mut self) {
        *self = Scope::default();
    }

    /// A full pass ended with every project reported.
    pub fn completed(&mut self) {
        self.complete = true;
    }

    /// Programs as one request reported them.
    pub fn update(&mut self, programs: Vec<ProgramFiles>) {
        for p in programs {
            self.programs.insert(p.project, p.files.into_iter().collect());
        }
        self.reindex();
    }

    /// Re-indexed `file` now imports `imports`: every program that holds
    /// it and was not reported again (`reported`) holds those too, and
    /// what they import (`all`: every file's imports).
    pub fn follow_imports(&mut self, file: &str, imports: &[String], reported: &HashSet<String>, all: &HashMap<String, (Vec<String>, Vec<String>)>) {
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

    /// Deleted files leave every program.
    pub fn forget(&mut self, deleted: &[String]) {
        for files in self.programs.values_mut() {
            for d in deleted {
                files.remove(d);
            }
        }
        self.reindex();
    }

    fn reindex(&mut self) {
        self.holders.clear();
        for (project, files) in &self.programs {
            for f in files {
                self.holders.entry(f.clone()).or_default().push(project.clone());
            }
        }
    }

    /// Whether a live answer about a declaration of `from` sees `file`:
    /// some program holding `from` holds `file` too. True when the record
    /// is incomplete or does not know `from`.
    pub fn sees(&self, from: &str, file: &str) -> bool {
        if !self.complete || from == file {
            return true;
        }
        match self.holders.get(from) {
            None => true,
            Some(projects) => projects.iter().any(|p| self.programs.get(p).is_some_and(|files| files.contains(file))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(project: &str, files: &[&str]) -> ProgramFiles {
        ProgramFiles { project: project.into(), files: files.iter().map(|f| f.to_string()).collect() }
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
