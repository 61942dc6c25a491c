//! The occurrence tables: one row per resolved identifier
//! (`occurrences`: file, position, symbol id, role, enclosing declaration,
//! the call-hierarchy item of a call site) and one row per indexed file
//! (`occ_files`: the content hash the rows were computed from, the API
//! hash, imports and re-exports, the file's declarations, items, call
//! edges and base members as JSON, or the error that stopped it), and one
//! row per declaration of an owned file (`occ_declarations`: its name,
//! containers and order for `symbol =` lookups, its supertypes, and its
//! own answer parts as JSON). What the
//! rows mean is `src/structure/occurrences.rs`'s business; this module
//! stores, reads and deletes.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray, Int64Array, RecordBatch, StringArray};

use super::schema::lists as strings;
use super::schema::{sql_in, Columns};
use super::store::Store;
use super::IndexError;

pub use super::schema::{occ_declarations_schema, occ_files_schema, occurrences_schema, OCCURRENCES};

/// One declaration's stored answer parts.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OccDeclarationRow {
    pub relative_path: String,
    pub name: String,
    pub ord: i64,
    /// `DeclarationAnswer::key`.
    pub key: String,
    /// `|key|` per resolved base class or interface, concatenated.
    pub supertypes: String,
    /// `structure::rows::DeclarationRow` as JSON.
    pub answer: String,
}

/// One resolved identifier.
#[derive(Debug, Clone, PartialEq)]
pub struct OccurrenceRow {
    pub relative_path: String,
    pub line: u32,
    pub column: u32,
    pub symbol: String,
    pub role: String,
    pub enclosing: String,
    pub caller: Option<String>,
    /// Value 1, type 2, namespace 4 (find-references filters on it).
    pub meaning: u8,
}

/// One indexed (or failed) file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OccFileRow {
    pub relative_path: String,
    /// The sha256 of the text the rows were computed from.
    pub content_hash: String,
    /// The sha256 of the declaration emit; `None` for scripts, failures
    /// and files whose emit failed (their importers always re-index).
    pub api_hash: Option<String>,
    pub global: bool,
    /// TypeScript's `isFileAffectingGlobalScope`: a script (not only
    /// ambient modules) or a `declare global` (`FileOccurrences::global_scope`).
    pub global_scope: bool,
    /// When `global` only through augmentations of workspace modules: the
    /// files they augment (`FileOccurrences::augments`).
    pub augments: Vec<String>,
    pub imports: Vec<String>,
    pub reexports: Vec<String>,
    /// Where a created file would answer one of the file's imports
    /// (TypeScript's `failedLookupLocations` inside the workspace).
    pub lookups: Vec<String>,
    /// The package.json files its resolution consulted
    /// (`affectingLocations` inside the workspace).
    pub affecting: Vec<String>,
    /// The module specifiers it imports (`FileOccurrences::specifiers`).
    pub specifiers: Vec<String>,
    /// The walked files TypeScript's builder reaches from it, and the
    /// other files of the root it reaches (`FileOccurrences::deps`,
    /// `reads`); `opaque`: its program keeps no referenced map.
    pub deps: Vec<String>,
    pub reads: Vec<String>,
    pub opaque: bool,
    /// Declarations, items, call edges and base members (JSON).
    pub facts: String,
    /// Why the file has no rows (retried after its next change).
    pub error: Option<String>,
    pub indexed_at: i64,
}

pub fn occurrences_batch(rows: &[OccurrenceRow]) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let cols: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.relative_path.as_str()))),
        Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.line as i64))),
        Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.column as i64))),
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.symbol.as_str()))),
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.role.as_str()))),
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.enclosing.as_str()))),
        Arc::new(StringArray::from(rows.iter().map(|r| r.caller.as_deref()).collect::<Vec<_>>())),
        Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.meaning as i64))),
    ];
    RecordBatch::try_new(occurrences_schema(), cols)
}

pub fn occ_files_batch(rows: &[OccFileRow]) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let cols: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.relative_path.as_str()))),
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.content_hash.as_str()))),
        Arc::new(StringArray::from(rows.iter().map(|r| r.api_hash.as_deref()).collect::<Vec<_>>())),
        Arc::new(BooleanArray::from(rows.iter().map(|r| r.global).collect::<Vec<_>>())),
        Arc::new(BooleanArray::from(rows.iter().map(|r| r.global_scope).collect::<Vec<_>>())),
        strings(rows.iter().map(|r| r.augments.clone())),
        strings(rows.iter().map(|r| r.imports.clone())),
        strings(rows.iter().map(|r| r.reexports.clone())),
        strings(rows.iter().map(|r| r.lookups.clone())),
        strings(rows.iter().map(|r| r.affecting.clone())),
        strings(rows.iter().map(|r| r.specifiers.clone())),
        strings(rows.iter().map(|r| r.deps.clone())),
        strings(rows.iter().map(|r| r.reads.clone())),
        Arc::new(BooleanArray::from(rows.iter().map(|r| r.opaque).collect::<Vec<_>>())),
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.facts.as_str()))),
        Arc::new(StringArray::from(rows.iter().map(|r| r.error.as_deref()).collect::<Vec<_>>())),
        Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.indexed_at))),
    ];
    RecordBatch::try_new(occ_files_schema(), cols)
}

pub fn occ_declarations_batch(rows: &[OccDeclarationRow]) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let cols: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.relative_path.as_str()))),
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.name.as_str()))),
        Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.ord))),
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.key.as_str()))),
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.supertypes.as_str()))),
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.answer.as_str()))),
    ];
    RecordBatch::try_new(occ_declarations_schema(), cols)
}

fn occ_declaration_rows(b: &RecordBatch) -> impl Iterator<Item = OccDeclarationRow> + '_ {
    let c = Columns(b);
    (0..b.num_rows()).map(move |i| OccDeclarationRow {
        relative_path: c.str("relativePath", i).unwrap_or_default(),
        name: c.str("name", i).unwrap_or_default(),
        ord: c.i64("ord", i).unwrap_or_default(),
        key: c.str("key", i).unwrap_or_default(),
        supertypes: c.str("supertypes", i).unwrap_or_default(),
        answer: c.str("answer", i).unwrap_or_default(),
    })
}

fn occurrence_rows(b: &RecordBatch) -> impl Iterator<Item = OccurrenceRow> + '_ {
    let c = Columns(b);
    (0..b.num_rows()).map(move |i| OccurrenceRow {
        relative_path: c.str("relativePath", i).unwrap_or_default(),
        line: c.i64("line", i).unwrap_or_default() as u32,
        column: c.i64("column", i).unwrap_or_default() as u32,
        symbol: c.str("symbol", i).unwrap_or_default(),
        role: c.str("role", i).unwrap_or_default(),
        enclosing: c.str("enclosing", i).unwrap_or_default(),
        caller: c.str("caller", i),
        meaning: c.i64("meaning", i).unwrap_or(7) as u8,
    })
}

fn occ_file_rows(b: &RecordBatch) -> impl Iterator<Item = OccFileRow> + '_ {
    let c = Columns(b);
    (0..b.num_rows()).map(move |i| OccFileRow {
        relative_path: c.str("relativePath", i).unwrap_or_default(),
        content_hash: c.str("contentHash", i).unwrap_or_default(),
        api_hash: c.str("apiHash", i),
        global: c.bool("global", i).unwrap_or_default(),
        global_scope: c.bool("globalScope", i).unwrap_or_default(),
        augments: c.strings("augments", i),
        imports: c.strings("imports", i),
        reexports: c.strings("reexports", i),
        lookups: c.strings("lookups", i),
        affecting: c.strings("affecting", i),
        specifiers: c.strings("specifiers", i),
        deps: c.strings("deps", i),
        reads: c.strings("reads", i),
        opaque: c.bool("opaque", i).unwrap_or_default(),
        facts: c.str("facts", i).unwrap_or_default(),
        error: c.str("error", i),
        indexed_at: c.i64("indexedAt", i).unwrap_or_default(),
    })
}

fn arrow(e: arrow_schema::ArrowError) -> IndexError {
    IndexError::Lance(e.to_string())
}

/// Files per delete or read filter (SQL `IN` lists stay short).
const FILTER_CHUNK: usize = 400;

impl Store {
    /// Replaces the rows of `files` (their occurrences and file rows) with
    /// these. The file rows go first out and last in: a crash in between
    /// leaves the files unindexed, so the next sync redoes them.
    pub(crate) async fn put_occurrences(&self, files: &[OccFileRow], rows: &[OccurrenceRow], declarations: &[OccDeclarationRow]) -> Result<(), IndexError> {
        let paths: Vec<String> = files.iter().map(|f| f.relative_path.clone()).collect();
        self.delete_occurrences(&paths).await?;
        for chunk in rows.chunks(50_000) {
            Store::add(&self.occurrences, occurrences_batch(chunk).map_err(arrow)?).await?;
        }
        for chunk in declarations.chunks(10_000) {
            Store::add(&self.occ_declarations, occ_declarations_batch(chunk).map_err(arrow)?).await?;
        }
        Store::add(&self.occ_files, occ_files_batch(files).map_err(arrow)?).await
    }

    /// Drops every row of these files.
    pub(crate) async fn delete_occurrences(&self, paths: &[String]) -> Result<(), IndexError> {
        for chunk in paths.chunks(FILTER_CHUNK) {
            let filter = sql_in("relativePath", chunk);
            Store::delete(&self.occ_files, &filter).await?;
            Store::delete(&self.occurrences, &filter).await?;
            Store::delete(&self.occ_declarations, &filter).await?;
        }
        Ok(())
    }

    /// The declarations named `name`, in the Language Service's order.
    pub(crate) async fn occ_declarations_named(&self, name: &str) -> Result<Vec<OccDeclarationRow>, IndexError> {
        self.occ_declarations_where(&format!("`name` = {}", super::schema::sql_str(name))).await
    }

    /// Every declaration row of these files, in one query per chunk.
    pub(crate) async fn occ_declarations_in(&self, files: &[String]) -> Result<Vec<OccDeclarationRow>, IndexError> {
        let mut out = Vec::new();
        for chunk in files.chunks(FILTER_CHUNK) {
            out.extend(self.occ_declarations_where(&sql_in("relativePath", chunk)).await?);
        }
        Ok(out)
    }

    /// The declarations named any of `names`, in one query per chunk.
    pub(crate) async fn occ_declarations_named_any(&self, names: &[String]) -> Result<Vec<OccDeclarationRow>, IndexError> {
        let mut out = Vec::new();
        for chunk in names.chunks(FILTER_CHUNK) {
            out.extend(self.occ_declarations_where(&sql_in("name", chunk)).await?);
        }
        out.sort_by_key(|r| r.ord);
        Ok(out)
    }

    /// The classes and interfaces whose resolved supertypes include the
    /// declaration `key` (a superset: LIKE's `_` and `%` match more).
    pub(crate) async fn occ_subtypes(&self, key: &str) -> Result<Vec<OccDeclarationRow>, IndexError> {
        let needle = format!("%|{key}|%").replace('\'', "''");
        self.occ_declarations_where(&format!("`supertypes` LIKE '{needle}'")).await
    }

    /// The declarations with these keys.
    pub(crate) async fn occ_declarations_keyed(&self, keys: &[String]) -> Result<Vec<OccDeclarationRow>, IndexError> {
        let mut out = Vec::new();
        for chunk in keys.chunks(FILTER_CHUNK) {
            out.extend(self.occ_declarations_where(&sql_in("key", chunk)).await?);
        }
        Ok(out)
    }

    /// Each file's first declaration `ord` (its place in its owner
    /// program: `ord / 2^20`), for `files`; files without declarations
    /// are absent.
    pub(crate) async fn occ_first_ords(&self, files: &[String]) -> Result<HashMap<String, i64>, IndexError> {
        let mut out: HashMap<String, i64> = HashMap::new();
        for chunk in files.chunks(FILTER_CHUNK) {
            for r in self.occ_declarations_where(&sql_in("relativePath", chunk)).await? {
                let first = out.entry(r.relative_path).or_insert(r.ord);
                *first = (*first).min(r.ord);
            }
        }
        Ok(out)
    }

    async fn occ_declarations_where(&self, filter: &str) -> Result<Vec<OccDeclarationRow>, IndexError> {
        let mut out = Vec::new();
        for b in Store::scan(&self.occ_declarations, Some(filter), None).await? {
            out.extend(occ_declaration_rows(&b));
        }
        out.sort_by_key(|r| r.ord);
        Ok(out)
    }

    /// Every file row; `facts` only when asked (it is the bulk).
    pub async fn occ_files(&self, facts: bool) -> Result<Vec<OccFileRow>, IndexError> {
        const COLUMNS: &[&str] = &[
            "relativePath",
            "contentHash",
            "apiHash",
            "global",
            "globalScope",
            "augments",
            "imports",
            "reexports",
            "lookups",
            "affecting",
            "specifiers",
            "deps",
            "reads",
            "opaque",
            "facts",
            "error",
            "indexedAt",
        ];
        let columns: Vec<&str> = COLUMNS.iter().copied().filter(|c| facts || *c != "facts").collect();
        let mut out = Vec::new();
        for b in Store::scan(&self.occ_files, None, Some(&columns)).await? {
            out.extend(occ_file_rows(&b));
        }
        Ok(out)
    }

    /// The indexed source files whose occurrence rows were computed from
    /// their current text, and all indexed source files (declaration
    /// files included).
    pub async fn occurrence_coverage(&self) -> Result<[usize; 2], IndexError> {
        let rows: HashMap<String, String> =
            self.occ_file_hashes().await?.into_iter().filter(|r| r.error.is_none()).map(|r| (r.relative_path, r.content_hash)).collect();
        let sources: Vec<_> = self.file_stamps().await?.into_iter().filter(|f| f.skip_reason.is_none()).collect();
        let fresh = sources.iter().filter(|f| rows.get(&f.relative_path).is_some_and(|h| *h == f.content_hash)).count();
        Ok([fresh, sources.len()])
    }

    /// Every file row's path, content hash and error only (what freshness
    /// checks read; the other columns stay default).
    pub(crate) async fn occ_file_hashes(&self) -> Result<Vec<OccFileRow>, IndexError> {
        let mut out = Vec::new();
        for b in Store::scan(&self.occ_files, None, Some(&["relativePath", "contentHash", "error"])).await? {
            out.extend(occ_file_rows(&b));
        }
        Ok(out)
    }

    /// The occurrences of these symbols; `calls_only`: call sites only.
    pub(crate) async fn occurrences_of(&self, symbols: &[String], calls_only: bool) -> Result<Vec<OccurrenceRow>, IndexError> {
        let mut out = Vec::new();
        for chunk in symbols.chunks(FILTER_CHUNK) {
            let mut filter = sql_in("symbol", chunk);
            if calls_only {
                filter.push_str(" AND `caller` IS NOT NULL");
            }
            for b in Store::scan(&self.occurrences, Some(&filter), None).await? {
                out.extend(occurrence_rows(&b));
            }
        }
        Ok(out)
    }

    /// Every occurrence row of one file (checks and tests).
    pub async fn occurrences_in(&self, file: &str) -> Result<Vec<OccurrenceRow>, IndexError> {
        let mut out = Vec::new();
        for b in Store::scan(&self.occurrences, Some(&sql_in("relativePath", &[file.to_string()])), None).await? {
            out.extend(occurrence_rows(&b));
        }
        Ok(out)
    }
}

impl super::Index {
    /// Every occurrence file row (`facts`: with the declarations, items,
    /// call edges and base members).
    pub fn occ_files(&self, facts: bool) -> Result<Vec<OccFileRow>, IndexError> {
        self.runtime.block_on(self.store.occ_files(facts))
    }

    /// Every file row's path, content hash and error, nothing else.
    pub(crate) fn occ_file_hashes(&self) -> Result<Vec<OccFileRow>, IndexError> {
        self.runtime.block_on(self.store.occ_file_hashes())
    }

    /// Whether the workspace has an occurrence index (a count, no scan).
    pub(crate) fn has_occurrences(&self) -> Result<bool, IndexError> {
        Ok(self.runtime.block_on(Store::count(&self.store.occ_files, None))? > 0)
    }

    /// The occurrence index's coverage, as every answer and `tsq status`
    /// state it (`Store::occurrence_coverage`).
    pub fn occurrence_coverage(&self) -> Result<[usize; 2], IndexError> {
        self.runtime.block_on(self.store.occurrence_coverage())
    }

    /// The content hash of every walked source whose mtime and size are
    /// the ones the last chunk sync stored, keyed by relative path: what
    /// the file holds without reading it (the chunk sync's own rule).
    pub(crate) fn stamped_hashes(&self, sources: &[std::path::PathBuf]) -> Result<HashMap<String, String>, IndexError> {
        let rows = self.runtime.block_on(self.store.file_stamps())?;
        let stamps: HashMap<String, (i64, i64, String)> = rows
            .into_iter()
            .filter(|r| r.skip_reason.is_none() && !r.content_hash.is_empty())
            .map(|r| (r.relative_path, (r.mtime, r.size, r.content_hash)))
            .collect();
        let root = self.root();
        let mut out = HashMap::with_capacity(stamps.len());
        for s in sources {
            let rel = super::relative(s, root);
            let Some((mtime, size, hash)) = stamps.get(&rel) else { continue };
            let Ok(meta) = std::fs::metadata(s) else { continue };
            if super::sync::mtime_ns(&meta) == *mtime && meta.len() as i64 == *size {
                out.insert(rel, hash.clone());
            }
        }
        Ok(out)
    }

    /// Replaces these files' occurrence rows, under the writer lock.
    pub(crate) fn put_occurrences(&mut self, files: &[OccFileRow], rows: &[OccurrenceRow], declarations: &[OccDeclarationRow]) -> Result<(), IndexError> {
        self.with_lock(|ix| ix.runtime.block_on(ix.store.put_occurrences(files, rows, declarations)))
    }

    pub fn occ_declarations_named(&self, name: &str) -> Result<Vec<OccDeclarationRow>, IndexError> {
        self.runtime.block_on(self.store.occ_declarations_named(name))
    }

    pub fn occ_subtypes(&self, key: &str) -> Result<Vec<OccDeclarationRow>, IndexError> {
        self.runtime.block_on(self.store.occ_subtypes(key))
    }

    pub fn occ_declarations_named_any(&self, names: &[String]) -> Result<Vec<OccDeclarationRow>, IndexError> {
        self.runtime.block_on(self.store.occ_declarations_named_any(names))
    }

    pub fn occ_declarations_keyed(&self, keys: &[String]) -> Result<Vec<OccDeclarationRow>, IndexError> {
        self.runtime.block_on(self.store.occ_declarations_keyed(keys))
    }

    /// Every declaration row of these files.
    pub fn occ_declarations_in(&self, files: &[String]) -> Result<Vec<OccDeclarationRow>, IndexError> {
        self.runtime.block_on(self.store.occ_declarations_in(files))
    }

    pub fn occ_first_ords(&self, files: &[String]) -> Result<HashMap<String, i64>, IndexError> {
        self.runtime.block_on(self.store.occ_first_ords(files))
    }

    /// Drops these files' occurrence rows (deleted files), under the lock.
    pub(crate) fn delete_occurrences(&mut self, paths: &[String]) -> Result<(), IndexError> {
        self.with_lock(|ix| ix.runtime.block_on(ix.store.delete_occurrences(paths)))
    }

    pub fn occurrences_of(&self, symbols: &[String], calls_only: bool) -> Result<Vec<OccurrenceRow>, IndexError> {
        self.runtime.block_on(self.store.occurrences_of(symbols, calls_only))
    }

    pub fn occurrences_in(&self, file: &str) -> Result<Vec<OccurrenceRow>, IndexError> {
        self.runtime.block_on(self.store.occurrences_in(file))
    }
}
