//! `tsq analyze <analysis> [query]`: the extended analyses, as JSON.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use tsq::inspect::{AnalyzeConfig, ANALYSES};
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
    let workspace = super::open_workspace(args.root)?;
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
