//! The index's invariant (`tsq index --check`, and after a fall back to
//! an older version): every file row's chunk count matches the chunks
//! table, no chunk lacks its file row, every parsed file has one whole
//! text and nothing else has any, no window vector lacks its chunk;
//! `reconcile` deletes what disagrees so that the next sync redoes it.

use std::collections::{HashMap, HashSet};

use super::schema::{sql_in, Columns, FileRow};
use super::store::Store;
use super::sync::{recover_journal, write_journal};
use super::IndexError;

/// Per-path row counts in a table keyed by `relativePath` (chunks, whole
/// texts).
async fn path_counts(table: &lancedb::table::Table) -> Result<HashMap<String, i32>, IndexError> {
    let mut counts: HashMap<String, i32> = HashMap::new();
    for b in Store::scan(table, None, Some(&["relativePath"])).await? {
        let c = Columns(&b);
        for i in 0..b.num_rows() {
            *counts.entry(c.str("relativePath", i).unwrap_or_default()).or_default() += 1;
        }
    }
    Ok(counts)
}

async fn chunk_ids(store: &Store) -> Result<HashSet<String>, IndexError> {
    let mut s = HashSet::new();
    for b in Store::scan(&store.chunks, None, Some(&["id"])).await? {
        let c = Columns(&b);
        s.extend((0..b.num_rows()).filter_map(|i| c.str("id", i)));
    }
    Ok(s)
}

/// The paths whose whole texts disagree with their file rows: a parsed
/// file (no skip reason) has exactly one, any other path none.
fn text_mismatches(files: &HashMap<String, FileRow>, texts: &HashMap<String, i32>) -> Vec<(String, i32, bool)> {
    let mut out: Vec<(String, i32, bool)> = files
        .iter()
        .filter_map(|(p, f)| {
            let (n, parsed) = (texts.get(p).copied().unwrap_or(0), f.skip_reason.is_none());
            (n != i32::from(parsed)).then(|| (p.clone(), n, parsed))
        })
        .collect();
    out.extend(texts.iter().filter(|(p, _)| !files.contains_key(*p)).map(|(p, n)| (p.clone(), *n, false)));
    out.sort();
    out
}

pub async fn problems(store: &Store) -> Result<Vec<String>, IndexError> {
    let mut out = Vec::new();
    let counts = path_counts(&store.chunks).await?;
    let files: HashMap<String, FileRow> = store.files().await?.into_iter().map(|f| (f.relative_path.clone(), f)).collect();
    for (path, f) in &files {
        let n = counts.get(path).copied().unwrap_or(0);
        if n != f.chunks {
            out.push(format!("{path}: file row says {} chunks, the table has {n}", f.chunks));
        }
    }
    for (path, n) in &counts {
        if !files.contains_key(path) {
            out.push(format!("{path}: {n} chunks without a file row"));
        }
    }
    for (path, n, parsed) in text_mismatches(&files, &path_counts(&store.texts).await?) {
        let want = if parsed { "one (it parsed)" } else { "none" };
        out.push(format!("{path}: {n} whole texts, where it should have {want}"));
    }
    let ids = chunk_ids(store).await?;
    let mut orphans = 0;
    for b in Store::scan(&store.vectors, None, Some(&["chunkId"])).await? {
        let c = Columns(&b);
        orphans += (0..b.num_rows()).filter(|&i| !c.str("chunkId", i).is_some_and(|id| ids.contains(&id))).count();
    }
    if orphans > 0 {
        out.push(format!("{orphans} window vectors without their chunk"));
    }
    Ok(out)
}

/// After falling back to an older version: rows of paths whose tables
/// disagree are deleted everywhere, so the next sync re-indexes them.
pub(crate) async fn reconcile(store: &Store) -> Result<(), IndexError> {
    let counts = path_counts(&store.chunks).await?;
    let files: HashMap<String, FileRow> = store.files().await?.into_iter().map(|f| (f.relative_path.clone(), f)).collect();
    let mut bad: Vec<String> = files.iter().filter(|(p, f)| counts.get(*p).copied().unwrap_or(0) != f.chunks).map(|(p, _)| p.clone()).collect();
    bad.extend(counts.keys().filter(|p| !files.contains_key(*p)).cloned());
    bad.extend(text_mismatches(&files, &path_counts(&store.texts).await?).into_iter().map(|(p, _, _)| p));
    bad.sort();
    bad.dedup();
    if !bad.is_empty() {
        write_journal(store, &bad)?;
        recover_journal(store).await?;
    }
    // Window vectors whose chunk is gone (a crash between the two writes).
    let ids = chunk_ids(store).await?;
    let mut orphans: HashSet<String> = HashSet::new();
    for b in Store::scan(&store.vectors, None, Some(&["chunkId"])).await? {
        let c = Columns(&b);
        orphans.extend((0..b.num_rows()).filter_map(|i| c.str("chunkId", i)).filter(|id| !ids.contains(id)));
    }
    let orphans: Vec<String> = orphans.into_iter().collect();
    for group in orphans.chunks(500) {
        Store::delete(&store.vectors, &sql_in("chunkId", group)).await?;
    }
    Ok(())
}
