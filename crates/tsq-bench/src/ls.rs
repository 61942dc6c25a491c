//! `tsq bench ls <dir>`: Language Service figures beside Node running the
//! same Language Service calls (`benches/node-ls.js`): program build, warm
//! query latency p50/p95 per resolver, incremental update after a one-file
//! edit, peak RSS. Works on a temp copy of the directory, which it edits.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context};
use serde::Deserialize;
use serde_json::json;

use tsq::workspace::{InspectConfig, Workspace, RESOLVERS};

use crate::parse::percentile;
use crate::ExitStatus;

const NODE_SCRIPT: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../benches/node-ls.js"));

pub struct BenchLsArgs {
    pub queries: usize,
    pub node: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct NodeLs {
    build_ms: f64,
    latencies: std::collections::BTreeMap<String, Vec<f64>>,
    incremental_ms: f64,
    max_rss_kb: u64,
}

/// Copies the source files and project configs of `from` into `to`.
fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<usize> {
    let mut n = 0;
    let wanted = |p: &Path| tsq::source::is_supported(p) || p.extension().is_some_and(|e| e == "json");
    for entry in ignore::WalkBuilder::new(from).hidden(false).require_git(false).build().flatten() {
        let p = entry.path();
        if !entry.file_type().is_some_and(|t| t.is_file()) || !wanted(p) || p.components().any(|c| c.as_os_str() == "node_modules") {
            continue;
        }
        let dest = to.join(p.strip_prefix(from)?);
        std::fs::create_dir_all(dest.parent().unwrap())?;
        std::fs::copy(p, &dest)?;
        n += 1;
    }
    Ok(n)
}

pub fn run(dir: &Path, args: BenchLsArgs) -> anyhow::Result<ExitStatus> {
    if !dir.is_dir() {
        bail!("{}: no such directory", dir.display());
    }
    let tmp = std::env::temp_dir().join(format!("tsq-bench-ls-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let copied = copy_tree(dir, &tmp)?;
    let result = bench(&tmp, copied, &args);
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

fn bench(root: &Path, copied: usize, args: &BenchLsArgs) -> anyhow::Result<ExitStatus> {
    eprintln!("tsq bench ls: {copied} files copied to {}", root.display());
    let started = Instant::now();
    let ws = Workspace::open(root).context("loading the workspace")?;
    let load_ms = started.elapsed().as_secs_f64() * 1000.0;
    let started = Instant::now();
    let files = crate::sample::build_programs(&ws)?;
    let build_ms = started.elapsed().as_secs_f64() * 1000.0;

    // Pick the stride that gives about `queries` symbols.
    let all = crate::sample::symbol_sample(&ws, 1)?;
    if all.is_empty() {
        bail!("no functions, methods or classes under {}", root.display());
    }
    let stride = (all.len() / args.queries.max(1)).max(1) as i32;
    let sample = crate::sample::symbol_sample(&ws, stride)?;
    eprintln!("  {} of {} symbols sampled; {files} files in the programs", sample.len(), all.len());

    let mut tsq_lat: Vec<(&str, Vec<f64>)> = Vec::new();
    for resolver in RESOLVERS {
        let config = InspectConfig { call_depth: 1, resolvers: Some(vec![resolver.to_string()]) };
        let mut lat = Vec::new();
        for s in &sample {
            let t = Instant::now();
            ws.inspect(&s.query(), &config)?;
            lat.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        tsq_lat.push((resolver, lat));
    }

    // One-file edit, then the incremental update.
    let edit = PathBuf::from(&sample[0].file);
    let text = std::fs::read_to_string(&edit)?;
    std::fs::write(&edit, format!("{text}\n// edited by tsq bench\n"))?;
    let started = Instant::now();
    crate::sample::build_programs(&ws)?;
    let incremental_ms = started.elapsed().as_secs_f64() * 1000.0;
    std::fs::write(&edit, &text)?;
    let rss_mb = crate::parse::peak_rss_kb().unwrap_or(0) as f64 / 1024.0;

    let node = if args.node {
        let req = json!({
            "root": root.display().to_string(),
            "files": all.iter().map(|s| s.file.clone()).collect::<std::collections::BTreeSet<_>>(),
            "symbols": sample.iter().map(|s| json!({ "file": s.file, "pos": s.pos })).collect::<Vec<_>>(),
            "editFile": sample[0].file,
        });
        Some(run_node(root, &req, ws_files(root))?)
    } else {
        None
    };

    let mut out = std::io::stdout().lock();
    writeln!(out, "tsq bench ls — {copied} files, {} symbols sampled; medians are p50", sample.len())?;
    writeln!(out, "{:<34} {:>22} {:>22}", "", format!("tsq ({})", crate::parse::backend()), "node (V8)")?;
    let node_fmt = |v: Option<f64>| v.map(|v| format!("{v:.1} ms")).unwrap_or_else(|| "-".into());
    writeln!(out, "{:<34} {:>22} {:>22}", "project load (configs, file list)", format!("{load_ms:.1} ms"), "-")?;
    writeln!(out, "{:<34} {:>22} {:>22}", "program build (parse+bind)", format!("{build_ms:.1} ms"), node_fmt(node.as_ref().map(|n| n.build_ms)))?;
    for (resolver, lat) in &tsq_lat {
        let n = node.as_ref().and_then(|n| n.latencies.get(*resolver));
        let (p50, p95) = (percentile(lat, 0.5), percentile(lat, 0.95));
        writeln!(
            out,
            "{:<34} {:>22} {:>22}",
            format!("{resolver} p50 / p95"),
            format!("{p50:.1} / {p95:.1} ms"),
            n.map(|n| format!("{:.1} / {:.1} ms", percentile(n, 0.5), percentile(n, 0.95))).unwrap_or_else(|| "-".into())
        )?;
        if let Some(n) = n {
            writeln!(out, "{:<34} {:>22}", "  p50 ratio tsq/node", format!("{:.2}x", p50 / percentile(n, 0.5)))?;
        }
    }
    writeln!(
        out,
        "{:<34} {:>22} {:>22}",
        "incremental update (1-file edit)",
        format!("{incremental_ms:.1} ms"),
        node_fmt(node.as_ref().map(|n| n.incremental_ms))
    )?;
    writeln!(out, "{:<34} {:>22}", "  fresh build / incremental", format!("{:.1}x", build_ms / incremental_ms.max(0.001)))?;
    writeln!(
        out,
        "{:<34} {:>22} {:>22}",
        "peak RSS",
        format!("{rss_mb:.0} MB"),
        node.as_ref().map(|n| format!("{:.0} MB", n.max_rss_kb as f64 / 1024.0)).unwrap_or_else(|| "-".into())
    )?;
    Ok(ExitStatus::Success)
}

fn ws_files(root: &Path) -> Vec<String> {
    tsq::source::walk(root).files.iter().map(|p| p.display().to_string()).collect()
}

fn run_node(root: &Path, req: &serde_json::Value, files: Vec<String>) -> anyhow::Result<NodeLs> {
    let dir = std::env::temp_dir().join(format!("tsq-bench-ls-node-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let ts_dir = dir.join("lib");
    std::fs::create_dir_all(&ts_dir)?;
    std::fs::write(ts_dir.join("typescript.js"), tsq::ts::TYPESCRIPT_JS)?;
    for (name, text) in tsq::ts::TS_LIBS {
        std::fs::write(ts_dir.join(name), text)?;
    }
    let mut req = req.clone();
    req["files"] = json!(files);
    let _ = root;
    std::fs::write(dir.join("req.json"), serde_json::to_vec(&req)?)?;
    std::fs::write(dir.join("node-ls.js"), NODE_SCRIPT)?;
    eprintln!("  node: the same Language Service calls…");
    let output = Command::new("node").arg(dir.join("node-ls.js")).arg(ts_dir.join("typescript.js")).arg(dir.join("req.json")).output();
    let _ = std::fs::remove_dir_all(&dir);
    let output = output.context("running node")?;
    if !output.status.success() {
        bail!("node baseline failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    serde_json::from_slice(&output.stdout).context("reading node's result")
}

/// `tsq bench lookup <dir>`: the cold-process latency of `tsq lookup`
/// (the binary run start to finish, median of `runs`), the latency of a
/// lookup in a warm engine (p50/p95 over the sample), and the output size
/// of `text` against `concise`.
pub fn run_lookup(dir: &Path, queries: usize, runs: usize) -> anyhow::Result<ExitStatus> {
    if !dir.is_dir() {
        bail!("{}: no such directory", dir.display());
    }
    let ws = Workspace::open(dir).context("loading the workspace")?;
    let all = crate::sample::symbol_sample(&ws, 1)?;
    if all.is_empty() {
        bail!("no functions, methods or classes under {}", dir.display());
    }
    let stride = (all.len() / queries.max(1)).max(1) as i32;
    let sample = crate::sample::symbol_sample(&ws, stride)?;
    let config = tsq::lookup::LookupConfig::default();
    let (mut warm, mut text_tokens, mut concise_tokens) = (Vec::new(), Vec::new(), Vec::new());
    // The first lookup builds the programs; it is not a warm figure.
    let _ = tsq::lookup::live_answer(&ws, &sample[0].query(), &config)?;
    for s in &sample {
        let t = Instant::now();
        let answer = tsq::lookup::live_answer(&ws, &s.query(), &config)?;
        warm.push(t.elapsed().as_secs_f64() * 1000.0);
        text_tokens.push(answer.tokens as f64);
        let concise = serde_json::to_string_pretty(&tsq::lookup::concise(&answer, ws.root()))?;
        concise_tokens.push(tsq::chunk::estimate_tokens(&concise) as f64);
    }
    let exe = crate::tsq_bin()?;
    let mut cold = Vec::new();
    for s in sample.iter().take(runs.max(1)) {
        let t = Instant::now();
        let status = Command::new(&exe).arg("lookup").arg(s.query().to_string()).arg("--root").arg(dir).output()?;
        cold.push(t.elapsed().as_secs_f64() * 1000.0);
        if !status.status.success() {
            eprintln!("  cold run of `{}` exited {:?}", s.query(), status.status.code());
        }
    }
    let sum = |v: &[f64]| v.iter().sum::<f64>();
    let mut out = std::io::stdout().lock();
    writeln!(out, "tsq bench lookup — {} symbols sampled of {}", sample.len(), all.len())?;
    writeln!(out, "{:<40} {:>10.0} ms   ({} runs, median)", "cold process `tsq lookup`", percentile(&cold, 0.5), cold.len())?;
    writeln!(out, "{:<40} {:>10.1} ms   p95 {:.1} ms", "warm lookup p50", percentile(&warm, 0.5), percentile(&warm, 0.95))?;
    writeln!(out, "{:<40} {:>10.0} tokens (median)", "text output", percentile(&text_tokens, 0.5))?;
    writeln!(out, "{:<40} {:>10.0} tokens (median)", "concise output", percentile(&concise_tokens, 0.5))?;
    writeln!(out, "{:<40} {:>10.1}%", "concise saves (total over the sample)", 100.0 * (1.0 - sum(&concise_tokens) / sum(&text_tokens)))?;
    Ok(ExitStatus::Success)
}
