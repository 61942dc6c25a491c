//! `tsq impact [<rev>|--staged|--worktree]`: what the working tree's
//! changes touch (`Engine::impact`), synced first with progress on stderr.

use std::io::Write;

use tsq::api::{render, Engine, EngineError};
use tsq::impact::ImpactRequest;
use tsq::progress::Progress as _;

use super::{progress, ExitStatus};

pub fn run(engine: &Engine, req: &ImpactRequest, json: bool) -> anyhow::Result<ExitStatus> {
    let progress = progress::Stderr::new();
    let answer = engine.impact(req, &progress);
    progress.finish();
    let answer = match answer {
        Ok(a) => a,
        Err(e @ (EngineError::Request(_) | EngineError::Setting(_) | EngineError::Impact(_))) => return super::refused(&e),
        Err(e) => return Err(e.into()),
    };
    let mut out = std::io::stdout().lock();
    out.write_all(if json { render::pretty(&answer) } else { tsq::impact::render::text(&answer) }.as_bytes())?;
    out.flush()?;
    Ok(if answer.is_empty() {
        eprintln!("tsq: nothing changed against {}", answer.base);
        ExitStatus::NothingFound
    } else {
        ExitStatus::Success
    })
}
