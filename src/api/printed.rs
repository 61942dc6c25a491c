//! What `tsq search`, `tsq lookup` and `tsq impact` print for an answer:
//! stdout, the stderr lines and the exit code, made in one place, so that
//! a command answered in its own process and one a warm `tsq serve`
//! answered for it (`crate::handoff`) print the same bytes.

use serde::{Deserialize, Serialize};

use super::{render, Answer, Engine, EngineError, QueryInput};
use crate::impact::ImpactRequest;
use crate::progress::Progress;

/// `text`: connection graph then snapshots; `json`: the data; `concise`:
/// seed 002's navigational list (JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Text,
    Json,
    Concise,
}

impl Format {
    pub fn shape(self) -> super::Shape {
        if self == Format::Concise {
            super::Shape::Concise
        } else {
            super::Shape::Full
        }
    }
}

/// The exit code's meaning: 0 ok, 1 nothing found, 2 error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    Success,
    NothingFound,
    Error,
}

/// A command's output, not yet written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Printed {
    pub stdout: String,
    /// Lines for stderr, each already prefixed (`tsq: …`).
    pub stderr: Vec<String>,
    pub outcome: Outcome,
}

impl Printed {
    /// A refused request: its message on stderr, exit code 2.
    pub fn refused(e: &EngineError) -> Printed {
        Printed { stdout: String::new(), stderr: vec![format!("tsq: {e}")], outcome: Outcome::Error }
    }

    /// An engine failure as the binary reports one (`tsq: error: …`).
    pub fn failed(e: &EngineError) -> Printed {
        let mut stderr = vec![format!("tsq: error: {e}")];
        let mut source = std::error::Error::source(e);
        while let Some(cause) = source {
            stderr.push(format!("  caused by: {cause}"));
            source = cause.source();
        }
        Printed { stdout: String::new(), stderr, outcome: Outcome::Error }
    }
}

/// `tsq search` / `tsq lookup`. `Err` only for failures that are not the
/// request's fault (the binary reports them as errors).
pub fn query(engine: &Engine, input: QueryInput, format: Format, progress: &dyn Progress) -> Result<Printed, EngineError> {
    let request = match engine.request(input) {
        Ok(r) => r,
        Err(e) => return Ok(Printed::refused(&e)),
    };
    let answer = match engine.query(&request, progress) {
        Ok(a) => a,
        Err(e @ EngineError::Request(_)) => return Ok(Printed::refused(&e)),
        Err(e) => return Err(e),
    };
    let mut stderr = Vec::new();
    if let Answer::Full(full) = &answer {
        stderr.extend(full.notes().iter().map(|n| format!("tsq: {n}")));
    }
    let stdout = match format {
        Format::Json => render::pretty(&render::json(&answer)),
        Format::Text | Format::Concise => render::text(&answer),
    };
    if let Some(message) = render::nothing_found(&answer) {
        if format != Format::Text {
            stderr.push(format!("tsq: {message}"));
        }
    }
    let outcome = if answer.is_empty() { Outcome::NothingFound } else { Outcome::Success };
    Ok(Printed { stdout, stderr, outcome })
}

/// `tsq impact`.
pub fn impact(engine: &Engine, req: &ImpactRequest, json: bool, progress: &dyn Progress) -> Result<Printed, EngineError> {
    let answer = match engine.impact(req, progress) {
        Ok(a) => a,
        Err(e @ (EngineError::Request(_) | EngineError::Setting(_) | EngineError::Impact(_))) => return Ok(Printed::refused(&e)),
        Err(e) => return Err(e),
    };
    let stdout = if json { render::pretty(&answer) } else { crate::impact::render::text(&answer) };
    let (stderr, outcome) =
        if answer.is_empty() { (vec![format!("tsq: nothing changed against {}", answer.base)], Outcome::NothingFound) } else { (Vec::new(), Outcome::Success) };
    Ok(Printed { stdout, stderr, outcome })
}
