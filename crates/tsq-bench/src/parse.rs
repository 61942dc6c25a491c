//! `tsq bench parse`: parse+chunk throughput, engine start-up and peak RSS,
//! beside Node running the same vendored TypeScript on the same files.
//! Prints medians; asserts nothing (timings belong here, not in tests).

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use serde::Deserialize;

use tsq::parse_pool::{ParsePool, ParsePoolConfig};
use tsq::source;

use crate::ExitStatus;

pub struct BenchArgs {
    pub runs: usize,
    pub workers: Option<usize>,
    pub node: bool,
}

const NODE_SCRIPT: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../benches/node-parse.js"));

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NodeResult {
    load_ms: f64,
    runs_ms: Vec<f64>,
    max_rss_kb: u64,
    version: String,
    node: String,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

pub fn run(dirs: &[PathBuf], args: BenchArgs) -> anyhow::Result<ExitStatus> {
    let mut files = Vec::new();
    for d in dirs {
        let walked = source::walk(d);
        for s in &walked.skipped {
            eprintln!("tsq bench: {}: skipped: {}", s.path, s.message);
        }
        files.extend(walked.files);
    }
    let read = source::ReadConfig::default();
    files.retain(|f| source::read_source(f, &read).is_ok());
    if files.is_empty() {
        bail!("no parseable files under {dirs:?}");
    }
    let bytes: u64 = files.iter().filter_map(|f| std::fs::metadata(f).ok()).map(|m| m.len()).sum();
    let mb = bytes as f64 / 1e6;
    let runs = args.runs.max(1);
    eprintln!("tsq bench parse: {} files, {mb:.1} MB, {runs} runs per side", files.len());

    let mut config = ParsePoolConfig::default();
    if let Some(w) = args.workers {
        config.pool.workers = w.max(1);
    }
    let started = Instant::now();
    let engine = ParsePool::new(&config).context("starting the engine pool")?;
    let pool_startup = started.elapsed();
    let isolate_startup = median(engine.startup_times().iter().map(Duration::as_secs_f64).collect());

    let root = PathBuf::from("/");
    let mut times = Vec::new();
    let mut chunk_count = 0;
    for r in 0..runs {
        let started = Instant::now();
        let mut chunks = 0;
        engine.parse_files(&files, &root, &mut |f| {
            if let Ok(f) = f {
                chunks += f.chunks().len();
            }
        });
        let secs = started.elapsed().as_secs_f64();
        eprintln!("  tsq run {}: {secs:.2} s", r + 1);
        times.push(secs);
        chunk_count = chunks;
    }
    let times_first = times.first().copied().unwrap_or(f64::NAN);
    let tsq_secs = median(times);
    let tsq_rss_mb = peak_rss_kb().unwrap_or(0) as f64 / 1024.0;

    let node = if args.node { Some(run_node(&files, runs)?) } else { None };

    let mut out = std::io::stdout().lock();
    writeln!(out, "tsq bench parse — {} files, {mb:.1} MB, {chunk_count} chunks; median of {runs} runs", files.len())?;
    writeln!(out, "{:<28} {:>26} {:>26}", "", format!("tsq ({}, {} isolates)", backend(), engine.workers()), "node (V8, 1 thread)")?;
    let node_load = node.as_ref().map(|n| format!("{:.2} s", n.load_ms / 1000.0)).unwrap_or_else(|| "-".into());
    writeln!(out, "{:<28} {:>26} {:>26}", "engine start-up (per isolate)", format!("{isolate_startup:.2} s"), node_load)?;
    writeln!(out, "{:<28} {:>26} {:>26}", "engine start-up (whole pool)", format!("{:.2} s", pool_startup.as_secs_f64()), "")?;
    let node_secs = node.as_ref().map(|n| median(n.runs_ms.clone()) / 1000.0);
    let fmt = |v: Option<f64>, unit: &str| v.map(|v| format!("{v:.2} {unit}").trim_end().to_string()).unwrap_or_else(|| "-".into());
    writeln!(out, "{:<28} {:>26} {:>26}", "parse+chunk / parse (median)", format!("{tsq_secs:.2} s"), fmt(node_secs, "s"))?;
    let n = files.len() as f64;
    writeln!(out, "{:<28} {:>26} {:>26}", "files/s", format!("{:.0}", n / tsq_secs), node_secs.map(|s| format!("{:.0}", n / s)).unwrap_or_else(|| "-".into()))?;
    writeln!(out, "{:<28} {:>26} {:>26}", "MB/s", format!("{:.2}", mb / tsq_secs), fmt(node_secs.map(|s| mb / s), ""))?;
    let node_rss = node.as_ref().map(|n| n.max_rss_kb as f64 / 1024.0);
    writeln!(out, "{:<28} {:>26} {:>26}", "peak RSS", format!("{tsq_rss_mb:.0} MB"), node_rss.map(|v| format!("{v:.0} MB")).unwrap_or_else(|| "-".into()))?;
    if let Some(n) = &node {
        let first = n.runs_ms.first().copied().unwrap_or(f64::NAN) / 1000.0;
        writeln!(out, "{:<28} {:>26} {:>26}", "first run (no JIT warm-up)", format!("{:.2} s", times_first), format!("{first:.2} s"))?;
    }
    if let (Some(node_secs), Some(n)) = (node_secs, &node) {
        writeln!(out, "tsq speed vs node: {:.2}x   (typescript {}, node {})", node_secs / tsq_secs, n.version, n.node)?;
    }
    Ok(ExitStatus::Success)
}

/// The `p` quantile (0.0-1.0) by nearest rank; NaN when empty.
pub fn percentile(v: &[f64], p: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        return f64::NAN;
    }
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

pub fn backend() -> &'static str {
    if cfg!(feature = "v8") {
        "V8"
    } else {
        "QuickJS"
    }
}

/// Runs the Node baseline from a temp dir holding the embedded script and
/// the embedded typescript.js, so a copied binary needs no source tree.
fn run_node(files: &[PathBuf], runs: usize) -> anyhow::Result<NodeResult> {
    let dir = std::env::temp_dir().join(format!("tsq-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let script = dir.join("node-parse.js");
    let ts = dir.join("typescript.js");
    let list = dir.join("files.txt");
    std::fs::write(&script, NODE_SCRIPT)?;
    std::fs::write(&ts, tsq::ts::TYPESCRIPT_JS)?;
    let absolute: Vec<String> = files.iter().map(|f| std::path::absolute(f).unwrap_or_else(|_| f.clone()).display().to_string()).collect();
    std::fs::write(&list, absolute.join("\n"))?;
    eprintln!("  node: {runs} runs…");
    let output = Command::new("node").arg(&script).arg(&ts).arg(runs.to_string()).arg(&list).output();
    let _ = std::fs::remove_dir_all(&dir);
    let output = output.context("running node (is it on PATH?)")?;
    if !output.status.success() {
        bail!("node baseline failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    serde_json::from_slice(&output.stdout).context("reading node's result")
}

/// Peak resident set size of this process, from /proc (Linux).
pub fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
