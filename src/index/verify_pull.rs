//! A pulled index cannot put code in front of an agent that the checkout
//! does not hold. Before the swap, every chunk of the staged index is
//! compared with the local file: its `fullSource` must be the file's text
//! within its lines, its signature and JSDoc must be there too, and its
//! path must be a walked file inside the root; its whole text (`texts`,
//! which ranking reads) must be the file's. A file with any row that
//! fails loses its rows in the staged index (its occurrence file row only
//! its content hash), so the sync after the swap indexes it locally. One
//! read of each file; no parse.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use serde::Serialize;

use super::schema::{sql_in, Columns};
use super::store::Store;
use super::{io, read_meta, IndexError};

/// What the check read and dropped.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct PullCheck {
    /// Chunk rows compared with the checkout.
    pub rows: usize,
    pub files: usize,
    /// Files whose pulled rows were dropped (re-indexed locally).
    pub dropped: Vec<String>,
}

#[derive(Default)]
struct ChunkText {
    full_source: String,
    signature: String,
    jsdoc: Option<String>,
    start_line: usize,
    end_line: usize,
}

/// Checks the staged index in `staging` against the checkout at `root`,
/// whose walked files (relative, `/`-separated) are `walked`, and drops
/// the rows of every file that fails. The occurrence index's rows hold
/// the checker's text (signatures, types), which no file can confirm:
/// they are kept only when `signed` (the manifest verified under a key
/// the user trusts), else emptied and rebuilt locally by the sync.
pub(crate) fn check_staged(staging: &Path, root: &Path, walked: &HashSet<String>, signed: bool) -> Result<PullCheck, IndexError> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| io(staging, e))?;
    runtime.block_on(async {
        let dimension = read_meta(staging).map(|m| m.dimension).unwrap_or(crate::embed::local::DIMENSION);
        let (store, _) = Store::open(staging, dimension).await?;
        let mut by_file: BTreeMap<String, Vec<ChunkText>> = BTreeMap::new();
        let columns = ["relativePath", "fullSource", "signature", "jsdoc", "startLine", "endLine"];
        let mut rows = 0;
        for b in Store::scan(&store.chunks, None, Some(&columns)).await? {
            let c = Columns(&b);
            for i in 0..b.num_rows() {
                rows += 1;
                let chunk = ChunkText {
                    full_source: c.str("fullSource", i).unwrap_or_default(),
                    signature: c.str("signature", i).unwrap_or_default(),
                    jsdoc: c.str("jsdoc", i),
                    start_line: c.i64("startLine", i).unwrap_or(0).max(0) as usize,
                    end_line: c.i64("endLine", i).unwrap_or(0).max(0) as usize,
                };
                by_file.entry(c.str("relativePath", i).unwrap_or_default()).or_default().push(chunk);
            }
        }
        // Files the index lists without chunks (skipped, empty) must
        // still be files of this checkout.
        let mut listed: HashSet<String> = HashSet::new();
        for b in Store::scan(&store.files, None, Some(&["relativePath"])).await? {
            let c = Columns(&b);
            listed.extend((0..b.num_rows()).filter_map(|i| c.str("relativePath", i)));
        }
        let mut texts: BTreeMap<String, String> = BTreeMap::new();
        for b in Store::scan(&store.texts, None, Some(&["relativePath", "searchText"])).await? {
            let c = Columns(&b);
            texts.extend((0..b.num_rows()).map(|i| (c.str("relativePath", i).unwrap_or_default(), c.str("searchText", i).unwrap_or_default())));
        }
        let mut checked: BTreeMap<&str, (&[ChunkText], Option<&str>)> = BTreeMap::new();
        for (rel, chunks) in &by_file {
            checked.entry(rel).or_insert((&[], None)).0 = chunks;
        }
        for (rel, text) in &texts {
            checked.entry(rel).or_insert((&[], None)).1 = Some(text);
        }
        let mut dropped: Vec<String> =
            checked.iter().filter(|(rel, (chunks, text))| !holds(root, walked, rel, chunks, *text)).map(|(rel, _)| rel.to_string()).collect();
        dropped.extend(listed.iter().filter(|rel| !by_file.contains_key(*rel) && !walked.contains(*rel)).cloned());
        dropped.sort();
        dropped.dedup();
        drop_rows(&store, &dropped).await?;
        if !signed {
            for t in [&store.occurrences, &store.occ_files, &store.occ_declarations, &store.usage] {
                Store::delete(t, "true").await?;
            }
        }
        Ok(PullCheck { rows, files: checked.len(), dropped })
    })
}

/// Whether the checkout holds every chunk of `rel`, and its whole text
/// when the index has one.
fn holds(root: &Path, walked: &HashSet<String>, rel: &str, chunks: &[ChunkText], whole: Option<&str>) -> bool {
    if !walked.contains(rel) || !super::names::safe_path(rel) {
        return false;
    }
    let Ok(bytes) = std::fs::read(root.join(rel)) else { return false };
    let Ok(text) = String::from_utf8(bytes) else { return false };
    if whole.is_some_and(|w| w != text && Some(w) != text.strip_prefix('\u{feff}')) {
        return false;
    }
    let file = super::checkout::Holder::new(text.strip_prefix('\u{feff}').unwrap_or(&text));
    chunks.iter().all(|c| file.holds(&c.full_source, &c.signature, c.jsdoc.as_deref(), c.start_line, c.end_line))
}

/// Deletes `paths`' rows from every table keyed by `relativePath`, except
/// the occurrence index's file rows: those lose their content hash, so
/// that the occurrence sync re-indexes each such file as changed (by
/// TypeScript's rule: its importers only if its API changed), not as new.
async fn drop_rows(store: &Store, paths: &[String]) -> Result<(), IndexError> {
    if paths.is_empty() {
        return Ok(());
    }
    let tables = [&store.chunks, &store.vectors, &store.files, &store.texts, &store.occurrences, &store.occ_declarations, &store.usage];
    for table in tables {
        let schema = table.schema().await.map_err(|e| IndexError::Lance(e.to_string()))?;
        if schema.field_with_name("relativePath").is_err() {
            continue;
        }
        for group in paths.chunks(500) {
            Store::delete(table, &sql_in("relativePath", group)).await?;
        }
    }
    for group in paths.chunks(500) {
        store
            .occ_files
            .update()
            .only_if(sql_in("relativePath", group))
            .column("contentHash", "''")
            .execute()
            .await
            .map_err(|e| IndexError::Lance(e.to_string()))?;
    }
    Ok(())
}
