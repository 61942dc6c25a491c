//! `tsq analyze <analysis> [query]`: the extended analyses, as JSON.

use std::io::Write;

use tsq::api::{render, Engine, EngineError};

use super::ExitStatus;

pub fn run(engine: &Engine, analysis: &str, query: Option<&str>, type_depth: Option<i32>) -> anyhow::Result<ExitStatus> {
    let result = match engine.analyze(analysis, query, type_depth) {
        Ok(r) => r,
        Err(e @ (EngineError::Request(_) | EngineError::UnknownAnalysis(_))) => return super::refused(&e),
        Err(e) => return Err(e.into()),
    };
    let mut out = std::io::stdout().lock();
    out.write_all(render::pretty(&result).as_bytes())?;
    out.flush()?;
    let empty = match &result {
        serde_json::Value::Array(a) => a.is_empty(),
        serde_json::Value::Null => true,
        _ => false,
    };
    Ok(if empty { ExitStatus::NothingFound } else { ExitStatus::Success })
}
