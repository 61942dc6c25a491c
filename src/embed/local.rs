//! The embedded default: all-MiniLM-L6-v2 (int8 encoder, 4-bit token
//! table, 384 dimensions),
//! run by tsq's own forward pass (`minilm.rs`). The weights and tokenizer
//! are embedded in the binary (build.rs), so nothing is downloaded or loaded
//! from outside the binary at run time, on every platform. Only a
//! measurement reads other weights: `$TSQ_LOCAL_MODEL` names an ONNX file
//! of the same architecture to run instead (a candidate model, measured
//! with `tsq-bench` before any is vendored).
//!
//! Documents are embedded as 128-token windows at a 75% stride, each window
//! prefixed with the chunk's breadcrumb; a chunk is scored by its best
//! window. Vectors are mean-pooled over the window's tokens and normalized.
//!
//! The model's tokenizer is uncased: it lowercases `useInfiniteQuery` to
//! one run of letters and cuts it into pieces that are not words (`uses`,
//! `##in`, `##fin`, …). Every text, documents and queries alike, has its
//! identifiers' words spaced first (`identifier_words`), so the model
//! reads `use Infinite Query`.

use tokenizers::Tokenizer;

use super::minilm::MiniLm;
use super::{Document, EmbedError, Embedder, EmbedderId};

/// The index records this with every vector; an index embedded by another
/// model is re-embedded. The forward pass gives ONNX Runtime's float
/// vectors for this model within the rounding of 8-bit activations
/// (`minilm::tests`). "w4": the token table is 4-bit
/// (`vendor-models/derive_w4.py`); "a8": the dense layers' activations are
/// 8-bit (`int8.rs`). Before, the model was `all-MiniLM-L6-v2-int8-w4`
/// (float activations) and `all-MiniLM-L6-v2-int8`. "words": texts are
/// read with their identifiers' words spaced (`identifier_words`); before,
/// `all-MiniLM-L6-v2-int8-w4-a8` read them as written.
pub const MODEL: &str = "all-MiniLM-L6-v2-int8-w4-a8-words";
/// Documents per embedding call.
const BATCH: usize = 32;
pub const DIMENSION: usize = 384;
/// Tokens per window, [CLS] and [SEP] included.
pub(super) const WINDOW_TOKENS: usize = 128;
/// At most this many windows per chunk (the first ~3,000 tokens); a chunk
/// longer than that is found by its beginning, its name or BM25.
pub(super) const MAX_WINDOWS: usize = 24;

pub(super) static MODEL_BYTES: &[u8] = include_bytes!("../../vendor-models/minilm/model-w4.onnx");
/// Names an ONNX file of the same architecture and tokenizer that the
/// local embedder runs instead of the built-in weights: how a candidate
/// model (a fine-tuned one, say) is measured with `tsq-bench` before any
/// is vendored. Its vectors are recorded under `MODEL+<its sha256, 12
/// hex digits>`, so an index moves to or from it by re-embedding.
pub const MODEL_FILE_ENV: &str = "TSQ_LOCAL_MODEL";

/// The weights the local embedder runs and the name its vectors carry.
struct Weights {
    bytes: std::borrow::Cow<'static, [u8]>,
    name: String,
}

/// The built-in model, or the file `$TSQ_LOCAL_MODEL` names (read once).
fn weights() -> Result<&'static Weights, EmbedError> {
    static WEIGHTS: std::sync::OnceLock<Result<Weights, String>> = std::sync::OnceLock::new();
    WEIGHTS
        .get_or_init(|| match std::env::var_os(MODEL_FILE_ENV) {
            None => Ok(Weights { bytes: std::borrow::Cow::Borrowed(MODEL_BYTES), name: MODEL.to_string() }),
            Some(path) => {
                let bytes = std::fs::read(&path)
                    .map_err(|e| format!("{MODEL_FILE_ENV}={}: {e}; unset it to use the built-in model", std::path::Path::new(&path).display()))?;
                use sha2::Digest;
                let digest = sha2::Sha256::digest(&bytes);
                let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
                Ok(Weights { bytes: std::borrow::Cow::Owned(bytes), name: format!("{MODEL}+{hex}") })
            }
        })
        .as_ref()
        .map_err(|e| EmbedError::Local(e.clone()))
}

/// The name the local embedder's vectors carry (`MODEL`, or the
/// `$TSQ_LOCAL_MODEL` file's; `MODEL` when that file cannot be read, so
/// the error comes when the model loads).
pub fn model_name() -> String {
    weights().map(|w| w.name.clone()).unwrap_or_else(|_| MODEL.to_string())
}
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
        let w = weights()?;
        let model = MiniLm::load(&w.bytes[..]).map_err(|e| EmbedError::Local(format!("loading the model {}: {e}", w.name)))?;
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

/// A text's token ids, no special tokens, its identifiers' words spaced.
pub(super) fn token_ids(tokenizer: &Tokenizer, text: &str) -> Result<Vec<u32>, EmbedError> {
    let text = identifier_words(text);
    Ok(tokenizer.encode(text.as_ref(), false).map_err(|e| EmbedError::Local(e.to_string()))?.get_ids().to_vec())
}

/// `text` with a space between the words of each camel-case identifier,
/// where `camel::starts_word` puts a word's start (`useQuery` → `use
/// Query`, `TRPCClient` → `TRPC Client`). Nothing else changes; text
/// without such an identifier is returned as it is.
pub(crate) fn identifier_words(text: &str) -> std::borrow::Cow<'_, str> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out: Option<String> = None;
    let mut from = 0;
    for w in 1..chars.len() {
        let (at, c) = chars[w];
        if crate::camel::starts_word(chars[w - 1].1, c, chars.get(w + 1).map(|&(_, n)| n)) {
            let o = out.get_or_insert_with(|| String::with_capacity(text.len() + text.len() / 8));
            o.push_str(&text[from..at]);
            o.push(' ');
            from = at;
        }
    }
    match out {
        None => std::borrow::Cow::Borrowed(text),
        Some(mut o) => {
            o.push_str(&text[from..]);
            std::borrow::Cow::Owned(o)
        }
    }
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

/// Where the local embedder's weights come from, for `tsq doctor`.
pub fn model_source() -> String {
    match std::env::var_os(MODEL_FILE_ENV) {
        None => "built in".into(),
        Some(path) => format!("from {MODEL_FILE_ENV}={}", std::path::Path::new(&path).display()),
    }
}

/// The local embedder, its model loaded on first use (`super::Lazy`).
pub(crate) fn lazy() -> super::Lazy<LocalEmbedder> {
    super::Lazy::new(EmbedderId { model: model_name(), dimension: DIMENSION }, BATCH, LocalEmbedder::load)
}

impl Embedder for LocalEmbedder {
    fn id(&self) -> EmbedderId {
        EmbedderId { model: model_name(), dimension: DIMENSION }
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
    fn identifiers_are_read_as_words() {
        assert_eq!(identifier_words("useSuspenseInfiniteQuery"), "use Suspense Infinite Query");
        assert_eq!(identifier_words("createTRPCClient(opts)"), "create TRPC Client(opts)");
        assert_eq!(identifier_words("XMLHttpRequest v2Beta"), "XML Http Request v2 Beta");
        assert_eq!(identifier_words("where do we refresh tokens? TRPC_ERROR snake_case"), "where do we refresh tokens? TRPC_ERROR snake_case");
        assert_eq!(identifier_words("é getX"), "é get X");
        assert!(matches!(identifier_words("plain words"), std::borrow::Cow::Borrowed(_)));
        // The uncased tokenizer then sees words, not pieces of a run of letters.
        let t = plain_tokenizer().unwrap();
        let tokens = |s: &str| t.encode(s, false).unwrap().get_tokens().to_vec();
        assert_eq!(tokens(&identifier_words("useInfiniteQuery")), ["use", "infinite", "query"]);
        assert_ne!(tokens("useInfiniteQuery"), ["use", "infinite", "query"]);
    }

    #[test]
    fn windows_cover_the_body_at_a_75_percent_stride() {
        assert_eq!(window_spans(0, 100), vec![0..0]);
        assert_eq!(window_spans(100, 100), vec![0..100]);
        assert_eq!(window_spans(101, 100), vec![0..100, 75..101]);
        assert_eq!(window_spans(250, 100), vec![0..100, 75..175, 150..250]);
    }
}
