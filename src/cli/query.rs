//! `tsq search` and `tsq lookup`: a query through the engine API (the same
//! checks and answers as MCP's `codebase_search`), rendered as text, JSON
//! or the concise records.

use std::io::Write;

use tsq::api::{render, Answer, Engine, EngineError, QueryInput, Shape};
use tsq::progress::Progress as _;

use super::{progress, ExitStatus};

/// `text`: connection graph then snapshots; `json`: the data; `concise`:
/// seed 002's navigational list (JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    Concise,
}

impl Format {
    pub fn shape(self) -> Shape {
        if self == Format::Concise {
            Shape::Concise
        } else {
            Shape::Full
        }
    }
}

pub fn run(engine: &Engine, input: QueryInput, format: Format) -> anyhow::Result<ExitStatus> {
    let request = match engine.request(input) {
        Ok(r) => r,
        Err(e) => return super::refused(&e),
    };
    let progress = progress::Stderr::new();
    let answer = engine.query(&request, &progress);
    progress.finish();
    let answer = match answer {
        Ok(a) => a,
        Err(e @ EngineError::Request(_)) => return super::refused(&e),
        Err(e) => return Err(e.into()),
    };
    if let Answer::Full(full) = &answer {
        for n in full.notes() {
            eprintln!("tsq: {n}");
        }
    }
    let mut out = std::io::stdout().lock();
    match format {
        Format::Json => out.write_all(render::pretty(&render::json(&answer)).as_bytes())?,
        Format::Text | Format::Concise => out.write_all(render::text(&answer).as_bytes())?,
    }
    out.flush()?;
    if let Some(message) = render::nothing_found(&answer) {
        if format != Format::Text {
            eprintln!("tsq: {message}");
        }
    }
    Ok(if answer.is_empty() { ExitStatus::NothingFound } else { ExitStatus::Success })
}
