//! `tsq bench index`: the persistent index's figures. No-change sync on a
//! synthetic 10,000-file tree (copies of corpus files) beside a bare
//! walk+stat of the same tree in the same run; cold index throughput per
//! corpus split into parse, embed and write, with index size and peak RSS;
//! incremental sync after a one-file edit.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::Context;

use tsq::embed::EmbedderChoice;
use tsq::index::{Index, IndexConfig};

use crate::ExitStatus;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        f64::NAN
    } else {
        v[v.len() / 2]
    }
}

/// A corpus's directory: `../shared/corpus.sh`'s, else the search eval's
/// own JavaScript corpora (`benches/js-corpus.sh`).
pub fn corpus_dir(name: &str) -> Option<PathBuf> {
    let js = concat!(env!("CARGO_MANIFEST_DIR"), "/../../benches/js-corpus.sh");
    ["../shared/corpus.sh", js].iter().find_map(|script| {
        let out = Command::new("bash").arg(script).arg(name).output().ok()?;
        String::from_utf8_lossy(&out.stdout).lines().find_map(|l| l.split_once('\t').map(|(_, d)| PathBuf::from(d)))
    })
}

/// Copies the sources and configs of `from` into `to` (no node_modules, no
/// .tsq); returns (files, bytes).
pub fn copy_sources(from: &Path, to: &Path) -> anyhow::Result<(usize, u64)> {
    let (mut n, mut bytes) = (0, 0);
    for entry in ignore::WalkBuilder::new(from).hidden(false).require_git(false).build().flatten() {
        let p = entry.path();
        let wanted = tsq::source::is_supported(p) || p.file_name().is_some_and(|f| f == "tsconfig.json" || f == "jsconfig.json" || f == ".gitignore");
        if !entry.file_type().is_some_and(|t| t.is_file()) || !wanted || p.components().any(|c| c.as_os_str() == "node_modules" || c.as_os_str() == ".tsq") {
            continue;
        }
        let dest = to.join(p.strip_prefix(from)?);
        std::fs::create_dir_all(dest.parent().context("parent")?)?;
        bytes += std::fs::copy(p, &dest)?;
        n += 1;
    }
    Ok((n, bytes))
}

/// A tree of `n` files: corpus files copied round-robin into `copy-K/`.
fn synthetic_tree(dir: &Path, n: usize) -> anyhow::Result<()> {
    let marker = dir.join(format!(".tsq-bench-{n}"));
    if marker.exists() {
        return Ok(());
    }
    let _ = std::fs::remove_dir_all(dir);
    let mut files = Vec::new();
    for name in ["rxjs", "zod", "effect"] {
        if let Some(d) = corpus_dir(name) {
            files.extend(tsq::source::walk(&d).files.into_iter().map(|f| (d.clone(), f)));
        }
    }
    anyhow::ensure!(!files.is_empty(), "no corpus files (../shared/corpus.sh)");
    for i in 0..n {
        let (base, f) = &files[i % files.len()];
        let dest = dir.join(format!("copy-{}", i / files.len())).join(f.strip_prefix(base)?);
        std::fs::create_dir_all(dest.parent().context("parent")?)?;
        std::fs::copy(f, dest)?;
    }
    std::fs::write(marker, "")?;
    Ok(())
}

fn bare_walk_stat(root: &Path) -> usize {
    let files = tsq::source::walk(root).files;
    files.iter().filter(|f| std::fs::metadata(f).is_ok()).count()
}

pub fn run(corpora: &[String], synthetic: usize, runs: usize, embedder: EmbedderChoice) -> anyhow::Result<ExitStatus> {
    let engine = tsq::parse_pool::ParsePool::new(&Default::default())?;
    let silent = tsq::progress::silent();
    let mut out = std::io::stdout().lock();
    writeln!(out, "tsq bench index — {} engine, medians of {runs}", crate::parse::backend())?;

    // 1. No-change sync beside a bare walk+stat.
    if synthetic > 0 {
        let dir = std::env::temp_dir().join(format!("tsq-bench-synthetic-{synthetic}"));
        synthetic_tree(&dir, synthetic)?;
        let mut index = Index::open_with(&dir, &IndexConfig::default(), None)?;
        eprintln!("bench index: indexing the {synthetic}-file tree (first time only)…");
        let first = index.sync(&engine, &crate::PhaseLines::new())?;
        let (mut sync_ms, mut walk_ms) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            let t = Instant::now();
            let r = index.sync(&engine, &silent)?;
            sync_ms.push(t.elapsed().as_secs_f64() * 1000.0);
            anyhow::ensure!(r.parsed == 0, "a no-change sync parsed {} files", r.parsed);
            let t = Instant::now();
            bare_walk_stat(&dir);
            walk_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        let (s, w) = (median(sync_ms), median(walk_ms));
        writeln!(out, "\nno-change sync, {} files ({} chunks)", first.files, first.chunks)?;
        writeln!(out, "  sync {s:.1} ms   bare walk+stat {w:.1} ms   ratio {:.2}x   (target: < 50 ms, within 1.5x)", s / w)?;
    }

    // 2. Cold index throughput per corpus, as fresh `tsq index` processes.
    writeln!(out, "\ncold `tsq index --embedder {embedder:?}` (fresh process)", embedder = embedder)?;
    writeln!(
        out,
        "  {:<10} {:>6} {:>7} {:>8} {:>7} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8}",
        "corpus", "files", "MB", "chunks", "files/s", "MB/s", "parse ms", "embed ms", "write ms", "index MB", "RSS MB"
    )?;
    let tsq = crate::tsq_bin()?;
    let mut incremental_root = None;
    for name in corpora {
        let Some(src) = corpus_dir(name) else {
            eprintln!("bench index: {name}: not available");
            continue;
        };
        let dir = std::env::temp_dir().join(format!("tsq-bench-index-{name}"));
        let _ = std::fs::remove_dir_all(&dir);
        let (files, bytes) = copy_sources(&src, &dir)?;
        let rss_file = dir.with_extension("rss");
        let t = Instant::now();
        let o = Command::new("/usr/bin/time")
            .args(["-f", "%M", "-o"])
            .arg(&rss_file)
            .arg(&tsq)
            .args(["index", "--json", "--embedder", &format!("{embedder:?}").to_lowercase(), "--root"])
            .arg(&dir)
            .stderr(Stdio::inherit())
            .output()?;
        let secs = t.elapsed().as_secs_f64();
        anyhow::ensure!(o.status.success(), "tsq index failed on {name}");
        let r: serde_json::Value = serde_json::from_slice(&o.stdout)?;
        let rss = std::fs::read_to_string(&rss_file).ok().and_then(|s| s.lines().last().and_then(|l| l.trim().parse::<f64>().ok())).unwrap_or(0.0) / 1024.0;
        let size = dir_size(&dir.join(".tsq")) as f64 / 1e6;
        writeln!(
            out,
            "  {name:<10} {files:>6} {:>7.1} {:>8} {:>7.1} {:>9.2} {:>9} {:>9} {:>9} {size:>8.1} {rss:>8.0}",
            bytes as f64 / 1e6,
            r["chunks"],
            files as f64 / secs,
            bytes as f64 / 1e6 / secs,
            r["parseMs"],
            r["embedMs"],
            r["writeMs"],
        )?;
        if incremental_root.is_none() {
            incremental_root = Some(dir);
        }
    }

    // 3. Incremental sync after a one-file edit (in process, warm).
    if let Some(dir) = incremental_root {
        let mut index = Index::open(&dir, &IndexConfig { embedder, ..Default::default() })?;
        index.sync(&engine, &silent)?;
        let victim = tsq::source::walk(&dir).files.into_iter().nth(7).context("a file to edit")?;
        let text = std::fs::read_to_string(&victim)?;
        let mut ms = Vec::new();
        for i in 0..runs {
            std::fs::write(&victim, format!("{text}\n// edit {i}\n"))?;
            let t = Instant::now();
            let r = index.sync(&engine, &silent)?;
            index.embed_missing(None, &silent)?;
            ms.push(t.elapsed().as_secs_f64() * 1000.0);
            anyhow::ensure!(r.parsed == 1, "expected one file re-parsed, got {}", r.parsed);
        }
        writeln!(
            out,
            "\nincremental sync after a one-file edit ({}): {:.0} ms (parse, write, embed)",
            tsq::parse_pool::file_paths(&victim, &dir).relative_path,
            median(ms)
        )?;
    }
    Ok(ExitStatus::Success)
}

pub fn dir_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries.flatten().map(|e| if e.path().is_dir() { dir_size(&e.path()) } else { e.metadata().map(|m| m.len()).unwrap_or(0) }).sum()
}
