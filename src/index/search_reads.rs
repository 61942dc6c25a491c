//! The reads the search stage makes: BM25 over the full-text index and
//! nearest window vectors, both with LanceDB prefilters (path scope,
//! language, excluded kinds) so an out-of-scope chunk can never come back.

use std::collections::HashMap;

use futures::TryStreamExt;
use lancedb::index::scalar::FullTextSearchQuery;
use lancedb::query::{ExecutableQuery, QueryBase};
use lancedb::DistanceType;

use super::schema::{self, sql_in, ChunkRow, Columns};
use super::store::Store;
use super::{Index, IndexError};

/// A chunk one search signal found: its id, its file and its score.
#[derive(Debug, Clone, PartialEq)]
pub struct IdHit {
    pub id: String,
    pub path: String,
    pub score: f32,
}

/// What a search may return.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Files, directories or globs relative to the root; all when empty.
    pub paths: Vec<String>,
    /// `typescript` or `javascript`; both when `None`.
    pub language: Option<String>,
    /// Node kinds kept out of ranking (imports, re-exports).
    pub exclude_kinds: Vec<String>,
}

/// A chunk and one signal's raw score.
#[derive(Debug, Clone)]
pub struct Hit {
    pub row: ChunkRow,
    pub score: f32,
}

fn lance(e: lancedb::Error) -> IndexError {
    IndexError::Lance(e.to_string())
}

impl Index {
    /// The SQL prefilter for `filter`; `Ok(None)` matches everything, and
    /// `Err(())`-like empty scope is reported as `Some("false")`.
    fn prefilter(&self, filter: &Filter) -> Result<Option<String>, IndexError> {
        let mut parts = Vec::new();
        if !filter.paths.is_empty() {
            let files = self.runtime.block_on(self.store.files())?;
            let wanted: Vec<String> = files.into_iter().map(|f| f.relative_path).filter(|p| crate::query::in_scope(p, &filter.paths)).collect();
            if wanted.is_empty() {
                return Ok(Some("false".into()));
            }
            parts.push(sql_in("relativePath", &wanted));
        }
        if let Some(lang) = &filter.language {
            parts.push(format!("`language` = {}", schema::sql_str(lang)));
        }
        if !filter.exclude_kinds.is_empty() {
            parts.push(sql_in("nodeKind", &filter.exclude_kinds).replacen(" IN (", " NOT IN (", 1));
        }
        Ok((!parts.is_empty()).then(|| parts.join(" AND ")))
    }

    /// The top `limit` files by BM25 over their whole texts (the `texts`
    /// table, the chunks' tokenizer), with their scores, best first; the
    /// filter's scope and language apply, its kinds do not.
    pub fn file_bm25(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<(String, f32)>, IndexError> {
        let pre = self.prefilter(&Filter { exclude_kinds: Vec::new(), ..filter.clone() })?;
        if pre.as_deref() == Some("false") || query.trim().is_empty() {
            return Ok(Vec::new());
        }
        let batches: Vec<arrow_array::RecordBatch> = self.runtime.block_on(async {
            if Store::count(&self.store.texts, None).await? == 0 {
                return Ok::<_, IndexError>(Vec::new());
            }
            let fts = FullTextSearchQuery::new(query.to_string()).with_column("searchText".into()).map_err(|e| IndexError::Lance(e.to_string()))?;
            let mut q = self.store.texts.query().full_text_search(fts).select(lancedb::query::Select::columns(&["relativePath"])).limit(limit);
            if let Some(f) = &pre {
                q = q.only_if(f);
            }
            q.execute().await.map_err(lance)?.try_collect().await.map_err(lance)
        })?;
        let mut out = Vec::new();
        for b in &batches {
            let c = Columns(b);
            out.extend((0..b.num_rows()).map(|i| (c.str("relativePath", i).unwrap_or_default(), c.f32("_score", i).unwrap_or(0.0))));
        }
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Ok(out)
    }

    /// The top `limit` chunks by BM25 over `searchText`.
    pub fn bm25(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<Hit>, IndexError> {
        let batches = self.full_text(query, filter, limit, None)?;
        let mut out = Vec::new();
        for b in &batches {
            let c = Columns(b);
            for i in 0..b.num_rows() {
                out.push(Hit { row: schema::chunk_row(&c, i), score: c.f32("_score", i).unwrap_or(0.0) });
            }
        }
        out.sort_by(|a, b| b.score.total_cmp(&a.score));
        Ok(out)
    }

    /// The top `limit` chunk ids by BM25 over `searchText`, with their
    /// files and scores, best first: `bm25` without reading the rows.
    pub(crate) fn bm25_ids(&self, query: &str, filter: &Filter, limit: usize) -> Result<Vec<IdHit>, IndexError> {
        let batches = self.full_text(query, filter, limit, Some(&["id", "relativePath"]))?;
        let mut out = Vec::new();
        for b in &batches {
            let c = Columns(b);
            for i in 0..b.num_rows() {
                out.push(IdHit {
                    id: c.str("id", i).unwrap_or_default(),
                    path: c.str("relativePath", i).unwrap_or_default(),
                    score: c.f32("_score", i).unwrap_or(0.0),
                });
            }
        }
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
        Ok(out)
    }

    /// The full-text query behind both: `columns` of the top `limit`
    /// chunks (all when `None`), with `_score`.
    fn full_text(&self, query: &str, filter: &Filter, limit: usize, columns: Option<&[&str]>) -> Result<Vec<arrow_array::RecordBatch>, IndexError> {
        let pre = self.prefilter(filter)?;
        if pre.as_deref() == Some("false") || query.trim().is_empty() {
            return Ok(Vec::new());
        }
        self.runtime.block_on(async {
            if Store::count(&self.store.chunks, None).await? == 0 {
                return Ok(Vec::new());
            }
            let fts = FullTextSearchQuery::new(query.to_string()).with_column("searchText".into()).map_err(|e| IndexError::Lance(e.to_string()))?;
            let mut q = self.store.chunks.query().full_text_search(fts).limit(limit);
            if let Some(columns) = columns {
                q = q.select(lancedb::query::Select::columns(columns));
            }
            if let Some(f) = &pre {
                q = q.only_if(f);
            }
            q.execute().await.map_err(lance)?.try_collect().await.map_err(lance)
        })
    }

    /// The top `limit` chunks by their best window's cosine similarity to
    /// `vector` (in [-1, 1]). Empty when the index holds no vectors of the
    /// active embedder.
    pub fn nearest(&self, vector: &[f32], filter: &Filter, limit: usize) -> Result<Vec<(String, f32)>, IndexError> {
        self.nearest_with(vector, filter, limit, false)
    }

    /// `nearest`, each chunk with its file.
    pub(crate) fn nearest_hits(&self, vector: &[f32], filter: &Filter, limit: usize) -> Result<Vec<IdHit>, IndexError> {
        self.nearest_rows(vector, filter, limit, false)
    }

    /// `nearest`, optionally as a flat scan even when an ANN index exists
    /// (the benchmark's recall reference).
    pub fn nearest_with(&self, vector: &[f32], filter: &Filter, limit: usize, flat: bool) -> Result<Vec<(String, f32)>, IndexError> {
        Ok(self.nearest_rows(vector, filter, limit, flat)?.into_iter().map(|h| (h.id, h.score)).collect())
    }

    fn nearest_rows(&self, vector: &[f32], filter: &Filter, limit: usize, flat: bool) -> Result<Vec<IdHit>, IndexError> {
        let pre = self.prefilter(filter)?;
        if pre.as_deref() == Some("false") || vector.len() != self.store.dimension {
            return Ok(Vec::new());
        }
        self.runtime.block_on(async {
            if !flat {
                if let Some(warm) = self.warm.as_ref() {
                    if let Some(w) = warm.vectors(&self.store).await? {
                        return Ok(w.nearest(vector, filter, limit));
                    }
                }
            }
            if Store::count(&self.store.vectors, None).await? == 0 {
                return Ok(Vec::new());
            }
            // Several windows of one chunk may come first: ask for more. With
            // an ANN index, candidates are re-ranked by exact distance.
            let mut q = self.store.vectors.query().nearest_to(vector).map_err(lance)?.distance_type(DistanceType::Cosine).limit(limit * 4);
            if flat {
                q = q.bypass_vector_index();
            } else {
                q = q.nprobes(20).map_err(lance)?.refine_factor(5);
            }
            if let Some(f) = &pre {
                q = q.only_if(f);
            }
            let q = q.select(lancedb::query::Select::columns(&["chunkId", "relativePath"]));
            let batches: Vec<arrow_array::RecordBatch> = q.execute().await.map_err(lance)?.try_collect().await.map_err(lance)?;
            let mut best: HashMap<String, IdHit> = HashMap::new();
            for b in &batches {
                let c = Columns(b);
                for i in 0..b.num_rows() {
                    let id = c.str("chunkId", i).unwrap_or_default();
                    let sim = 1.0 - c.f32("_distance", i).unwrap_or(1.0);
                    let e = best.entry(id.clone()).or_insert_with(|| IdHit { id, path: c.str("relativePath", i).unwrap_or_default(), score: f32::MIN });
                    e.score = e.score.max(sim);
                }
            }
            let mut out: Vec<IdHit> = best.into_values().collect();
            out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
            out.truncate(limit);
            Ok(out)
        })
    }

    /// The exact cosine similarity of each chunk's best window to `vector`,
    /// for the chunks given (those another signal found). Chunks without
    /// vectors are absent.
    pub fn similarities(&self, vector: &[f32], ids: &[String]) -> Result<HashMap<String, f32>, IndexError> {
        Ok(self.best_windows(vector, ids)?.into_iter().map(|(id, (sim, _))| (id, sim)).collect())
    }

    /// Each chunk's window nearest to `vector`: its cosine similarity and
    /// the window's vector, for the chunks given. Chunks without vectors
    /// are absent.
    pub(crate) fn best_windows(&self, vector: &[f32], ids: &[String]) -> Result<HashMap<String, (f32, Vec<f32>)>, IndexError> {
        if ids.is_empty() || vector.len() != self.store.dimension {
            return Ok(HashMap::new());
        }
        self.runtime.block_on(async {
            let q = self.store.vectors.query().only_if(sql_in("chunkId", ids)).select(lancedb::query::Select::columns(&["chunkId", "vector"]));
            let batches: Vec<arrow_array::RecordBatch> = q.execute().await.map_err(lance)?.try_collect().await.map_err(lance)?;
            let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
            let qn = norm(vector);
            let mut best: HashMap<String, (f32, Vec<f32>)> = HashMap::new();
            for b in &batches {
                let c = Columns(b);
                for i in 0..b.num_rows() {
                    let (Some(id), Some(w)) = (c.str("chunkId", i), c.vector("vector", i)) else { continue };
                    let denom = qn * norm(&w);
                    let sim = if denom > 0.0 { w.iter().zip(vector).map(|(a, b)| a * b).sum::<f32>() / denom } else { 0.0 };
                    match best.get_mut(&id) {
                        Some(e) if e.0 >= sim => {}
                        Some(e) => *e = (sim, w),
                        None => {
                            best.insert(id, (sim, w));
                        }
                    }
                }
            }
            Ok(best)
        })
    }

    /// Chunks by id, in no particular order.
    pub fn chunks_by_id(&self, ids: &[String]) -> Result<Vec<ChunkRow>, IndexError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        self.runtime.block_on(super::sync::read_chunks(&self.store, &sql_in("id", ids)))
    }

    /// Chunks that declare one of `names` (their own name), within the
    /// filter: the definitions an identifier-like query names.
    pub(crate) fn chunks_named(&self, names: &[String], filter: &Filter) -> Result<Vec<ChunkRow>, IndexError> {
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let mut pre = sql_in("name", names);
        if let Some(p) = self.prefilter(filter)? {
            pre = format!("{pre} AND {p}");
        }
        self.runtime.block_on(super::sync::read_chunks(&self.store, &pre))
    }

    /// The ranked chunks of `files` within the filter (history evidence
    /// takes in the files retrieval missed).
    pub(crate) fn chunks_in_files(&self, files: &[String], filter: &Filter) -> Result<Vec<ChunkRow>, IndexError> {
        if files.is_empty() {
            return Ok(Vec::new());
        }
        let mut pre = format!("{} AND {}", sql_in("relativePath", files), super::schema::embeddable());
        if let Some(p) = self.prefilter(filter)? {
            pre = format!("{pre} AND {p}");
        }
        self.runtime.block_on(super::sync::read_chunks(&self.store, &pre))
    }

    /// The ranked chunks named `names` in `files` (a superset of the
    /// declarations wanted; the caller matches breadcrumbs).
    pub(crate) fn chunks_in_named(&self, files: &[String], names: &[String]) -> Result<Vec<ChunkRow>, IndexError> {
        if files.is_empty() || names.is_empty() {
            return Ok(Vec::new());
        }
        let pre = format!("{} AND {} AND {}", sql_in("relativePath", files), sql_in("name", names), super::schema::embeddable());
        self.runtime.block_on(super::sync::read_chunks(&self.store, &pre))
    }
}

/// Each file's chunk kinds, and each symbol's usage priors.
pub(crate) type CandidateEvidence = (HashMap<String, Vec<String>>, HashMap<String, super::usage::Usage>);

impl Index {
    /// Each of these files' chunk kinds and these symbols' usage priors,
    /// read together (ranking's evidence: barrels and the usage prior).
    pub fn candidate_evidence(&self, files: &[String], symbols: &[String]) -> Result<CandidateEvidence, IndexError> {
        self.runtime.block_on(async {
            if let Some(warm) = self.warm.as_ref() {
                let w = warm.evidence(&self.store).await?;
                let kinds = files.iter().filter_map(|f| Some((f.clone(), w.kinds.get(f)?.clone()))).collect();
                let usage = symbols.iter().filter_map(|s| Some((s.clone(), *w.usage.get(s)?))).collect();
                return Ok((kinds, usage));
            }
            futures::try_join!(self.store.chunk_kinds(files), self.store.usage_of(symbols))
        })
    }

    /// Every indexed file's relative path (files skipped with a reason
    /// left out): what path evidence weighs a word against.
    pub fn indexed_paths(&self) -> Result<std::sync::Arc<Vec<String>>, IndexError> {
        self.runtime.block_on(async {
            if let Some(warm) = self.warm.as_ref() {
                return Ok(std::sync::Arc::clone(&warm.evidence(&self.store).await?.paths));
            }
            Ok(std::sync::Arc::new(self.store.indexed_paths().await?))
        })
    }

    /// Every chunk matching the filter (benchmarks, the flat baseline).
    pub fn all_chunks(&self, filter: &Filter) -> Result<Vec<ChunkRow>, IndexError> {
        let pre = self.prefilter(filter)?.unwrap_or_else(|| "true".into());
        self.runtime.block_on(super::sync::read_chunks(&self.store, &pre))
    }

    /// How many embeddable chunks have vectors, of how many.
    pub fn vector_coverage(&self) -> Result<(usize, usize), IndexError> {
        self.runtime.block_on(async {
            let with = Store::count(&self.store.chunks, Some(&format!("vector IS NOT NULL AND {}", super::schema::embeddable()))).await?;
            let all = Store::count(&self.store.chunks, Some(&super::schema::embeddable())).await?;
            Ok((with, all))
        })
    }
}

impl Store {
    /// Every file row's relative path, but those skipped with a reason.
    pub(crate) async fn indexed_paths(&self) -> Result<Vec<String>, IndexError> {
        let mut out = Vec::new();
        for b in Store::scan(&self.files, Some("skipReason IS NULL"), Some(&["relativePath"])).await? {
            let c = Columns(&b);
            out.extend((0..b.num_rows()).filter_map(|i| c.str("relativePath", i)));
        }
        Ok(out)
    }

    /// Each of these files' chunk kinds (all kinds: barrels are told by
    /// their imports and re-exports).
    async fn chunk_kinds(&self, files: &[String]) -> Result<HashMap<String, Vec<String>>, IndexError> {
        let mut out: HashMap<String, Vec<String>> = HashMap::new();
        for chunk in files.chunks(400) {
            out.extend(self.kinds_where(Some(&sql_in("relativePath", chunk))).await?);
        }
        Ok(out)
    }

    /// Each file's chunk kinds, of the chunks `filter` keeps (all when
    /// `None`: the warm copy).
    pub(super) async fn kinds_where(&self, filter: Option<&str>) -> Result<HashMap<String, Vec<String>>, IndexError> {
        let mut out: HashMap<String, Vec<String>> = HashMap::new();
        for b in Store::scan(&self.chunks, filter, Some(&["relativePath", "nodeKind"])).await? {
            let c = Columns(&b);
            for i in 0..b.num_rows() {
                out.entry(c.str("relativePath", i).unwrap_or_default()).or_default().push(c.str("nodeKind", i).unwrap_or_default());
            }
        }
        Ok(out)
    }
}
