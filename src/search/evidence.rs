//! What the index knows about candidates beyond their text,
//! read per query, never computed from scratch:
//!
//! - **barrels**: a file whose chunks are all, or nearly all, imports and
//!   re-exports (`is_barrel`);
//! - **usage priors**: each candidate's symbol's prior from the `usage`
//!   table (`structure::usage`);
//! - **lending**: a test or example among the strongest candidates lends
//!   to the declarations it uses, by the occurrence rows, and those
//!   retrieval missed are taken in (`Lending`); call lending does the same
//!   for implementation candidates, with its own lift, to the values they
//!   use in their own file, never past the lender's own score.

use std::collections::{HashMap, HashSet};

use super::steps::{Prior, Steps, LENDERS, TEST_LIFT};
use crate::files::{classify, Role};
use crate::index::{ChunkRow, Filter, Index, IndexError};

/// What the index knows of a candidate beyond its text (`evidence`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Known {
    /// Its file is a barrel.
    pub barrel: bool,
    /// Its symbol's usage prior in [0, 1] (0 when the step is off).
    pub usage: f64,
}

/// The share of a file's chunks (comments aside) that are imports or
/// re-exports from which the file is a barrel.
pub(crate) const BARREL_SHARE: f64 = 0.8;

/// Whether chunks of these kinds make a barrel: at least one re-export,
/// and imports plus re-exports at least `BARREL_SHARE` of the chunks that
/// are not comments.
pub(crate) fn is_barrel<S: AsRef<str>>(kinds: &[S]) -> bool {
    let counted: Vec<&str> = kinds.iter().map(|k| k.as_ref()).filter(|k| *k != "comment").collect();
    let plumbing = counted.iter().filter(|k| matches!(**k, "import" | "re-export")).count();
    counted.contains(&"re-export") && plumbing as f64 >= BARREL_SHARE * counted.len() as f64
}

/// A chunk's symbol id as the occurrence rows spell it (`path > A > b`).
pub(crate) fn symbol_of(row: &ChunkRow) -> Option<String> {
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
                Prior::Off => 0.0,
            };
        }
    }
    Ok(out)
}

/// What the strongest candidates' lines use, by the occurrence rows (read
/// once per query, for lending and the type step).
#[derive(Debug, Default)]
pub(crate) struct Uses(HashMap<String, Vec<(String, bool)>>);

impl Uses {
    /// Reads the uses of these candidates (skipping those already read).
    pub fn read(&mut self, index: &Index, rows: &[&ChunkRow]) -> Result<(), IndexError> {
        let want: Vec<&ChunkRow> = rows.iter().copied().filter(|r| !self.0.contains_key(&r.chunk.id)).collect();
        if want.is_empty() {
            return Ok(());
        }
        let t = std::time::Instant::now();
        let ranges: Vec<(String, u32, u32)> = want.iter().map(|r| (r.chunk.relative_path.clone(), r.chunk.start_line, r.chunk.end_line)).collect();
        for (r, used) in want.iter().zip(index.uses_in(&ranges)?) {
            self.0.insert(r.chunk.id.clone(), used);
        }
        tracing::debug!(ms = t.elapsed().as_millis() as u64, candidates = ranges.len(), "uses read");
        Ok(())
    }

    /// The symbols a candidate's lines use, each with whether it is a value
    /// use (empty when not read).
    pub fn of(&self, row: &ChunkRow) -> &[(String, bool)] {
        self.0.get(&row.chunk.id).map(Vec::as_slice).unwrap_or_default()
    }
}

/// Lending: which symbols each lender (one of the `rank::LENDERS`
/// strongest candidates) uses, by the occurrence rows, and how far it
/// lends: tests and examples by `TEST_LIFT` (test lending), and,
/// when call lending is on, implementation by `Steps::call_lift`
/// (`Steps::call_local`, `call_values`, `call_capped` narrow it).
#[derive(Debug, Default)]
pub(crate) struct Lending {
    /// Lender chunk id → how it lends and the symbols its lines use.
    uses: HashMap<String, Lend>,
}

#[derive(Debug)]
struct Lend {
    lift: f64,
    /// An implementation lender (call lending) under `Steps::call_capped`:
    /// what it lends never passes its own score.
    capped: bool,
    used: Vec<String>,
}

impl Lending {
    /// How far a candidate at `path` lends, if it lends at all, and
    /// whether it is an implementation lender.
    fn lift(steps: &Steps, path: &str) -> Option<(f64, bool)> {
        match classify(path, false) {
            Role::Test | Role::Example if steps.test_lending => Some((TEST_LIFT, false)),
            Role::Implementation if steps.call_lending => Some((steps.call_lift, true)),
            _ => None,
        }
    }

    /// The lenders among the `rank::LENDERS` strongest candidates (`order`
    /// ranks them, strongest first) and what they use (`uses`, read for
    /// them). Implementation lenders lend to the values they use under
    /// `Steps::call_values`, and only within their own file under
    /// `Steps::call_local`.
    pub fn new(steps: &Steps, rows: &[&ChunkRow], order: &[usize], uses: &Uses) -> Lending {
        let mut out = HashMap::new();
        for &i in order.iter().take(LENDERS) {
            let r = rows[i];
            let Some((lift, implementation)) = Lending::lift(steps, &r.chunk.relative_path) else { continue };
            let own = format!("{} > ", r.chunk.relative_path);
            let used = uses
                .of(r)
                .iter()
                .filter(|(s, value)| !implementation || ((*value || !steps.call_values) && (!steps.call_local || s.starts_with(&own))))
                .map(|(s, _)| s.clone())
                .collect();
            out.insert(r.chunk.id.clone(), Lend { lift, capped: implementation && steps.call_capped, used });
        }
        Lending { uses: out }
    }

    /// Declarations the lenders use that are not candidates yet, outside
    /// tests and examples: chunks to take in.
    pub fn missing(&self, index: &Index, have: &[&ChunkRow], filter: &Filter) -> Result<Vec<ChunkRow>, IndexError> {
        let have: HashSet<String> = have.iter().filter_map(|r| symbol_of(r)).collect();
        // Declared in an implementation file, in scope, not a candidate yet.
        let want: HashSet<&String> = self
            .uses
            .values()
            .flat_map(|l| &l.used)
            .filter(|s| !have.contains(*s) && !crate::index::usage::is_external(s))
            .filter(|s| s.split_once(" > ").is_some_and(|(file, _)| classify(file, false) == Role::Implementation))
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

    /// Each candidate's lift: toward 1.0 by a lender's lift × its `raw`
    /// score (before its role demotion), the strongest among the lenders
    /// that use it; a capped lender lifts no one past its own score. Only
    /// implementation gains, and nothing lends to itself.
    pub(crate) fn lend(&self, rows: &[&ChunkRow], raw: &[f64], scores: &mut [f64]) {
        let by_id: HashMap<&str, usize> = rows.iter().enumerate().map(|(i, r)| (r.chunk.id.as_str(), i)).collect();
        let before = scores.to_vec();
        // Symbol → (lift, cap) of each lender that uses it.
        let mut lends: HashMap<&str, Vec<(f64, Option<f64>)>> = HashMap::new();
        for (lender, l) in &self.uses {
            let Some(&c) = by_id.get(lender.as_str()) else { continue };
            let own = symbol_of(rows[c]);
            for s in l.used.iter().filter(|s| own.as_ref() != Some(*s)) {
                lends.entry(s.as_str()).or_default().push((l.lift * raw[c], l.capped.then_some(before[c])));
            }
        }
        for (i, r) in rows.iter().enumerate() {
            let Some(lent) = symbol_of(r).and_then(|s| lends.get(s.as_str())) else { continue };
            if classify(&r.chunk.relative_path, false) != Role::Implementation {
                continue;
            }
            let s = before[i];
            scores[i] = lent.iter().fold(s, |best, &(b, cap)| {
                let lifted = s + (1.0 - s) * b;
                best.max(cap.map_or(lifted, |cap| lifted.min(cap * (1.0 - 1e-6))))
            });
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
