//! `tsq index`, `tsq status` and `tsq clean`: the persistent index, through
//! the engine API.

use std::io::Write;

use tsq::api::{render, Engine, StructureMode};
use tsq::progress::Progress as _;

use super::{progress, ExitStatus};

pub fn run_index(engine: &Engine, structure: bool, json: bool) -> anyhow::Result<ExitStatus> {
    let progress = progress::Stderr::new();
    let mode = if structure { StructureMode::Occurrences } else { StructureMode::None };
    let result = engine.index(mode, &progress);
    progress.finish();
    for n in engine.take_notes() {
        eprintln!("tsq: {n}");
    }
    let (report, failed) = result?;
    let status = match failed {
        Some(e) => {
            eprintln!("tsq: {e}; what is missing is retried on the next `tsq index` (queries compute it live meanwhile)");
            ExitStatus::Error
        }
        None => ExitStatus::Success,
    };
    let mut out = std::io::stdout().lock();
    if json {
        out.write_all(render::pretty(&report).as_bytes())?;
    } else {
        out.write_all(render::sync_report(&report.sync).as_bytes())?;
        if let Some(o) = &report.occurrences {
            writeln!(out, "occurrences: {} files indexed ({} rows, {} failed) in {:.1} s", o.indexed, o.occurrences, o.failed.len(), o.ms as f64 / 1000.0)?;
        }
    }
    for (file, why) in report.occurrences.iter().flat_map(|o| &o.failed) {
        eprintln!("tsq: {file}: no occurrences ({why}); retried after its next change");
    }
    Ok(status)
}

pub fn run_status(engine: &Engine, json: bool) -> anyhow::Result<ExitStatus> {
    let root = engine.root().display();
    let Some(status) = engine.status()? else {
        eprintln!("tsq: no index in {root} yet: run `tsq index --root {root}`");
        return Ok(ExitStatus::NothingFound);
    };
    let mut out = std::io::stdout().lock();
    out.write_all(if json { render::pretty(&status) } else { render::status(&status) }.as_bytes())?;
    Ok(ExitStatus::Success)
}

pub fn run_clean(engine: &Engine, json: bool) -> anyhow::Result<ExitStatus> {
    let removed = engine.clean()?;
    let dir = tsq::index::index_dir(engine.root());
    let mut out = std::io::stdout().lock();
    if json {
        out.write_all(render::pretty(&serde_json::json!({"removed": removed, "index": dir})).as_bytes())?;
    } else if removed {
        writeln!(out, "removed {}", dir.display())?;
    } else {
        writeln!(out, "no index in {}", engine.root().display())?;
    }
    Ok(ExitStatus::Success)
}

/// `tsq index --from <url>`: pull the team's index, then sync locally.
pub fn run_pull(engine: &Engine, url: &str, json: bool) -> anyhow::Result<ExitStatus> {
    let progress = progress::Stderr::new();
    let result = engine.pull(url, &progress);
    progress.finish();
    for n in engine.take_notes() {
        eprintln!("tsq: {n}");
    }
    let answer = match result {
        Ok(a) => a,
        Err(e) => {
            eprintln!("tsq: {e}");
            eprintln!("tsq: the local index was left as it was; `tsq index` builds it locally");
            return Ok(ExitStatus::Error);
        }
    };
    if let Some(why) = &answer.fallback {
        eprintln!("tsq: {why}");
    }
    for n in &answer.notes {
        eprintln!("tsq: {n}");
    }
    let mut out = std::io::stdout().lock();
    if json {
        out.write_all(render::pretty(&answer).as_bytes())?;
    } else {
        if let Some(p) = &answer.pulled {
            let from = if p.commit == p.head { "HEAD".to_string() } else { format!("the nearest published ancestor {}", &p.commit) };
            writeln!(
                out,
                "pulled the index of {from} from {}: {} files, {} downloaded ({:.1} MB), {} already local, {}, in {:.1} s",
                p.url,
                p.files,
                p.downloaded,
                p.bytes_pulled as f64 / 1e6,
                p.reused,
                p.trust.word(),
                p.ms as f64 / 1000.0
            )?;
        }
        if let Some(c) = &answer.checked {
            writeln!(
                out,
                "checked {} pulled chunks of {} files against the checkout: {} files dropped (re-indexed locally){}",
                c.rows,
                c.files,
                c.dropped.len(),
                c.dropped.first().map(|f| format!(", first {f}")).unwrap_or_default()
            )?;
        }
        out.write_all(render::sync_report(&answer.index.sync).as_bytes())?;
        writeln!(out, "{} files re-indexed locally", answer.reindexed)?;
    }
    Ok(ExitStatus::Success)
}

/// `tsq publish --keygen`: a new Ed25519 key pair. The private key goes
/// to CI's secrets (`TSQ_SHARE_SIGNING_KEY`), the public one to readers'
/// tsq.toml (`[share] publicKey`).
pub fn run_keygen(json: bool) -> anyhow::Result<ExitStatus> {
    let (private, public) = match tsq::share::sign::keygen() {
        Ok(pair) => pair,
        Err(e) => {
            eprintln!("tsq: {e}");
            return Ok(ExitStatus::Error);
        }
    };
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::json!({ "signingKey": private, "publicKey": public }))?;
    } else {
        writeln!(
            out,
            "# CI's secret, never shared: TSQ_SHARE_SIGNING_KEY\n{private}\n# The repository's tsq.toml (each reader trusts it once: `tsq trust`; or TSQ_SHARE_PUBLIC_KEY):\n[share]\npublicKey = \"{public}\""
        )?;
    }
    Ok(ExitStatus::Success)
}

/// `tsq publish --to <url>`: for CI, on a clean checkout.
pub fn run_publish(engine: &Engine, url: &str, json: bool) -> anyhow::Result<ExitStatus> {
    let progress = progress::Stderr::new();
    let result = engine.publish(url, &progress);
    progress.finish();
    for n in engine.take_notes() {
        eprintln!("tsq: {n}");
    }
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("tsq: {e}");
            return Ok(ExitStatus::Error);
        }
    };
    let mut out = std::io::stdout().lock();
    if json {
        out.write_all(render::pretty(&report).as_bytes())?;
    } else {
        let how = if report.already_published { "already published by another job (kept, verified)" } else { "published" };
        writeln!(
            out,
            "{how}: the index of {} at {} ({}): {} files, {:.1} MB, {} new objects ({:.1} MB uploaded){}, in {:.1} s",
            report.commit,
            report.url,
            report.key,
            report.files,
            report.bytes as f64 / 1e6,
            report.uploaded,
            report.uploaded_bytes as f64 / 1e6,
            if report.signed { ", signed" } else { "" },
            report.ms as f64 / 1000.0
        )?;
    }
    Ok(ExitStatus::Success)
}
