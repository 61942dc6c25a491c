//! Voyage AI: `voyage-code-3` embeddings and `rerank-2.5`, over the shared
//! HTTP client. Batches keep to Voyage's limits: at most 1,000 texts and
//! 120K tokens a request, tokens counted conservatively (3 chars a token).

use serde::Deserialize;
use serde_json::json;

use super::http::{HttpConfig, JsonClient};
use super::{Document, EmbedError, Embedder, EmbedderId, Reranker};

pub const EMBED_MODEL: &str = "voyage-code-3";
pub(crate) const RERANK_MODEL: &str = "rerank-2.5";
pub const DIMENSION: usize = 1024;
const MAX_TEXTS: usize = 1000;
const MAX_TOKENS: usize = 120_000;

/// A conservative token count: code runs 3-4 characters a token.
pub(crate) fn conservative_tokens(text: &str) -> usize {
    text.len().div_ceil(3)
}

/// Splits texts into request batches by count and token limits; returns
/// index ranges.
pub fn batches(texts: &[&str]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut tokens) = (0, 0);
    for (i, t) in texts.iter().enumerate() {
        let n = conservative_tokens(t);
        if i > start && (i - start >= MAX_TEXTS || tokens + n > MAX_TOKENS) {
            out.push(start..i);
            start = i;
            tokens = 0;
        }
        tokens += n;
    }
    if start < texts.len() {
        out.push(start..texts.len());
    }
    out
}

#[derive(Deserialize)]
struct EmbedResponse {
    data: Vec<EmbedItem>,
}

#[derive(Deserialize)]
struct EmbedItem {
    embedding: Vec<f32>,
    index: usize,
}

#[derive(Deserialize)]
struct RerankResponse {
    data: Vec<RerankItem>,
}

#[derive(Deserialize)]
struct RerankItem {
    relevance_score: f32,
    index: usize,
}

pub struct VoyageEmbedder {
    client: JsonClient,
}

impl VoyageEmbedder {
    pub fn new(key: String, config: HttpConfig) -> Result<VoyageEmbedder, EmbedError> {
        Ok(VoyageEmbedder { client: JsonClient::new("voyage", key, config)? })
    }

    fn embed(&self, texts: &[&str], input_type: &str) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for range in batches(texts) {
            let body = json!({"input": &texts[range.clone()], "model": EMBED_MODEL, "input_type": input_type, "output_dimension": DIMENSION});
            let response: EmbedResponse = self.client.post("/v1/embeddings", &body)?;
            let mut vectors: Vec<Option<Vec<f32>>> = vec![None; range.len()];
            for item in response.data {
                if item.embedding.len() != DIMENSION {
                    return Err(malformed(format!("an embedding of {} dimensions, expected {DIMENSION}", item.embedding.len())));
                }
                if item.embedding.iter().any(|x| !x.is_finite()) {
                    return Err(malformed("a non-finite value in an embedding".into()));
                }
                let slot = vectors.get_mut(item.index).ok_or_else(|| malformed(format!("index {} out of range", item.index)))?;
                *slot = Some(item.embedding);
            }
            for v in vectors {
                out.push(v.ok_or_else(|| malformed("fewer embeddings than inputs".into()))?);
            }
        }
        Ok(out)
    }
}

fn malformed(message: String) -> EmbedError {
    EmbedError::Malformed { service: "voyage", message }
}

impl Embedder for VoyageEmbedder {
    fn id(&self) -> EmbedderId {
        EmbedderId { model: EMBED_MODEL.into(), dimension: DIMENSION }
    }

    /// One vector per document: Voyage reads up to 32K tokens.
    fn embed_documents(&self, docs: &[Document<'_>]) -> Result<Vec<Vec<Vec<f32>>>, EmbedError> {
        let texts: Vec<&str> = docs.iter().map(|d| d.text).collect();
        Ok(self.embed(&texts, "document")?.into_iter().map(|v| vec![v]).collect())
    }

    fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        self.embed(&[query], "query")?.pop().ok_or_else(|| malformed("no embedding".into()))
    }

    fn batch_size(&self) -> usize {
        256
    }
}

pub struct VoyageReranker {
    client: JsonClient,
}

impl VoyageReranker {
    pub fn new(key: String, config: HttpConfig) -> Result<VoyageReranker, EmbedError> {
        Ok(VoyageReranker { client: JsonClient::new("voyage rerank", key, config)? })
    }
}

impl Reranker for VoyageReranker {
    fn id(&self) -> String {
        RERANK_MODEL.into()
    }

    fn rerank(&self, query: &str, docs: &[String]) -> Result<Vec<f32>, EmbedError> {
        if docs.is_empty() {
            return Ok(Vec::new());
        }
        let body = json!({"query": query, "documents": docs, "model": RERANK_MODEL, "top_k": docs.len(), "truncation": true});
        let response: RerankResponse = self.client.post("/v1/rerank", &body)?;
        let mut scores = vec![None; docs.len()];
        for item in response.data {
            let slot = scores
                .get_mut(item.index)
                .ok_or_else(|| EmbedError::Malformed { service: "voyage rerank", message: format!("index {} out of range", item.index) })?;
            *slot = Some(item.relevance_score.clamp(0.0, 1.0));
        }
        scores.into_iter().map(|s| s.ok_or_else(|| EmbedError::Malformed { service: "voyage rerank", message: "fewer scores than documents".into() })).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_respect_count_and_tokens() {
        let small = vec!["x"; 2500];
        let b = batches(&small);
        assert_eq!(b, vec![0..1000, 1000..2000, 2000..2500]);
        let big = "y".repeat(100_000 * 3);
        let texts = vec![big.as_str(), big.as_str(), "z"];
        assert_eq!(batches(&texts), vec![0..1, 1..3]);
    }
}
