//! The occurrence sync: one checker pass per changed file
//! (`js/occurrences/60_occurrences.js`, through `Workspace::occurrences`) writes every
//! resolved identifier, call edge and base member (`index::occurrences`);
//! `structure::occurrences` answers from those rows.
//!
//! **Invalidation is at least TypeScript's builder rule, per file.** An
//! edited file is re-indexed. When its API changed (its declaration emit,
//! `apiText`, hashed), every file that imports it, directly or
//! transitively, is re-indexed too, as the builder re-checks the files
//! referencing a file whose signature changed: a type or a heritage
//! clause can reach a caller through an importer whose own emit is
//! unchanged (`import { Svc } from './z'; export { Svc }`). A file that
//! affects the global scope before or after the edit (a script,
//! `declare global`, `declare module "x"`: the stored `global` flag is
//! read on both sides), a file that affects the global scope by
//! TypeScript's own rule (`globalScope`) and imports a file whose API
//! changed (`sync_plan::cascade`), a deleted global file, a `.d.ts`, a
//! tsconfig/jsconfig, or a config its `extends` chain or `references`
//! read re-indexes everything (`inputs::layout_hash`). Every other file
//! a program read is an input (`inputs::Inputs`): what depends on what is
//! TypeScript's builder's referenced map (`deps`, `reads`), what module
//! resolution read is tracked as its watch mode does (`lookups`,
//! `affecting`); a changed input or a failed lookup that answers now
//! re-indexes the files that read it and everything reaching them
//! (`sync_plan::plan`), and the report says which rule did
//! (`InputChange`). Deleted files re-index their importers, transitively.
//!
//! **No stale row is written.** Every workspace file's hash is read before
//! a batch is computed and again after; if any changed, the batch is
//! dropped and the sync reports it (the next sync redoes it).
//!
//! **Records before rows.** What a later sync reads to find its work
//! (the files left, the package.json files resolution read, the
//! programs' scope) is written before the rows of the batch that changes
//! it, so a `kill -9` anywhere leaves work for the next sync to find,
//! never a fresh row the records do not account for.
//!
//! **The index is held only to read and to write** (`WithIndexMut`): a
//! pass computes each batch without it, so that `tsq serve` answers from
//! the index while its background pass runs.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::Ordering;

use serde::Serialize;

use super::inputs::{layout_hash, read_configs, signature_changes, InputChange, Inputs, Pending, SignatureChange};
pub use super::pacing::Defer;
use super::pacing::{next_batch, request_bound, BATCH, INCREMENTAL_BATCH, NARROW_FILES};
use super::rows::{DeclarationRow, Facts};
use super::scope::Scope;
pub(crate) use super::sync_plan::needs_sync;
pub use super::sync_plan::pending;
use super::sync_plan::{cascade, consulted_by, edges, plan, read_start, Plan, Start, WithIndexMut};
use super::StructureError;
use crate::index::occurrences::{OccDeclarationRow, OccFileRow, OccurrenceRow};
use crate::index::usage::{is_use, Edge};
use crate::index::Index;
use crate::progress::Progress;
use crate::source::Tree;
use crate::ts::files::FileView;
use crate::ts::protocol::{FileBudget, FileOccurrences, Narrow, NarrowAugmenter, NarrowFile};
use crate::workspace::{Occurrences, Workspace};

/// A file's budget in the occurrence pass, in work units
/// (`protocol::FileBudget`: identifiers and declarations visited, the
/// containers their ids name, the types and instantiations the checker
/// made meanwhile): past it, the file's rows are not computed; it is
/// recorded as failed with the reason (`tsq status`), and its answers are
/// computed live. `TSQ_OCCURRENCE_FILE_WORK` sets it (0: none). Far above
/// real files, far below a hostile one: no file of zod, rxjs or effect
/// reaches 250,000; 1,500 nested functions are 2.3 million, 3,000 about
/// 9 million (benches/README.md, "One file cannot take down the rest").
const FILE_WORK: u64 = 1_000_000;
/// A file's budget in seconds (`TSQ_OCCURRENCE_FILE_SECONDS`; 0: none),
/// seen between the pass's steps: the bound for what work units do not
/// count (one slow checker call).
const FILE_SECONDS: u64 = 120;

/// What an occurrence sync did.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OccurrenceReport {
    /// Files whose rows were (re)computed.
    pub indexed: usize,
    /// Of those, files re-indexed because a file they import changed its API.
    pub cascaded: usize,
    pub removed: usize,
    /// Files that failed, with the error (retried after their next change).
    pub failed: Vec<(String, String)>,
    /// Rows written.
    pub occurrences: usize,
    /// Everything was re-indexed (first index, layout or global change).
    pub full: bool,
    /// A file changed while a batch was computed: that batch was dropped.
    pub interrupted: bool,
    /// Files a cascade queued that this sync left for the next one (what
    /// its `Defer` allowed), recorded in the index.
    pub deferred: usize,
    /// Symbols with a usage prior, when it was recomputed.
    pub used_symbols: usize,
    /// Each changed input the walk does not index (or created file at a
    /// failed lookup), with the files it re-checked and the rule: an edit
    /// is never skipped without a word.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<InputChange>,
    /// Declarations of those files whose signature moved with them.
    #[serde(skip)]
    pub signatures: Vec<SignatureChange>,
    pub ms: u64,
}

/// Each file's budget: `FILE_WORK` and `FILE_SECONDS`, or what
/// `TSQ_OCCURRENCE_FILE_WORK` and `TSQ_OCCURRENCE_FILE_SECONDS` say (the
/// user's environment, never the checkout's config: a hostile checkout
/// must not lift its own bound).
fn file_budget() -> FileBudget {
    let var = |key: &str, default: u64| std::env::var(key).ok().and_then(|v| v.trim().parse().ok()).unwrap_or(default);
    FileBudget { work: var("TSQ_OCCURRENCE_FILE_WORK", FILE_WORK), seconds: var("TSQ_OCCURRENCE_FILE_SECONDS", FILE_SECONDS) }
}

/// One computed file's rows: (occurrences, declarations, the file row).
fn rows_of(f: FileOccurrences, content_hash: String, api_hash: Option<String>, now: i64) -> (Vec<OccurrenceRow>, Vec<OccDeclarationRow>, OccFileRow) {
    let rows = f
        .occurrences
        .iter()
        .map(|o| OccurrenceRow {
            relative_path: f.relative_path.clone(),
            line: o.line,
            column: o.column,
            symbol: o.symbol.clone(),
            role: o.role.clone(),
            enclosing: o.enclosing.clone(),
            caller: o.caller.clone(),
            meaning: o.meaning,
        })
        .collect();
    let declarations = f
        .answers
        .iter()
        .map(|a| OccDeclarationRow {
            relative_path: f.relative_path.clone(),
            name: a.name.clone(),
            ord: a.ord as i64,
            key: a.key.clone(),
            supertypes: a.supertypes.iter().map(|s| format!("|{s}|")).collect(),
            answer: serde_json::to_string(&DeclarationRow::from(a.clone())).unwrap_or_default(),
        })
        .collect();
    let facts = Facts::from_wire(f.declarations, f.items, f.calls, f.bases);
    let file = OccFileRow {
        content_hash,
        relative_path: f.relative_path,
        api_hash,
        global: f.global,
        global_scope: f.global_scope,
        augments: f.augments,
        imports: f.imports,
        reexports: f.reexports,
        lookups: f.lookups,
        affecting: f.affecting,
        specifiers: f.specifiers,
        deps: f.deps,
        reads: f.reads,
        opaque: f.opaque,
        facts: serde_json::to_string(&facts).unwrap_or_default(),
        error: None,
        indexed_at: now,
    };
    (rows, declarations, file)
}

/// Whether `rows`, the new rows of `batch`, change its use edges (the
/// usage prior changes only with them; a body-only edit mostly keeps them).
fn use_edges_changed(ix: &Index, batch: &[String], rows: &[OccurrenceRow]) -> Result<bool, StructureError> {
    let mut before = ix.usage_edges(Some(batch))?;
    let mut after: Vec<Edge> =
        rows.iter().filter(|r| is_use(&r.role)).map(|r| Edge { path: r.relative_path.clone(), from: r.enclosing.clone(), symbol: r.symbol.clone() }).collect();
    before.sort();
    after.sort();
    Ok(before != after)
}

/// Brings the occurrence index up to date with the walk, leaving what
/// `defer` allows for the next sync.
pub fn sync(
    index: &WithIndexMut<'_>,
    ws: &Workspace,
    tree: &Tree,
    view: &FileView,
    progress: &dyn Progress,
    defer: Defer,
) -> Result<OccurrenceReport, StructureError> {
    let started = std::time::Instant::now();
    let start = read_start(index)?;
    let Plan { current, indexable, deleted, mut queue, full, mut imports, mut consulted, inputs_now, inputs_moved, changes, resolution_moved } =
        plan(ws, tree, view, &start)?;
    let Start { root, stored, marker, mut scope, mut pending, inputs: mut recorded, .. } = start;
    let mut report = OccurrenceReport { full, inputs: changes, ..Default::default() };
    // What an earlier pass left whose text is unchanged since its rows,
    // and whether those rows still name what they reference.
    let carried: HashSet<String> = pending
        .files
        .iter()
        .filter(|f| queue.contains(*f) && stored.get(*f).zip(current.get(*f)).is_some_and(|(o, (_, hash))| &o.content_hash == hash))
        .cloned()
        .collect();
    // Files left by a pass that could not tell: what this pass leaves
    // names what it references only if none of them is among it.
    let unknown_names: BTreeSet<String> = if pending.names_current { BTreeSet::new() } else { pending.files.clone() };
    // A changed file the caller names is always re-checked (an answer
    // reads its rows); others that an earlier kept-binding cascade left
    // may be left again.
    let leaves = |f: &String, kept: &BTreeMap<String, String>, carry: bool| carry && pending.names_current && carried.contains(f) && !kept.contains_key(f);
    let defer = match defer {
        Defer::Cascade { kept, carry } if !report.inputs.is_empty() || !queue.iter().all(|f| kept.contains_key(f) || leaves(f, &kept, carry)) => Defer::Nothing,
        d => d,
    };
    let initial: HashSet<String> = match &defer {
        Defer::Cascade { kept, carry } => queue.iter().filter(|f| !leaves(f, kept, *carry)).cloned().collect(),
        _ => HashSet::new(),
    };
    let cascade_mode = matches!(defer, Defer::Cascade { .. });
    // Whether what this pass leaves still names what it references: no
    // input moved, nothing was deleted, and what was re-checked kept its
    // bindings (a cascade by the caller's word) or had unchanged text.
    let mut changed_checked = false;
    let names_current = |changed_checked: bool, report: &OccurrenceReport, left: &BTreeSet<String>| {
        unknown_names.is_disjoint(left) && report.inputs.is_empty() && deleted.is_empty() && !report.full && (cascade_mode || !changed_checked)
    };
    // Which base text each kept file's rows keep the bindings of (kept
    // only for files the walk still has; checked by hash when read).
    let mut kept_texts: BTreeMap<String, [String; 2]> =
        pending.kept.iter().filter(|(f, _)| current.contains_key(*f)).map(|(f, k)| (f.clone(), k.clone())).collect();
    // The queued files a `Cascade` re-checks; the rest it leaves.
    let wanted = |f: &String| !cascade_mode || initial.contains(f);
    // The files a changed input re-checked (file -> input): where their
    // text is unchanged, their signatures before and after are compared.
    let mut seeded: HashMap<String, String> = HashMap::new();
    for c in &report.inputs {
        for f in &c.files {
            seeded.entry(f.clone()).and_modify(|i| *i = format!("{i}, {}", c.input)).or_insert_with(|| c.input.clone());
        }
    }
    if report.full {
        scope.restart();
    }
    scope.set_info(&ws.info());
    if !deleted.is_empty() {
        scope.forget(&deleted);
        index(&mut |ix| {
            ix.delete_occurrences(&deleted)?;
            scope.save(ix)
        })?;
        report.removed = deleted.len();
    }

    // Files per request (`TSQ_OCCURRENCE_BATCH`, a knob for the kill -9 test).
    let batch_env: Option<usize> = std::env::var("TSQ_OCCURRENCE_BATCH").ok().and_then(|v| v.parse().ok());
    let batch_size = |full: bool| batch_env.unwrap_or(if full { BATCH } else { INCREMENTAL_BATCH }).max(1);
    // The soft bound on resident memory (`TSQ_OCCURRENCE_MEMORY_MB`, a memory/time knob, sets both).
    let memory_env: Option<u32> = std::env::var("TSQ_OCCURRENCE_MEMORY_MB").ok().and_then(|v| v.parse().ok());
    let budget = file_budget();
    let mut done: HashSet<String> = HashSet::new();
    let mut cascaded: HashSet<String> = HashSet::new();
    // Whether any re-indexed file's use edges changed (the usage prior).
    let mut usage_changed = false;
    let total = |q: &BTreeSet<String>, d: &HashSet<String>| (q.len() + d.len()) as u64;
    // A full pass goes project by project (each program is built once and
    // released after its files; a batch is a slice with its own checker).
    let mut owners: Option<HashMap<String, usize>> = None;
    let mut yielded = false;
    while !queue.is_empty() {
        // Not a full pass: it is not resumed where it stopped, and the
        // answer waiting would run it whole.
        let waited_for = !report.full && matches!(&defer, Defer::Yield(waiters) if waiters.load(Ordering::SeqCst) > 0);
        if waited_for || !queue.iter().any(&wanted) {
            // Left for the next sync, recorded first (an input change's
            // files are queued nowhere else).
            let left = Pending { names_current: names_current(changed_checked, &report, &queue), files: queue.clone(), kept: kept_texts.clone() };
            if left != pending {
                index(&mut |ix| Ok(left.save(ix)?))?;
                pending = left;
            }
            yielded = waited_for;
            report.deferred = queue.len();
            break;
        }
        if report.full && owners.is_none() {
            let files: Vec<String> = queue.iter().cloned().collect();
            let paths: Vec<PathBuf> = files.iter().map(|p| current[p].0.clone()).collect();
            owners = Some(files.into_iter().zip(ws.owners(&paths)?).map(|(f, o)| (f, o.unwrap_or(usize::MAX))).collect());
        }
        let batch = if cascade_mode {
            let first: BTreeSet<String> = queue.iter().filter(|f| wanted(f)).cloned().collect();
            next_batch(&first, owners.as_ref(), batch_size(report.full))
        } else {
            next_batch(&queue, owners.as_ref(), batch_size(report.full))
        };
        for b in &batch {
            queue.remove(b);
        }
        changed_checked = changed_checked || batch.iter().any(|f| !carried.contains(f));
        progress.update("indexing occurrences", done.len() as u64, total(&queue, &done) + batch.len() as u64);
        let paths: Vec<PathBuf> = batch.iter().map(|p| current[p].0.clone()).collect();
        // Not where resolution moved (a file created or deleted, an input
        // of resolution changed): the owner's whole program then reports
        // what its files no longer fail to resolve (`Scope`).
        let narrow = if !report.full && !resolution_moved && done.is_empty() && !queue.iter().any(&wanted) && batch.len() <= NARROW_FILES {
            let mut first = HashMap::new();
            index(&mut |ix| {
                first = ix.occ_first_ords(&batch)?;
                Ok(())
            })?;
            Some(narrow_request(&batch, &stored, &current, &indexable, &first))
        } else {
            None
        };
        let bound = memory_env.unwrap_or_else(|| request_bound(report.full, done.len(), batch.len(), queue.len(), &defer));
        let checked = ws.occurrences(&paths, report.full, bound, narrow, budget)?;
        let Occurrences { files, failed, programs } = checked;
        // The race guard: nothing in the workspace changed meanwhile.
        let moved = current.values().any(|(path, hash)| view.get(path).map(|e| &e.hash != hash).unwrap_or(true));
        if moved {
            report.interrupted = true;
            break;
        }
        let now = crate::index::now_ms() as i64;
        let reported_order: Vec<String> = programs.iter().map(|p| p.project.clone()).collect();
        let reported: HashSet<String> = reported_order.iter().cloned().collect();
        scope.update(programs);
        let (mut rows, mut file_rows, mut declaration_rows) = (Vec::new(), Vec::new(), Vec::new());
        for f in files {
            let api_hash = f.api_text.as_deref().map(|t| crate::ts::sha256_hex(t.as_bytes()));
            let old = stored.get(&f.relative_path);
            let api_changed = old.is_none_or(|o| o.api_hash != api_hash || o.api_hash.is_none() || o.error.is_some());
            if api_changed && !report.full {
                // Everyone sees a global declaration, and what a global
                // importer names: everything again.
                if f.global
                    || f.opaque
                    || old.is_some_and(|o| o.global)
                    || cascade(&f.relative_path, &imports, &indexable, &done, &batch, &stored, &mut queue, &mut cascaded)
                {
                    report.full = true;
                    queue.extend(indexable.iter().filter(|p| !done.contains(*p) && !batch.contains(p)).cloned());
                }
            }
            imports.insert(f.relative_path.clone(), edges(&f.imports, &f.deps, &f.reexports));
            if old.is_some_and(|o| o.imports != f.imports) {
                scope.follow_imports(&f.relative_path, &f.imports, &reported, &imports);
            }
            // Checked in its closure's program: its imports (and so every
            // program's files and unresolved imports) are as recorded. So
            // are they where it imports the same specifiers as before and
            // nothing moved under resolution: every program holding it
            // resolves them as it did.
            let same_specifiers = !resolution_moved && old.is_some_and(|o| o.error.is_none() && o.specifiers == f.specifiers);
            if !f.narrow && !same_specifiers {
                scope.check_unresolved(&f.relative_path, &reported_order);
            }
            let content_hash = current[&f.relative_path].1.clone();
            let (r, d, file) = rows_of(f, content_hash, api_hash, now);
            rows.extend(r);
            declaration_rows.extend(d);
            file_rows.push(file);
        }
        for fail in failed {
            scope.check_unresolved(&fail.relative_path, &[]);
            report.failed.push((fail.relative_path.clone(), fail.message.clone()));
            if let Some((_, hash)) = current.get(&fail.relative_path) {
                file_rows.push(OccFileRow {
                    relative_path: fail.relative_path,
                    content_hash: hash.clone(),
                    facts: "{}".into(),
                    error: Some(fail.message),
                    indexed_at: now,
                    ..Default::default()
                });
            }
        }
        report.occurrences += rows.len();
        consulted.extend(file_rows.iter().map(|r| (r.relative_path.clone(), consulted_by(r))));
        // What is left is recorded before the rows that queued it are
        // written (their new API hash would hide the cascade). A full
        // pass's too: one that a cascade turned full (a global importer)
        // or a deleted global file started is not resumed by the layout
        // marker, which has not changed.
        // A kept file's rows now come from a text that keeps the bindings
        // of the caller's base (`Defer::Cascade`): a later impact may
        // leave the cascade of a further kept edit of it.
        if let Defer::Cascade { kept, .. } = &defer {
            for f in file_rows.iter().filter(|r| r.error.is_none()) {
                if let Some(base) = kept.get(&f.relative_path) {
                    kept_texts.insert(f.relative_path.clone(), [f.content_hash.clone(), base.clone()]);
                }
            }
        }
        let left = Pending { names_current: names_current(changed_checked, &report, &queue), files: queue.clone(), kept: kept_texts.clone() };
        let record = left != pending;
        // An input first read by these rows (a package.json, a declaration
        // file, a lookup's directory) joins the record before they are
        // written: the record is what a later sync checks for changes, and
        // the pass's last step (which writes it whole) may never run.
        let consulted_more = recorded.add_new(
            &root,
            file_rows.iter().flat_map(|r| r.affecting.iter().chain(&r.reads)).chain(scope.program_reads()),
            file_rows.iter().flat_map(|r| r.lookups.iter()),
            Some(&inputs_now),
        );
        let same_text: Vec<String> = file_rows
            .iter()
            .filter(|r| r.error.is_none() && seeded.contains_key(&r.relative_path))
            .filter(|r| stored.get(&r.relative_path).is_some_and(|o| o.error.is_none() && o.content_hash == r.content_hash))
            .map(|r| r.relative_path.clone())
            .collect();
        let mut moved_signatures = Vec::new();
        index(&mut |ix| {
            if !same_text.is_empty() {
                moved_signatures = signature_changes(&ix.occ_declarations_in(&same_text)?, &declaration_rows, &seeded);
            }
            if record {
                left.save(ix)?;
            }
            if consulted_more {
                recorded.save(ix)?;
            }
            // The scope too: a file whose rows are written is in its
            // programs' record first. A crash between the two leaves a
            // file without fresh rows, which the next sync indexes; the
            // other order left rows that answers filter out.
            scope.save(ix)?;
            usage_changed = usage_changed || report.full || use_edges_changed(ix, &batch, &rows)?;
            Ok(ix.put_occurrences(&file_rows, &rows, &declaration_rows)?)
        })?;
        report.signatures.append(&mut moved_signatures);
        pending = left;
        done.extend(batch);
        let stop = !queue.is_empty()
            && match defer {
                Defer::Nothing | Defer::Yield(_) => false,
                Defer::Past(l) => done.len() + queue.len() > l,
                Defer::Cascade { .. } => !queue.iter().any(&wanted),
            };
        if stop {
            report.deferred = queue.len();
            break;
        }
    }
    // An incremental pass of more than one request (a cascade in `tsq
    // serve`) leaves a checker holding the types of every file it checked,
    // hundreds of MB: fresh checkers and a collection before the usage
    // prior and compaction allocate their own.
    // Not when an answer waits for the pass: the pass resumes after it.
    if !report.full && done.len() > INCREMENTAL_BATCH && !yielded {
        // Memory only: rows are written, so a failure is logged, not fatal.
        match ws.settle() {
            Ok(()) => tracing::debug!(files = done.len(), "settled: fresh checkers after a long incremental pass"),
            Err(e) => tracing::warn!("the engine did not settle after the pass ({e}); its checkers keep their types until the next one"),
        }
    }
    report.indexed = done.len().saturating_sub(report.failed.len());
    report.cascaded = cascaded.len();
    crate::index::crash_point("occurrences-finish");
    let finish = Finish { root: &root, marker: &marker, consulted: &consulted, inputs_now: &inputs_now, inputs_moved, usage_changed };
    finish.run(index, ws, tree, view, &mut report, &mut scope, pending, !done.is_empty())?;
    progress.update("occurrences indexed", done.len() as u64, done.len() as u64);
    report.ms = started.elapsed().as_millis() as u64;
    Ok(report)
}

/// What a sync records after its last batch.
struct Finish<'a> {
    root: &'a std::path::Path,
    marker: &'a std::path::Path,
    consulted: &'a HashMap<String, (Vec<String>, Vec<String>)>,
    inputs_now: &'a Inputs,
    inputs_moved: bool,
    usage_changed: bool,
}

impl Finish<'_> {
    /// Clears what is left when nothing is, completes the scope of a full
    /// pass, writes the layout marker, what resolution consulted and the
    /// usage prior, and compacts when due.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        index: &WithIndexMut<'_>,
        ws: &Workspace,
        tree: &Tree,
        view: &FileView,
        report: &mut OccurrenceReport,
        scope: &mut Scope,
        pending: Pending,
        indexed_any: bool,
    ) -> Result<(), StructureError> {
        // Done: nothing is left (a recorded file may be gone since).
        if !report.interrupted && report.deferred == 0 && !pending.files.is_empty() {
            let cleared = Pending { kept: pending.kept.clone(), ..Pending::default() };
            index(&mut |ix| Ok(cleared.save(ix)?))?;
        }
        if report.full && !report.interrupted && report.deferred == 0 {
            scope.completed();
            index(&mut |ix| scope.save(ix))?;
        }
        if report.full && report.deferred == 0 {
            // Release the last project's program too.
            ws.occurrences(&[], true, 0, None, FileBudget::default())?;
        }
        if !report.interrupted && report.deferred == 0 {
            let extra = read_configs(ws, tree, self.root);
            let layout = layout_hash(tree, self.root, view, &extra);
            let marker_text = std::iter::once(layout).chain(extra).collect::<Vec<_>>().join("\n");
            crate::index::write_atomic(self.marker, marker_text.as_bytes())?;
        }
        // The usage prior follows the rows (and is filled in on an index
        // built before it existed).
        let wrote = indexed_any || report.removed > 0;
        index(&mut |ix| {
            // What the rows read beyond the walk, as they now hold it.
            if (wrote || self.inputs_moved) && !report.interrupted {
                let files = self.consulted.values().flat_map(|(f, _)| f.iter()).chain(scope.program_reads());
                let lookups = self.consulted.values().flat_map(|(_, l)| l.iter());
                Inputs::of(self.root, files, lookups, self.inputs_now).save(ix)?;
            }
            if (wrote && (self.usage_changed || report.removed > 0)) || ix.usage_missing()? {
                report.used_symbols = super::usage::refresh(ix)?;
            }
            if wrote {
                ix.compact_if_due()?;
            }
            Ok(())
        })
    }
}

/// What lets the service check `batch` in its import closure's program,
/// by the rows: per file with clean rows that is not global itself, its
/// recorded imports and place in its program; the files that affect every
/// program (scripts, `declare global`, ambient modules); the augmenters of
/// workspace modules, with what they augment; every file's imports (the
/// service follows them from its roots to pick the augmenters it needs).
fn narrow_request(
    batch: &[String],
    stored: &HashMap<String, OccFileRow>,
    current: &BTreeMap<String, (PathBuf, String)>,
    indexable: &BTreeSet<String>,
    first_ords: &HashMap<String, i64>,
) -> Narrow {
    let abs = |rel: &str| current[rel].0.display().to_string();
    let all = |rels: &[String]| rels.iter().filter(|r| current.contains_key(*r)).map(|r| abs(r)).collect::<Vec<_>>();
    let clean: Vec<(&String, &OccFileRow)> = stored.iter().filter(|(p, r)| r.error.is_none() && indexable.contains(*p) && current.contains_key(*p)).collect();
    let globals = clean.iter().filter(|(_, r)| r.global && r.augments.is_empty()).map(|(p, _)| abs(p)).collect();
    let augmenters =
        clean.iter().filter(|(_, r)| r.global && !r.augments.is_empty()).map(|(p, r)| NarrowAugmenter { file: abs(p), augments: all(&r.augments) }).collect();
    let imports = clean.iter().map(|(p, r)| (abs(p), all(&r.imports))).collect();
    let files = batch
        .iter()
        .filter_map(|p| {
            let row = stored.get(p).filter(|r| !r.global && r.error.is_none())?;
            let file_index = first_ords.get(p).map_or(0, |o| ((o >> 20) & 0xF_FFFF) as u32);
            Some(NarrowFile { file: abs(p), file_index, imports: row.imports.clone(), reexports: row.reexports.clone() })
        })
        .collect();
    Narrow { globals, augmenters, imports, files }
}
