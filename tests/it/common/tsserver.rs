//! The tsserver oracle (`tests/parity/tsserver-oracle.js`: the vendored
//! TypeScript's own `ts.server.Session` under Node, with the blueprint's
//! filtering) and the comparison of tsq's answers with it: 1-hop call
//! edges and references per declaration. `tests/it/ls_parity.rs` compares
//! the live Language Service; the generated differential test
//! (`tests/it/occurrences.rs`) compares the occurrence index after edits.
//!
//! One known, deliberate difference: tsserver answers incoming calls from
//! the file's default project only, so a caller in a project that
//! references this one (multi-project) is missing there. tsq asks every
//! project holding the file; such extra callers are allowed when they sit
//! in another project's files, and are listed apart.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use serde::Deserialize;
use tsq::answer::{CallEntry, Inspection, SymbolMetadata};
use tsq::query::SymbolQuery;
use tsq::workspace::{InspectConfig, Workspace};

#[derive(Deserialize, Debug)]
struct OracleEntry {
    file: String,
    names: Vec<String>,
    line: u32,
    outgoing: Vec<String>,
    incoming: Vec<String>,
    references: BTreeMap<String, Vec<u32>>,
}

fn oracle(root: &Path, every_nth: usize, limit: usize) -> Vec<OracleEntry> {
    let script = super::repo().join("tests/parity/tsserver-oracle.js");
    let output = Command::new("node").arg(script).arg(root).arg(every_nth.to_string()).arg(limit.to_string()).output().expect("node runs");
    assert!(output.status.success(), "oracle failed: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("oracle JSON")
}

fn edge(c: &CallEntry) -> String {
    format!("{}@{}:{}", c.name, c.file_path.as_deref().unwrap_or("?"), c.line.unwrap_or(0))
}

pub struct Agreement {
    pub compared: usize,
    pub agreed: usize,
    pub differences: Vec<String>,
    pub cross_project_extras: Vec<String>,
}

/// Compares tsq's live Language Service with tsserver on `root`'s
/// declarations.
pub fn compare(root: &Path, every_nth: usize, limit: usize) -> Agreement {
    let ws = Workspace::open(root).expect("workspace loads");
    compare_with(root, every_nth, limit, &ws, &|query| ws.inspect(query, &InspectConfig { call_depth: 1, resolvers: None }).expect("inspect"))
}

/// Compares `answer` (tsq's inspect at call depth 1: live, or from the
/// occurrence index) with tsserver on `root`'s declarations; `ws` names
/// the projects (the explained cross-project differences).
pub fn compare_with(root: &Path, every_nth: usize, limit: usize, ws: &Workspace, answer: &dyn Fn(&SymbolQuery) -> Inspection) -> Agreement {
    let entries = oracle(root, every_nth, limit);
    let mut a = Agreement { compared: 0, agreed: 0, differences: Vec::new(), cross_project_extras: Vec::new() };
    for e in entries {
        a.compared += 1;
        let query = SymbolQuery { file: Some(e.file.clone()), names: e.names.clone() };
        let result = answer(&query);
        let found: Option<&SymbolMetadata> =
            result.matches.iter().find(|m| m.symbol.line == Some(e.line) && m.symbol.file_path.as_deref() == Some(e.file.as_str()));
        let Some(m) = found else {
            a.differences.push(format!("{query} (line {}): tsq found no such declaration", e.line));
            continue;
        };
        let mut ok = true;
        let out: BTreeSet<String> = m.outgoing_calls.iter().map(edge).collect();
        let want_out: BTreeSet<String> = e.outgoing.iter().cloned().collect();
        if out != want_out {
            ok = false;
            a.differences.push(format!("{query}: outgoing\n    tsq:      {out:?}\n    tsserver: {want_out:?}"));
        }
        let inc: BTreeSet<String> = m.incoming_callers.iter().map(edge).collect();
        let want_in: BTreeSet<String> = e.incoming.iter().cloned().collect();
        if !inc.is_superset(&want_in) {
            ok = false;
            a.differences.push(format!("{query}: incoming\n    tsq:      {inc:?}\n    tsserver: {want_in:?}"));
        } else {
            for extra in inc.difference(&want_in) {
                let info = ws.info();
                let caller_project = info
                    .projects
                    .iter()
                    .find(|p| p.config_path.as_deref().and_then(|c| c.rsplit_once('/')).is_some_and(|(dir, _)| extra.contains(&format!("@{dir}/"))));
                let own_project = info
                    .projects
                    .iter()
                    .find(|p| p.config_path.as_deref().and_then(|c| c.rsplit_once('/')).is_some_and(|(dir, _)| e.file.starts_with(&format!("{dir}/"))));
                if caller_project.map(|p| &p.name) != own_project.map(|p| &p.name) {
                    a.cross_project_extras.push(format!("{query}: caller {extra} (another project)"));
                } else {
                    ok = false;
                    a.differences.push(format!("{query}: incoming caller {extra} that tsserver does not report"));
                }
            }
        }
        let refs: BTreeMap<String, Vec<u32>> = m.references.files.iter().map(|f| (f.file_path.clone(), f.lines.clone())).collect();
        if refs != e.references {
            // The oracle opens every file, so its tsserver has every project
            // loaded and searches them all; tsq asks the projects whose
            // programs hold the declaring file (and builds only those). A
            // reference in another project, which cannot import the file and
            // meets the name only through a shared type (a property of
            // ComponentOptions or ProxyHandler, say), is explained and listed.
            let own_dir = m.project.rsplit_once('/').map(|(d, _)| format!("{d}/")).unwrap_or_default();
            let subset = refs.iter().all(|(f, lines)| e.references.get(f) == Some(lines));
            let missing: Vec<&String> = e.references.keys().filter(|f| !refs.contains_key(*f)).collect();
            // A file belongs to another project when it lies outside the
            // declaring project's directory, or (for a root-level project)
            // inside a nested project's directory.
            let info = ws.info();
            let nested: Vec<String> = info
                .projects
                .iter()
                .filter(|p| p.name != m.project)
                .filter_map(|p| p.config_path.as_deref().and_then(|c| c.rsplit_once('/')).map(|(d, _)| format!("{d}/")))
                .collect();
            let elsewhere = |f: &str| if own_dir.is_empty() { nested.iter().any(|d| f.starts_with(d.as_str())) } else { !f.starts_with(&own_dir) };
            if subset && !missing.is_empty() && missing.iter().all(|f| elsewhere(f)) {
                a.cross_project_extras.push(format!("{query}: references in {missing:?} (other projects, through a shared type)"));
            } else {
                ok = false;
                a.differences.push(format!("{query}: references\n    tsq:      {refs:?}\n    tsserver: {:?}", e.references));
            }
        }
        if ok {
            a.agreed += 1;
        }
    }
    a
}
