//! Sync on every query (the blueprint's "Incremental Indexing"): walk,
//! stat, hash, re-index what changed, delete what is gone, cascade changed
//! signatures, write in batches. Then `embed_missing` fills in vectors.
//!
//! Crash safety: before a batch touches the tables, its paths go to
//! `.tsq/pending.json`; the journal is removed once chunks and file rows
//! are both committed. A run that finds a journal first deletes those
//! paths' rows everywhere, so they are re-indexed from scratch: a crash can
//! never leave a file row without its chunks or chunks without their row.

use crate::progress::Progress;
use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::Serialize;

use super::schema::{self, sql_in, ChunkRow, Columns, FileRow};
use super::store::Store;
use super::{IndexConfig, IndexError};
use crate::chunk::CodeChunk;
use crate::parse_pool::ParsePool;
use crate::source::Tree;
use crate::ts::files::FileView;

pub(crate) use super::layout::JOURNAL;

/// What a sync did (`tsq index --json`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct SyncReport {
    /// Files walked.
    pub files: usize,
    pub unchanged: usize,
    /// Same content, new mtime: only `lastModified` changed.
    pub touched: usize,
    pub parsed: usize,
    pub removed: usize,
    pub skipped: usize,
    /// Changed files a limited sync left for a later one (`Limit`).
    #[serde(skip_serializing_if = "is_zero")]
    pub pending: usize,
    /// Chunks in the index after the sync.
    pub chunks: usize,
    /// Chunks given vectors (by `tsq index`, after the sync).
    pub embedded: usize,
    /// Chunks elsewhere whose vectors were dropped because a signature
    /// they quote changed.
    pub cascade: usize,
    pub embedder: String,
    pub ms: u64,
    /// Time in the parse engine, in LanceDB writes, and embedding.
    #[serde(rename = "parseMs")]
    pub parse_ms: u64,
    #[serde(rename = "writeMs")]
    pub write_ms: u64,
    #[serde(rename = "embedMs")]
    pub embed_ms: u64,
}

struct Dirty {
    rel: String,
    path: std::path::PathBuf,
    mtime: i64,
    size: i64,
    hash: String,
    /// The text as read and hashed once (`FileView`): parsed from here.
    text: std::sync::Arc<str>,
}

pub(super) fn mtime_ns(m: &std::fs::Metadata) -> i64 {
    m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map(|d| d.as_nanos() as i64).unwrap_or(0)
}

pub(crate) fn relative(path: &Path, root: &Path) -> String {
    crate::parse_pool::file_paths(path, root).relative_path
}

/// Deletes the rows of paths a crashed batch may have half-written.
pub(crate) async fn recover_journal(store: &Store) -> Result<(), IndexError> {
    let path = store.dir.join(JOURNAL);
    let Some(text) = super::disk::read_record(&path) else { return Ok(()) };
    let paths: Vec<String> = serde_json::from_str(&text).unwrap_or_default();
    tracing::info!("finishing an interrupted write of {} files", paths.len());
    for group in paths.chunks(500) {
        let group = group.to_vec();
        Store::delete(&store.chunks, &sql_in("relativePath", &group)).await?;
        Store::delete(&store.vectors, &sql_in("relativePath", &group)).await?;
        Store::delete(&store.files, &sql_in("relativePath", &group)).await?;
        Store::delete(&store.texts, &sql_in("relativePath", &group)).await?;
    }
    // A journal that is not JSON (torn write) names nothing yet written.
    let _ = std::fs::remove_file(&path);
    Ok(())
}

/// What a sync reads: the query's one walk and the shared file view, and
/// how much of what changed it parses now.
#[derive(Clone, Copy)]
pub(crate) struct SyncInput<'a> {
    pub tree: &'a Tree,
    pub view: &'a FileView,
    /// `None`: every changed file.
    pub limit: Option<Limit<'a>>,
}

/// A sync that parses at most `files` of the changed files, those nearest
/// the question's `words` first (`nearest::order`); the others keep no
/// row, so the next sync finds them changed still (`SyncReport::pending`).
#[derive(Clone, Copy)]
pub(crate) struct Limit<'a> {
    pub files: usize,
    pub words: &'a [String],
}

pub async fn run(
    store: &Store,
    root: &Path,
    engine: &ParsePool,
    config: &IndexConfig,
    input: SyncInput<'_>,
    progress: &dyn Progress,
) -> Result<SyncReport, IndexError> {
    recover_journal(store).await?;
    let known: HashMap<String, FileRow> = store.files().await?.into_iter().map(|f| (f.relative_path.clone(), f)).collect();
    let mut report = SyncReport { files: input.tree.sources.len(), ..Default::default() };
    let mut changes = classify(&known, root, config, input, &mut report);
    if let Some(limit) = input.limit.filter(|l| changes.dirty.len() > l.files) {
        let texts: Vec<(&str, &str)> = changes.dirty.iter().map(|d| (d.rel.as_str(), &*d.text)).collect();
        let order = super::nearest::order(&texts, limit.words);
        let mut slots: Vec<Option<Dirty>> = std::mem::take(&mut changes.dirty).into_iter().map(Some).collect();
        changes.dirty = order.into_iter().take(limit.files).filter_map(|i| slots[i].take()).collect();
        report.pending = slots.iter().flatten().count();
    }
    report.removed = changes.removed.len();
    drop_gone(store, &known, &changes).await?;
    restamp(store, &changes.touched, &mut report).await?;

    // Re-index what changed, a batch of files per commit.
    let mut old_signatures: HashSet<String> = HashSet::new();
    let dirty = &changes.dirty;
    let dirty_paths: HashSet<String> = dirty.iter().map(|d| d.rel.clone()).collect();
    for (n, batch) in dirty.chunks(config.files_per_commit.max(1)).enumerate() {
        old_signatures.extend(reparse(store, root, engine, batch, &mut report).await?);
        progress.update("parsed", ((n * config.files_per_commit) + batch.len()) as u64, dirty.len() as u64);
    }
    if !old_signatures.is_empty() {
        report.cascade = cascade(store, &old_signatures, &dirty_paths).await?;
    }
    if !dirty.is_empty() || report.removed > 0 {
        store.ensure_fts().await?;
    }
    report.chunks = Store::count(&store.chunks, None).await?;
    Ok(report)
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The walk sorted against the stored file rows.
struct Changes {
    /// Files to parse again, read and hashed once.
    dirty: Vec<Dirty>,
    /// Same content, new mtime.
    touched: Vec<FileRow>,
    /// Rows of files skipped now (with the reason), where they changed.
    skipped_rows: Vec<FileRow>,
    /// Stored files the walk no longer has.
    removed: Vec<String>,
}

/// Sorts the walk's files by what changed since their stored rows
/// (mtime and size, then the content hash), counting them in `report`.
fn classify(known: &HashMap<String, FileRow>, root: &Path, config: &IndexConfig, input: SyncInput<'_>, report: &mut SyncReport) -> Changes {
    let walk = input.tree;
    let mut seen: HashSet<String> = HashSet::with_capacity(walk.sources.len());
    let mut changes = Changes { dirty: Vec::new(), touched: Vec::new(), skipped_rows: Vec::new(), removed: Vec::new() };
    let skip = |relative_path: String, mtime: i64, size: i64, reason: String| FileRow {
        relative_path,
        mtime,
        size,
        content_hash: String::new(),
        chunks: 0,
        diagnostics: 0,
        skip_reason: Some(reason),
        api_hash: String::new(),
    };
    for s in &walk.skipped {
        let rel = relative(Path::new(&s.path), root);
        seen.insert(rel.clone());
        let row = skip(rel.clone(), 0, 0, s.message.clone());
        if known.get(&rel) != Some(&row) {
            changes.skipped_rows.push(row);
        }
        report.skipped += 1;
    }
    for path in &walk.sources {
        let rel = relative(path, root);
        seen.insert(rel.clone());
        let Ok(meta) = std::fs::metadata(path) else { continue };
        let (mtime, size) = (mtime_ns(&meta), meta.len() as i64);
        let old = known.get(&rel);
        if let Some(old) = old {
            if old.mtime == mtime && old.size == size {
                report.unchanged += 1;
                if old.skip_reason.is_some() {
                    report.skipped += 1;
                }
                continue;
            }
        }
        // Read, checked and hashed once; the parse takes this text.
        let entry = match input.view.get_with(path, &meta) {
            Ok(e) => e,
            Err(e) => {
                changes.skipped_rows.push(skip(rel, mtime, size, e.to_string()));
                report.skipped += 1;
                continue;
            }
        };
        let hash = entry.hash.clone();
        if let Some(old) = old {
            if !hash.is_empty() && old.content_hash == hash {
                changes.touched.push(FileRow { mtime, size, ..old.clone() });
                report.touched += 1;
                continue;
            }
        }
        let text = match &entry.text {
            Err(e) => Err(e.to_string()),
            Ok(text) => minified(text, config.minified_mean_line).map_or(Ok(text.clone()), Err),
        };
        match text {
            Ok(text) => changes.dirty.push(Dirty { rel, path: path.clone(), mtime, size, hash, text }),
            Err(reason) => {
                changes.skipped_rows.push(FileRow { content_hash: hash, ..skip(rel, mtime, size, reason) });
                report.skipped += 1;
            }
        }
    }
    changes.removed = known.keys().filter(|k| !seen.contains(*k)).cloned().collect();
    changes
}

/// Removed files and newly skipped ones lose their chunks; skipped rows
/// are written (under the journal).
async fn drop_gone(store: &Store, known: &HashMap<String, FileRow>, changes: &Changes) -> Result<(), IndexError> {
    let mut gone: Vec<String> = changes.removed.clone();
    gone.extend(changes.skipped_rows.iter().filter(|r| known.get(&r.relative_path).is_some_and(|k| k.chunks > 0)).map(|r| r.relative_path.clone()));
    if gone.is_empty() && changes.skipped_rows.is_empty() {
        return Ok(());
    }
    let mut journal = gone.clone();
    journal.extend(changes.skipped_rows.iter().map(|r| r.relative_path.clone()));
    write_journal(store, &journal)?;
    for group in gone.chunks(500) {
        Store::delete(&store.chunks, &sql_in("relativePath", group)).await?;
        Store::delete(&store.vectors, &sql_in("relativePath", group)).await?;
    }
    // Whole texts go with every removed or skipped file, chunks or none.
    for group in journal.chunks(500) {
        Store::delete(&store.texts, &sql_in("relativePath", group)).await?;
    }
    for group in changes.removed.chunks(500) {
        Store::delete(&store.files, &sql_in("relativePath", group)).await?;
    }
    Store::upsert(&store.files, "relativePath", schema::files_batch(&changes.skipped_rows)?).await?;
    clear_journal(store);
    Ok(())
}

/// Same content, new mtime: lastModified only (no parse, no embed; the
/// rows are rewritten with their vectors, one commit per group).
async fn restamp(store: &Store, touched: &[FileRow], report: &mut SyncReport) -> Result<(), IndexError> {
    let write_started = std::time::Instant::now();
    for group in touched.chunks(500) {
        let mtimes: HashMap<&str, i64> = group.iter().map(|r| (r.relative_path.as_str(), r.mtime)).collect();
        let paths: Vec<String> = group.iter().map(|r| r.relative_path.clone()).collect();
        let mut rows = read_chunks(store, &sql_in("relativePath", &paths)).await?;
        for r in &mut rows {
            r.last_modified = mtimes.get(r.chunk.relative_path.as_str()).copied().unwrap_or(r.last_modified);
        }
        Store::upsert(&store.chunks, "id", schema::chunks_batch(&rows, store.dimension)?).await?;
        Store::upsert(&store.files, "relativePath", schema::files_batch(group)?).await?;
    }
    if !touched.is_empty() {
        report.write_ms += write_started.elapsed().as_millis() as u64;
    }
    Ok(())
}

/// Parses one batch of changed files and replaces their chunks and file
/// rows in one commit (under the journal). Returns the signatures the
/// batch changed (their old text), for the signature cascade.
async fn reparse(store: &Store, root: &Path, engine: &ParsePool, batch: &[Dirty], report: &mut SyncReport) -> Result<HashSet<String>, IndexError> {
    let paths: Vec<String> = batch.iter().map(|d| d.rel.clone()).collect();
    let previous = previous_signatures(store, &paths).await?;
    let mut rows: Vec<ChunkRow> = Vec::new();
    let mut file_rows: Vec<FileRow> = Vec::new();
    // The whole text of each file that parsed, for BM25 over whole files.
    let mut texts: Vec<(String, std::sync::Arc<str>)> = Vec::new();
    let files: Vec<(std::path::PathBuf, String)> = batch.iter().map(|d| (d.path.clone(), d.text.to_string())).collect();
    let mut i = 0;
    let parse_started = std::time::Instant::now();
    engine.parse_texts(files, root, &mut |result| {
        let d = &batch[i];
        i += 1;
        let base = FileRow {
            relative_path: d.rel.clone(),
            mtime: d.mtime,
            size: d.size,
            content_hash: d.hash.clone(),
            chunks: 0,
            diagnostics: 0,
            skip_reason: None,
            api_hash: String::new(),
        };
        match result {
            Err(skipped) => file_rows.push(FileRow { skip_reason: Some(skipped.message), ..base }),
            Ok(parse) => {
                if let Some(failure) = &parse.parsed.failure {
                    file_rows.push(FileRow {
                        skip_reason: Some(format!("parse failed: {failure}")),
                        diagnostics: parse.parsed.diagnostics.len() as i32,
                        ..base
                    });
                    return;
                }
                let chunks = parse.chunks();
                let file_rows_chunks = chunks.len() as i32;
                rows.extend(chunk_rows(&chunks, &d.hash, d.mtime));
                texts.push((d.rel.clone(), d.text.clone()));
                let api_hash = parse.parsed.api_hash();
                file_rows.push(FileRow { chunks: file_rows_chunks, diagnostics: parse.parsed.diagnostics.len() as i32, api_hash, ..base });
            }
        }
    });
    report.parse_ms += parse_started.elapsed().as_millis() as u64;
    report.parsed += batch.len();
    report.skipped += file_rows.iter().filter(|r| r.skip_reason.is_some()).count();
    let new_sigs: HashMap<String, &str> = rows.iter().map(|r| (signature_key(&r.chunk), r.chunk.signature.as_str())).collect();
    let mut old_signatures = HashSet::new();
    for (key, old) in previous {
        if new_sigs.get(&key).is_some_and(|new| *new != old) && !old.trim().is_empty() {
            old_signatures.insert(old);
        }
    }
    let write_started = std::time::Instant::now();
    write_journal(store, &paths)?;
    Store::delete(&store.chunks, &sql_in("relativePath", &paths)).await?;
    Store::delete(&store.vectors, &sql_in("relativePath", &paths)).await?;
    Store::delete(&store.texts, &sql_in("relativePath", &paths)).await?;
    Store::add(&store.chunks, schema::chunks_batch(&rows, store.dimension)?).await?;
    Store::add(&store.texts, schema::texts_batch(&texts)?).await?;
    Store::upsert(&store.files, "relativePath", schema::files_batch(&file_rows)?).await?;
    clear_journal(store);
    report.write_ms += write_started.elapsed().as_millis() as u64;
    Ok(old_signatures)
}

/// The journal names paths whose rows a batch is about to change.
pub(super) fn write_journal(store: &Store, paths: &[String]) -> Result<(), IndexError> {
    super::write_atomic(&store.dir.join(JOURNAL), serde_json::to_string(paths).unwrap_or_default().as_bytes())
}

fn clear_journal(store: &Store) {
    let _ = std::fs::remove_file(store.dir.join(JOURNAL));
}

/// A minified file: long mean lines (bundles, generated code).
fn minified(text: &str, max_mean: usize) -> Option<String> {
    let lines = text.lines().count().max(1);
    let mean = text.len() / lines;
    (text.len() > 4096 && mean > max_mean).then(|| format!("minified (mean line length {mean} characters, over {max_mean})"))
}

/// Identifies a chunk across versions of its file.
fn signature_key(c: &CodeChunk) -> String {
    format!("{}\u{1}{}\u{1}{}\u{1}{}", c.relative_path, c.node_kind, c.parent_name.as_deref().unwrap_or(""), c.name)
}

async fn previous_signatures(store: &Store, paths: &[String]) -> Result<Vec<(String, String)>, IndexError> {
    let mut out = Vec::new();
    let filter = format!("{} AND {}", sql_in("relativePath", paths), schema::embeddable());
    for b in Store::scan(&store.chunks, Some(&filter), Some(&["relativePath", "nodeKind", "parentName", "name", "signature"])).await? {
        let c = Columns(&b);
        for i in 0..b.num_rows() {
            let key = format!(
                "{}\u{1}{}\u{1}{}\u{1}{}",
                c.str("relativePath", i).unwrap_or_default(),
                c.str("nodeKind", i).unwrap_or_default(),
                c.str("parentName", i).unwrap_or_default(),
                c.str("name", i).unwrap_or_default()
            );
            out.push((key, c.str("signature", i).unwrap_or_default()));
        }
    }
    Ok(out)
}

/// Drops the vectors of chunks in other files whose `embeddingText` quotes
/// a changed signature, so `embed_missing` re-embeds exactly those.
async fn cascade(store: &Store, old: &HashSet<String>, dirty: &HashSet<String>) -> Result<usize, IndexError> {
    let mut ids = Vec::new();
    for b in Store::scan(&store.chunks, Some(&schema::embeddable()), Some(&["id", "relativePath", "embeddingText"])).await? {
        let c = Columns(&b);
        for i in 0..b.num_rows() {
            let rel = c.str("relativePath", i).unwrap_or_default();
            if dirty.contains(&rel) {
                continue;
            }
            let text = c.str("embeddingText", i).unwrap_or_default();
            if old.iter().any(|sig| text.contains(sig.as_str())) {
                ids.push(c.str("id", i).unwrap_or_default());
            }
        }
    }
    for group in ids.chunks(500) {
        let group = group.to_vec();
        let mut rows = read_chunks(store, &sql_in("id", &group)).await?;
        rows.iter_mut().for_each(|r| r.vector = None);
        Store::delete(&store.vectors, &sql_in("chunkId", &group)).await?;
        Store::upsert(&store.chunks, "id", schema::chunks_batch(&rows, store.dimension)?).await?;
    }
    Ok(ids.len())
}

pub async fn read_chunks(store: &Store, filter: &str) -> Result<Vec<ChunkRow>, IndexError> {
    let mut out = Vec::new();
    for b in Store::scan(&store.chunks, Some(filter), None).await? {
        let c = Columns(&b);
        out.extend((0..b.num_rows()).map(|i| schema::chunk_row(&c, i)));
    }
    Ok(out)
}

fn chunk_rows(chunks: &[CodeChunk], hash: &str, mtime: i64) -> Vec<ChunkRow> {
    let by_id: HashMap<&str, &CodeChunk> = chunks.iter().map(|c| (c.id.as_str(), c)).collect();
    chunks
        .iter()
        .map(|c| {
            let children: Vec<&CodeChunk> = c.child_chunk_ids.iter().filter_map(|id| by_id.get(id.as_str()).copied()).collect();
            ChunkRow {
                definitions: schema::definitions(c, &children),
                language: schema::language_of(&c.relative_path).into(),
                chunk: c.clone(),
                vector: None,
                content_hash: hash.to_string(),
                last_modified: mtime,
            }
        })
        .collect()
}

/// After a pull: the walked files whose content is their row's take the
/// local stamps (mtime, size) in `files` alone, so the sync that follows
/// counts them unchanged instead of rewriting their chunks (which keep the
/// publisher's `lastModified`): the pulled data files stay the published
/// ones, and the next pull downloads only what a new commit changed.
/// Returns how many files took local stamps.
pub(super) async fn adopt_stamps(store: &Store, root: &Path, input: SyncInput<'_>) -> Result<usize, IndexError> {
    let known: HashMap<String, FileRow> = store.files().await?.into_iter().map(|f| (f.relative_path.clone(), f)).collect();
    let mut rows = Vec::new();
    for path in &input.tree.sources {
        let Some(old) = known.get(&relative(path, root)) else { continue };
        let Ok(meta) = std::fs::metadata(path) else { continue };
        let (mtime, size) = (mtime_ns(&meta), meta.len() as i64);
        if (old.mtime == mtime && old.size == size) || old.content_hash.is_empty() || old.skip_reason.is_some() {
            continue;
        }
        if input.view.get_with(path, &meta).is_ok_and(|e| e.hash == old.content_hash) {
            rows.push(FileRow { mtime, size, ..old.clone() });
        }
    }
    for group in rows.chunks(500) {
        Store::upsert(&store.files, "relativePath", schema::files_batch(group)?).await?;
    }
    Ok(rows.len())
}
