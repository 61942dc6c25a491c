//! The usage prior: how much the workspace uses each symbol,
//! derived from the occurrence rows after every occurrence sync and stored
//! in the `usage` table, so ranking reads it instead of computing it.
//!
//! Two measures, both log-scaled to [0, 1]:
//! - **fan-in**: the files other than the declaring one that use the
//!   symbol, an implementation file counting 1 and a test, example, mock
//!   or fixture ½; the prior ranking reads;
//! - **PageRank** over the declaration graph (an edge from the enclosing
//!   declaration of each use to the symbol used), the way Aider ranks a
//!   repository map's definitions. Measured as the prior and not adopted
//!   (no better than fan-in anywhere: benches/README.md), so ranking does
//!   not read it; it stays in the `usage` table's layout until the next
//!   change of the index schema, since dropping the column alone would
//!   make every index rebuild.

use std::collections::{HashMap, HashSet};

use crate::files::{classify, Role};
use crate::index::usage::{is_external, Edge, Usage};
use crate::index::{Index, IndexError};

/// PageRank's damping factor.
const DAMPING: f64 = 0.85;
/// PageRank's iterations (the change per step is far below a ranking's
/// resolution long before).
const ITERATIONS: usize = 30;

/// The declaring file of a symbol id (`path > A > b`, or a module's path).
fn declaring_file(symbol: &str) -> &str {
    symbol.split(" > ").next().unwrap_or(symbol)
}

/// `ln(1 + x) / ln(1 + max)`: a heavy-tailed count in [0, 1].
fn log_scale(x: f64, max: f64) -> f32 {
    if max <= 0.0 {
        return 0.0;
    }
    ((1.0 + x).ln() / (1.0 + max).ln()).clamp(0.0, 1.0) as f32
}

/// Each used symbol's priors, from the uses the occurrence rows record.
pub(crate) fn priors(edges: &[Edge]) -> Vec<(String, Usage)> {
    // Fan-in: distinct using files, weighted by their role.
    let mut files: HashMap<&str, HashSet<&str>> = HashMap::new();
    for e in edges {
        if e.path != declaring_file(&e.symbol) {
            files.entry(e.symbol.as_str()).or_default().insert(e.path.as_str());
        }
    }
    let fan: HashMap<&str, f64> =
        files.iter().map(|(s, fs)| (*s, fs.iter().map(|f| if classify(f, false) == Role::Implementation { 1.0 } else { 0.5 }).sum::<f64>())).collect();
    let fan_max = fan.values().copied().fold(0.0, f64::max);

    // PageRank over distinct (from, to) declaration edges, self-loops left out.
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut pairs: HashSet<(usize, usize)> = HashSet::new();
    for e in edges {
        if e.from == e.symbol {
            continue;
        }
        let n = ids.len();
        let a = *ids.entry(e.from.as_str()).or_insert(n);
        let n = ids.len();
        let b = *ids.entry(e.symbol.as_str()).or_insert(n);
        pairs.insert((a, b));
    }
    let n = ids.len();
    let rank = pagerank(n, &pairs);
    let mean = if n > 0 { 1.0 / n as f64 } else { 0.0 };
    let rank_max = rank.iter().copied().fold(0.0, f64::max);

    let mut out: Vec<(String, Usage)> = Vec::new();
    let used: HashSet<&str> = edges.iter().map(|e| e.symbol.as_str()).collect();
    for (s, &i) in &ids {
        if !used.contains(s) {
            continue;
        }
        // Rank in multiples of the mean, so a node no one points at is 0.
        let r = log_scale((rank[i] / mean - (1.0 - DAMPING)).max(0.0), rank_max / mean - (1.0 - DAMPING));
        let f = log_scale(fan.get(s).copied().unwrap_or(0.0), fan_max);
        out.push((s.to_string(), Usage { fan_in: f, rank: r }));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// PageRank of `n` nodes over directed `edges`; a node without out-edges
/// spreads its rank evenly.
fn pagerank(n: usize, edges: &HashSet<(usize, usize)>) -> Vec<f64> {
    if n == 0 {
        return Vec::new();
    }
    let mut out_degree = vec![0usize; n];
    for &(a, _) in edges {
        out_degree[a] += 1;
    }
    let mut rank = vec![1.0 / n as f64; n];
    for _ in 0..ITERATIONS {
        let dangling: f64 = (0..n).filter(|&i| out_degree[i] == 0).map(|i| rank[i]).sum();
        let base = (1.0 - DAMPING) / n as f64 + DAMPING * dangling / n as f64;
        let mut next = vec![base; n];
        for &(a, b) in edges {
            next[b] += DAMPING * rank[a] / out_degree[a] as f64;
        }
        rank = next;
    }
    rank
}

/// Recomputes the usage table from the occurrence rows; the rows written.
pub fn refresh(index: &mut Index) -> Result<usize, IndexError> {
    let started = std::time::Instant::now();
    let mut edges = index.usage_edges(None)?;
    // A library member's rows (`handler.get`, under its external id) are
    // no workspace symbol's use.
    edges.retain(|e| !is_external(&e.symbol));
    let rows = priors(&edges);
    index.replace_usage(&rows)?;
    tracing::debug!(edges = edges.len(), symbols = rows.len(), ms = started.elapsed().as_millis() as u64, "usage priors refreshed");
    Ok(rows.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(path: &str, from: &str, symbol: &str) -> Edge {
        Edge { path: path.into(), from: from.into(), symbol: symbol.into() }
    }

    #[test]
    fn widely_used_symbols_outrank_helpers_and_tests_count_half() {
        let edges = vec![
            edge("src/a.ts", "src/a.ts > run", "src/core.ts > core"),
            edge("src/b.ts", "src/b.ts > go", "src/core.ts > core"),
            edge("src/c.ts", "src/c.ts", "src/core.ts > core"),
            // Used in its own file only: no fan-in.
            edge("src/core.ts", "src/core.ts > core", "src/core.ts > helper"),
            // Used by a test alone.
            edge("src/core.test.ts", "src/core.test.ts", "src/core.ts > tested"),
            edge("src/a.ts", "src/a.ts > run", "src/core.ts > once"),
        ];
        let p: HashMap<String, Usage> = priors(&edges).into_iter().collect();
        assert_eq!(p["src/core.ts > core"].fan_in, 1.0, "the most used symbol is the scale's top");
        assert_eq!(p["src/core.ts > helper"].fan_in, 0.0);
        assert!(p["src/core.ts > tested"].fan_in < p["src/core.ts > once"].fan_in, "a test's use counts half: {p:?}");
        assert!(p["src/core.ts > core"].rank > p["src/core.ts > once"].rank, "{p:?}");
        assert!(p["src/core.ts > helper"].rank > 0.0, "a use inside its own file still carries rank: {p:?}");
        assert!(!p.contains_key("src/a.ts > run"), "only used symbols get a row");
        assert!(p.values().all(|u| (0.0..=1.0).contains(&u.fan_in) && (0.0..=1.0).contains(&u.rank)));
    }

    #[test]
    fn pagerank_sums_to_one_and_flows_along_edges() {
        let edges: HashSet<(usize, usize)> = [(0, 2), (1, 2), (2, 3)].into_iter().collect();
        let r = pagerank(4, &edges);
        assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{r:?}");
        assert!(r[2] > r[0] && r[3] > r[0], "{r:?}");
    }
}
