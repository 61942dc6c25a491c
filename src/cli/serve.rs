//! `tsq serve`: the MCP server over stdio. Stdout carries only protocol
//! messages; diagnostics go to stderr.

use std::path::PathBuf;

use anyhow::Context;
use rmcp::ServiceExt;

use tsq::mcp::{RootChoice, TsqServer};

use super::ExitStatus;

pub fn run(root: Option<PathBuf>) -> anyhow::Result<ExitStatus> {
    let server = match &root {
        Some(r) => TsqServer::new(r).with_context(|| format!("workspace root {}", r.display()))?,
        // No --root: the client's roots, else the current directory.
        None => TsqServer::with_root(RootChoice::FromClientOr(std::env::current_dir()?.canonicalize()?)),
    };
    let root = root.map(|r| r.display().to_string()).unwrap_or_else(|| "from the client's roots, else the current directory".into());
    // Logs go to stderr (cli::init_logging): stdout is the protocol's.
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        tracing::info!("tsq serve: MCP over stdio, workspace {root}");
        let service = server.serve(rmcp::transport::stdio()).await.context("starting the MCP session")?;
        service.waiting().await.context("serving")?;
        anyhow::Ok(())
    })?;
    // The engine threads end with the process; exit promptly on stdin EOF.
    Ok(ExitStatus::Success)
}
