//! `tsq serve`: the MCP server over stdio, which also answers the CLI's
//! commands on its workspace (`tsq::handoff`); `--listen-only` answers
//! only those. Stdout carries only protocol messages; diagnostics go to
//! stderr.

use std::path::PathBuf;

use anyhow::Context;
use rmcp::ServiceExt;

use tsq::mcp::{RootChoice, TsqServer};

use super::ExitStatus;

pub fn run(root: Option<PathBuf>, listen_only: bool) -> anyhow::Result<ExitStatus> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    if listen_only {
        let root = match root {
            Some(r) => r,
            None => std::env::current_dir()?,
        };
        let server = TsqServer::new(&root).with_context(|| format!("workspace root {}", root.display()))?;
        // Until the process is stopped; a socket left behind is replaced
        // by the next server, and a command meanwhile answers itself.
        runtime.block_on(async move {
            let root = root.canonicalize()?;
            tracing::info!("tsq serve --listen-only: the CLI's commands on {}", root.display());
            server.warm(root).await.map_err(anyhow::Error::msg)?;
            std::future::pending::<anyhow::Result<()>>().await
        })?;
        return Ok(ExitStatus::Success);
    }
    let server = match &root {
        Some(r) => TsqServer::new(r).with_context(|| format!("workspace root {}", r.display()))?,
        // No --root: the client's roots, else the current directory.
        None => TsqServer::with_root(RootChoice::FromClientOr(std::env::current_dir()?.canonicalize()?)),
    };
    let root = root.map(|r| r.display().to_string()).unwrap_or_else(|| "from the client's roots, else the current directory".into());
    // Logs go to stderr (cli::init_logging): stdout is the protocol's.
    let served = server.clone();
    runtime.block_on(async move {
        tracing::info!("tsq serve: MCP over stdio, workspace {root}");
        let service = served.serve(rmcp::transport::stdio()).await.context("starting the MCP session")?;
        service.waiting().await.context("serving")?;
        anyhow::Ok(())
    })?;
    server.shutdown();
    // The engine threads end with the process; exit promptly on stdin EOF.
    Ok(ExitStatus::Success)
}
