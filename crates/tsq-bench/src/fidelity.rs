//! `tsq-bench fidelity <indexed dir> --sample N --edits M`: the occurrence
//! index against the live Language Service on a real workspace (issue 23's
//! differential test at corpus scale; `tests/it/occurrences.rs` runs it on
//! the fixtures in CI).
//!
//! One warm engine answers both sides, so the live Language Service builds
//! its programs once: N random declarations (seeded, every kind, locals
//! and members too) are compared as `tsq relations` (rows) against
//! `tsq inspect` (live): references, incoming and outgoing calls, exactly.
//! Then M random edits (`tests/it/common/random_edits.rs`, the tests' own
//! generator) are made to a copy of the workspace; after each, the sync
//! runs and every declaration of the edited file plus a few random others
//! are compared again. Every difference is printed; the summary counts
//! them by kind.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use tsq::api::{Engine, EngineOptions};
use tsq::embed::EmbedderChoice;
use tsq::index::{Index, IndexConfig};
use tsq::structure::occurrences::Graph;

#[path = "../../../tests/it/common/random_edits.rs"]
#[allow(dead_code)]
mod random_edits;
use random_edits::Rng;

use crate::ExitStatus;

/// Every declaration's `symbol =` query that the syntax can spell.
fn declaration_queries(root: &Path) -> anyhow::Result<Vec<String>> {
    let index = Index::open_with(root, &IndexConfig { embedder: EmbedderChoice::None, ..Default::default() }, None)?;
    Ok(Graph::load(&index, true)?.symbol_queries())
}

#[derive(Default)]
struct Tally {
    queries: usize,
    declarations: usize,
    equal: usize,
    /// Kind of difference -> count.
    kinds: BTreeMap<&'static str, usize>,
}

/// Compares the live and derived answers of `queries`; prints each
/// difference.
fn compare(e: &Engine, queries: &[String], call_depth: i32, label: &str, tally: &mut Tally) {
    let json = |v: &dyn erased::Ser| v.json();
    for q in queries {
        tally.queries += 1;
        let live = match e.inspect_live(q, Some(call_depth)) {
            Ok(a) => a,
            Err(err) => {
                println!("{label}: {q}: live error: {err}");
                *tally.kinds.entry("live error").or_default() += 1;
                continue;
            }
        };
        let rows = match e.relations(q, Some(call_depth), &tsq::progress::silent()) {
            Ok(a) => a,
            Err(err) => {
                println!("{label}: {q}: rows error: {err}");
                *tally.kinds.entry("rows error").or_default() += 1;
                continue;
            }
        };
        for m in &live.result.matches {
            tally.declarations += 1;
            let Some(r) = rows.matches.iter().find(|r| r.symbol.file_path == m.symbol.file_path && r.symbol.line == m.symbol.line) else {
                println!("{label}: {q}: no row for {:?}:{:?}", m.symbol.file_path, m.symbol.line);
                *tally.kinds.entry("no row").or_default() += 1;
                continue;
            };
            let mut same = true;
            if m.references != r.references {
                same = false;
                *tally.kinds.entry("references").or_default() += 1;
                println!("{label}: {q} references\n  live: {}\n  rows: {}", json(&m.references), json(&r.references));
            }
            if m.incoming_callers != r.incoming_callers {
                same = false;
                *tally.kinds.entry("incoming calls").or_default() += 1;
                println!("{label}: {q} incoming\n  live: {}\n  rows: {}", json(&m.incoming_callers), json(&r.incoming_callers));
            }
            if m.outgoing_calls != r.outgoing_calls {
                same = false;
                *tally.kinds.entry("outgoing calls").or_default() += 1;
                println!("{label}: {q} outgoing\n  live: {}\n  rows: {}", json(&m.outgoing_calls), json(&r.outgoing_calls));
            }
            tally.equal += same as usize;
        }
    }
}

fn summary(what: &str, t: &Tally, secs: f64) {
    let kinds: Vec<String> = t.kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
    println!(
        "{what}: {} queries, {} declarations, {} equal, {} differ ({}), {secs:.0} s",
        t.queries,
        t.declarations,
        t.equal,
        t.declarations - t.equal,
        if kinds.is_empty() { "none".to_string() } else { kinds.join(", ") }
    );
}

fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let t = e.file_type()?;
        if t.is_dir() {
            if e.file_name() != "node_modules" {
                copy_dir(&src, &dst)?;
            }
        } else if t.is_file() {
            std::fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}

pub fn run(dir: &Path, sample: usize, edits: usize, per_edit: usize, seed: u64, call_depth: i32) -> anyhow::Result<ExitStatus> {
    anyhow::ensure!(dir.join(".tsq").is_dir(), "{} has no index: run `tsq index --embedder none` there first", dir.display());
    // The edits change files: work on a copy (index included).
    let work: PathBuf = std::env::temp_dir().join(format!("tsq-fidelity-{}", std::process::id()));
    copy_dir(dir, &work)?;
    let _cleanup = Cleanup(work.clone());
    let e = Engine::open(&work, EngineOptions { embedder: Some(EmbedderChoice::None), ..Default::default() })?;
    e.sync_occurrences(&tsq::progress::silent())?;
    let all = declaration_queries(&work)?;
    let mut rng = Rng(seed);
    let mut picked = BTreeSet::new();
    while picked.len() < sample.min(all.len()) {
        picked.insert(rng.pick(&all).cloned().unwrap_or_default());
    }
    let picked: Vec<String> = picked.into_iter().collect();
    println!("{}: {} declarations' queries, {} sampled (seed {seed}), call depth {call_depth}", dir.display(), all.len(), picked.len());
    let started = Instant::now();
    let mut sampled = Tally::default();
    compare(&e, &picked, call_depth, "sample", &mut sampled);
    let sample_secs = started.elapsed().as_secs_f64();

    let started = Instant::now();
    let mut edited = Tally::default();
    let mut made = 0;
    for step in 0..edits {
        let what = random_edits::edit(&work, &mut rng, step % 10, step);
        made += 1;
        let report = e.sync_occurrences(&tsq::progress::silent())?;
        let all = declaration_queries(&work)?;
        let (mine, rest): (Vec<String>, Vec<String>) = all.into_iter().partition(|q| {
            let file = q.trim_start_matches("symbol = ").split(" > ").next().unwrap_or("");
            what.contains(&format!(" in {file}"))
        });
        let mut qs: BTreeSet<String> = mine.into_iter().collect();
        for _ in 0..per_edit {
            if let Some(q) = rng.pick(&rest) {
                qs.insert(q.clone());
            }
        }
        println!("edit {step}: {what} (sync re-indexed {} files); checking {} declarations' queries", report.indexed, qs.len());
        compare(&e, &qs.into_iter().collect::<Vec<_>>(), call_depth, &format!("edit {step}"), &mut edited);
    }
    summary("sample", &sampled, sample_secs);
    if made > 0 {
        summary(&format!("after {made} random edits"), &edited, started.elapsed().as_secs_f64());
    }
    Ok(ExitStatus::Success)
}

struct Cleanup(PathBuf);

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

mod erased {
    pub trait Ser {
        fn json(&self) -> String;
    }
    impl<T: serde::Serialize> Ser for T {
        fn json(&self) -> String {
            serde_json::to_string(self).unwrap_or_default()
        }
    }
}
