//! The embedding stage: the `Embedder` trait and its backends (Voyage over
//! HTTP, the local MiniLM run by tsq's own forward pass), plus the Voyage
//! reranker.
//! Voyage's HTTP calls are one of tsq's two network paths; the other is
//! `share::remote` (a team's S3 store).

mod http;
mod int8;
mod lazy;
pub mod local;
mod minilm;
mod onnx;
pub mod static_table;
pub mod voyage;

use std::fmt;

pub use http::HttpConfig;
pub(crate) use lazy::Lazy;

/// Which backend a run uses (`--embedder`, `TSQ_EMBEDDER`, `embedder` in
/// `tsq.toml`). `Auto`: Voyage when `VOYAGE_API_KEY` is set, else local.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum EmbedderChoice {
    #[default]
    Auto,
    /// BM25 only: no vectors.
    None,
    Local,
    /// The static token table distilled from the local model.
    Static,
    Voyage,
}

impl std::str::FromStr for EmbedderChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(EmbedderChoice::Auto),
            "none" => Ok(EmbedderChoice::None),
            "local" => Ok(EmbedderChoice::Local),
            "static" => Ok(EmbedderChoice::Static),
            "voyage" => Ok(EmbedderChoice::Voyage),
            other => Err(format!("unknown embedder `{other}` (expected auto, none, local, static or voyage)")),
        }
    }
}

/// A model and its vector size: what the index records, so vectors of two
/// models are never mixed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EmbedderId {
    pub model: String,
    pub dimension: usize,
}

impl fmt::Display for EmbedderId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}d)", self.model, self.dimension)
    }
}

/// One text to embed as a document: the chunk's `embeddingText` and the
/// breadcrumb that a windowed model puts before each window.
#[derive(Debug, Clone)]
pub struct Document<'a> {
    pub text: &'a str,
    pub breadcrumb: &'a str,
}

/// Turns text into vectors. A document may give several vectors (windows);
/// a chunk is scored by its best window.
pub trait Embedder: Send + Sync {
    fn id(&self) -> EmbedderId;
    /// One `Vec` of window vectors per document, in order.
    fn embed_documents(&self, docs: &[Document<'_>]) -> Result<Vec<Vec<Vec<f32>>>, EmbedError>;
    fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError>;
    /// Documents per call that keep one call's work (and progress) small.
    fn batch_size(&self) -> usize {
        64
    }
    /// Drops what a local model holds in memory until its next use
    /// (`tsq index` before the occurrence pass); nothing for others.
    fn release(&self) {}
}

/// Scores query-document pairs jointly.
pub trait Reranker: Send + Sync {
    fn id(&self) -> String;
    /// How many stage-1 candidates it reranks (the best first); `None` is
    /// all of them.
    fn depth(&self) -> Option<usize> {
        None
    }
    /// One score in [0, 1] per document, in order.
    fn rerank(&self, query: &str, docs: &[String]) -> Result<Vec<f32>, EmbedError>;
}

/// Errors of the embedding boundary. Never carries the API key.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("{service}: HTTP {status}: {message}")]
    Http { service: &'static str, status: u16, message: String },
    #[error("{service}: {message}")]
    Transport { service: &'static str, message: String },
    #[error("{service}: gave up after {attempts} attempts in {secs:.1} s: {last}")]
    RetriesExhausted { service: &'static str, attempts: u32, secs: f64, last: String },
    #[error("{service}: malformed response: {message}")]
    Malformed { service: &'static str, message: String },
    #[error("local model unavailable: {0}")]
    LocalUnavailable(String),
    #[error("local model: {0}")]
    Local(String),
}

/// Builds the embedder for a choice. `Ok(None)` is BM25 only. `Auto` is
/// Voyage with a key, else the local model, which is always there.
pub(crate) fn choose(choice: EmbedderChoice, http: &HttpConfig) -> Result<Option<Box<dyn Embedder>>, EmbedError> {
    let key = std::env::var("VOYAGE_API_KEY").ok().filter(|k| !k.trim().is_empty());
    match choice {
        EmbedderChoice::None => Ok(None),
        EmbedderChoice::Voyage => match key {
            Some(key) => Ok(Some(Box::new(voyage::VoyageEmbedder::new(key, http.clone())?))),
            None => Err(EmbedError::Transport { service: "voyage", message: "--embedder voyage needs VOYAGE_API_KEY in the environment".into() }),
        },
        EmbedderChoice::Local => Ok(Some(Box::new(local::lazy()))),
        EmbedderChoice::Static => Ok(Some(Box::new(static_table::lazy()))),
        EmbedderChoice::Auto => match key {
            Some(key) => Ok(Some(Box::new(voyage::VoyageEmbedder::new(key, http.clone())?))),
            None => Ok(Some(Box::new(local::lazy()))),
        },
    }
}

/// The Voyage reranker when a key is set; no local cross-encoder ships here
/// (see README "Search quality").
pub(crate) fn choose_reranker(http: &HttpConfig) -> Result<Option<Box<dyn Reranker>>, EmbedError> {
    match std::env::var("VOYAGE_API_KEY").ok().filter(|k| !k.trim().is_empty()) {
        Some(key) => Ok(Some(Box::new(voyage::VoyageReranker::new(key, http.clone())?))),
        None => Ok(None),
    }
}

/// Called first in `main`, before any thread starts (setting the
/// environment later would race with readers). The local model runs
/// sequences in parallel itself; `matrixmultiply`, built with its
/// `threading` feature through LanceDB, would also split every product
/// across the cores, and the two pools spin against each other. One
/// thread per product embedded vue's windows in 46.6 s against 72.3 s
/// (ONNX Runtime: 59.5 s; benches/README.md). A `MATMUL_NUM_THREADS` the
/// user set is kept.
pub fn configure_process() {
    if std::env::var_os("MATMUL_NUM_THREADS").is_none() {
        std::env::set_var("MATMUL_NUM_THREADS", "1");
    }
}

/// L2-normalizes in place (cosine similarity becomes a dot product).
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}
