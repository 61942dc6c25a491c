//! `tsq analyze <analysis> [query]`: the extended analyses, as JSON.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use tsq::inspect::{AnalyzeConfig, Workspace, ANALYSES};
use tsq::query::SymbolQuery;

use super::output;
use super::ExitStatus;

pub struct AnalyzeArgs {
    pub root: Option<PathBuf>,
    pub type_depth: i32,
}

pub fn run(analysis: &str, query: Option<&str>, args: AnalyzeArgs) -> anyhow::Result<ExitStatus> {
    if !ANALYSES.contains(&analysis) {
        eprintln!("tsq: unknown analysis `{analysis}`; known: {}", ANALYSES.join(", "));
        return Ok(ExitStatus::Error);
    }
    let query = match query.map(SymbolQuery::parse).transpose() {
        Ok(q) => q,
        Err(e) => {
            eprintln!("tsq: {e}");
            return Ok(ExitStatus::Error);
        }
    };
    let root = match args.root {
        Some(r) => r,
        None => std::env::current_dir()?,
    };
    let workspace = Workspace::open(&root).with_context(|| format!("loading the projects under {}", root.display()))?;
    output::skipped(workspace.skipped());
    let result = workspace.analyze(analysis, query.as_ref(), &AnalyzeConfig { type_depth: args.type_depth }).context("analyzing")?;
    let mut out = std::io::stdout().lock();
    output::json(&mut out, &result)?;
    out.flush()?;
    let empty = match &result {
        serde_json::Value::Array(a) => a.is_empty(),
        serde_json::Value::Null => true,
        _ => false,
    };
    Ok(if empty { ExitStatus::NothingFound } else { ExitStatus::Success })
}
