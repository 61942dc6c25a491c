//! A static embedder: a token table distilled from the bundled MiniLM the
//! model2vec way (`vendor-models/derive_static.py`: each vocabulary entry
//! run through the teacher alone, PCA to 256 dimensions, SIF weights over
//! a Zipf estimate of frequency), embedded in the binary. A window's vector
//! is the mean of its tokens' rows, normalized: no forward pass, so a
//! repository's vectors take about as long as tokenizing it.
//!
//! Windows are as the local model's (`local::DocumentWindows`, the
//! breadcrumb before each), so a chunk is scored by its best window either
//! way.

use tokenizers::Tokenizer;

use super::local::{plain_tokenizer, token_ids, DocumentWindows, WINDOW_TOKENS};
use super::{Document, EmbedError, Embedder, EmbedderId};

/// What the index records with every vector.
pub const MODEL: &str = "minilm-static-256-int8-words";
/// Documents per embedding call (pooling is cheap).
const BATCH: usize = 256;
/// The table's width (`derive_static.py`'s PCA); `load` checks it.
pub const DIMENSION: usize = 256;
static TABLE: &[u8] = include_bytes!("../../vendor-models/static/tokens.bin");

pub struct StaticEmbedder {
    tokenizer: Tokenizer,
    /// The embedded table's rows (int8 values, then an f32 scale), read in
    /// place: 7.9 MB, never copied.
    table: &'static [u8],
}

/// Checks `derive_static.py`'s table: `TSQSTAT1`, rows and dimension (u32
/// little-endian), then per row `dimension` int8 values and an f32 scale
/// (a value is `int8 × scale / 127`). Gives the rows, their count and the
/// dimension.
fn read_table(bytes: &[u8]) -> Result<(&[u8], usize, usize), String> {
    let header = bytes.get(..16).ok_or("the table is shorter than its header")?;
    if &header[..8] != b"TSQSTAT1" {
        return Err("the table does not start with TSQSTAT1".into());
    }
    let word = |i: usize| u32::from_le_bytes([header[i], header[i + 1], header[i + 2], header[i + 3]]) as usize;
    let (rows, dimension) = (word(8), word(12));
    let record = dimension + 4;
    let body = &bytes[16..];
    if dimension == 0 || body.len() != rows * record {
        return Err(format!("the table holds {} bytes, expected {rows} rows of {record}", body.len()));
    }
    Ok((body, rows, dimension))
}

impl StaticEmbedder {
    pub fn load() -> Result<StaticEmbedder, EmbedError> {
        let (table, count, dimension) = read_table(TABLE).map_err(|e| EmbedError::Local(format!("static table: {e}")))?;
        if dimension != DIMENSION {
            return Err(EmbedError::Local(format!("the static table has {dimension} dimensions, tsq expects {DIMENSION}")));
        }
        let tokenizer = plain_tokenizer()?;
        if tokenizer.get_vocab_size(true) > count {
            return Err(EmbedError::Local(format!("the tokenizer has {} tokens, the static table {count}", tokenizer.get_vocab_size(true))));
        }
        Ok(StaticEmbedder { tokenizer, table })
    }

    /// The normalized mean of the tokens' rows (zeros for no tokens).
    fn pool<'a>(&self, ids: impl IntoIterator<Item = &'a u32>) -> Vec<f32> {
        let mut v = vec![0f32; DIMENSION];
        let record = DIMENSION + 4;
        for &id in ids {
            let Some(row) = self.table.get(id as usize * record..(id as usize + 1) * record) else { continue };
            let (values, s) = row.split_at(DIMENSION);
            let scale = f32::from_le_bytes([s[0], s[1], s[2], s[3]]);
            v.iter_mut().zip(values).for_each(|(a, &b)| *a += b as i8 as f32 * scale);
        }
        super::normalize(&mut v);
        v
    }
}

/// The static embedder, its table checked on first use (`super::Lazy`).
pub(crate) fn lazy() -> super::Lazy<StaticEmbedder> {
    super::Lazy::new(EmbedderId { model: MODEL.into(), dimension: DIMENSION }, BATCH, StaticEmbedder::load)
}

impl Embedder for StaticEmbedder {
    fn id(&self) -> EmbedderId {
        EmbedderId { model: MODEL.into(), dimension: DIMENSION }
    }

    fn embed_documents(&self, docs: &[Document<'_>]) -> Result<Vec<Vec<Vec<f32>>>, EmbedError> {
        docs.iter().map(|d| Ok(DocumentWindows::of(&self.tokenizer, d)?.iter().map(|(prefix, body)| self.pool(prefix.iter().chain(body))).collect())).collect()
    }

    fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        Ok(self.pool(token_ids(&self.tokenizer, query)?.iter().take(WINDOW_TOKENS - 2)))
    }

    fn batch_size(&self) -> usize {
        BATCH
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cos(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn a_question_is_nearest_the_code_that_answers_it() {
        let e = StaticEmbedder::load().unwrap();
        assert_eq!(e.id().dimension, 256);
        let q = e.embed_query("where do we refresh tokens?").unwrap();
        let doc = |text: &str| e.embed_documents(&[Document { text, breadcrumb: "" }]).unwrap().remove(0).remove(0);
        let refresh = doc("function refreshAccessToken(session) { return renewToken(session.refresh) }");
        let retry = doc("const retryer = createRetryer({ retry: options.retry, fn: fetchFn })");
        assert!((cos(&q, &q) - 1.0).abs() < 1e-4, "not normalized");
        assert!(cos(&q, &refresh) > cos(&q, &retry) + 0.1, "refresh {} retry {}", cos(&q, &refresh), cos(&q, &retry));
    }

    #[test]
    fn a_long_document_gets_the_local_models_windows() {
        let e = StaticEmbedder::load().unwrap();
        let text = "const value = compute(value, options.retryDelay);\n".repeat(60);
        let windows = e.embed_documents(&[Document { text: &text, breadcrumb: "src/a.ts > f" }]).unwrap().remove(0);
        assert!(windows.len() > 1 && windows.len() <= super::super::local::MAX_WINDOWS, "{} windows", windows.len());
    }

    #[test]
    fn a_damaged_table_is_refused() {
        assert!(read_table(b"TSQSTAT1").is_err());
        let mut bad = TABLE[..16 + 260].to_vec();
        bad[0] = b'X';
        assert!(read_table(&bad).unwrap_err().contains("TSQSTAT1"));
        assert!(read_table(&TABLE[..TABLE.len() - 1]).unwrap_err().contains("expected"));
    }
}
