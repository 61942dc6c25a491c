//! Command-line front end: flags in, `engine` calls, `output` out.

mod bench;
mod bench_cold;
mod bench_index;
mod bench_search;
mod bench_ls;
mod analyze;
mod chunks;
mod index;
mod progress;
mod search;
mod inspect;
mod lookup;
mod output;
mod serve;
mod symbols;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit codes: 0 ok, 1 nothing found, 2 error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    Success,
    NothingFound,
    Error,
}

impl From<ExitStatus> for ExitCode {
    fn from(s: ExitStatus) -> ExitCode {
        ExitCode::from(match s {
            ExitStatus::Success => 0,
            ExitStatus::NothingFound => 1,
            ExitStatus::Error => 2,
        })
    }
}

#[derive(Parser)]
#[command(name = "tsq", version, about = "Code context for TypeScript and JavaScript, from the real TypeScript compiler")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Per-phase timings and other debug logs on stderr (as TSQ_LOG=debug).
    #[arg(long, global = true)]
    verbose: bool,
}

/// Logs go to stderr (never stdout, which is the answer's or MCP's):
/// `TSQ_LOG` (error, warn, info, debug, trace) or `--verbose` sets the level.
fn init_logging(verbose: bool, default: tracing::Level) {
    use std::io::IsTerminal;
    let level = if verbose {
        tracing::Level::DEBUG
    } else {
        std::env::var("TSQ_LOG").ok().and_then(|l| l.trim().parse().ok()).unwrap_or(default)
    };
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .with_max_level(level)
        .try_init();
}

#[derive(Subcommand)]
enum Command {
    /// Print the symbol tree of files (blueprint phase 1).
    Symbols {
        /// Files to parse.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Emit the blueprint's JSON schema instead of the text tree.
        #[arg(long)]
        json: bool,
    },
    /// Print the chunks of files or directories (blueprint phase 2).
    Chunks {
        /// Files or directories (walked, honouring .gitignore).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
        /// Workspace root that relative paths and ids use (default: the
        /// directory given, or the current directory for files).
        #[arg(long)]
        root: Option<PathBuf>,
        /// Also run the blueprint's ten validation rules and report breaks.
        #[arg(long)]
        check: bool,
    },
    /// Signature, members, type hierarchy, call trees and references of the
    /// declarations a symbol query names (blueprint phase 3).
    Inspect {
        /// `symbol = [file >] [Parent >] name` (the `symbol =` is optional).
        query: String,
        /// Workspace root (default: the current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        /// Call tree depth: 1, N, or -1 for all.
        #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
        call_depth: i32,
        #[arg(long)]
        json: bool,
    },
    /// A `symbol =` lookup: the connection graph and smart snapshots of the
    /// matching declarations, within a token budget (blueprint phases 4-6).
    Lookup {
        /// `symbol = [file >] [Parent >] name`.
        query: String,
        #[arg(long)]
        root: Option<PathBuf>,
        #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
        call_depth: i32,
        /// Only results in these files, directories or globs.
        #[arg(long = "path")]
        paths: Vec<String>,
        /// `maxTokenBudget`.
        #[arg(long, default_value_t = 8000)]
        budget: usize,
        #[arg(long, value_enum, default_value = "text")]
        format: lookup::LookupFormat,
    },
    /// Serve MCP over stdio: the `codebase_search` tool.
    Serve {
        /// Workspace root (default: the current directory).
        #[arg(long)]
        root: Option<PathBuf>,
    },
    /// An extended analysis: alias-graph, ambients, project-structure,
    /// type-guards, callbacks, guard-callbacks, advanced-types,
    /// enum-members, unicode-identifiers, side-effects.
    Analyze {
        analysis: String,
        /// Limit to the declarations a symbol query names.
        query: Option<String>,
        #[arg(long)]
        root: Option<PathBuf>,
        /// Nesting depth for advanced-types (-1: no limit).
        #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
        type_depth: i32,
    },
    /// Ask in natural language ("where do we refresh tokens?"), or look up
    /// `symbol = Name`: the connection graph and smart snapshots of the
    /// relevant symbols within a token budget. Syncs the index first.
    Search {
        query: String,
        #[arg(long)]
        root: Option<PathBuf>,
        /// Only results in these files, directories or globs.
        #[arg(long = "path")]
        paths: Vec<String>,
        /// typescript or javascript.
        #[arg(long)]
        language: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: lookup::LookupFormat,
        /// Results in the concise format (`topK`).
        #[arg(long)]
        top_k: Option<usize>,
        /// `maxTokenBudget`.
        #[arg(long)]
        budget: Option<usize>,
        /// `minimumRelevanceThreshold`.
        #[arg(long)]
        threshold: Option<f64>,
        #[arg(long, value_enum)]
        embedder: Option<tsq::embed::EmbedderChoice>,
        /// Same as --format json (with --format concise: the concise JSON).
        #[arg(long)]
        json: bool,
    },
    /// Sync the persistent index at <root>/.tsq (parse what changed) and
    /// compute every missing vector, with progress on stderr.
    Index {
        #[arg(long)]
        root: Option<PathBuf>,
        /// none (BM25 only), local (the embedded MiniLM), voyage
        /// (VOYAGE_API_KEY), or auto (voyage with a key, else local).
        #[arg(long, value_enum)]
        embedder: Option<tsq::embed::EmbedderChoice>,
        #[arg(long)]
        json: bool,
    },
    /// What the index holds: files, chunks, vectors, skipped files and why.
    Status {
        #[arg(long)]
        root: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Remove the index (<root>/.tsq).
    Clean {
        #[arg(long)]
        root: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Benchmarks.
    Bench {
        #[command(subcommand)]
        what: BenchCommand,
    },
}

#[derive(Subcommand)]
enum BenchCommand {
    /// Parse+chunk throughput over directories, beside Node running the same
    /// vendored TypeScript's createSourceFile on the same files.
    Parse {
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Runs per side; medians are reported.
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// Engine isolates (default: one per core).
        #[arg(long)]
        workers: Option<usize>,
        /// Skip the Node baseline.
        #[arg(long)]
        no_node: bool,
    },
    /// `tsq lookup` figures: cold process latency, warm lookup p50/p95,
    /// text against concise output size.
    Lookup {
        dir: PathBuf,
        #[arg(long, default_value_t = 50)]
        queries: usize,
        /// Cold process runs.
        #[arg(long, default_value_t = 5)]
        runs: usize,
    },
    /// A new user's first question on real workspaces: fresh-process
    /// `tsq lookup` and `tsq inspect` on sampled declarations beside Node's
    /// tsserver doing the same, peak RSS, and the first and warm MCP calls.
    Cold {
        /// Corpus names (../shared/corpus.sh) or directories; default vue,
        /// trpc, tanstack, rxjs.
        corpora: Vec<String>,
        #[arg(long, default_value_t = 10)]
        samples: usize,
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Skip the MCP latency figures.
        #[arg(long)]
        no_mcp: bool,
    },
    /// Retrieval quality on benches/search-eval: the 2,500-character BM25
    /// baseline, code-aware BM25, local vectors and the hybrid, with
    /// NDCG@10, Recall@5 and MRR@10, per repository and split.
    Search {
        #[arg(default_values_t = ["rxjs", "zod", "vue", "trpc"].map(String::from))]
        repos: Vec<String>,
        #[arg(long, value_enum, default_value = "local")]
        embedder: tsq::embed::EmbedderChoice,
        /// Also run the whole pipeline (sync, retrieval, rerank, enrichment
        /// through the Language Service) warm on the first N queries of
        /// each repository, and print the split.
        #[arg(long, default_value_t = 0)]
        enrich: usize,
    },
    /// The index: no-change sync on a synthetic tree beside a bare
    /// walk+stat, cold `tsq index` throughput per corpus (parse, embed,
    /// write, size, peak RSS), incremental sync after a one-file edit.
    Index {
        /// Corpus names for the cold figures.
        #[arg(default_values_t = ["rxjs", "zod", "effect", "vue", "trpc", "tanstack"].map(String::from))]
        corpora: Vec<String>,
        /// Files in the synthetic no-change tree (0: skip).
        #[arg(long, default_value_t = 10_000)]
        synthetic: usize,
        #[arg(long, default_value_t = 5)]
        runs: usize,
        #[arg(long, value_enum, default_value = "none")]
        embedder: tsq::embed::EmbedderChoice,
    },
    /// Language Service figures (program build, warm query p50/p95 per
    /// resolver, incremental update, peak RSS) beside Node running the same
    /// Language Service calls. Works on a temp copy of the directory.
    Ls {
        dir: PathBuf,
        /// About how many symbols to query per resolver.
        #[arg(long, default_value_t = 50)]
        queries: usize,
        #[arg(long)]
        no_node: bool,
    },
}

/// Opens the workspace at `root` (default: the current directory) and
/// reports the files its walk skipped.
fn open_workspace(root: Option<PathBuf>) -> anyhow::Result<tsq::inspect::Workspace> {
    use anyhow::Context;
    let root = match root {
        Some(r) => r,
        None => std::env::current_dir()?,
    };
    let workspace = tsq::inspect::Workspace::open(&root).with_context(|| format!("loading the projects under {}", root.display()))?;
    output::skipped(workspace.skipped());
    Ok(workspace)
}

pub fn run() -> anyhow::Result<ExitStatus> {
    let cli = Cli::parse();
    let default_level = if matches!(cli.command, Command::Serve { .. }) { tracing::Level::INFO } else { tracing::Level::WARN };
    init_logging(cli.verbose, default_level);
    match cli.command {
        Command::Symbols { files, json } => symbols::run(&files, json),
        Command::Chunks { paths, json, root, check } => chunks::run(&paths, chunks::ChunksArgs { json, root, check }),
        Command::Inspect { query, root, call_depth, json } => inspect::run(&query, inspect::InspectArgs { root, call_depth, json }),
        Command::Lookup { query, root, paths, call_depth, budget, format } => {
            lookup::run(&query, lookup::LookupArgs { root, paths, call_depth, budget, format })
        }
        Command::Serve { root } => serve::run(root),
        Command::Search { query, root, paths, language, format, top_k, budget, threshold, embedder, json } => {
            let overrides = tsq::config::Overrides { top_k, max_token_budget: budget, minimum_relevance_threshold: threshold, embedder, ..Default::default() };
            search::run(&query, search::SearchArgs { root, paths, language, format, json, overrides })
        }
        Command::Index { root, embedder, json } => index::run_index(root, embedder, json),
        Command::Status { root, json } => index::run_status(root, json),
        Command::Clean { root, json } => index::run_clean(root, json),
        Command::Analyze { analysis, query, root, type_depth } => {
            analyze::run(&analysis, query.as_deref(), analyze::AnalyzeArgs { root, type_depth })
        }
        Command::Bench { what: BenchCommand::Parse { dirs, runs, workers, no_node } } => {
            bench::run(&dirs, bench::BenchArgs { runs, workers, node: !no_node })
        }
        Command::Bench { what: BenchCommand::Lookup { dir, queries, runs } } => bench_ls::run_lookup(&dir, queries, runs),
        Command::Bench { what: BenchCommand::Search { repos, embedder, enrich } } => bench_search::run(&repos, embedder, enrich),
        Command::Bench { what: BenchCommand::Index { corpora, synthetic, runs, embedder } } => bench_index::run(&corpora, synthetic, runs, embedder),
        Command::Bench { what: BenchCommand::Cold { corpora, samples, runs, no_mcp } } => bench_cold::run(&corpora, samples, runs, !no_mcp),
        Command::Bench { what: BenchCommand::Ls { dir, queries, no_node } } => {
            bench_ls::run(&dir, bench_ls::BenchLsArgs { queries, node: !no_node })
        }
    }
}
