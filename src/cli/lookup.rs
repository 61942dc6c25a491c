//! `tsq lookup '<symbol query>'`: the connection graph and smart snapshots
//! for a `symbol =` query, within a token budget.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use tsq::lookup::{lookup, LookupConfig};

use super::output;
use super::ExitStatus;

pub struct LookupArgs {
    pub root: Option<PathBuf>,
    pub paths: Vec<String>,
    pub call_depth: i32,
    pub budget: usize,
    pub format: LookupFormat,
}

/// `text`: connection graph then snapshots; `json`: the data; `concise`:
/// seed 002's navigational list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LookupFormat {
    Text,
    Json,
    Concise,
}

pub fn run(query: &str, args: LookupArgs) -> anyhow::Result<ExitStatus> {
    let workspace = super::open_workspace(args.root)?;
    let config = LookupConfig { call_depth: args.call_depth, max_token_budget: args.budget, paths: args.paths };
    let answer = match lookup(&workspace, query, &config) {
        Ok(Some(a)) => a,
        Ok(None) => {
            eprintln!("tsq: not a symbol lookup: queries start with `symbol = `");
            return Ok(ExitStatus::Error);
        }
        Err(tsq::lookup::LookupError::Query(e)) => {
            eprintln!("tsq: {e}");
            return Ok(ExitStatus::Error);
        }
        Err(e) => return Err(e).context("looking up"),
    };
    let mut out = std::io::stdout().lock();
    match args.format {
        LookupFormat::Json => output::json(&mut out, &answer)?,
        LookupFormat::Concise => output::json(&mut out, &tsq::lookup::concise(&answer, workspace.root()))?,
        LookupFormat::Text => out.write_all(answer.text.as_bytes())?,
    }
    out.flush()?;
    Ok(if answer.results.is_empty() && answer.omitted == 0 { ExitStatus::NothingFound } else { ExitStatus::Success })
}
