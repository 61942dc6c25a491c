//! The structure tables: each declaration chunk's depth-1 structure as the
//! Language Service computed it (`structure`, keyed by chunk id), and each
//! file's resolved imports (`imports`), which invalidation follows. What a
//! row means and when it is dropped is `src/structure/`'s business and
//! ARCHITECTURE.md's "Structure stays exact" rule; this module stores,
//! reads and deletes.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, BooleanArray, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use super::schema::{sql_in, Columns};
use super::store::Store;
use super::IndexError;

pub const STRUCTURE: &str = "structure";
pub const IMPORTS: &str = "imports";
pub const NAMES: &str = "names";

/// The chunks that are declarations (the rest have no structure).
pub const DECLARATIONS: &str = "`nodeKind` NOT IN ('expression', 'comment', 'import', 're-export') AND `name` != ''";

/// The stored answers that are declaration chunks' (the rest are
/// declarations without a chunk of their own, keyed
/// `structure::DECLARATION_KEY`).
pub const CHUNK_ANSWERS: &str = "`chunkId` NOT LIKE 'decl:%'";

pub(super) fn list_of_strings() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
}

pub fn structure_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("chunkId", DataType::Utf8, false),
        Field::new("relativePath", DataType::Utf8, false),
        Field::new("names", list_of_strings(), false),
        Field::new("callees", list_of_strings(), false),
        Field::new("answer", DataType::Utf8, false),
        Field::new("deps", list_of_strings(), false),
        Field::new("computedAt", DataType::Int64, false),
    ]))
}

pub fn imports_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("relativePath", DataType::Utf8, false),
        Field::new("imports", list_of_strings(), false),
        Field::new("module", DataType::Boolean, false),
        Field::new("project", DataType::Utf8, false),
    ]))
}

pub fn names_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("name", DataType::Utf8, false),
        Field::new("relativePath", DataType::Utf8, false),
        Field::new("containers", list_of_strings(), false),
        Field::new("line", DataType::Int64, false),
        Field::new("ord", DataType::Int64, false),
    ]))
}

/// One declaration chunk's stored structure.
#[derive(Debug, Clone, PartialEq)]
pub struct StructureRow {
    pub chunk_id: String,
    pub relative_path: String,
    /// The declaration's own name (what find-references searches for),
    /// then its callers' names (their own callers decide the answer's
    /// depth markers).
    pub names: Vec<String>,
    /// Its callees' names (their own calls decide the answer's depth
    /// markers; those calls are in the callees' files, which `deps` holds,
    /// and resolve differently only after an API change).
    pub callees: Vec<String>,
    /// `structure::Stored` as JSON.
    pub answer: String,
    /// Every file the answer mentions, its own included.
    pub deps: Vec<String>,
    pub computed_at: i64,
}

/// One file's resolved imports (workspace files only), as tsc resolved them.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportsRow {
    pub relative_path: String,
    pub imports: Vec<String>,
    /// False for a global script: a change to it may affect any file.
    pub module: bool,
    /// The project that owns the file (as tsserver picks it).
    pub project: String,
}

/// One declaration as the Language Service's name index holds it (what a
/// `symbol =` lookup searches), for the files whose imports are recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct NameRow {
    pub name: String,
    pub relative_path: String,
    /// Named containers, outermost first.
    pub containers: Vec<String>,
    /// The line of the declaration's name.
    pub line: i64,
    /// The order the Language Service finds declarations in.
    pub ord: i64,
}

pub(super) fn strings(values: impl Iterator<Item = Vec<String>>) -> ArrayRef {
    let mut b = ListBuilder::new(StringBuilder::new());
    for v in values {
        for s in v {
            b.values().append_value(s);
        }
        b.append(true);
    }
    Arc::new(b.finish())
}

pub fn structure_batch(rows: &[StructureRow]) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let s = |f: fn(&StructureRow) -> &str| Arc::new(StringArray::from_iter_values(rows.iter().map(f))) as ArrayRef;
    RecordBatch::try_new(
        structure_schema(),
        vec![
            s(|r| &r.chunk_id),
            s(|r| &r.relative_path),
            strings(rows.iter().map(|r| r.names.clone())),
            strings(rows.iter().map(|r| r.callees.clone())),
            s(|r| &r.answer),
            strings(rows.iter().map(|r| r.deps.clone())),
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.computed_at))),
        ],
    )
}

pub fn imports_batch(rows: &[ImportsRow]) -> Result<RecordBatch, arrow_schema::ArrowError> {
    RecordBatch::try_new(
        imports_schema(),
        vec![
            Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.relative_path.as_str()))),
            strings(rows.iter().map(|r| r.imports.clone())),
            Arc::new(BooleanArray::from_iter(rows.iter().map(|r| Some(r.module)))),
            Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.project.as_str()))),
        ],
    )
}

pub fn names_batch(rows: &[NameRow]) -> Result<RecordBatch, arrow_schema::ArrowError> {
    RecordBatch::try_new(
        names_schema(),
        vec![
            Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.name.as_str()))),
            Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.relative_path.as_str()))),
            strings(rows.iter().map(|r| r.containers.clone())),
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.line))),
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.ord))),
        ],
    )
}

fn structure_rows(b: &RecordBatch) -> Vec<StructureRow> {
    let c = Columns(b);
    (0..b.num_rows())
        .map(|i| StructureRow {
            chunk_id: c.str("chunkId", i).unwrap_or_default(),
            relative_path: c.str("relativePath", i).unwrap_or_default(),
            names: c.strings("names", i),
            callees: c.strings("callees", i),
            answer: c.str("answer", i).unwrap_or_default(),
            deps: c.strings("deps", i),
            computed_at: c.i64("computedAt", i).unwrap_or(0),
        })
        .collect()
}

impl Store {
    /// Stored structure for these chunk ids (those that have it).
    pub async fn structure_rows(&self, chunk_ids: &[String]) -> Result<Vec<StructureRow>, IndexError> {
        let mut out = Vec::new();
        for group in chunk_ids.chunks(500) {
            for b in Store::scan(&self.structure, Some(&sql_in("chunkId", group)), None).await? {
                out.extend(structure_rows(&b));
            }
        }
        Ok(out)
    }

    /// Chunk ids that have stored structure.
    pub async fn structure_ids(&self) -> Result<HashSet<String>, IndexError> {
        let mut out = HashSet::new();
        for b in Store::scan(&self.structure, None, Some(&["chunkId"])).await? {
            let c = Columns(&b);
            out.extend((0..b.num_rows()).filter_map(|i| c.str("chunkId", i)));
        }
        Ok(out)
    }

    pub async fn put_structure(&self, rows: &[StructureRow]) -> Result<(), IndexError> {
        Store::upsert(&self.structure, "chunkId", structure_batch(rows)?).await
    }

    /// Records files' imports, and the declarations of `owned` files
    /// (reported by their owner project), replacing what they had. Each
    /// owned file also gets a row with an empty name: its declarations are
    /// recorded (`names_recorded`).
    pub async fn put_imports(&self, rows: &[ImportsRow], names: &[NameRow], owned: &[String]) -> Result<(), IndexError> {
        for group in owned.chunks(500) {
            Store::delete(&self.names, &sql_in("relativePath", group)).await?;
        }
        let mut all = names.to_vec();
        all.extend(owned.iter().map(|f| NameRow { name: String::new(), relative_path: f.clone(), containers: Vec::new(), line: 0, ord: -1 }));
        Store::add(&self.names, names_batch(&all)?).await?;
        Store::upsert(&self.imports, "relativePath", imports_batch(rows)?).await
    }

    /// Files whose declarations are recorded.
    pub async fn names_recorded(&self) -> Result<HashSet<String>, IndexError> {
        let mut out = HashSet::new();
        for b in Store::scan(&self.names, Some("`name` = ''"), Some(&["relativePath"])).await? {
            let c = Columns(&b);
            out.extend((0..b.num_rows()).filter_map(|i| c.str("relativePath", i)));
        }
        Ok(out)
    }

    /// The declarations named `name`, in the Language Service's order.
    pub async fn names(&self, name: &str) -> Result<Vec<NameRow>, IndexError> {
        let mut out = Vec::new();
        for b in Store::scan(&self.names, Some(&format!("`name` = {}", super::schema::sql_str(name))), None).await? {
            let c = Columns(&b);
            out.extend((0..b.num_rows()).map(|i| NameRow {
                name: c.str("name", i).unwrap_or_default(),
                relative_path: c.str("relativePath", i).unwrap_or_default(),
                containers: c.strings("containers", i),
                line: c.i64("line", i).unwrap_or(0),
                ord: c.i64("ord", i).unwrap_or(0),
            }));
        }
        out.sort_by_key(|r| r.ord);
        Ok(out)
    }

    /// Stored answers of one file's declarations.
    pub async fn structure_of_file(&self, file: &str) -> Result<Vec<StructureRow>, IndexError> {
        let mut out = Vec::new();
        for b in Store::scan(&self.structure, Some(&format!("`relativePath` = {}", super::schema::sql_str(file))), None).await? {
            out.extend(structure_rows(&b));
        }
        Ok(out)
    }

    /// Every file's recorded imports.
    pub async fn imports(&self) -> Result<HashMap<String, ImportsRow>, IndexError> {
        let mut out = HashMap::new();
        for b in Store::scan(&self.imports, None, None).await? {
            let c = Columns(&b);
            for i in 0..b.num_rows() {
                let r = ImportsRow {
                    relative_path: c.str("relativePath", i).unwrap_or_default(),
                    imports: c.strings("imports", i),
                    module: c.bool("module", i).unwrap_or(false),
                    project: c.str("project", i).unwrap_or_default(),
                };
                out.insert(r.relative_path.clone(), r);
            }
        }
        Ok(out)
    }

    /// Every stored answer without the answer itself: what invalidation
    /// decides on.
    pub async fn structure_keys(&self) -> Result<Vec<StructureRow>, IndexError> {
        let mut out = Vec::new();
        for b in Store::scan(&self.structure, None, Some(&["chunkId", "relativePath", "names", "callees", "deps"])).await? {
            out.extend(structure_rows(&b));
        }
        Ok(out)
    }

    pub async fn delete_structure(&self, chunk_ids: &[String]) -> Result<(), IndexError> {
        for group in chunk_ids.chunks(500) {
            Store::delete(&self.structure, &sql_in("chunkId", group)).await?;
        }
        Ok(())
    }

    /// Drops every stored answer, import list and declaration.
    pub async fn clear_structure(&self) -> Result<(), IndexError> {
        Store::delete(&self.structure, "true").await?;
        Store::delete(&self.names, "true").await?;
        Store::delete(&self.imports, "true").await
    }
}

/// What a sync changed, as invalidation needs it.
pub struct Changes<'a> {
    /// Files whose content changed (same paths before and after).
    pub changed: &'a [String],
    /// Of `changed`, those whose API hash changed (`ParsedFile::api_hash`):
    /// the others changed only inside bodies no importer can see.
    pub api_changed: &'a [String],
    /// Of `changed` minus `api_changed`, the new text of the bodies that
    /// changed (`SyncReport::changed_bodies`); a file not here counts whole.
    pub changed_bodies: &'a HashMap<String, String>,
    /// Of `changed`, the words of what each edit replaced
    /// (`SyncReport::removed_words`).
    pub removed_words: &'a HashMap<String, String>,
    /// Files were created, deleted or newly skipped, or a tsconfig or
    /// jsconfig changed: module resolution and project membership may have
    /// changed anywhere.
    pub layout_changed: bool,
    /// Every walked source file (workspace-relative).
    pub files: &'a [String],
    /// A file's current text.
    pub text: &'a dyn Fn(&str) -> Option<Arc<str>>,
}

/// Drops every stored answer an edit may have changed (ARCHITECTURE.md,
/// "Structure stays exact"), and the changed files' import lists. Returns
/// how many answers were dropped.
///
/// - A layout change (created, deleted or moved files; config edits) or an
///   edit to a global script or a `.d.ts` drops everything.
/// - Otherwise the affected files are the changed ones and, for each
///   changed file whose API changed (its text outside bodies that cannot
///   be inferred from, as tsc's builder compares declaration output), its
///   importers, transitively, and every file whose imports are not
///   recorded (it may import anything). A body-only edit affects its own
///   file alone.
/// - An answer goes when its own file or any file it mentions changed, or
///   when its declaration's name, or a caller's name, occurs as an
///   identifier in an affected file: find-references and call hierarchies
///   only look where a name's text is, and only an affected file can
///   resolve differently. (A caller's own callers decide its depth marker,
///   hence its name.) A callee's name counts only in files an API change
///   reached (its own calls are in its file, which `deps` holds, and
///   resolve differently only then). Of a file edited only inside bodies, only the
///   changed bodies' new text counts: a body's declarations are scoped to
///   it, and what the old text referred to mentions the file.
pub async fn invalidate(store: &Store, changes: &Changes<'_>) -> Result<usize, IndexError> {
    if changes.changed.is_empty() && !changes.layout_changed {
        return Ok(0);
    }
    let stored = Store::count(&store.structure, None).await?;
    let imports = store.imports().await?;
    // A global script or a declaration file may be seen by every file.
    let global_edit = changes.changed.iter().any(|f| imports.get(f).is_some_and(|r| !r.module) || [".d.ts", ".d.mts", ".d.cts"].iter().any(|x| f.ends_with(x)));
    if changes.layout_changed || global_edit {
        store.clear_structure().await?;
        return Ok(stored);
    }
    let changed: HashSet<&str> = changes.changed.iter().map(String::as_str).collect();
    let mut importers: HashMap<&str, Vec<&str>> = HashMap::new();
    for r in imports.values() {
        for i in &r.imports {
            importers.entry(i.as_str()).or_default().push(r.relative_path.as_str());
        }
    }
    // An API change reaches importers, transitively (their inferred types
    // may follow it); files whose imports are not recorded may import
    // anything, so then they and their importers count as affected too.
    // A body-only edit stays in its own file.
    let mut affected: HashSet<&str> = changed.clone();
    let mut queue: Vec<&str> = changes.api_changed.iter().map(String::as_str).collect();
    if !queue.is_empty() {
        queue.extend(changes.files.iter().map(String::as_str).filter(|f| !imports.contains_key(*f)));
    }
    let mut spread: HashSet<&str> = HashSet::new();
    while let Some(f) = queue.pop() {
        affected.insert(f);
        if spread.insert(f) {
            queue.extend(importers.get(f).map(Vec::as_slice).unwrap_or_default().iter().copied().filter(|i| !spread.contains(i)));
        }
    }
    // A body-only edit adds nothing outside its changed bodies: a body's
    // declarations are scoped to it, so the rest of the file resolves as
    // before, and what it referenced before mentions the file (`deps`).
    // Callees' names count only where an API change reached: their own
    // calls, in files `deps` holds, resolve differently only then.
    let (mut idents, mut api_idents): (HashSet<String>, HashSet<String>) = Default::default();
    for f in &affected {
        match changes.changed_bodies.get(*f) {
            Some(bodies) if !spread.contains(f) => idents.extend(identifiers(bodies).map(str::to_string)),
            _ => {
                if let Some(text) = (changes.text)(f) {
                    idents.extend(identifiers(&text).map(str::to_string));
                    api_idents.extend(identifiers(&text).map(str::to_string));
                }
            }
        }
    }
    // What an edit removed counts too: a removed call changes the callee's
    // callers (and so its depth marker in answers that never mention the
    // edited file).
    for words in changes.removed_words.values() {
        idents.extend(words.split_whitespace().map(str::to_string));
        api_idents.extend(words.split_whitespace().map(str::to_string));
    }
    let mut drop: Vec<String> = Vec::new();
    for r in store.structure_keys().await? {
        if changed.contains(r.relative_path.as_str())
            || r.deps.iter().any(|d| changed.contains(d.as_str()))
            || r.names.iter().any(|n| name_occurs(n, &idents))
            || r.callees.iter().any(|n| name_occurs(n, &api_idents))
        {
            drop.push(r.chunk_id);
        }
    }
    store.delete_structure(&drop).await?;
    let stale: Vec<String> = changes.changed.iter().filter(|f| imports.contains_key(f.as_str())).cloned().collect();
    for group in stale.chunks(500) {
        Store::delete(&store.imports, &sql_in("relativePath", group)).await?;
        Store::delete(&store.names, &sql_in("relativePath", group)).await?;
    }
    Ok(drop.len())
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// The identifier-like words of a text (a superset of its identifiers).
pub fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_ident(c)).filter(|w| !w.is_empty())
}

/// Whether `name` may occur in a text whose words are `idents`; a name
/// that is not a plain identifier (quoted, computed) always may.
fn name_occurs(name: &str, idents: &HashSet<String>) -> bool {
    let name = name.trim_start_matches('#');
    name.is_empty() || !name.chars().all(is_ident) || idents.contains(name)
}

impl Store {
    /// Every stored answer.
    pub async fn structure_all(&self) -> Result<Vec<StructureRow>, IndexError> {
        let mut out = Vec::new();
        for b in Store::scan(&self.structure, None, None).await? {
            out.extend(structure_rows(&b));
        }
        Ok(out)
    }
}
