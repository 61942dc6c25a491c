//! `Engine::impact`: the changes git reports, compared declaration by
//! declaration with the compiler's parser, then what depends on them from
//! the occurrence rows after the sync (`crate::impact`).

use std::collections::{HashMap, HashSet};

use super::{lock, structure_error, Engine, EngineError};
use crate::impact::declarations::{self, Changed};
use crate::impact::reach::{self, Declarations, Node};
use crate::impact::{self as imp, Affected, Change, ChangedDeclaration, ChangedFile, FileStatus, ImpactAnswer, ImpactError, ImpactRequest};
use crate::index::Index;
use crate::progress::Progress;
use crate::structure::occurrences::{Defer, Graph};
use crate::structure::rows::DeclarationRow;

/// One changed source file, compared: git's record of it, its changed
/// declarations, and its text now.
struct Compared<'g> {
    file: &'g imp::changes::FileChange,
    changed: Vec<Changed>,
    after: Option<std::sync::Arc<str>>,
}

/// What the rows said before the sync, for files whose rows were made
/// from the base's text: each declaration's compiler signature and id.
#[derive(Default)]
struct Before {
    /// (file, `Parent.name`) → (signature, symbol id).
    declared: HashMap<(String, String), (String, Option<String>)>,
}

impl Before {
    /// Reads the rows of `files` (relative path → the base's text) whose
    /// stored hash is the base text's.
    fn read(index: &Index, files: &[(String, &str, Vec<String>)]) -> Result<Before, EngineError> {
        let stored: HashMap<String, String> = index.occ_file_hashes()?.into_iter().map(|r| (r.relative_path, r.content_hash)).collect();
        let mut out = Before::default();
        for (path, text, names) in files {
            if stored.get(path).is_none_or(|h| *h != crate::ts::sha256_hex(text.as_bytes())) || names.is_empty() {
                continue;
            }
            for row in index.occ_declarations_named_any(names)?.into_iter().filter(|r| &r.relative_path == path) {
                if let Ok(d) = serde_json::from_str::<DeclarationRow>(&row.answer) {
                    let mut parts = d.containers.clone();
                    parts.push(d.name.clone());
                    out.declared.entry((path.clone(), parts.join("."))).or_insert((d.signature, d.id));
                }
            }
        }
        Ok(out)
    }
}

/// The compiler's signature of a declaration now, from its file's rows.
fn signature_now(index: &Index, file: &str, name: &str, dotted: &str) -> Result<Option<String>, EngineError> {
    Ok(index.occ_declarations_named_any(&[name.to_string()])?.into_iter().filter(|r| r.relative_path == file).find_map(|r| {
        let d = serde_json::from_str::<DeclarationRow>(&r.answer).ok()?;
        let mut parts = d.containers.clone();
        parts.push(d.name.clone());
        (parts.join(".") == dotted).then_some(d.signature)
    }))
}

/// Kinds whose type a member's change alters.
const TYPE_CONTAINERS: &[&str] = &["class", "interface", "type"];

impl Engine {
    /// What the working tree's changes against `req.base` touch: the
    /// changed declarations, their dependents, the tests to run.
    pub fn impact(&self, req: &ImpactRequest, progress: &dyn Progress) -> Result<ImpactAnswer, EngineError> {
        if !(1..=10).contains(&req.depth) {
            return Err(ImpactError::Depth(req.depth).into());
        }
        let mut scopes = Vec::new();
        for p in &req.paths {
            scopes.push(super::request::scoped_path(self.root(), p).map_err(super::RequestError::Path)?);
        }
        let started = std::time::Instant::now();
        let mut stages: Vec<(&str, u64)> = Vec::new();
        let mut stage = |name: &'static str| stages.push((name, started.elapsed().as_millis() as u64));
        let tree = self.walk();
        let mut git = imp::changes::collect(&self.root, &req.base, self.view.read_config())?;
        if !scopes.is_empty() {
            let under = |path: &str| scopes.iter().any(|s| s.is_empty() || s == "." || path == s || path.starts_with(&format!("{}/", s.trim_end_matches('/'))));
            git.files.retain(|f| under(&f.path) || under(&f.before_path));
        }
        let sources: HashSet<String> =
            tree.sources.iter().filter_map(|p| p.strip_prefix(&self.root).ok()).map(|p| p.to_string_lossy().replace('\\', "/")).collect();
        let parser = self.parser()?;
        let mut files = Vec::new();
        let mut notes = Vec::new();
        let mut compared: Vec<Compared> = Vec::new();
        // Files whose changes leave every other file's bindings as they
        // were: the sync may leave their users' re-check for later.
        // (path → hashes of the base text and of the text now.)
        let mut kept = std::collections::BTreeMap::new();
        for f in &git.files {
            let source = crate::source::is_supported(std::path::Path::new(&f.path));
            let mut note = f.unreadable.clone();
            let after = if f.status == FileStatus::Deleted || !source {
                None
            } else if sources.contains(&f.path) {
                match self.view.get(&self.root.join(&f.path)).map(|e| e.text.clone()) {
                    Ok(Ok(text)) => Some(text),
                    Ok(Err(e)) | Err(e) => {
                        note = Some(format!("not read: {e}"));
                        None
                    }
                }
            } else {
                note = Some("not a walked source (ignored or outside the projects): not compared".into());
                None
            };
            if !source {
                note = Some(match f.path.rsplit('/').next().unwrap_or("") {
                    "package.json" | "tsconfig.json" | "jsconfig.json" => {
                        "a configuration: its effect is not one declaration's; see the notes for what the sync re-checked".to_string()
                    }
                    _ => "not a TypeScript or JavaScript source".to_string(),
                });
            }
            files.push(ChangedFile {
                path: f.path.clone(),
                status: f.status,
                before_path: (f.before_path != f.path).then(|| f.before_path.clone()),
                note: note.clone(),
            });
            if !source || (note.is_some() && after.is_none() && f.status != FileStatus::Deleted) {
                continue;
            }
            let before = f.before.as_ref().map(|t| parser.parse_text(&f.before_path, t.clone()));
            let after_parsed = after.as_ref().map(|t| parser.parse_text(&f.path, t.to_string()));
            let changed = declarations::compare(before.as_ref(), after_parsed.as_ref());
            if let (FileStatus::Modified, Some(b), Some(a)) = (f.status, &before, &after_parsed) {
                if declarations::keeps_bindings(b, a, &changed) {
                    let text = |t: &str| crate::ts::sha256_hex(t.as_bytes());
                    kept.insert(f.path.clone(), (f.before.as_deref().map_or_else(String::new, text), after.as_deref().map_or_else(String::new, text)));
                }
            }
            compared.push(Compared { file: f, changed, after });
        }
        stage("git and parse");
        // Before the sync: the compiler's view of the base where the rows
        // were made from it (signatures, and the removed declarations' ids).
        let wanted: Vec<(String, &str, Vec<String>)> = compared
            .iter()
            .filter_map(|c| {
                let names: Vec<String> = c.changed.iter().filter_map(|c| c.before.as_ref()).filter_map(|d| d.names.last().cloned()).collect();
                Some((c.file.before_path.clone(), c.file.before.as_deref()?, names))
            })
            .collect();
        let (before, removed_rows, resolved_before) = {
            let guard = self.open_index()?;
            let index = guard.as_ref().expect("opened above");
            let before = if index.has_occurrences()? { Before::read(index, &wanted)? } else { Before::default() };
            // What each file's imports resolved to (the compiler's answer
            // when its rows were made): a config, package.json or created
            // file can send an unchanged file's import elsewhere.
            let resolved_before = resolved_imports(&index.occ_files(false)?);
            // (symbol id, `Parent.name`) of each removed or renamed declaration.
            let removed_ids: Vec<(String, String)> = compared
                .iter()
                .flat_map(|f| {
                    let before = &before;
                    f.changed.iter().filter(|c| matches!(c.change, Change::Removed | Change::Renamed)).filter_map(move |c| {
                        let dotted = c.before.as_ref()?.names.join(".");
                        let id = before.declared.get(&(f.file.before_path.clone(), dotted.clone()))?.1.clone()?;
                        Some((id, dotted))
                    })
                })
                .collect();
            let symbols: Vec<String> = removed_ids.iter().map(|(id, _)| id.clone()).collect();
            let rows = if symbols.is_empty() { Vec::new() } else { index.occurrences_of(&symbols, false)? };
            // A kept file counts only where its rows came from a text
            // whose bindings are those of the base: the base itself, the
            // text now, or a text a kept-binding cascade recorded against
            // this base. (Rows of a text in between, a rename since
            // undone, name what that text bound.)
            let stored: HashMap<String, String> = index.occ_file_hashes()?.into_iter().map(|r| (r.relative_path, r.content_hash)).collect();
            let recorded = crate::structure::inputs::Pending::load(index).kept;
            kept.retain(|path, (base, now)| match stored.get(path) {
                None => true,
                Some(rows) => rows == base || rows == now || recorded.get(path).is_some_and(|[r, b]| r == rows && b == base),
            });
            (before, (removed_ids, rows), resolved_before)
        };
        let kept: std::collections::BTreeMap<String, String> = kept.into_iter().map(|(path, (base, _))| (path, base)).collect();
        // Every changed file must keep them (a file git does not show, a
        // deleted or added one, a config: the whole cascade runs).
        // `tsq serve` leaves an earlier such cascade to its background
        // pass; a CLI process re-checks it now.
        let defer = if git.files.iter().all(|f| kept.contains_key(&f.path)) {
            Defer::Cascade { kept, carry: self.options.background.is_some() }
        } else {
            Defer::Nothing
        };
        stage("base rows");
        let sync = self.sync_occurrences_of(&tree, progress, defer)?;
        stage("sync");
        let guard = lock(&self.index);
        let index = guard.as_ref().expect("opened by the sync");
        let graph = Graph::load(index, true).map_err(structure_error)?;
        stage("graph");
        let mut decls = Declarations::new(&graph);
        let mut searched = Vec::new();
        let mut changed: Vec<(ChangedDeclaration, Option<String>)> = Vec::new();
        let mut ids = Vec::new();
        let mut containers = Vec::new();
        for Compared { file, changed: list, after: after_text } in &compared {
            let (path, before_path) = (&file.path, &file.before_path);
            for c in list {
                let d = c.after.as_ref().or(c.before.as_ref()).expect("a change has a side");
                let dotted = d.names.join(".");
                let located = c.after.as_ref().and_then(|a| decls.locate(path, &a.names, (a.lines.start, a.lines.end)));
                searched.extend(located);
                let id = located.map(|g| g.id.clone());
                let mut change = c.change;
                let mut decided_by = None;
                if change == Change::Inferred {
                    let was = c.before.as_ref().and_then(|b| before.declared.get(&(before_path.clone(), b.names.join(".")))).map(|(s, _)| s.clone());
                    let now = signature_now(index, path, d.names.last().map_or("", |n| n.as_str()), &dotted)?;
                    (change, decided_by) = match (was, now) {
                        // Only the text around it changed, and its type did not: no change.
                        (Some(w), Some(n)) if w == n && c.unchanged_text() => continue,
                        (Some(w), Some(n)) if w == n => (Change::Body, Some(format!("the compiler's signature is unchanged: {n}"))),
                        (Some(_), Some(_)) => (Change::Api, Some("the compiler's signature changed".to_string())),
                        _ => (
                            Change::Api,
                            Some(
                                "its type may be inferred (its body or the text around it changed) and the index holds no signature of the base version"
                                    .to_string(),
                            ),
                        ),
                    };
                }
                let code = c.after.as_ref().zip(after_text.as_ref()).and_then(|(a, t)| t.get(a.span.start..a.span.end)).map(str::to_string);
                changed.push((
                    ChangedDeclaration {
                        file: path.clone(),
                        name: dotted,
                        kind: d.kind.clone(),
                        change,
                        lines: c.after.as_ref().map(|a| (a.lines.start, a.lines.end)),
                        before_signature: c.before.as_ref().filter(|_| change != Change::Body).map(|b| b.signature.clone()),
                        after_signature: c.after.as_ref().filter(|_| change != Change::Body).map(|a| a.signature.clone()),
                        renamed_from: (change == Change::Renamed).then(|| c.before.as_ref().map(|b| b.names.join("."))).flatten(),
                        decided_by,
                    },
                    code,
                ));
                // A member's API changes its class's or interface's type: their
                // implementers, subtypes and type users depend on it too.
                if matches!(change, Change::Api | Change::Added | Change::Removed | Change::Renamed) && d.names.len() > 1 {
                    let side = c.after.as_ref().or(c.before.as_ref()).expect("a change has a side");
                    let parents = &d.names[..d.names.len() - 1];
                    if let Some(p) = decls.locate(path, parents, (side.lines.start, side.lines.end)).filter(|p| TYPE_CONTAINERS.contains(&p.kind.as_str())) {
                        containers.push((p.id.clone(), p.kind != "class"));
                    }
                }
                ids.push(id);
            }
        }
        // Files git shows unchanged whose inputs moved (a package.json's
        // `types`, a node_modules declaration): the sync compared their
        // compiler signatures before and after.
        for m in sync.signatures.iter().filter(|m| !compared.iter().any(|c| c.file.path == m.file)) {
            let located = decls.locate(&m.file, &m.names, m.lines);
            searched.extend(located);
            changed.push((
                ChangedDeclaration {
                    file: m.file.clone(),
                    name: m.names.join("."),
                    kind: m.kind.clone(),
                    change: Change::Api,
                    lines: Some(m.lines),
                    before_signature: Some(m.before.clone()),
                    after_signature: Some(m.after.clone()),
                    renamed_from: None,
                    decided_by: Some(format!("the compiler's signature changed: what the file reads changed ({}), its text did not", m.input)),
                },
                None,
            ));
            ids.push(located.map(|g| g.id.clone()));
        }
        for d in searched {
            decls.searched_as(d);
        }
        let (api, body, all) = imp::split_ids(&changed, &ids);
        // The removed declarations' references, as the rows made from the
        // base recorded them: what no longer compiles (or now means another).
        let (removed_ids, removed_rows) = removed_rows;
        let mut removed_nodes = Vec::new();
        let mut affected = Vec::new();
        for r in removed_rows.iter().filter(|r| r.role != "definition" && r.role != "import" && crate::structure::occurrences::user_file(&r.relative_path)) {
            let Some((_, of)) = removed_ids.iter().find(|(id, _)| *id == r.symbol) else { continue };
            let node = if decls.get(&r.enclosing).is_some() { Node::Decl(r.enclosing.clone()) } else { Node::File(r.relative_path.clone()) };
            if !removed_nodes.contains(&node) {
                // The removed id is not in the graph now: its name comes from the base.
                let edge = reach::Edge { node: node.clone(), of: r.symbol.clone(), why: "referenced the removed declaration", line: r.line };
                affected.push(Affected { of: of.clone(), ..reach::entry(&decls, &edge, 1) });
                removed_nodes.push(node);
            }
        }
        // Listed once, for the strongest reason: a changed declaration is the
        // change; a removed one's reference comes before any other.
        let mut listed = all.clone();
        listed.extend(removed_nodes.iter().filter_map(|n| if let Node::Decl(id) = n { Some(id.clone()) } else { None }));
        containers.sort();
        containers.dedup();
        containers.retain(|(c, _)| !all.contains(c));
        affected.extend(reach::affected(index, &decls, &api, &containers, &body, req.depth, &listed).map_err(structure_error)?);
        stage("affected");
        let occ_files = index.occ_files(false)?;
        affected.extend(resolved_elsewhere(&decls, &resolved_before, &resolved_imports(&occ_files), &files));
        affected.sort_by(|a, b| a.depth.cmp(&b.depth).then_with(|| a.file.cmp(&b.file)).then(a.lines.0.cmp(&b.lines.0)));
        let removed_unknown = changed.iter().filter(|(c, _)| matches!(c.change, Change::Removed | Change::Renamed)).count() > removed_ids.len();
        if removed_unknown {
            notes.push("some removed or renamed declarations' old references are unknown: the index never held the base version of their files (run `tsq index` before editing to keep them)".into());
        }
        // Tests: from every changed and affected declaration, and the files
        // whose top-level code is affected; changed test files themselves.
        let mut start: Vec<Node> = all.iter().cloned().map(Node::Decl).collect();
        start.extend(removed_nodes);
        for a in &affected {
            start.push(a.id.clone().map_or_else(|| Node::File(a.file.clone()), Node::Decl));
        }
        start.extend(
            files
                .iter()
                .filter(|f| f.status != FileStatus::Deleted && f.note.is_none())
                .map(|f| Node::File(f.path.clone()))
                .filter(|n| matches!(n, Node::File(p) if crate::files::classify(p, false) == crate::files::Role::Test)),
        );
        start.sort();
        start.dedup();
        let (tests, cut) = reach::tests(index, &decls, &start, &occ_files).map_err(structure_error)?;
        if cut {
            notes.push("the search for tests stopped at its bound (24 levels or 20,000 declarations): more tests may reach the change".into());
        }
        let (commands, unknown) = imp::runner::commands(&self.root, &tests.iter().map(|t| t.file.clone()).collect::<Vec<_>>());
        if !unknown.is_empty() {
            notes.push(format!("no test runner could be read from package.json for {} test file(s) (vitest, jest, mocha or `node --test` in the test script or the dependencies)", unknown.len()));
        }
        if sync.deferred > 0 {
            notes.push(format!(
                "{} file(s) that use a changed API are re-checked after this answer (by the background worker in `tsq serve`, by the next command otherwise): their text and imports are unchanged, so their rows still name what they reference, which is what this answer reads; only their inferred types wait",
                sync.deferred
            ));
        }
        for input in &sync.inputs {
            notes.push(format!("{} changed: {} ({} files re-checked)", input.input, input.rule, input.rechecked));
        }
        if files.iter().any(|f| f.note.as_deref().is_some_and(|n| n.starts_with("a configuration"))) {
            notes.push(format!(
                "a configuration changed: its effect is not one declaration's, so the rows cannot place it; the sync re-checked {} file(s) for this answer{}",
                sync.indexed,
                if sync.full { " (everything: the layout changed)" } else { "" }
            ));
        }
        if !graph.unindexed.is_empty() {
            notes.push(format!("{} file(s) have no occurrence rows (failed or skipped): their references are not counted", graph.unindexed.len()));
        }
        stage("tests");
        tracing::debug!(stages = ?stages, "impact: milliseconds since the request at the end of each stage");
        let (snapshots, snapshots_left) = imp::snapshots(&changed, req.budget);
        let structure = super::structure_line(index, &super::from_rows(sync.indexed))?;
        Ok(ImpactAnswer {
            base: git.base,
            depth: req.depth,
            files,
            changed: changed.into_iter().map(|(c, _)| c).collect(),
            affected,
            tests,
            commands,
            snapshots,
            snapshots_left,
            notes,
            structure,
        })
    }
}

/// Each indexed file's resolved imports and re-exports, sorted.
fn resolved_imports(files: &[crate::index::occurrences::OccFileRow]) -> HashMap<String, Vec<String>> {
    files
        .iter()
        .map(|f| {
            let mut to: Vec<String> = f.imports.iter().chain(&f.reexports).cloned().collect();
            to.sort();
            to.dedup();
            (f.relative_path.clone(), to)
        })
        .collect()
}

/// The unchanged files whose imports the compiler now resolves to other
/// files than when their rows were made from the base (a `paths` remap, a
/// package.json's `exports`, a created file that shadows a lookup): their
/// top-level code is affected at depth 1, with what it resolves to now.
fn resolved_elsewhere(
    decls: &Declarations<'_>,
    before: &HashMap<String, Vec<String>>,
    now: &HashMap<String, Vec<String>>,
    changed: &[ChangedFile],
) -> Vec<Affected> {
    let mut out = Vec::new();
    for (path, to) in now {
        let Some(was) = before.get(path) else { continue };
        if was == to || changed.iter().any(|f| f.path == *path) {
            continue;
        }
        let gained: Vec<&str> = to.iter().filter(|t| !was.contains(t)).map(String::as_str).collect();
        let lost: Vec<&str> = was.iter().filter(|t| !to.contains(t)).map(String::as_str).collect();
        let of = match (gained.is_empty(), lost.is_empty()) {
            (false, false) => format!("{} (was {})", gained.join(", "), lost.join(", ")),
            (false, true) => gained.join(", "),
            _ => format!("no longer {}", lost.join(", ")),
        };
        let edge = reach::Edge { node: Node::File(path.clone()), of, why: "its imports now resolve elsewhere", line: 1 };
        out.push(reach::entry(decls, &edge, 1));
    }
    out.sort_by(|a, b| a.file.cmp(&b.file));
    out
}
