//! The usage table: one row per workspace symbol that something else uses,
//! with its usage prior (damped fan-in and PageRank over the occurrence
//! rows, each normalized to [0, 1]). `structure::usage` computes it after
//! each occurrence sync; ranking reads the priors of its candidates. This
//! module stores and reads, and reads the occurrence edges it is made of.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float32Array, RecordBatch, StringArray};

use super::schema::{sql_in, Columns};
use super::store::Store;
use super::IndexError;

pub use super::schema::{usage_schema, USAGE};

/// Whether a symbol id is external (a library's or a package's member,
/// `js/occurrences/60_occurrences.js` `externalId`, whose rows only the workspace
/// members implementing it relate to): its file is TypeScript's libs
/// (`/__tsq__/…`) or a package under `node_modules`.
pub(crate) fn is_external(symbol: &str) -> bool {
    let file = symbol.split(" > ").next().unwrap_or(symbol);
    file.starts_with('/') || file.starts_with("node_modules/") || file.contains("/node_modules/")
}

/// One symbol's priors.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Usage {
    pub fan_in: f32,
    pub rank: f32,
}

/// One use: `from` (the enclosing declaration's id, or the file's) uses
/// `symbol`, in file `path`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Edge {
    pub path: String,
    pub from: String,
    pub symbol: String,
}

fn arrow(e: arrow_schema::ArrowError) -> IndexError {
    IndexError::Lance(e.to_string())
}

/// Symbols per read filter.
const FILTER_CHUNK: usize = 400;

/// The roles of occurrence rows that are no uses (a re-export is none).
const NOT_USES: [&str; 3] = ["definition", "import", "export"];

/// The occurrence rows that are uses, as a filter.
fn uses() -> String {
    format!("`role` NOT IN ({})", NOT_USES.iter().map(|r| super::schema::sql_str(r)).collect::<Vec<_>>().join(", "))
}

/// Whether an occurrence row with this role is a use (`uses`).
pub(crate) fn is_use(role: &str) -> bool {
    !NOT_USES.contains(&role)
}

/// The roles of uses that are values: calls, `new`, plain references
/// (type references and heritage left out).
const VALUE_ROLES: &[&str] = &["call", "new", "reference"];

/// The distinct symbols of `rows` (file, line, symbol, value) used within
/// one range, each once, a value use winning.
pub(crate) fn uses_within<'a>((file, first, last): &(String, u32, u32), rows: impl Iterator<Item = (&'a str, u32, &'a str, bool)>) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    for (f, line, symbol, value) in rows {
        if f == file && (*first..=*last).contains(&line) {
            match out.iter_mut().find(|(s, _)| s == symbol) {
                Some(seen) => seen.1 |= value,
                None => out.push((symbol.to_string(), value)),
            }
        }
    }
    out
}

impl Store {
    /// Every use the occurrence rows record.
    /// The use edges of `files`, or of every file.
    pub(crate) async fn usage_edges(&self, files: Option<&[String]>) -> Result<Vec<Edge>, IndexError> {
        let filter = match files {
            Some(files) => format!("{} AND {}", super::schema::sql_in("relativePath", files), uses()),
            None => uses(),
        };
        let mut out = Vec::new();
        for b in Store::scan(&self.occurrences, Some(&filter), Some(&["relativePath", "symbol", "enclosing"])).await? {
            let c = Columns(&b);
            out.extend((0..b.num_rows()).map(|i| Edge {
                path: c.str("relativePath", i).unwrap_or_default(),
                from: c.str("enclosing", i).unwrap_or_default(),
                symbol: c.str("symbol", i).unwrap_or_default(),
            }));
        }
        Ok(out)
    }

    /// Every use row, as the warm copy holds them: (file, line, symbol,
    /// whether it is a value use).
    pub(crate) async fn use_rows(&self, filter: Option<&str>) -> Result<Vec<(String, u32, String, bool)>, IndexError> {
        let filter = match filter {
            Some(f) => format!("({f}) AND {}", uses()),
            None => uses(),
        };
        let mut out = Vec::new();
        for b in Store::scan(&self.occurrences, Some(&filter), Some(&["relativePath", "line", "symbol", "role"])).await? {
            let c = Columns(&b);
            out.extend((0..b.num_rows()).map(|i| {
                let role = c.str("role", i).unwrap_or_default();
                (
                    c.str("relativePath", i).unwrap_or_default(),
                    c.i64("line", i).unwrap_or_default() as u32,
                    c.str("symbol", i).unwrap_or_default(),
                    VALUE_ROLES.contains(&role.as_str()),
                )
            }));
        }
        Ok(out)
    }

    /// The symbols used inside these line ranges (file, first, last), by
    /// range, each with whether it is a value use (`VALUE_ROLES`).
    pub(crate) async fn uses_in(&self, ranges: &[(String, u32, u32)]) -> Result<Vec<Vec<(String, bool)>>, IndexError> {
        if ranges.is_empty() {
            return Ok(Vec::new());
        }
        let any = ranges
            .iter()
            .map(|(f, a, b)| format!("(`relativePath` = {} AND `line` >= {a} AND `line` <= {b})", super::schema::sql_str(f)))
            .collect::<Vec<_>>()
            .join(" OR ");
        let rows = self.use_rows(Some(&any)).await?;
        Ok(ranges.iter().map(|r| uses_within(r, rows.iter().map(|(f, l, s, v)| (f.as_str(), *l, s.as_str(), *v)))).collect())
    }

    /// Replaces the whole table (one delete, one add).
    pub(crate) async fn replace_usage(&self, rows: &[(String, Usage)]) -> Result<(), IndexError> {
        Store::delete(&self.usage, "true").await?;
        for chunk in rows.chunks(50_000) {
            let cols: Vec<ArrayRef> = vec![
                Arc::new(StringArray::from_iter_values(chunk.iter().map(|(s, _)| s.as_str()))),
                Arc::new(Float32Array::from_iter_values(chunk.iter().map(|(_, u)| u.fan_in))),
                Arc::new(Float32Array::from_iter_values(chunk.iter().map(|(_, u)| u.rank))),
            ];
            Store::add(&self.usage, RecordBatch::try_new(usage_schema(), cols).map_err(arrow)?).await?;
        }
        Ok(())
    }

    /// The priors of these symbols (absent: unused, or never computed).
    pub(crate) async fn usage_of(&self, symbols: &[String]) -> Result<HashMap<String, Usage>, IndexError> {
        let mut out = HashMap::new();
        for chunk in symbols.chunks(FILTER_CHUNK) {
            out.extend(self.usage_where(Some(&sql_in("symbol", chunk))).await?);
        }
        Ok(out)
    }

    /// The usage rows `filter` keeps (all when `None`: the warm copy).
    pub(crate) async fn usage_where(&self, filter: Option<&str>) -> Result<HashMap<String, Usage>, IndexError> {
        let mut out = HashMap::new();
        for b in Store::scan(&self.usage, filter, None).await? {
            let c = Columns(&b);
            for i in 0..b.num_rows() {
                let u = Usage { fan_in: c.f32("fanIn", i).unwrap_or_default(), rank: c.f32("rank", i).unwrap_or_default() };
                out.insert(c.str("symbol", i).unwrap_or_default(), u);
            }
        }
        Ok(out)
    }
}

impl super::Index {
    pub(crate) fn usage_edges(&self, files: Option<&[String]>) -> Result<Vec<Edge>, IndexError> {
        self.runtime.block_on(self.store.usage_edges(files))
    }

    /// Replaces the usage table, under the writer lock.
    pub(crate) fn replace_usage(&mut self, rows: &[(String, Usage)]) -> Result<(), IndexError> {
        self.with_lock(|ix| ix.runtime.block_on(ix.store.replace_usage(rows)))
    }

    pub fn usage_of(&self, symbols: &[String]) -> Result<HashMap<String, Usage>, IndexError> {
        self.runtime.block_on(self.store.usage_of(symbols))
    }

    /// The symbols used inside these line ranges, by range, each with
    /// whether it is a value use; from memory in a warm process.
    pub(crate) fn uses_in(&self, ranges: &[(String, u32, u32)]) -> Result<Vec<Vec<(String, bool)>>, IndexError> {
        self.runtime.block_on(async {
            if let Some(warm) = self.warm.as_ref() {
                return Ok(warm.uses(&self.store).await?.uses_in(ranges));
            }
            self.store.uses_in(ranges).await
        })
    }

    /// Whether the usage table is missing while the occurrence rows
    /// record uses (an index built before the table existed): a count,
    /// and a filtered one only when the table is empty.
    pub(crate) fn usage_missing(&self) -> Result<bool, IndexError> {
        if self.runtime.block_on(Store::count(&self.store.usage, None))? > 0 {
            return Ok(false);
        }
        Ok(self.runtime.block_on(Store::count(&self.store.occurrences, Some(&uses())))? > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::is_external;

    #[test]
    fn library_members_are_external() {
        assert!(is_external("/__tsq__/lib.es2015.proxy.d.ts > ProxyHandler > get"));
        assert!(is_external("node_modules/@types/node/fs.d.ts > Stats > size"));
        assert!(!is_external("src/core.ts > core") && !is_external("src/core.ts"));
    }
}
