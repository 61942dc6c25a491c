//! `tsq index`, `tsq status` and `tsq clean`: the persistent index.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use tsq::config::{Overrides, Settings};
use tsq::embed::EmbedderChoice;
use tsq::index::{Index, IndexConfig, Progress};

use super::{output, progress, ExitStatus};

fn root_of(root: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    let root = match root {
        Some(r) => r,
        None => std::env::current_dir()?,
    };
    root.canonicalize().with_context(|| format!("workspace root {}", root.display()))
}

/// Opens the index with the resolved settings, saying its notes on stderr.
pub fn open(root: &std::path::Path, embedder: Option<EmbedderChoice>) -> anyhow::Result<(Index, Settings)> {
    let settings = Settings::load(root, Overrides { embedder, ..Default::default() })?;
    let index = Index::open(root, &IndexConfig { embedder: settings.embedder, ..Default::default() }).context("opening the index")?;
    for n in &index.notes {
        eprintln!("tsq: {n}");
    }
    Ok((index, settings))
}

pub fn run_index(root: Option<PathBuf>, embedder: Option<EmbedderChoice>, json: bool) -> anyhow::Result<ExitStatus> {
    let root = root_of(root)?;
    let (mut index, _) = open(&root, embedder)?;
    let engine = tsq::engine::TsqEngine::new(&Default::default()).context("starting the TypeScript engine")?;
    let progress = progress::Stderr::new();
    let mut report = index.sync(&engine, &progress).context("syncing the index")?;
    let embed_started = std::time::Instant::now();
    report.embedded = match index.embed_missing(None, &progress) {
        Ok(n) => n,
        Err(e) => {
            progress.finish();
            eprintln!("tsq: embedding stopped: {e}; the chunks without vectors are retried on the next sync");
            return finish(&report, json, ExitStatus::Error);
        }
    };
    report.embed_ms = embed_started.elapsed().as_millis() as u64;
    report.ms += report.embed_ms;
    progress.finish();
    finish(&report, json, ExitStatus::Success)
}

fn finish(report: &tsq::index::SyncReport, json: bool, status: ExitStatus) -> anyhow::Result<ExitStatus> {
    let mut out = std::io::stdout().lock();
    if json {
        output::json(&mut out, report)?;
    } else {
        writeln!(
            out,
            "{} files: {} unchanged, {} touched, {} parsed, {} removed, {} skipped; {} chunks, {} embedded, {} re-embedded by signature cascade ({}), {} ms",
            report.files, report.unchanged, report.touched, report.parsed, report.removed, report.skipped, report.chunks, report.embedded, report.cascade, report.embedder, report.ms
        )?;
    }
    Ok(status)
}

pub fn run_status(root: Option<PathBuf>, json: bool) -> anyhow::Result<ExitStatus> {
    let root = root_of(root)?;
    if !tsq::index::index_dir(&root).exists() {
        eprintln!("tsq: no index in {} yet: run `tsq index --root {}`", root.display(), root.display());
        return Ok(ExitStatus::NothingFound);
    }
    // Status reads what the index holds, whatever embedder it was built with.
    let (index, _) = open(&root, Some(EmbedderChoice::None))?;
    let status = index.status()?;
    let mut out = std::io::stdout().lock();
    if json {
        output::json(&mut out, &status)?;
    } else {
        writeln!(out, "index: {}", status.location)?;
        writeln!(out, "files: {}  chunks: {}  vectors: {}/{} chunks ({}, {} dimensions)", status.files, status.chunks, status.vectors, status.embeddable, status.embedder, status.dimensions)?;
        writeln!(out, "size: {} bytes in {} versions; last sync: {}", status.bytes, status.versions, status.last_sync.map(|t| format!("{t} (unix ms)")).unwrap_or_else(|| "never".into()))?;
        for s in &status.skipped {
            writeln!(out, "skipped: {}: {}", s.path, s.reason)?;
        }
    }
    Ok(ExitStatus::Success)
}

pub fn run_clean(root: Option<PathBuf>, json: bool) -> anyhow::Result<ExitStatus> {
    let root = root_of(root)?;
    let removed = tsq::index::clean(&root)?;
    let mut out = std::io::stdout().lock();
    if json {
        output::json(&mut out, &serde_json::json!({"removed": removed, "index": tsq::index::index_dir(&root)}))?;
    } else if removed {
        writeln!(out, "removed {}", tsq::index::index_dir(&root).display())?;
    } else {
        writeln!(out, "no index in {}", root.display())?;
    }
    Ok(ExitStatus::Success)
}
