//! `tsq search "<question>"`: natural-language search over the index (sync
//! first), enriched like a lookup; or a `symbol =` lookup.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use tsq::config::{Overrides, Settings};
use tsq::index::Progress as _;
use tsq::search::session::Session;

use super::lookup::LookupFormat;
use super::{output, progress, ExitStatus};

pub struct SearchArgs {
    pub root: Option<PathBuf>,
    pub paths: Vec<String>,
    pub language: Option<String>,
    pub format: LookupFormat,
    pub json: bool,
    pub overrides: Overrides,
}

pub fn run(query: &str, args: SearchArgs) -> anyhow::Result<ExitStatus> {
    if query.trim_start().starts_with("symbol") && query.contains('=') {
        let format = if args.json && args.format == LookupFormat::Text { LookupFormat::Json } else { args.format };
        let budget = args.overrides.max_token_budget.unwrap_or(Settings::default().max_token_budget);
        let call_depth = args.overrides.call_depth.unwrap_or(1);
        return super::lookup::run(query, super::lookup::LookupArgs { root: args.root, paths: args.paths, call_depth, budget, format });
    }
    if query.trim().is_empty() {
        eprintln!("tsq: empty query: ask a question (\"where do we refresh tokens?\") or look up `symbol = Name`");
        return Ok(ExitStatus::Error);
    }
    let root = match args.root {
        Some(r) => r,
        None => std::env::current_dir()?,
    };
    let root = root.canonicalize().with_context(|| format!("workspace root {}", root.display()))?;
    let settings = Settings::load(&root, args.overrides)?;
    let session = Session::open(&root, settings.embedder).context("opening the index")?;
    for n in &session.notes {
        eprintln!("tsq: {n}");
    }
    let progress = progress::Stderr::new();
    let filter = tsq::search::filter(&args.paths, args.language.as_deref());
    let mut out = std::io::stdout().lock();
    let concise = args.format == LookupFormat::Concise;
    if concise {
        if session.sync(&progress).context("syncing the index")?.is_none() {
            eprintln!("tsq: another tsq is writing the index; answering from its last committed version");
        }
        progress.finish();
        let retrieval = session.retrieve(query, &filter, &settings)?;
        for n in &retrieval.notes {
            eprintln!("tsq: {n}");
        }
        let results = tsq::search::concise(&retrieval.ranked, settings.top_k);
        let body = serde_json::json!({
            "query": query,
            "backend": {"embedder": retrieval.backends.embedder, "reranker": retrieval.backends.reranker, "vectors": retrieval.backends.vectors},
            "results": results,
        });
        output::json(&mut out, &body)?;
        return Ok(if results.is_empty() { ExitStatus::NothingFound } else { ExitStatus::Success });
    }
    let ws = super::open_workspace(Some(root))?;
    let answer = session.sync_and_search(&ws, query, &filter, &settings, &progress)?;
    progress.finish();
    for n in &answer.notes {
        eprintln!("tsq: {n}");
    }
    if args.json || args.format == LookupFormat::Json {
        output::json(&mut out, &answer)?;
    } else {
        out.write_all(answer.answer.text.as_bytes())?;
    }
    out.flush()?;
    Ok(if answer.answer.results.is_empty() { ExitStatus::NothingFound } else { ExitStatus::Success })
}
