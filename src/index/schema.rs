//! The index's tables as Arrow schemas, and rows to and from record
//! batches. `chunks` is the blueprint's `CodeChunk` with its camelCase
//! names, plus `definitions`, `language` and `searchText` (what BM25
//! indexes); `vectors` holds one row per embedded window; `files` one row
//! per walked file; `texts` each parsed file's whole text, which BM25 over
//! whole files reads (`Index::file_bm25`).

use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::types::Float32Type;
use arrow_array::{Array, ArrayRef, FixedSizeListArray, Int32Array, Int64Array, ListArray, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use crate::chunk::CodeChunk;
pub(crate) use crate::files::language_of;

/// Bumped whenever a table's layout or a column's meaning changes; an index
/// written with another version is rebuilt, never misread.
pub const SCHEMA_VERSION: u32 = 13;

pub const CHUNKS: &str = "chunks";
pub(crate) const VECTORS: &str = "vectors";
pub(crate) const FILES: &str = "files";
pub(crate) const TEXTS: &str = "texts";

/// Every table, by name.
pub(crate) const TABLES: [&str; 8] = [CHUNKS, VECTORS, FILES, TEXTS, OCCURRENCES, OCC_FILES, OCC_DECLARATIONS, USAGE];

fn vector_type(dimension: usize) -> DataType {
    DataType::FixedSizeList(Arc::new(Field::new("item", DataType::Float32, true)), dimension as i32)
}

/// A column of string lists.
pub(super) fn list_of_strings() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
}

pub fn chunks_schema(dimension: usize) -> SchemaRef {
    let s = |n: &str| Field::new(n, DataType::Utf8, false);
    let o = |n: &str| Field::new(n, DataType::Utf8, true);
    Arc::new(Schema::new(vec![
        s("id"),
        s("filePath"),
        s("relativePath"),
        s("nodeKind"),
        s("name"),
        o("parentName"),
        o("parentChunkId"),
        Field::new("childChunkIds", list_of_strings(), false),
        Field::new("depth", DataType::Int32, false),
        s("signature"),
        s("fullSource"),
        Field::new("startLine", DataType::Int32, false),
        Field::new("endLine", DataType::Int32, false),
        o("jsdoc"),
        Field::new("relevantImports", list_of_strings(), false),
        s("embeddingText"),
        s("breadcrumb"),
        Field::new("vector", vector_type(dimension), true),
        s("contentHash"),
        Field::new("lastModified", DataType::Int64, false),
        s("definitions"),
        s("language"),
        s("searchText"),
    ]))
}

pub fn vectors_schema(dimension: usize) -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("chunkId", DataType::Utf8, false),
        Field::new("relativePath", DataType::Utf8, false),
        Field::new("language", DataType::Utf8, false),
        Field::new("nodeKind", DataType::Utf8, false),
        Field::new("window", DataType::Int32, false),
        Field::new("vector", vector_type(dimension), false),
    ]))
}

pub fn files_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("relativePath", DataType::Utf8, false),
        Field::new("mtime", DataType::Int64, false),
        Field::new("size", DataType::Int64, false),
        Field::new("contentHash", DataType::Utf8, false),
        Field::new("chunks", DataType::Int32, false),
        Field::new("diagnostics", DataType::Int32, false),
        Field::new("skipReason", DataType::Utf8, true),
        Field::new("apiHash", DataType::Utf8, false),
    ]))
}

/// One parsed file's whole text, under an FTS index of plain words
/// (`Store::ensure_fts`): BM25 over whole files, a file-level signal.
pub fn texts_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("relativePath", DataType::Utf8, false),
        Field::new("language", DataType::Utf8, false),
        Field::new("searchText", DataType::Utf8, false),
    ]))
}

/// One chunk as stored.
#[derive(Debug, Clone)]
pub struct ChunkRow {
    pub chunk: CodeChunk,
    pub vector: Option<Vec<f32>>,
    pub content_hash: String,
    pub last_modified: i64,
    pub definitions: String,
    pub language: String,
}

impl ChunkRow {
    /// What BM25 indexes: path, breadcrumb and name (twice), then the code.
    pub(crate) fn search_text(&self) -> String {
        let c = &self.chunk;
        format!("{}\n{}\n{} {}\n{}", c.relative_path, c.breadcrumb, c.name, c.name, c.embedding_text)
    }
}

/// One walked file as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileRow {
    pub relative_path: String,
    pub mtime: i64,
    pub size: i64,
    pub content_hash: String,
    pub chunks: i32,
    pub diagnostics: i32,
    pub skip_reason: Option<String>,
    /// `ParsedFile::api_hash`: the text outside bodies that cannot change
    /// the file's API. Empty when unknown (skipped, or never parsed).
    pub api_hash: String,
}

/// concise-output.md's definitions: `function search, class Searcher`.
pub fn definitions(chunk: &CodeChunk, children: &[&CodeChunk]) -> String {
    std::iter::once(chunk)
        .chain(children.iter().copied())
        .filter(|c| !matches!(c.node_kind.as_str(), "import" | "expression" | "comment" | "re-export") && !c.name.is_empty())
        .map(|c| format!("{} {}", c.node_kind, c.name))
        .collect::<Vec<_>>()
        .join(", ")
}

fn strings(values: impl Iterator<Item = String>) -> ArrayRef {
    Arc::new(StringArray::from_iter_values(values))
}

fn opt_strings(values: impl Iterator<Item = Option<String>>) -> ArrayRef {
    Arc::new(StringArray::from_iter(values))
}

/// A string-list column from its values.
pub(super) fn lists(values: impl Iterator<Item = Vec<String>>) -> ArrayRef {
    let mut b = ListBuilder::new(StringBuilder::new());
    for v in values {
        for s in v {
            b.values().append_value(s);
        }
        b.append(true);
    }
    Arc::new(b.finish())
}

fn vectors(values: impl Iterator<Item = Option<Vec<f32>>>, dimension: usize) -> ArrayRef {
    Arc::new(FixedSizeListArray::from_iter_primitive::<Float32Type, _, _>(
        values.map(|v| v.map(|v| v.into_iter().map(Some).collect::<Vec<_>>())),
        dimension as i32,
    ))
}

pub fn chunks_batch(rows: &[ChunkRow], dimension: usize) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let c = || rows.iter().map(|r| &r.chunk);
    RecordBatch::try_new(
        chunks_schema(dimension),
        vec![
            strings(c().map(|c| c.id.clone())),
            strings(c().map(|c| c.file_path.clone())),
            strings(c().map(|c| c.relative_path.clone())),
            strings(c().map(|c| c.node_kind.clone())),
            strings(c().map(|c| c.name.clone())),
            opt_strings(c().map(|c| c.parent_name.clone())),
            opt_strings(c().map(|c| c.parent_chunk_id.clone())),
            lists(c().map(|c| c.child_chunk_ids.clone())),
            Arc::new(Int32Array::from_iter_values(c().map(|c| c.depth as i32))),
            strings(c().map(|c| c.signature.clone())),
            strings(c().map(|c| c.full_source.clone())),
            Arc::new(Int32Array::from_iter_values(c().map(|c| c.start_line as i32))),
            Arc::new(Int32Array::from_iter_values(c().map(|c| c.end_line as i32))),
            opt_strings(c().map(|c| c.jsdoc.clone())),
            lists(c().map(|c| c.relevant_imports.clone())),
            strings(c().map(|c| c.embedding_text.clone())),
            strings(c().map(|c| c.breadcrumb.clone())),
            vectors(rows.iter().map(|r| r.vector.clone()), dimension),
            strings(rows.iter().map(|r| r.content_hash.clone())),
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.last_modified))),
            strings(rows.iter().map(|r| r.definitions.clone())),
            strings(rows.iter().map(|r| r.language.clone())),
            strings(rows.iter().map(|r| r.search_text())),
        ],
    )
}

/// A window vector to store.
pub(crate) struct WindowRow {
    pub chunk_id: String,
    pub relative_path: String,
    pub language: String,
    pub node_kind: String,
    pub window: i32,
    pub vector: Vec<f32>,
}

pub fn vectors_batch(rows: &[WindowRow], dimension: usize) -> Result<RecordBatch, arrow_schema::ArrowError> {
    RecordBatch::try_new(
        vectors_schema(dimension),
        vec![
            strings(rows.iter().map(|r| r.chunk_id.clone())),
            strings(rows.iter().map(|r| r.relative_path.clone())),
            strings(rows.iter().map(|r| r.language.clone())),
            strings(rows.iter().map(|r| r.node_kind.clone())),
            Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.window))),
            vectors(rows.iter().map(|r| Some(r.vector.clone())), dimension),
        ],
    )
}

/// The `texts` rows of (relative path, whole text) pairs.
pub fn texts_batch(rows: &[(String, std::sync::Arc<str>)]) -> Result<RecordBatch, arrow_schema::ArrowError> {
    RecordBatch::try_new(
        texts_schema(),
        vec![
            strings(rows.iter().map(|(p, _)| p.clone())),
            strings(rows.iter().map(|(p, _)| language_of(p).to_string())),
            strings(rows.iter().map(|(_, t)| t.to_string())),
        ],
    )
}

pub fn files_batch(rows: &[FileRow]) -> Result<RecordBatch, arrow_schema::ArrowError> {
    RecordBatch::try_new(
        files_schema(),
        vec![
            strings(rows.iter().map(|r| r.relative_path.clone())),
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.mtime))),
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.size))),
            strings(rows.iter().map(|r| r.content_hash.clone())),
            Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.chunks))),
            Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.diagnostics))),
            opt_strings(rows.iter().map(|r| r.skip_reason.clone())),
            strings(rows.iter().map(|r| r.api_hash.clone())),
        ],
    )
}

/// Typed column access on a batch read back from LanceDB.
pub(crate) struct Columns<'b>(pub &'b RecordBatch);

impl<'b> Columns<'b> {
    fn col(&self, name: &str) -> Option<&'b ArrayRef> {
        self.0.column_by_name(name)
    }
    pub fn str(&self, name: &str, row: usize) -> Option<String> {
        let a = self.col(name)?.as_any().downcast_ref::<StringArray>()?;
        (!a.is_null(row)).then(|| a.value(row).to_string())
    }
    pub fn i64(&self, name: &str, row: usize) -> Option<i64> {
        let a = self.col(name)?;
        if let Some(a) = a.as_any().downcast_ref::<Int64Array>() {
            return (!a.is_null(row)).then(|| a.value(row));
        }
        let a = a.as_any().downcast_ref::<Int32Array>()?;
        (!a.is_null(row)).then(|| a.value(row) as i64)
    }
    pub fn bool(&self, name: &str, row: usize) -> Option<bool> {
        let a = self.col(name)?.as_any().downcast_ref::<arrow_array::BooleanArray>()?;
        (!a.is_null(row)).then(|| a.value(row))
    }
    pub fn f32(&self, name: &str, row: usize) -> Option<f32> {
        let a = self.col(name)?.as_any().downcast_ref::<arrow_array::Float32Array>()?;
        (!a.is_null(row)).then(|| a.value(row))
    }
    pub(crate) fn strings(&self, name: &str, row: usize) -> Vec<String> {
        let Some(a) = self.col(name).and_then(|a| a.as_any().downcast_ref::<ListArray>()) else { return Vec::new() };
        let v = a.value(row);
        let Some(s) = v.as_any().downcast_ref::<StringArray>() else { return Vec::new() };
        (0..s.len()).filter(|&i| !s.is_null(i)).map(|i| s.value(i).to_string()).collect()
    }
    pub fn vector(&self, name: &str, row: usize) -> Option<Vec<f32>> {
        let a = self.col(name)?.as_any().downcast_ref::<FixedSizeListArray>()?;
        if a.is_null(row) {
            return None;
        }
        let v = a.value(row);
        let f = v.as_any().downcast_ref::<arrow_array::Float32Array>()?;
        Some(f.values().to_vec())
    }
}

/// A chunk row read back from the table.
pub(crate) fn chunk_row(c: &Columns<'_>, row: usize) -> ChunkRow {
    let s = |n: &str| c.str(n, row).unwrap_or_default();
    ChunkRow {
        chunk: CodeChunk {
            id: s("id"),
            file_path: s("filePath"),
            relative_path: s("relativePath"),
            node_kind: s("nodeKind"),
            name: s("name"),
            parent_name: c.str("parentName", row),
            parent_chunk_id: c.str("parentChunkId", row),
            child_chunk_ids: c.strings("childChunkIds", row),
            depth: c.i64("depth", row).unwrap_or(0) as u32,
            signature: s("signature"),
            full_source: s("fullSource"),
            start_line: c.i64("startLine", row).unwrap_or(0) as u32,
            end_line: c.i64("endLine", row).unwrap_or(0) as u32,
            jsdoc: c.str("jsdoc", row),
            relevant_imports: c.strings("relevantImports", row),
            embedding_text: s("embeddingText"),
            breadcrumb: s("breadcrumb"),
            embedding_truncated: false,
            span: Default::default(),
            body_bearing: false,
        },
        vector: c.vector("vector", row),
        content_hash: s("contentHash"),
        last_modified: c.i64("lastModified", row).unwrap_or(0),
        definitions: s("definitions"),
        language: s("language"),
    }
}

pub fn file_row(c: &Columns<'_>, row: usize) -> FileRow {
    FileRow {
        relative_path: c.str("relativePath", row).unwrap_or_default(),
        mtime: c.i64("mtime", row).unwrap_or(0),
        size: c.i64("size", row).unwrap_or(0),
        content_hash: c.str("contentHash", row).unwrap_or_default(),
        chunks: c.i64("chunks", row).unwrap_or(0) as i32,
        diagnostics: c.i64("diagnostics", row).unwrap_or(0) as i32,
        skip_reason: c.str("skipReason", row),
        api_hash: c.str("apiHash", row).unwrap_or_default(),
    }
}

/// A SQL string literal for LanceDB filters.
/// Node kinds kept out of ranking (context for snapshots, not answers;
/// a re-export ranks only where a question names its file) and given no
/// vectors. The one list; `embeddable` is its SQL.
pub(crate) const UNRANKED_KINDS: &[&str] = &["import", "re-export"];

/// The chunks that get vectors, as a filter: every kind but `UNRANKED_KINDS`.
pub(crate) fn embeddable() -> String {
    format!("`nodeKind` NOT IN ({})", UNRANKED_KINDS.iter().map(|k| sql_str(k)).collect::<Vec<_>>().join(", "))
}

pub(crate) fn sql_str(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// `` `column` IN ('a', 'b') `` (camelCase names are quoted).
pub(crate) fn sql_in(column: &str, values: &[String]) -> String {
    format!("`{column}` IN ({})", values.iter().map(|v| sql_str(v)).collect::<Vec<_>>().join(", "))
}

// ---- the occurrence tables (`occurrences`) and the usage prior (`usage`) ----

pub const OCCURRENCES: &str = "occurrences";
pub(crate) const OCC_FILES: &str = "occ_files";
pub(crate) const OCC_DECLARATIONS: &str = "occ_declarations";

pub fn occurrences_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("relativePath", DataType::Utf8, false),
        Field::new("line", DataType::Int64, false),
        Field::new("column", DataType::Int64, false),
        Field::new("symbol", DataType::Utf8, false),
        Field::new("role", DataType::Utf8, false),
        Field::new("enclosing", DataType::Utf8, false),
        Field::new("caller", DataType::Utf8, true),
        Field::new("meaning", DataType::Int64, false),
    ]))
}

pub fn occ_files_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("relativePath", DataType::Utf8, false),
        Field::new("contentHash", DataType::Utf8, false),
        Field::new("apiHash", DataType::Utf8, true),
        Field::new("global", DataType::Boolean, false),
        Field::new("globalScope", DataType::Boolean, false),
        Field::new("augments", list_of_strings(), false),
        Field::new("imports", list_of_strings(), false),
        Field::new("reexports", list_of_strings(), false),
        Field::new("lookups", list_of_strings(), false),
        Field::new("affecting", list_of_strings(), false),
        Field::new("specifiers", list_of_strings(), false),
        Field::new("deps", list_of_strings(), false),
        Field::new("reads", list_of_strings(), false),
        Field::new("opaque", DataType::Boolean, false),
        Field::new("facts", DataType::Utf8, false),
        Field::new("error", DataType::Utf8, true),
        Field::new("indexedAt", DataType::Int64, false),
    ]))
}

pub fn occ_declarations_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("relativePath", DataType::Utf8, false),
        Field::new("name", DataType::Utf8, false),
        Field::new("ord", DataType::Int64, false),
        Field::new("key", DataType::Utf8, false),
        // `|key|` per resolved base class or interface (a LIKE finds subtypes).
        Field::new("supertypes", DataType::Utf8, false),
        Field::new("answer", DataType::Utf8, false),
    ]))
}

pub const USAGE: &str = "usage";

pub fn usage_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("symbol", DataType::Utf8, false),
        // Referencing files other than the declaring one (implementation
        // files 1, tests and examples ½), log-scaled to [0, 1].
        Field::new("fanIn", DataType::Float32, false),
        // PageRank over the declaration reference graph, log-scaled to [0, 1].
        Field::new("rank", DataType::Float32, false),
    ]))
}
