//! The LanceDB store under `<root>/.tsq/`: opening (with recovery from a
//! damaged latest manifest), the tables, batched writes, reads, and
//! version housekeeping. Async inside; `Index` drives it on its runtime.

use std::path::{Path, PathBuf};

use arrow_array::{RecordBatch, RecordBatchIterator};
use futures::TryStreamExt;
use lancedb::index::scalar::FtsIndexBuilder;
use lancedb::index::Index as LanceIndex;
use lancedb::query::{ExecutableQuery, QueryBase, Select};
use lancedb::table::{OptimizeAction, Table};
use lancedb::Connection;

use super::schema::{self, Columns, FileRow, CHUNKS, FILES, TEXTS, VECTORS};
use super::IndexError;

/// Versions a table may reach before `optimize` compacts and prunes.
pub const MAX_VERSIONS: usize = 24;
/// Window vectors past which search uses an ANN index (IVF_PQ, refined by
/// exact distances) instead of a flat scan.
pub(crate) const ANN_MIN_ROWS: usize = 50_000;

pub(crate) use super::schema::TABLES;

pub struct Store {
    pub dir: PathBuf,
    pub dimension: usize,
    db: Connection,
    pub chunks: Table,
    pub vectors: Table,
    pub files: Table,
    /// Each parsed file's whole text, for BM25 over whole files.
    pub texts: Table,
    /// The occurrence index (`occurrences.rs`).
    pub occurrences: Table,
    pub occ_files: Table,
    pub occ_declarations: Table,
    /// Each used symbol's usage prior (`usage.rs`).
    pub usage: Table,
}

/// Whether a stored table has the columns `expected` names, in order.
fn same_columns(stored: &arrow_schema::Schema, expected: &arrow_schema::Schema) -> bool {
    stored.fields().iter().map(|f| f.name()).eq(expected.fields().iter().map(|f| f.name()))
}

fn lance(e: lancedb::Error) -> IndexError {
    IndexError::Lance(e.to_string())
}

impl Store {
    /// Opens the tables, creating them when missing. A table whose latest
    /// manifest cannot be read falls back to the previous version; the
    /// second element says whether that happened (the caller reconciles).
    pub async fn open(dir: &Path, dimension: usize) -> Result<(Store, bool), IndexError> {
        // Strong consistency: every read sees what other processes committed.
        let db = lancedb::connect(&dir.display().to_string()).read_consistency_interval(std::time::Duration::ZERO).execute().await.map_err(lance)?;
        let mut recovered = false;
        let names = db.table_names().execute().await.map_err(lance)?;
        // `derived`: a table the occurrence sync fills from the sources
        // alone. One written with other columns (an older tsq) is emptied
        // and filled again, instead of the whole index being rebuilt.
        let open = |name: &'static str, schema: arrow_schema::SchemaRef, derived: bool| {
            let db = db.clone();
            let exists = names.iter().any(|n| n == name);
            let dir = dir.to_path_buf();
            async move {
                if !exists {
                    return db.create_empty_table(name, schema).execute().await.map_err(lance).map(|t| (t, false));
                }
                let mut fell_back = false;
                for _ in 0..4 {
                    match db.open_table(name).execute().await {
                        Ok(t) => match t.count_rows(None).await {
                            Ok(_) if derived && !same_columns(&*t.schema().await.map_err(lance)?, &schema) => {
                                tracing::info!("{name}: written by another tsq with other columns; emptied, the next sync fills it again");
                                db.drop_table(name, &[]).await.map_err(lance)?;
                                return db.create_empty_table(name, schema).execute().await.map_err(lance).map(|t| (t, false));
                            }
                            Ok(_) => return Ok((t, fell_back)),
                            Err(e) if set_aside_latest_manifest(&dir, name) => {
                                tracing::warn!("{name}: unreadable latest version ({e}); using the previous one");
                                fell_back = true;
                            }
                            Err(e) => return Err(lance(e)),
                        },
                        Err(e) if set_aside_latest_manifest(&dir, name) => {
                            tracing::warn!("{name}: cannot open ({e}); using the previous version");
                            fell_back = true;
                        }
                        Err(e) => return Err(lance(e)),
                    }
                }
                Err(IndexError::Corrupt(format!("{name}: no readable version")))
            }
        };
        // Opened together: each open reads its manifest and counts rows,
        // and a cold lookup waits for all eight.
        let started = std::time::Instant::now();
        let ((chunks, a), (vectors, b), (files, c), (texts, d), (occurrences, g), (occ_files, h), (occ_declarations, i), (usage, j)) = futures::try_join!(
            open(CHUNKS, schema::chunks_schema(dimension), false),
            open(VECTORS, schema::vectors_schema(dimension), false),
            open(FILES, schema::files_schema(), false),
            open(TEXTS, schema::texts_schema(), false),
            open(schema::OCCURRENCES, schema::occurrences_schema(), true),
            open(schema::OCC_FILES, schema::occ_files_schema(), true),
            open(schema::OCC_DECLARATIONS, schema::occ_declarations_schema(), true),
            open(schema::USAGE, schema::usage_schema(), true),
        )?;
        tracing::debug!(ms = started.elapsed().as_millis() as u64, "index tables opened");
        recovered |= a || b || c || d || g || h || i || j;
        Ok((Store { dir: dir.to_path_buf(), dimension, db, chunks, vectors, files, texts, occurrences, occ_files, occ_declarations, usage }, recovered))
    }

    /// The vector dimension the chunks table was created with.
    pub(crate) async fn table_dimension(&self) -> Result<usize, IndexError> {
        let schema = self.chunks.schema().await.map_err(lance)?;
        match schema.field_with_name("vector").map(|f| f.data_type().clone()) {
            Ok(arrow_schema::DataType::FixedSizeList(_, n)) => Ok(n as usize),
            _ => Err(IndexError::Corrupt("chunks.vector is not a fixed-size list".into())),
        }
    }

    /// Forgets every vector (another model of the same size takes over):
    /// the window vectors go, and every chunk's `vector` becomes null, so
    /// `embed_missing` embeds them all again. Chunks, files and the
    /// occurrence rows stay.
    pub(crate) async fn clear_vectors(&self) -> Result<(), IndexError> {
        Store::delete(&self.vectors, "true").await?;
        self.chunks.update().only_if("vector IS NOT NULL").column("vector", "NULL").execute().await.map_err(lance)?;
        Ok(())
    }

    pub async fn drop_all(&self) -> Result<(), IndexError> {
        for name in TABLES {
            let _ = self.db.drop_table(name, &[]).await;
        }
        Ok(())
    }

    pub async fn add(table: &Table, batch: RecordBatch) -> Result<(), IndexError> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        table.add(batch).execute().await.map_err(lance)?;
        Ok(())
    }

    pub async fn delete(table: &Table, filter: &str) -> Result<(), IndexError> {
        table.delete(filter).await.map_err(lance)?;
        Ok(())
    }

    /// Replaces rows matched on `key` (insert when new), in one commit.
    pub(crate) async fn upsert(table: &Table, key: &str, batch: RecordBatch) -> Result<(), IndexError> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let schema = batch.schema();
        let mut merge = table.merge_insert(&[key]);
        merge.when_matched_update_all(None).when_not_matched_insert_all();
        merge.execute(Box::new(RecordBatchIterator::new(vec![Ok(batch)], schema))).await.map_err(lance)?;
        Ok(())
    }

    fn tables(&self) -> [&Table; 8] {
        [&self.chunks, &self.vectors, &self.files, &self.texts, &self.occurrences, &self.occ_files, &self.occ_declarations, &self.usage]
    }

    /// All rows of a table (or those matching `filter`), selected columns.
    pub async fn scan(table: &Table, filter: Option<&str>, columns: Option<&[&str]>) -> Result<Vec<RecordBatch>, IndexError> {
        let mut q = table.query();
        if let Some(f) = filter {
            q = q.only_if(f);
        }
        if let Some(cols) = columns {
            q = q.select(Select::columns(cols));
        }
        q.execute().await.map_err(lance)?.try_collect::<Vec<_>>().await.map_err(lance)
    }

    pub async fn files(&self) -> Result<Vec<FileRow>, IndexError> {
        let mut out = Vec::new();
        for b in Store::scan(&self.files, None, None).await? {
            let c = Columns(&b);
            out.extend((0..b.num_rows()).map(|i| schema::file_row(&c, i)));
        }
        Ok(out)
    }

    /// Every file row's stamp: relative path, mtime, size, content hash,
    /// skip reason (the other columns are left out of the read).
    pub(crate) async fn file_stamps(&self) -> Result<Vec<FileRow>, IndexError> {
        let mut out = Vec::new();
        for b in Store::scan(&self.files, None, Some(&["relativePath", "mtime", "size", "contentHash", "skipReason"])).await? {
            let c = Columns(&b);
            out.extend((0..b.num_rows()).map(|i| schema::file_row(&c, i)));
        }
        Ok(out)
    }

    pub async fn count(table: &Table, filter: Option<&str>) -> Result<usize, IndexError> {
        table.count_rows(filter.map(|s| s.to_string())).await.map_err(lance)
    }

    pub async fn versions(&self) -> Result<usize, IndexError> {
        let mut n = 0;
        for t in self.tables() {
            n = n.max(t.list_versions().await.map_err(lance)?.len());
        }
        Ok(n)
    }

    /// Builds the full-text indexes over `searchText` where missing: the
    /// chunks' with the code tokenizer (identifiers split on case and `_`,
    /// kept whole too, light stemming), the whole texts' with plain words
    /// (lower-cased, split on what is not a letter or digit, no stemming),
    /// as BM25 over whole files reads them in the benchmarks.
    pub(crate) async fn ensure_fts(&self) -> Result<(), IndexError> {
        let code = FtsIndexBuilder::code().split_identifiers(true).preserve_original(true).stem(true).remove_stop_words(false);
        let words = FtsIndexBuilder::default().stem(false).remove_stop_words(false);
        for (table, params) in [(&self.chunks, code), (&self.texts, words)] {
            let indices = table.list_indices().await.map_err(lance)?;
            if indices.iter().any(|i| i.columns.iter().any(|c| c == "searchText")) || Store::count(table, None).await? == 0 {
                continue;
            }
            table.create_index(&["searchText"], LanceIndex::FTS(params)).replace(true).execute().await.map_err(lance)?;
        }
        Ok(())
    }

    /// Chunk rows the full-text index does not cover yet (written since
    /// its last refresh: searched by a flat scan meanwhile).
    pub(crate) async fn fts_unindexed(&self) -> Result<usize, IndexError> {
        let stats = self.chunks.index_stats("searchText_idx").await.map_err(lance)?;
        Ok(stats.map_or(0, |s| s.num_unindexed_rows))
    }

    /// Whether the vectors table has an ANN index.
    pub(crate) async fn has_ann(&self) -> Result<bool, IndexError> {
        Ok(self.vectors.list_indices().await.map_err(lance)?.iter().any(|i| i.columns.iter().any(|c| c == "vector")))
    }

    /// A BTree index on `occurrences.symbol`, which every answer from the
    /// rows filters on (references, callers): without it each filter scans
    /// the column. Created once rows exist; new fragments are folded in by
    /// `optimize` (`Index::compact_if_due`).
    /// The same on `occurrences.relativePath`, which ranking's test
    /// lending reads line ranges by (`usage::uses_in`).
    pub(crate) async fn ensure_occurrence_index(&self) -> Result<(), IndexError> {
        let indices = self.occurrences.list_indices().await.map_err(lance)?;
        for column in ["symbol", "relativePath"] {
            if indices.iter().any(|i| i.columns.iter().any(|c| c == column)) {
                continue;
            }
            if Store::count(&self.occurrences, None).await? == 0 {
                return Ok(());
            }
            let builder = lancedb::index::scalar::BTreeIndexBuilder::default();
            self.occurrences.create_index(&[column], LanceIndex::BTree(builder)).replace(true).execute().await.map_err(lance)?;
        }
        Ok(())
    }

    /// Folds the occurrence rows no index covers yet into the symbol and
    /// path indexes (when built).
    pub(crate) async fn refresh_occurrence_index(&self) -> Result<(), IndexError> {
        self.occurrences.optimize(OptimizeAction::Index(Default::default())).await.map_err(lance)?;
        Ok(())
    }

    /// Builds the IVF_PQ index over window vectors once there are more than
    /// `ANN_MIN_ROWS` (cosine; about sqrt(rows) partitions).
    pub(crate) async fn ensure_ann(&self) -> Result<bool, IndexError> {
        let rows = Store::count(&self.vectors, None).await?;
        if rows <= ANN_MIN_ROWS || self.has_ann().await? {
            return Ok(false);
        }
        let partitions = ((rows as f64).sqrt() as u32).clamp(1, 4096);
        let sub_vectors = (self.dimension as u32 / 16).max(1);
        let builder = lancedb::index::vector::IvfPqIndexBuilder::default()
            .distance_type(lancedb::DistanceType::Cosine)
            .num_partitions(partitions)
            .num_sub_vectors(sub_vectors);
        self.vectors.create_index(&["vector"], LanceIndex::IvfPq(builder)).replace(true).execute().await.map_err(lance)?;
        Ok(true)
    }

    /// The checked-out versions of every table (changed by any write).
    pub(crate) async fn table_versions(&self) -> Result<Vec<u64>, IndexError> {
        let mut out = Vec::new();
        for t in self.tables() {
            out.push(t.version().await.map_err(lance)?);
        }
        Ok(out)
    }

    /// Compacts, re-indexes and prunes old versions once a table passes
    /// `MAX_VERSIONS`. Runs under the writer lock.
    pub async fn housekeeping(&self, force: bool) -> Result<bool, IndexError> {
        self.ensure_ann().await?;
        if !force && self.versions().await? <= MAX_VERSIONS {
            // New rows reach the FTS (and ANN) indexes promptly.
            self.chunks.optimize(OptimizeAction::Index(Default::default())).await.map_err(lance)?;
            self.texts.optimize(OptimizeAction::Index(Default::default())).await.map_err(lance)?;
            if self.has_ann().await? {
                self.vectors.optimize(OptimizeAction::Index(Default::default())).await.map_err(lance)?;
            }
            return Ok(false);
        }
        for t in self.tables() {
            t.optimize(OptimizeAction::All).await.map_err(lance)?;
        }
        self.prune().await?;
        Ok(true)
    }

    /// Drops every table's old versions and the files only they used.
    pub(crate) async fn prune(&self) -> Result<(), IndexError> {
        for t in self.tables() {
            t.optimize(OptimizeAction::Prune {
                older_than: Some(lancedb::table::Duration::zero()),
                delete_unverified: Some(true),
                error_if_tagged_old_versions: Some(false),
            })
            .await
            .map_err(lance)?;
        }
        Ok(())
    }
}

/// Renames the newest manifest of `<dir>/<name>.lance/_versions` aside, so
/// the table opens at the previous version. False when there is nothing
/// older to fall back to.
/// Whether a table has committed a version: its directory appears before
/// its first manifest, so a directory alone is a table being created.
pub fn created(dir: &Path, name: &str) -> bool {
    let versions = dir.join(format!("{name}.lance")).join("_versions");
    std::fs::read_dir(versions).is_ok_and(|mut entries| entries.any(|e| e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "manifest"))))
}

fn set_aside_latest_manifest(dir: &Path, name: &str) -> bool {
    let versions = dir.join(format!("{name}.lance")).join("_versions");
    let Ok(entries) = std::fs::read_dir(&versions) else { return false };
    let mut manifests: Vec<(u64, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "manifest"))
        .filter_map(|p| Some((manifest_version(&p)?, p)))
        .collect();
    if manifests.len() < 2 {
        return false;
    }
    manifests.sort();
    let (_, latest) = manifests.pop().expect("two or more");
    let aside = latest.with_extension("manifest.broken");
    std::fs::rename(&latest, aside).is_ok()
}

/// A manifest's version from its file name: `N.manifest`, or the V2 scheme
/// that stores `u64::MAX - N` zero-padded so names sort newest first.
fn manifest_version(p: &Path) -> Option<u64> {
    let stem = p.file_stem()?.to_str()?;
    let n: u64 = stem.parse().ok()?;
    Some(if stem.len() == 20 { u64::MAX - n } else { n })
}
