//! `tsq search` and `tsq lookup`: a query through the engine API (the same
//! checks and answers as MCP's `codebase_search`), rendered as text, JSON
//! or the concise records (`tsq::api::printed`), by a warm `tsq serve` on
//! the workspace when one runs (`tsq::handoff`), else here.

use std::path::PathBuf;

use tsq::api::printed::{self, Format};
use tsq::api::{EngineOptions, QueryInput};
use tsq::progress::Progress as _;

use super::{progress, ExitStatus};

/// How the command runs: where, and whether a warm server may answer.
pub struct Place {
    pub root: Option<PathBuf>,
    pub options: EngineOptions,
    /// `--local`: never hand off.
    pub local: bool,
}

pub fn run(place: Place, input: QueryInput, format: Format) -> anyhow::Result<ExitStatus> {
    // A search without --no-wait waits for the whole index; so does its
    // hand-off (a server still building declines).
    let complete = !input.symbol_only && !place.options.no_wait;
    let handed = || tsq::handoff::Work::Query { input: Box::new(input.clone()), format, complete };
    if let Some(printed) = super::hand_off(&place, handed) {
        return super::print(printed);
    }
    let engine = super::engine(place.root, place.options)?;
    let progress = progress::Stderr::new();
    let printed = printed::query(engine, input, format, &progress);
    progress.finish();
    super::print(printed?)
}
