//! `tsq chunks <file|dir>...`: the phase-2 chunks.

use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;

use tsq::chunk::CodeChunk;
use tsq::source::{self, Skipped, SourceError};
use tsq::validate;

use super::output::{self, FileJson, Report};
use super::ExitStatus;

pub struct ChunksArgs {
    pub json: bool,
    pub root: Option<PathBuf>,
    pub check: bool,
}

#[derive(Serialize)]
struct ChunksBody<'a> {
    chunks: &'a [CodeChunk],
}

pub fn run(paths: &[PathBuf], args: ChunksArgs) -> anyhow::Result<ExitStatus> {
    let cwd = std::env::current_dir()?;
    let mut files = Vec::new();
    let mut skipped: Vec<Skipped> = Vec::new();
    let mut root: Option<PathBuf> = args.root.clone();
    for p in paths {
        if p.is_dir() {
            root.get_or_insert_with(|| p.clone());
            let walked = source::walk(p);
            files.extend(walked.files);
            skipped.extend(walked.skipped);
        } else if p.exists() {
            files.push(p.clone());
        } else {
            skipped.push(Skipped::new(p, SourceError::Missing));
        }
    }
    let root = root.unwrap_or(cwd);
    let mut found = 0;
    let mut failed_checks = 0;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut json_files: Vec<serde_json::Value> = Vec::new();
    {
        let mut io_result = Ok(());
        tsq::api::parse_files(&files, &root, &mut |r| {
            let f = match r {
                Ok(f) => f,
                Err(s) => {
                    skipped.push(s);
                    return;
                }
            };
            let chunks = f.chunks();
            found += chunks.len();
            let violations = args.check.then(|| validate::check_file(&f.parsed, &chunks, &f.chunks()));
            if violations.as_ref().is_some_and(|v| !v.is_empty()) {
                failed_checks += 1;
            }
            output::diagnostics(&f.paths.relative_path, &f.parsed.diagnostics);
            if args.json {
                let file = FileJson {
                    file_path: &f.paths.file_path,
                    relative_path: &f.paths.relative_path,
                    body: ChunksBody { chunks: &chunks },
                    diagnostics: &f.parsed.diagnostics,
                    violations: violations.as_deref(),
                };
                json_files.push(serde_json::to_value(&file).unwrap_or_default());
            } else if io_result.is_ok() {
                io_result = write_text(&mut out, &f.paths.relative_path, &chunks, violations.as_deref());
            }
        })?;
        io_result?;
    }
    output::skipped(&skipped);
    if args.json {
        output::json(&mut out, &Report { files: json_files, skipped: &skipped })?;
    }
    out.flush()?;
    Ok(if !skipped.is_empty() || failed_checks > 0 {
        ExitStatus::Error
    } else if found == 0 {
        ExitStatus::NothingFound
    } else {
        ExitStatus::Success
    })
}

fn write_text(out: &mut dyn Write, path: &str, chunks: &[CodeChunk], violations: Option<&[validate::Violation]>) -> std::io::Result<()> {
    writeln!(out, "{path}  ({} chunks)", chunks.len())?;
    output::chunk_list(out, chunks)?;
    for v in violations.unwrap_or_default() {
        writeln!(out, "  rule {} broken: {}", v.rule, v.message)?;
    }
    Ok(())
}
