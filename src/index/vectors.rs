//! Vectors after chunks (`Index::embed_missing`): chunks that lack a
//! vector get one, a batch per commit, with their window vectors; the
//! first query never waits for this (BM25 is ready when chunks are
//! written).

use super::schema::{self, sql_in, Columns, WindowRow};
use super::store::Store;
use super::IndexError;
use crate::embed::{Document, Embedder};
use crate::progress::Progress;

/// Gives vectors to chunks that lack them, a batch per commit.
pub async fn embed_missing(store: &Store, embedder: &dyn Embedder, limit: Option<usize>, progress: &dyn Progress) -> Result<usize, IndexError> {
    let filter = format!("vector IS NULL AND {}", schema::embeddable());
    let total = Store::count(&store.chunks, Some(&filter)).await?;
    let total = limit.map_or(total, |l| l.min(total));
    let mut done = 0;
    let batch = embedder.batch_size().max(1) * 4;
    while done < total {
        let mut q_rows = Vec::new();
        {
            use futures::TryStreamExt;
            use lancedb::query::{ExecutableQuery, QueryBase};
            let batches: Vec<arrow_array::RecordBatch> = store
                .chunks
                .query()
                .only_if(&filter)
                .limit(batch.min(total - done))
                .execute()
                .await
                .map_err(|e| IndexError::Lance(e.to_string()))?
                .try_collect()
                .await
                .map_err(|e| IndexError::Lance(e.to_string()))?;
            for b in &batches {
                let c = Columns(b);
                q_rows.extend((0..b.num_rows()).map(|i| schema::chunk_row(&c, i)));
            }
        }
        if q_rows.is_empty() {
            break;
        }
        let docs: Vec<Document<'_>> = q_rows.iter().map(|r| Document { text: &r.chunk.embedding_text, breadcrumb: &r.chunk.breadcrumb }).collect();
        let vectors = tokio::task::block_in_place(|| embedder.embed_documents(&docs))?;
        let mut windows = Vec::new();
        for (row, vs) in q_rows.iter_mut().zip(vectors) {
            row.vector = Some(chunk_vector(&vs, store.dimension));
            for (w, v) in vs.into_iter().enumerate() {
                windows.push(WindowRow {
                    chunk_id: row.chunk.id.clone(),
                    relative_path: row.chunk.relative_path.clone(),
                    language: row.language.clone(),
                    node_kind: row.chunk.node_kind.clone(),
                    window: w as i32,
                    vector: v,
                });
            }
        }
        let ids: Vec<String> = q_rows.iter().map(|r| r.chunk.id.clone()).collect();
        Store::delete(&store.vectors, &sql_in("chunkId", &ids)).await?;
        Store::add(&store.vectors, schema::vectors_batch(&windows, store.dimension)?).await?;
        Store::upsert(&store.chunks, "id", schema::chunks_batch(&q_rows, store.dimension)?).await?;
        done += q_rows.len();
        progress.update("embedded", done as u64, total as u64);
    }
    Ok(done)
}

/// The chunk's own vector: its one vector, or the normalized mean of its
/// windows.
fn chunk_vector(windows: &[Vec<f32>], dimension: usize) -> Vec<f32> {
    let mut v = vec![0f32; dimension];
    for w in windows {
        v.iter_mut().zip(w).for_each(|(a, b)| *a += b);
    }
    crate::embed::normalize(&mut v);
    v
}
