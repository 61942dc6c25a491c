//! `tsq symbols <file>...`: the phase-1 symbol tree.

use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;

use tsq::parse::ParsedSymbol;

use super::output::{self, FileJson, Report};
use super::ExitStatus;

#[derive(Serialize)]
struct SymbolsBody<'a> {
    symbols: &'a [ParsedSymbol],
}

pub fn run(files: &[PathBuf], json: bool) -> anyhow::Result<ExitStatus> {
    let root = std::env::current_dir()?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut parsed = Vec::new();
    let mut skipped = Vec::new();
    tsq::api::parse_files(files, &root, &mut |r| match r {
        Ok(f) => parsed.push(f),
        Err(s) => skipped.push(s),
    })?;
    output::skipped(&skipped);
    let mut found = 0;
    if json {
        let files: Vec<_> = parsed
            .iter()
            .map(|f| FileJson {
                file_path: &f.paths.file_path,
                relative_path: &f.paths.relative_path,
                body: SymbolsBody { symbols: &f.parsed.symbols },
                diagnostics: &f.parsed.diagnostics,
                violations: None,
            })
            .collect();
        output::json(&mut out, &Report { files, skipped: &skipped })?;
    }
    for f in &parsed {
        found += f.parsed.symbols.len();
        output::diagnostics(&f.paths.relative_path, &f.parsed.diagnostics);
        if !json {
            writeln!(out, "{}", f.paths.relative_path)?;
            output::symbol_tree(&mut out, &f.parsed.symbols)?;
        }
    }
    out.flush()?;
    Ok(if !skipped.is_empty() {
        ExitStatus::Error
    } else if found == 0 {
        ExitStatus::NothingFound
    } else {
        ExitStatus::Success
    })
}
