//! What the index knows about candidates beyond their text (issue 24),
//! read per query, never computed from scratch:
//!
//! - **barrels**: a file whose chunks are all, or nearly all, imports and
//!   re-exports (`is_barrel`);
//! - **usage priors**: each candidate's symbol's prior from the `usage`
//!   table (`structure::usage`);
//! - **lending**: a test or example among the strongest candidates lends
//!   to the declarations it uses, by the occurrence rows, and those
//!   retrieval missed are taken in (`Lending`); call lending does the same
//!   for implementation candidates, with a smaller lift.

use std::collections::{HashMap, HashSet};

use super::rank::{self, Known, Prior, Role, Steps};
use crate::index::{ChunkRow, Filter, Index, IndexError};

/// The share of a file's chunks (comments aside) that are imports or
/// re-exports from which the file is a barrel.
pub const BARREL_SHARE: f64 = 0.8;

/// Whether chunks of these kinds make a barrel: at least one re-export,
/// and imports plus re-exports at least `BARREL_SHARE` of the chunks that
/// are not comments.
pub fn is_barrel<S: AsRef<str>>(kinds: &[S]) -> bool {
    let counted: Vec<&str> = kinds.iter().map(|k| k.as_ref()).filter(|k| *k != "comment").collect();
    let plumbing = counted.iter().filter(|k| matches!(**k, "import" | "re-export")).count();
    counted.contains(&"re-export") && plumbing as f64 >= BARREL_SHARE * counted.len() as f64
}

/// A chunk's symbol id as the occurrence rows spell it (`path > A > b`).
pub fn symbol_of(row: &ChunkRow) -> Option<String> {
    let q = crate::structure::chunk_query(&row.chunk)?;
    Some(format!("{} > {}", row.chunk.relative_path, q.names.join(" > ")))
}

/// What the index knows of each candidate, in order.
pub fn known(index: &Index, steps: &Steps, rows: &[&ChunkRow]) -> Result<Vec<Known>, IndexError> {
    let mut out = vec![Known::default(); rows.len()];
    let files: Vec<String> =
        if steps.barrels { rows.iter().map(|r| r.chunk.relative_path.clone()).collect::<HashSet<_>>().into_iter().collect() } else { Vec::new() };
    let symbols: Vec<Option<String>> = rows.iter().map(|r| if steps.usage == Prior::Off { None } else { symbol_of(r) }).collect();
    let wanted: Vec<String> = symbols.iter().flatten().cloned().collect::<HashSet<_>>().into_iter().collect();
    if files.is_empty() && wanted.is_empty() {
        return Ok(out);
    }
    let t = std::time::Instant::now();
    let (kinds, priors) = index.candidate_evidence(&files, &wanted)?;
    tracing::debug!(ms = t.elapsed().as_millis() as u64, files = files.len(), symbols = wanted.len(), "barrels and usage priors read");
    for ((k, r), s) in out.iter_mut().zip(rows).zip(&symbols) {
        k.barrel = kinds.get(&r.chunk.relative_path).is_some_and(|v| is_barrel(v));
        if let Some(u) = s.as_ref().and_then(|s| priors.get(s)) {
            k.usage = match steps.usage {
                Prior::FanIn => u.fan_in as f64,
                Prior::Rank => u.rank as f64,
                Prior::Off => 0.0,
            };
        }
    }
    Ok(out)
}

/// Lending: which symbols each lender (one of the `rank::LENDERS`
/// strongest candidates) uses, by the occurrence rows, and how far it
/// lends: tests and examples by `rank::TEST_LIFT` (test lending), and,
/// when call lending is on, implementation by `Steps::call_lift`.
#[derive(Debug, Default)]
pub struct Lending {
    /// Lender chunk id → its lift and the symbols its lines use.
    uses: HashMap<String, (f64, Vec<String>)>,
}

impl Lending {
    /// How far a candidate at `path` lends, if it lends at all.
    fn lift(steps: &Steps, path: &str) -> Option<f64> {
        match rank::classify(path, false) {
            Role::Test | Role::Example if steps.test_lending => Some(rank::TEST_LIFT),
            Role::Implementation if steps.call_lending => Some(steps.call_lift),
            _ => None,
        }
    }

    /// Reads the lenders' uses; `order` ranks the candidates (strongest
    /// first).
    pub fn read(index: &Index, steps: &Steps, rows: &[&ChunkRow], order: &[usize]) -> Result<Lending, IndexError> {
        let lenders: Vec<(&ChunkRow, f64)> =
            order.iter().take(rank::LENDERS).map(|&i| rows[i]).filter_map(|r| Some((r, Lending::lift(steps, &r.chunk.relative_path)?))).collect();
        if lenders.is_empty() {
            return Ok(Lending::default());
        }
        let ranges: Vec<(String, u32, u32)> = lenders.iter().map(|(r, _)| (r.chunk.relative_path.clone(), r.chunk.start_line, r.chunk.end_line)).collect();
        let t = std::time::Instant::now();
        let used = index.uses_in(&ranges)?;
        tracing::debug!(ms = t.elapsed().as_millis() as u64, lenders = ranges.len(), "lending: uses read");
        let local = |r: &ChunkRow, used: Vec<String>| {
            if steps.call_local && rank::classify(&r.chunk.relative_path, false) == Role::Implementation {
                let own = format!("{} > ", r.chunk.relative_path);
                used.into_iter().filter(|s| s.starts_with(&own)).collect()
            } else {
                used
            }
        };
        Ok(Lending { uses: lenders.iter().zip(used).map(|((r, lift), used)| (r.chunk.id.clone(), (*lift, local(r, used)))).collect() })
    }

    /// Declarations the lenders use that are not candidates yet, outside
    /// tests and examples: chunks to take in.
    pub fn missing(&self, index: &Index, have: &[&ChunkRow], filter: &Filter) -> Result<Vec<ChunkRow>, IndexError> {
        let have: HashSet<String> = have.iter().filter_map(|r| symbol_of(r)).collect();
        // Declared in an implementation file, in scope, not a candidate yet.
        let want: HashSet<&String> = self
            .uses
            .values()
            .flat_map(|(_, used)| used)
            .filter(|s| !have.contains(*s) && !crate::index::usage::is_external(s))
            .filter(|s| s.split_once(" > ").is_some_and(|(file, _)| rank::classify(file, false) == Role::Implementation))
            .filter(|s| filter.paths.is_empty() || s.split_once(" > ").is_some_and(|(file, _)| crate::query::in_scope(file, &filter.paths)))
            .collect();
        let files: Vec<String> = want.iter().filter_map(|s| s.split_once(" > ").map(|(f, _)| f.to_string())).collect::<HashSet<_>>().into_iter().collect();
        let names: Vec<String> = want.iter().filter_map(|s| s.rsplit(" > ").next().map(str::to_string)).collect::<HashSet<_>>().into_iter().collect();
        Ok(index
            .chunks_in_named(&files, &names)?
            .into_iter()
            .filter(|r| filter.language.as_ref().is_none_or(|l| &r.language == l) && symbol_of(r).is_some_and(|s| want.contains(&s)))
            .collect())
    }

    /// Each candidate's lift: toward 1.0 by the strongest lender's lift ×
    /// its `raw` score (before its role demotion), among the lenders that
    /// use it. Only implementation gains, and nothing lends to itself.
    pub fn lend(&self, rows: &[&ChunkRow], raw: &[f64], scores: &mut [f64]) {
        let by_id: HashMap<&str, usize> = rows.iter().enumerate().map(|(i, r)| (r.chunk.id.as_str(), i)).collect();
        let mut best: HashMap<&str, f64> = HashMap::new();
        for (lender, (lift, used)) in &self.uses {
            let Some(&c) = by_id.get(lender.as_str()) else { continue };
            let own = symbol_of(rows[c]);
            for s in used.iter().filter(|s| own.as_ref() != Some(*s)) {
                let b = best.entry(s.as_str()).or_insert(0.0);
                *b = b.max(lift * raw[c]);
            }
        }
        for (i, r) in rows.iter().enumerate() {
            if let Some(b) = symbol_of(r).and_then(|s| best.get(s.as_str()).copied()) {
                if rank::classify(&r.chunk.relative_path, false) == Role::Implementation {
                    scores[i] += (1.0 - scores[i]) * b;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_barrel_is_mostly_imports_and_re_exports() {
        assert!(is_barrel(&["re-export", "re-export", "re-export"]));
        assert!(is_barrel(&["comment", "import", "re-export", "re-export", "re-export", "variable"]), "4 of 5 counted chunks");
        assert!(!is_barrel(&["import", "re-export", "function", "function"]), "half plumbing is a module");
        assert!(!is_barrel(&["import", "import", "import", "import", "function"]), "imports alone are not re-exports");
        assert!(!is_barrel::<&str>(&[]));
    }
}
