//! The embedded default: all-MiniLM-L6-v2 (int8 encoder, 4-bit token
//! table, 384 dimensions),
//! run by tsq's own forward pass (`minilm.rs`). The weights and tokenizer
//! are embedded in the binary (build.rs), so nothing is downloaded or loaded
//! from outside the binary at run time, on every platform.
//!
//! Documents are embedded as 128-token windows at a 75% stride, each window
//! prefixed with the chunk's breadcrumb; a chunk is scored by its best
//! window. Vectors are mean-pooled over the window's tokens and normalized.

use tokenizers::Tokenizer;

use super::minilm::MiniLm;
use super::{Document, EmbedError, Embedder, EmbedderId};

/// The index records this with every vector; an index embedded by another
/// model is re-embedded. The forward pass gives ONNX Runtime's float
/// vectors for this model within the rounding of 8-bit activations
/// (`minilm::tests`). "w4": the token table is 4-bit
/// (`vendor-models/derive_w4.py`); "a8": the dense layers' activations are
/// 8-bit (`int8.rs`). Before, the model was `all-MiniLM-L6-v2-int8-w4`
/// (float activations) and `all-MiniLM-L6-v2-int8`.
pub const MODEL: &str = "all-MiniLM-L6-v2-int8-w4-a8";
/// Documents per embedding call.
const BATCH: usize = 32;
pub const DIMENSION: usize = 384;
/// Tokens per window, [CLS] and [SEP] included.
pub(super) const WINDOW_TOKENS: usize = 128;
/// At most this many windows per chunk (the first ~3,000 tokens); a chunk
/// longer than that is found by its beginning, its name or BM25.
pub(super) const MAX_WINDOWS: usize = 24;

pub(super) static MODEL_BYTES: &[u8] = include_bytes!("../../vendor-models/minilm/model-w4.onnx");
static TOKENIZER_JSON: &[u8] = include_bytes!("../../vendor-models/minilm/tokenizer.json");

pub struct LocalEmbedder {
    model: MiniLm,
    tokenizer: Tokenizer,
    threads: usize,
    cls: u32,
    sep: u32,
}

impl LocalEmbedder {
    /// Reads the embedded model and tokenizer.
    pub fn load() -> Result<LocalEmbedder, EmbedError> {
        let model = MiniLm::load(MODEL_BYTES).map_err(|e| EmbedError::Local(format!("loading the model: {e}")))?;
        let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
        let tokenizer = plain_tokenizer()?;
        let id = |t: &str| tokenizer.token_to_id(t).ok_or_else(|| EmbedError::Local(format!("tokenizer has no {t}")));
        let (cls, sep) = (id("[CLS]")?, id("[SEP]")?);
        if tokenizer.get_vocab_size(true) > model.vocabulary() {
            return Err(EmbedError::Local(format!("the tokenizer has {} tokens, the model {}", tokenizer.get_vocab_size(true), model.vocabulary())));
        }
        Ok(LocalEmbedder { model, tokenizer, threads, cls, sep })
    }

    /// The windows of one document: `[CLS] breadcrumb body [SEP]`.
    pub fn windows(&self, doc: &Document<'_>) -> Result<Vec<Vec<u32>>, EmbedError> {
        let w = DocumentWindows::of(&self.tokenizer, doc)?;
        Ok(w.iter()
            .map(|(prefix, body)| {
                let mut ids = Vec::with_capacity(WINDOW_TOKENS);
                ids.push(self.cls);
                ids.extend_from_slice(prefix);
                ids.extend_from_slice(body);
                ids.push(self.sep);
                ids
            })
            .collect())
    }

    /// Mean-pooled, normalized vectors of token sequences.
    fn run(&self, seqs: &[Vec<u32>]) -> Vec<Vec<f32>> {
        self.model.embed(seqs, self.threads)
    }
}

/// The model's tokenizer without the packaged padding and truncation at
/// 128 (windows are cut by `DocumentWindows`). The static table shares it.
pub(super) fn plain_tokenizer() -> Result<Tokenizer, EmbedError> {
    let mut tokenizer = Tokenizer::from_bytes(TOKENIZER_JSON).map_err(|e| EmbedError::Local(format!("tokenizer: {e}")))?;
    tokenizer.with_padding(None);
    tokenizer.with_truncation(None).map_err(|e| EmbedError::Local(e.to_string()))?;
    Ok(tokenizer)
}

/// A text's token ids, no special tokens.
pub(super) fn token_ids(tokenizer: &Tokenizer, text: &str) -> Result<Vec<u32>, EmbedError> {
    Ok(tokenizer.encode(text, false).map_err(|e| EmbedError::Local(e.to_string()))?.get_ids().to_vec())
}

/// One document's windows, shared by the local model and the static
/// table: the breadcrumb's tokens (at most a quarter window) before each
/// window of the body's, `window_spans` wide, at most `MAX_WINDOWS`.
pub(super) struct DocumentWindows {
    prefix: Vec<u32>,
    body: Vec<u32>,
    spans: Vec<std::ops::Range<usize>>,
}

impl DocumentWindows {
    pub(super) fn of(tokenizer: &Tokenizer, doc: &Document<'_>) -> Result<DocumentWindows, EmbedError> {
        let mut prefix = token_ids(tokenizer, doc.breadcrumb)?;
        prefix.truncate(WINDOW_TOKENS / 4);
        let body = token_ids(tokenizer, doc.text)?;
        let mut spans = window_spans(body.len(), WINDOW_TOKENS - 2 - prefix.len());
        spans.truncate(MAX_WINDOWS);
        Ok(DocumentWindows { prefix, body, spans })
    }

    /// Each window as (breadcrumb, body slice).
    pub(super) fn iter(&self) -> impl Iterator<Item = (&[u32], &[u32])> {
        self.spans.iter().map(|r| (self.prefix.as_slice(), &self.body[r.clone()]))
    }
}

/// Token ranges of the windows over a body of `len` tokens, `width` tokens
/// each, at a 75% stride; at least one (possibly empty) window.
fn window_spans(len: usize, width: usize) -> Vec<std::ops::Range<usize>> {
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

/// Which integer kernel the dense layers run on this CPU (`int8.rs`): the
/// vectors are the same on every kernel, the speed is not.
pub fn kernel() -> &'static str {
    super::int8::Kernel::detect().describe()
}

/// The local embedder, its model loaded on first use (`super::Lazy`).
pub(crate) fn lazy() -> super::Lazy<LocalEmbedder> {
    super::Lazy::new(EmbedderId { model: MODEL.into(), dimension: DIMENSION }, BATCH, LocalEmbedder::load)
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
        let mut vectors = self.run(&seqs).into_iter();
        Ok(counts.into_iter().map(|n| vectors.by_ref().take(n).collect()).collect())
    }

    fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        let mut ids = vec![self.cls];
        ids.extend(token_ids(&self.tokenizer, query)?.into_iter().take(WINDOW_TOKENS - 2));
        ids.push(self.sep);
        self.run(&[ids]).pop().ok_or_else(|| EmbedError::Local("no vector".into()))
    }

    fn batch_size(&self) -> usize {
        BATCH
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
