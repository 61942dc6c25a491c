//! The embedded default: all-MiniLM-L6-v2 (int8 ONNX, 384 dimensions) run
//! by ONNX Runtime, which `ort` loads at run time from `libonnxruntime.so`
//! (installed by `vendor-models/install-onnxruntime.sh`; see `find_runtime`).
//! The weights and tokenizer are embedded in the binary (build.rs), so
//! nothing is downloaded at run time.
//!
//! Documents are embedded as 128-token windows at a 75% stride, each window
//! prefixed with the chunk's breadcrumb; a chunk is scored by its best
//! window. Vectors are mean-pooled over the attention mask and normalized.

use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use ort::session::Session;
use ort::value::Tensor;
use tokenizers::Tokenizer;

use super::{normalize, Document, EmbedError, Embedder, EmbedderId};

pub const MODEL: &str = "all-MiniLM-L6-v2-int8";
pub const DIMENSION: usize = 384;
/// Tokens per window, [CLS] and [SEP] included.
pub const WINDOW_TOKENS: usize = 128;
/// At most this many windows per chunk (the first ~3,000 tokens); a chunk
/// longer than that is found by its beginning, its name or BM25.
pub const MAX_WINDOWS: usize = 24;
/// Windows per ONNX Runtime call.
const RUN_BATCH: usize = 32;

static MODEL_BYTES: &[u8] = include_bytes!("../../vendor-models/minilm/model.onnx");
static TOKENIZER_JSON: &[u8] = include_bytes!("../../vendor-models/minilm/tokenizer.json");

/// Where tsq looks for `libonnxruntime.so`, in order. `TSQ_ONNXRUNTIME`,
/// when set, is the only place (an explicit choice is never second-guessed).
pub fn runtime_candidates() -> Vec<PathBuf> {
    if let Some(p) = std::env::var_os("TSQ_ONNXRUNTIME").filter(|p| !p.is_empty()) {
        return vec![PathBuf::from(p)];
    }
    let mut out = Vec::new();
    for var in ["ORT_DYLIB_PATH"] {
        if let Some(p) = std::env::var_os(var).filter(|p| !p.is_empty()) {
            out.push(PathBuf::from(p));
        }
    }
    if let Some(dir) = std::env::current_exe().ok().and_then(|e| e.parent().map(|p| p.to_path_buf())) {
        out.push(dir.join("libonnxruntime.so"));
    }
    if let Some(home) = std::env::var_os("HOME") {
        out.push(PathBuf::from(home).join(".local/lib/tsq/libonnxruntime.so"));
    }
    out.push(PathBuf::from("/usr/local/lib/tsq/libonnxruntime.so"));
    out
}

fn find_runtime() -> Result<PathBuf, EmbedError> {
    runtime_candidates().into_iter().find(|p| p.is_file()).ok_or_else(|| {
        EmbedError::LocalUnavailable("libonnxruntime.so not found (run vendor-models/install-onnxruntime.sh, or set TSQ_ONNXRUNTIME to its path)".into())
    })
}

/// ONNX Runtime is loaded once per process.
pub fn environment() -> Result<&'static ort::environment::Environment, EmbedError> {
    static ENV: OnceLock<Result<ort::environment::Environment, String>> = OnceLock::new();
    ENV.get_or_init(|| {
        let path = find_runtime().map_err(|e| e.to_string())?;
        let builder = ort::init_from(&path).map_err(|e| format!("loading {}: {e}", path.display()))?;
        builder.with_name("tsq").build().map_err(|e| format!("starting ONNX Runtime: {e}"))
    })
    .as_ref()
    .map_err(|e| EmbedError::LocalUnavailable(e.clone()))
}

pub struct LocalEmbedder {
    session: Mutex<Session>,
    tokenizer: Tokenizer,
    cls: u32,
    sep: u32,
}

impl LocalEmbedder {
    pub fn load() -> Result<LocalEmbedder, EmbedError> {
        let env = environment()?;
        let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
        let fail = |e: String| EmbedError::Local(format!("loading the model: {e}"));
        let builder = Session::builder(env).map_err(|e| fail(e.to_string()))?;
        let mut builder = builder.with_intra_threads(threads).map_err(|e| fail(e.to_string()))?;
        let session = builder.commit_from_memory(MODEL_BYTES).map_err(|e| fail(e.to_string()))?;
        let mut tokenizer = Tokenizer::from_bytes(TOKENIZER_JSON).map_err(|e| EmbedError::Local(format!("tokenizer: {e}")))?;
        // The packaged tokenizer pads and truncates at 128; windows are cut here.
        tokenizer.with_padding(None);
        tokenizer.with_truncation(None).map_err(|e| EmbedError::Local(e.to_string()))?;
        let id = |t: &str| tokenizer.token_to_id(t).ok_or_else(|| EmbedError::Local(format!("tokenizer has no {t}")));
        let (cls, sep) = (id("[CLS]")?, id("[SEP]")?);
        Ok(LocalEmbedder { session: Mutex::new(session), tokenizer, cls, sep })
    }

    fn tokens(&self, text: &str) -> Result<Vec<u32>, EmbedError> {
        Ok(self.tokenizer.encode(text, false).map_err(|e| EmbedError::Local(e.to_string()))?.get_ids().to_vec())
    }

    /// The windows of one document: `[CLS] breadcrumb body [SEP]`.
    pub fn windows(&self, doc: &Document<'_>) -> Result<Vec<Vec<u32>>, EmbedError> {
        let mut prefix = self.tokens(doc.breadcrumb)?;
        prefix.truncate(WINDOW_TOKENS / 4);
        let body = self.tokens(doc.text)?;
        Ok(window_spans(body.len(), WINDOW_TOKENS - 2 - prefix.len())
            .into_iter()
            .take(MAX_WINDOWS)
            .map(|r| {
                let mut ids = Vec::with_capacity(WINDOW_TOKENS);
                ids.push(self.cls);
                ids.extend_from_slice(&prefix);
                ids.extend_from_slice(&body[r]);
                ids.push(self.sep);
                ids
            })
            .collect())
    }

    /// Mean-pooled, normalized vectors of token sequences.
    fn run(&self, seqs: &[Vec<u32>]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(seqs.len());
        for batch in seqs.chunks(RUN_BATCH) {
            let width = batch.iter().map(|s| s.len()).max().unwrap_or(1).max(1);
            let n = batch.len();
            let mut ids = vec![0i64; n * width];
            let mut mask = vec![0i64; n * width];
            for (row, seq) in batch.iter().enumerate() {
                for (col, &t) in seq.iter().enumerate() {
                    ids[row * width + col] = t as i64;
                    mask[row * width + col] = 1;
                }
            }
            let shape = [n as i64, width as i64];
            let err = |e: ort::Error| EmbedError::Local(e.to_string());
            let inputs = ort::inputs![
                "input_ids" => Tensor::from_array((shape, ids)).map_err(err)?,
                "attention_mask" => Tensor::from_array((shape, mask.clone())).map_err(err)?,
                "token_type_ids" => Tensor::from_array((shape, vec![0i64; n * width])).map_err(err)?,
            ];
            let mut session = self.session.lock().unwrap_or_else(|p| p.into_inner());
            let outputs = session.run(inputs).map_err(err)?;
            let (_, hidden) = outputs["last_hidden_state"].try_extract_tensor::<f32>().map_err(err)?;
            for row in 0..n {
                let mut v = vec![0f32; DIMENSION];
                let mut count = 0f32;
                for col in 0..width {
                    if mask[row * width + col] == 1 {
                        let base = (row * width + col) * DIMENSION;
                        v.iter_mut().zip(&hidden[base..base + DIMENSION]).for_each(|(a, b)| *a += b);
                        count += 1.0;
                    }
                }
                v.iter_mut().for_each(|x| *x /= count.max(1.0));
                normalize(&mut v);
                out.push(v);
            }
        }
        Ok(out)
    }
}

/// Token ranges of the windows over a body of `len` tokens, `width` tokens
/// each, at a 75% stride; at least one (possibly empty) window.
pub fn window_spans(len: usize, width: usize) -> Vec<std::ops::Range<usize>> {
    let width = width.max(8);
    let stride = (width * 3 / 4).max(1);
    let mut out = Vec::with_capacity(len / stride + 1);
    out.push(0..len.min(width));
    let mut start = stride;
    while start < len && out.last().is_some_and(|r| r.end < len) {
        out.push(start..(start + width).min(len));
        start += stride;
    }
    out
}

/// The local embedder, its model loaded on first use: an answer that
/// embeds nothing (a `symbol =` lookup, an inspect) never pays for it
/// (about 250 ms). The runtime is checked at once, so `auto` still falls
/// back to BM25 when it is missing.
pub struct LazyLocal(OnceLock<Result<LocalEmbedder, String>>);

impl LazyLocal {
    /// Checks that ONNX Runtime is installed; loading it (about 15 ms, a
    /// 35 MB library) waits for the first embedding, which a `symbol =`
    /// lookup never asks for.
    pub fn new() -> Result<LazyLocal, EmbedError> {
        find_runtime()?;
        Ok(LazyLocal(OnceLock::new()))
    }

    fn get(&self) -> Result<&LocalEmbedder, EmbedError> {
        self.0.get_or_init(|| LocalEmbedder::load().map_err(|e| e.to_string())).as_ref().map_err(|e| EmbedError::Local(e.clone()))
    }
}

impl Embedder for LazyLocal {
    fn id(&self) -> EmbedderId {
        EmbedderId { model: MODEL.into(), dimension: DIMENSION }
    }

    fn embed_documents(&self, docs: &[Document<'_>]) -> Result<Vec<Vec<Vec<f32>>>, EmbedError> {
        self.get()?.embed_documents(docs)
    }

    fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        self.get()?.embed_query(query)
    }

    fn batch_size(&self) -> usize {
        32
    }
}

impl Embedder for LocalEmbedder {
    fn id(&self) -> EmbedderId {
        EmbedderId { model: MODEL.into(), dimension: DIMENSION }
    }

    fn embed_documents(&self, docs: &[Document<'_>]) -> Result<Vec<Vec<Vec<f32>>>, EmbedError> {
        let mut seqs = Vec::new();
        let mut counts = Vec::with_capacity(docs.len());
        for d in docs {
            let w = self.windows(d)?;
            counts.push(w.len());
            seqs.extend(w);
        }
        let mut vectors = self.run(&seqs)?.into_iter();
        Ok(counts.into_iter().map(|n| vectors.by_ref().take(n).collect()).collect())
    }

    fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        let mut ids = vec![self.cls];
        ids.extend(self.tokens(query)?.into_iter().take(WINDOW_TOKENS - 2));
        ids.push(self.sep);
        self.run(&[ids])?.pop().ok_or_else(|| EmbedError::Local("no vector".into()))
    }

    fn batch_size(&self) -> usize {
        32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_cover_the_body_at_a_75_percent_stride() {
        assert_eq!(window_spans(0, 100), vec![0..0]);
        assert_eq!(window_spans(100, 100), vec![0..100]);
        assert_eq!(window_spans(101, 100), vec![0..100, 75..101]);
        assert_eq!(window_spans(250, 100), vec![0..100, 75..175, 150..250]);
    }
}
