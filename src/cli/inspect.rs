//! `tsq inspect '<symbol query>'`: the blueprint's `SymbolMetadata` for
//! every declaration the query names, with the coverage behind it.

use std::io::Write;

use tsq::api::{render, Engine, EngineError};

use super::ExitStatus;

pub fn run(engine: &Engine, query: &str, call_depth: Option<i32>, json: bool) -> anyhow::Result<ExitStatus> {
    let answer = match engine.inspect(query, call_depth) {
        Ok(a) => a,
        Err(e @ (EngineError::Request(_) | EngineError::Setting(_))) => return super::refused(&e),
        Err(e) => return Err(e.into()),
    };
    let mut out = std::io::stdout().lock();
    if json {
        out.write_all(render::pretty(&answer).as_bytes())?;
    } else {
        out.write_all(render::inspect_text(&answer).as_bytes())?;
    }
    out.flush()?;
    Ok(if answer.result.matches.is_empty() {
        eprintln!("tsq: no declaration matches `{}`", answer.query);
        ExitStatus::NothingFound
    } else {
        ExitStatus::Success
    })
}
