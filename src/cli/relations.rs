//! `tsq relations '<symbol query>'`: references, callers and callees of
//! the declarations a query names, from the occurrence index (synced
//! first, with progress on stderr).

use std::io::Write;

use tsq::api::{render, Engine, EngineError};
use tsq::progress::Progress as _;

use super::{progress, ExitStatus};

pub fn run(engine: &Engine, query: &str, call_depth: Option<i32>, json: bool) -> anyhow::Result<ExitStatus> {
    let progress = progress::Stderr::new();
    let answer = engine.relations(query, call_depth, &progress);
    progress.finish();
    let answer = match answer {
        Ok(a) => a,
        Err(e @ (EngineError::Request(_) | EngineError::Setting(_))) => return super::refused(&e),
        Err(e) => return Err(e.into()),
    };
    let mut out = std::io::stdout().lock();
    out.write_all(if json { render::pretty(&answer) } else { render::relations_text(&answer) }.as_bytes())?;
    out.flush()?;
    Ok(if answer.matches.is_empty() {
        eprintln!("tsq: no indexed declaration matches `{}` (check the file path and names; `tsq lookup` explains near misses)", answer.query);
        ExitStatus::NothingFound
    } else {
        ExitStatus::Success
    })
}
