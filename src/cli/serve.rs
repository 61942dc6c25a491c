//! `tsq serve`: the MCP server over stdio. Stdout carries only protocol
//! messages; diagnostics go to stderr.

use std::path::PathBuf;

use anyhow::Context;
use rmcp::ServiceExt;

use tsq::mcp::TsqServer;

use super::ExitStatus;

pub fn run(root: Option<PathBuf>) -> anyhow::Result<ExitStatus> {
    let root = match root {
        Some(r) => r,
        None => std::env::current_dir()?,
    };
    let server = TsqServer::new(&root).with_context(|| format!("workspace root {}", root.display()))?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        eprintln!("tsq serve: MCP over stdio, workspace {}", root.display());
        let service = server.serve(rmcp::transport::stdio()).await.context("starting the MCP session")?;
        service.waiting().await.context("serving")?;
        anyhow::Ok(())
    })?;
    // The engine threads end with the process; exit promptly on stdin EOF.
    Ok(ExitStatus::Success)
}
