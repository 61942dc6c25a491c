//! What a warm process (`tsq serve`, the search bench) keeps in memory
//! between queries, each copy tied to the table versions it was read from:
//!
//! - **the window vectors**, for exact nearest-neighbour search while the
//!   vectors table is small enough to be searched flat
//!   (`store::ANN_MIN_ROWS` windows or fewer, no ANN index);
//! - **the ranking evidence**: every file's chunk kinds (barrels), the
//!   usage table (priors) and every indexed path (how specific a path word
//!   is), which every query reads for its candidates;
//! - **the use rows** of the occurrence index, which lending and the type
//!   step read for the strongest candidates' lines.
//!
//! LanceDB's flat search reads every window's vector per query: about
//! 46 MB and 90–110 ms on tanstack. Here they are read once and scanned in
//! memory, which is the same exact cosine search (the order can differ
//! only between windows whose similarities tie to f32 rounding).
//!
//! Invariant: a copy answers only for the table versions it was read from.
//! Every query asks the tables for their latest versions (the connection
//! checks on every read), so a write by this process or another one is
//! seen by the next query, which reads the tables again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::schema::Columns;
use super::store::{Store, ANN_MIN_ROWS};
use super::usage::Usage;
use super::{Filter, IndexError};

/// One copy of the vectors table.
pub(crate) struct WarmVectors {
    version: u64,
    dimension: usize,
    chunk_ids: Vec<String>,
    /// Per window: its chunk (`chunk_ids`), path, language and kind (the
    /// filter's columns, interned).
    chunk: Vec<u32>,
    path: Vec<u32>,
    language: Vec<u32>,
    kind: Vec<u32>,
    names: Vec<String>,
    /// Row-major window vectors, and each one's norm.
    vectors: Vec<f32>,
    norms: Vec<f32>,
}

/// Every file's chunk kinds, every symbol's usage priors and every
/// indexed file's path.
pub(crate) struct WarmEvidence {
    versions: [u64; 3],
    pub kinds: HashMap<String, Vec<String>>,
    pub usage: HashMap<String, Usage>,
    pub paths: Arc<Vec<String>>,
}

/// The occurrence index's use rows by file: (line, symbol, value use),
/// symbols interned.
pub(crate) struct WarmUses {
    version: u64,
    by_file: HashMap<String, Vec<(u32, u32, bool)>>,
    symbols: Vec<String>,
}

impl WarmUses {
    /// What `Store::uses_in` answers, from memory.
    pub(crate) fn uses_in(&self, ranges: &[(String, u32, u32)]) -> Vec<Vec<(String, bool)>> {
        ranges
            .iter()
            .map(|r| {
                let rows = self.by_file.get(&r.0).map(Vec::as_slice).unwrap_or_default();
                super::usage::uses_within(r, rows.iter().map(|&(line, s, v)| (r.0.as_str(), line, self.symbols[s as usize].as_str(), v)))
            })
            .collect()
    }
}

/// The process's copies, if any (held by `Index` when it is warm).
#[derive(Default)]
pub(crate) struct Cache {
    vectors: Mutex<Option<Arc<WarmVectors>>>,
    evidence: Mutex<Option<Arc<WarmEvidence>>>,
    uses: Mutex<Option<Arc<WarmUses>>>,
}

fn lance(e: lancedb::Error) -> IndexError {
    IndexError::Lance(e.to_string())
}

impl Cache {
    /// The copy for the table's latest version: kept, or read again. `None`
    /// when the table is past `ANN_MIN_ROWS` or has an ANN index (LanceDB
    /// searches it then).
    pub async fn vectors(&self, store: &Store) -> Result<Option<Arc<WarmVectors>>, IndexError> {
        let version = store.vectors.version().await.map_err(lance)?;
        if let Some(w) = self.vectors.lock().expect("not poisoned").as_ref() {
            if w.version == version {
                return Ok(Some(Arc::clone(w)));
            }
        }
        let rows = Store::count(&store.vectors, None).await?;
        if rows > ANN_MIN_ROWS || store.has_ann().await? {
            *self.vectors.lock().expect("not poisoned") = None;
            return Ok(None);
        }
        let t = std::time::Instant::now();
        let warm = Arc::new(WarmVectors::read(store, version).await?);
        tracing::debug!(ms = t.elapsed().as_millis() as u64, windows = warm.norms.len(), version, "window vectors read into memory");
        *self.vectors.lock().expect("not poisoned") = Some(Arc::clone(&warm));
        Ok(Some(warm))
    }

    /// The ranking evidence for the chunks, usage and files tables' latest
    /// versions: kept, or read again.
    pub async fn evidence(&self, store: &Store) -> Result<Arc<WarmEvidence>, IndexError> {
        let versions = [store.chunks.version().await.map_err(lance)?, store.usage.version().await.map_err(lance)?, store.files.version().await.map_err(lance)?];
        if let Some(w) = self.evidence.lock().expect("not poisoned").as_ref() {
            if w.versions == versions {
                return Ok(Arc::clone(w));
            }
        }
        let t = std::time::Instant::now();
        let (kinds, usage, paths) = futures::try_join!(store.kinds_where(None), store.usage_where(None), store.indexed_paths())?;
        let warm = Arc::new(WarmEvidence { versions, kinds, usage, paths: Arc::new(paths) });
        tracing::debug!(ms = t.elapsed().as_millis() as u64, files = warm.kinds.len(), symbols = warm.usage.len(), "ranking evidence read into memory");
        *self.evidence.lock().expect("not poisoned") = Some(Arc::clone(&warm));
        Ok(warm)
    }
}

impl Cache {
    /// The use rows for the occurrence table's latest version: kept, or
    /// read again.
    pub async fn uses(&self, store: &Store) -> Result<Arc<WarmUses>, IndexError> {
        let version = store.occurrences.version().await.map_err(lance)?;
        if let Some(w) = self.uses.lock().expect("not poisoned").as_ref() {
            if w.version == version {
                return Ok(Arc::clone(w));
            }
        }
        let t = std::time::Instant::now();
        let mut warm = WarmUses { version, by_file: HashMap::new(), symbols: Vec::new() };
        let mut interned: HashMap<String, u32> = HashMap::new();
        for (file, line, symbol, value) in store.use_rows(None).await? {
            let next = interned.len() as u32;
            let s = *interned.entry(symbol).or_insert(next);
            warm.by_file.entry(file).or_default().push((line, s, value));
        }
        warm.symbols = vec![String::new(); interned.len()];
        for (symbol, i) in interned {
            warm.symbols[i as usize] = symbol;
        }
        tracing::debug!(ms = t.elapsed().as_millis() as u64, files = warm.by_file.len(), symbols = warm.symbols.len(), "use rows read into memory");
        let warm = Arc::new(warm);
        *self.uses.lock().expect("not poisoned") = Some(Arc::clone(&warm));
        Ok(warm)
    }
}

impl WarmVectors {
    async fn read(store: &Store, version: u64) -> Result<WarmVectors, IndexError> {
        let batches = Store::scan(&store.vectors, None, Some(&["chunkId", "relativePath", "language", "nodeKind", "vector"])).await?;
        let mut w = WarmVectors {
            version,
            dimension: store.dimension,
            chunk_ids: Vec::new(),
            chunk: Vec::new(),
            path: Vec::new(),
            language: Vec::new(),
            kind: Vec::new(),
            names: Vec::new(),
            vectors: Vec::new(),
            norms: Vec::new(),
        };
        let mut chunks: HashMap<String, u32> = HashMap::new();
        let mut names: HashMap<String, u32> = HashMap::new();
        let mut intern = |s: String| -> u32 {
            let n = names.len() as u32;
            *names.entry(s).or_insert(n)
        };
        for b in &batches {
            let c = Columns(b);
            for i in 0..b.num_rows() {
                let (Some(id), Some(v)) = (c.str("chunkId", i), c.vector("vector", i)) else { continue };
                if v.len() != w.dimension {
                    continue;
                }
                let next = chunks.len() as u32;
                let chunk = *chunks.entry(id.clone()).or_insert_with(|| {
                    w.chunk_ids.push(id);
                    next
                });
                w.chunk.push(chunk);
                w.path.push(intern(c.str("relativePath", i).unwrap_or_default()));
                w.language.push(intern(c.str("language", i).unwrap_or_default()));
                w.kind.push(intern(c.str("nodeKind", i).unwrap_or_default()));
                w.norms.push(v.iter().map(|x| x * x).sum::<f32>().sqrt());
                w.vectors.extend_from_slice(&v);
            }
        }
        let mut by_id: Vec<(String, u32)> = names.into_iter().collect();
        by_id.sort_by_key(|(_, i)| *i);
        w.names = by_id.into_iter().map(|(s, _)| s).collect();
        Ok(w)
    }

    /// The top `limit` chunks by their best window's cosine similarity to
    /// `vector`, among the windows the filter keeps.
    pub fn nearest(&self, vector: &[f32], filter: &Filter, limit: usize) -> Vec<super::search_reads::IdHit> {
        let kinds: Vec<bool> = self.names.iter().map(|n| !filter.exclude_kinds.iter().any(|k| k == n)).collect();
        let langs: Vec<bool> = self.names.iter().map(|n| filter.language.as_ref().is_none_or(|l| l == n)).collect();
        let mut paths: HashMap<u32, bool> = HashMap::new();
        let qn = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        let mut best: HashMap<u32, (f32, u32)> = HashMap::new();
        for (i, window) in self.vectors.chunks_exact(self.dimension).enumerate() {
            if !kinds[self.kind[i] as usize] || !langs[self.language[i] as usize] {
                continue;
            }
            if !filter.paths.is_empty() {
                let p = self.path[i];
                if !*paths.entry(p).or_insert_with(|| crate::query::in_scope(&self.names[p as usize], &filter.paths)) {
                    continue;
                }
            }
            let denom = qn * self.norms[i];
            let sim = if denom > 0.0 { window.iter().zip(vector).map(|(a, b)| a * b).sum::<f32>() / denom } else { 0.0 };
            let e = best.entry(self.chunk[i]).or_insert((f32::MIN, self.path[i]));
            e.0 = e.0.max(sim);
        }
        // Ranked by index; only the `limit` kept get their strings.
        let mut ranked: Vec<(u32, f32, u32)> = best.into_iter().map(|(c, (score, p))| (c, score, p)).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| self.chunk_ids[a.0 as usize].cmp(&self.chunk_ids[b.0 as usize])));
        ranked.truncate(limit);
        ranked
            .into_iter()
            .map(|(c, score, p)| super::search_reads::IdHit { id: self.chunk_ids[c as usize].clone(), path: self.names[p as usize].clone(), score })
            .collect()
    }
}
