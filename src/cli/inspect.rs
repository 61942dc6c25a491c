//! `tsq inspect '<symbol query>'`: the blueprint's `SymbolMetadata` for
//! every declaration the query names, with the coverage behind it.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use serde::Serialize;

use tsq::inspect::InspectConfig;
use tsq::query::SymbolQuery;
use tsq::ts::protocol::{CallEntry, Coverage, InspectResult, SymbolMetadata, WorkspaceInfo};

use super::output;
use super::ExitStatus;

pub struct InspectArgs {
    pub root: Option<PathBuf>,
    pub call_depth: i32,
    pub json: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InspectJson<'a> {
    query: String,
    workspace: &'a WorkspaceInfo,
    #[serde(flatten)]
    result: &'a InspectResult,
}

pub fn run(query: &str, args: InspectArgs) -> anyhow::Result<ExitStatus> {
    let query = match SymbolQuery::parse(query) {
        Ok(q) => q,
        Err(e) => {
            eprintln!("tsq: {e}");
            return Ok(ExitStatus::Error);
        }
    };
    let workspace = super::open_workspace(args.root)?;
    let result = workspace.inspect(&query, &InspectConfig { call_depth: args.call_depth, resolvers: None }).context("inspecting")?;
    let mut out = std::io::stdout().lock();
    if args.json {
        output::json(&mut out, &InspectJson { query: query.to_string(), workspace: workspace.info(), result: &result })?;
    } else {
        for m in &result.matches {
            write_match(&mut out, m)?;
        }
        write_coverage(&mut out, &result.coverage)?;
    }
    out.flush()?;
    Ok(if result.matches.is_empty() {
        eprintln!("tsq: no declaration matches `{query}`");
        ExitStatus::NothingFound
    } else {
        ExitStatus::Success
    })
}

fn location(file: &Option<String>, line: Option<u32>) -> String {
    format!("{}:{}", file.as_deref().unwrap_or("?"), line.map(|l| l.to_string()).unwrap_or_else(|| "?".into()))
}

fn write_match(out: &mut dyn Write, m: &SymbolMetadata) -> std::io::Result<()> {
    writeln!(out, "{} {}  {}  [{}]", m.symbol.kind, m.symbol.name, location(&m.symbol.file_path, m.symbol.line), m.modifiers.join(" "))?;
    writeln!(out, "  signature: {}", m.signature)?;
    if let Some(th) = &m.type_hierarchy {
        if let Some(e) = &th.extends {
            writeln!(out, "  extends: {} ({})", e.name, location(&e.file_path, e.line))?;
        }
        for i in &th.implements {
            writeln!(out, "  implements: {} ({})", i.name, location(&i.file_path, i.line))?;
        }
        for s in &th.subtypes {
            writeln!(out, "  subtype: {} ({})", s.name, location(&s.file_path, s.line))?;
        }
    }
    if let Some(members) = &m.members {
        writeln!(out, "  members: {}", members.len())?;
        for mem in members {
            writeln!(out, "    {} {}{}  line {}", mem.kind, mem.name, mem.type_text.as_deref().map(|t| format!(": {t}")).unwrap_or_default(), mem.line)?;
        }
    }
    writeln!(out, "  outgoing calls:")?;
    write_calls(out, &m.outgoing_calls, 2, true)?;
    writeln!(out, "  incoming callers:")?;
    write_calls(out, &m.incoming_callers, 2, false)?;
    writeln!(out, "  references: {} in {} files", m.references.total_count, m.references.file_count)?;
    for f in &m.references.files {
        let lines: Vec<String> = f.lines.iter().map(u32::to_string).collect();
        writeln!(out, "    {}: {}", f.file_path, lines.join(", "))?;
    }
    Ok(())
}

fn write_calls(out: &mut dyn Write, calls: &[CallEntry], depth: usize, outgoing: bool) -> std::io::Result<()> {
    for c in calls {
        let mark = if c.cyclic == Some(true) {
            "  [cycle]"
        } else if c.depth_limited == Some(true) {
            "  [more]"
        } else {
            ""
        };
        writeln!(out, "{}{}  {}{mark}", "  ".repeat(depth), c.name, location(&c.file_path, c.line))?;
        let next = if outgoing { &c.outgoing_calls } else { &c.incoming_callers };
        if let Some(next) = next {
            write_calls(out, next, depth + 1, outgoing)?;
        }
    }
    Ok(())
}

fn write_coverage(out: &mut dyn Write, c: &Coverage) -> std::io::Result<()> {
    writeln!(out, "coverage: projects loaded: {}", c.projects_loaded.join(", "))?;
    if c.files_outside_projects > 0 {
        writeln!(out, "  {} workspace files are outside every tsconfig (served by the inferred project)", c.files_outside_projects)?;
    }
    for p in &c.partial {
        writeln!(out, "  partial: {p}")?;
    }
    for e in &c.config_errors {
        writeln!(out, "  config error: {e}")?;
    }
    Ok(())
}
