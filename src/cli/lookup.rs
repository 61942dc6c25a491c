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
    pub call_depth: i32,
    pub budget: usize,
    pub json: bool,
}

pub fn run(query: &str, args: LookupArgs) -> anyhow::Result<ExitStatus> {
    let workspace = super::open_workspace(args.root)?;
    let config = LookupConfig { call_depth: args.call_depth, max_token_budget: args.budget };
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
    if args.json {
        output::json(&mut out, &answer)?;
    } else {
        out.write_all(answer.text.as_bytes())?;
    }
    out.flush()?;
    Ok(if answer.results.is_empty() && answer.omitted == 0 { ExitStatus::NothingFound } else { ExitStatus::Success })
}
