//! Command-line front end: flags in, a `tsq::api::Engine` call, rendered
//! answers out (`tsq::api::render`; `output` for the file-level commands).

mod analyze;
mod chunks;
mod doctor;
mod impact;
mod index;
mod inspect;
mod output;
pub mod progress;
mod query;
mod relations;
mod serve;
mod symbols;
mod trust;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tsq::api::printed::Format;

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

/// `tsq --version`: tsq, TypeScript and the engine.
static VERSION: std::sync::LazyLock<String> = std::sync::LazyLock::new(doctor::version);

#[derive(Parser)]
#[command(name = "tsq", version = VERSION.as_str(), about = "Code context for TypeScript and JavaScript, from the real TypeScript compiler")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Per-phase timings and other debug logs on stderr (as TSQ_LOG=debug).
    #[arg(long, global = true)]
    verbose: bool,
    /// Answer in this process even when a `tsq serve` on the workspace
    /// could answer `search`, `lookup` and `impact` from its warm engine.
    #[arg(long, global = true)]
    local: bool,
}

/// Logs go to stderr (never stdout, which is the answer's or MCP's):
/// `TSQ_LOG` (error, warn, info, debug, trace) or `--verbose` sets the level.
fn init_logging(verbose: bool, default: tracing::Level) {
    use std::io::IsTerminal;
    let level = if verbose { tracing::Level::DEBUG } else { std::env::var("TSQ_LOG").ok().and_then(|l| l.trim().parse().ok()).unwrap_or(default) };
    let _ =
        tracing_subscriber::fmt().with_writer(std::io::stderr).with_ansi(std::io::stderr().is_terminal()).with_target(false).with_max_level(level).try_init();
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
        /// Call tree depth: 1, N, or -1 for all (default: the settings').
        #[arg(long, allow_negative_numbers = true)]
        call_depth: Option<i32>,
        #[arg(long)]
        json: bool,
    },
    /// References, callers and callees of the declarations a query names,
    /// from the occurrence index (one checker pass per file; synced first:
    /// only what an edit affects is re-indexed).
    Relations {
        /// `symbol = path/to/file.ts > [Parent >] name` (the file is required).
        query: String,
        #[arg(long)]
        root: Option<PathBuf>,
        /// Call tree depth: 1, N, or -1 for all (default: the settings').
        #[arg(long, allow_negative_numbers = true)]
        call_depth: Option<i32>,
        #[arg(long)]
        json: bool,
    },
    /// What a change touches: the declarations the working tree's changes
    /// alter (API or body only), everything that depends on them (from the
    /// compiler's references), and the tests to run, with their command.
    Impact {
        /// The base revision (default: HEAD).
        rev: Option<String>,
        /// The staged changes against HEAD instead.
        #[arg(long, conflicts_with_all = ["rev", "worktree"])]
        staged: bool,
        /// The unstaged changes against the staging area instead.
        #[arg(long, conflicts_with = "rev")]
        worktree: bool,
        /// Levels of dependents an API change reaches (1-10).
        #[arg(long, default_value_t = tsq::impact::DEFAULT_DEPTH)]
        depth: usize,
        /// Tokens of changed code shown.
        #[arg(long, default_value_t = tsq::impact::DEFAULT_BUDGET)]
        budget: usize,
        /// Only changes under this file or directory (repeatable).
        #[arg(long)]
        path: Vec<String>,
        #[arg(long)]
        root: Option<PathBuf>,
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
        /// Call tree depth: 1, N, or -1 for all (default: the settings').
        #[arg(long, allow_negative_numbers = true)]
        call_depth: Option<i32>,
        /// Only results in these files, directories or globs.
        #[arg(long = "path")]
        paths: Vec<String>,
        /// `maxTokenBudget` (default: the settings').
        #[arg(long)]
        budget: Option<usize>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Same as --format json (with --format concise: the concise JSON).
        #[arg(long)]
        json: bool,
    },
    /// Serve MCP over stdio (the `codebase_search` and `change_impact`
    /// tools), and answer the CLI's `search`, `lookup` and `impact` on the
    /// workspace from the same warm engine.
    Serve {
        /// Workspace root (default: the current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        /// No MCP: only answer the CLI's commands on the workspace, kept
        /// warm until the process is stopped.
        #[arg(long)]
        listen_only: bool,
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
        /// Nesting depth for advanced-types, -1..10 (-1: no limit; default:
        /// the settings' `typeDepth`, 1).
        #[arg(long, allow_negative_numbers = true)]
        type_depth: Option<i32>,
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
        /// typescript or javascript (repeat for both).
        #[arg(long = "language")]
        languages: Vec<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Results in the concise format (`topK`).
        #[arg(long)]
        top_k: Option<usize>,
        /// `maxTokenBudget`.
        #[arg(long)]
        budget: Option<usize>,
        /// Call tree depth: 1, N, or -1 for all (`callDepth`).
        #[arg(long, allow_negative_numbers = true)]
        call_depth: Option<i32>,
        /// `typeDepth`, -1..10: checked as MCP checks it, reserved for search.
        #[arg(long, allow_negative_numbers = true)]
        type_depth: Option<i32>,
        /// `minimumRelevanceThreshold`.
        #[arg(long)]
        threshold: Option<f64>,
        #[arg(long, value_enum)]
        embedder: Option<tsq::embed::EmbedderChoice>,
        /// Same as --format json (with --format concise: the concise JSON).
        #[arg(long)]
        json: bool,
        /// On a root not indexed yet (a fresh clone): parse only the files
        /// nearest the question and answer from those at once, saying how
        /// far the index is; without it, the whole index is built first,
        /// with a progress bar.
        #[arg(long)]
        no_wait: bool,
    },
    /// Sync the persistent index at <root>/.tsq (parse what changed),
    /// compute every missing vector, then every declaration's structure
    /// (callers, callees, references, types), with progress on stderr.
    Index {
        #[arg(long)]
        root: Option<PathBuf>,
        /// none (BM25 only), local (the embedded MiniLM), voyage
        /// (VOYAGE_API_KEY), or auto (voyage with a key, else local).
        #[arg(long, value_enum)]
        embedder: Option<tsq::embed::EmbedderChoice>,
        /// Skip the occurrence index (structure is then computed live by
        /// the Language Service).
        #[arg(long)]
        no_structure: bool,
        /// Accepted for compatibility: the occurrence index is built by
        /// default.
        #[arg(long, hide = true)]
        occurrences: bool,
        /// Start from the team's shared index (`s3://bucket/prefix` or
        /// `file:///dir`): the published index of HEAD or of its nearest
        /// published ancestor, verified, then synced locally (only files
        /// that differ are re-indexed). Credentials: the standard AWS
        /// environment and config chain.
        #[arg(long, value_name = "URL")]
        from: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// For CI: bring the index of this clean checkout up to date and
    /// publish it under HEAD's commit (`s3://bucket/prefix` or
    /// `file:///dir`; AWS credentials from the standard environment and
    /// config chain; signed with the Ed25519 key in TSQ_SHARE_SIGNING_KEY
    /// when set).
    Publish {
        /// Where to publish: s3://bucket/prefix or file:///absolute/dir.
        #[arg(long, value_name = "URL", required_unless_present = "keygen")]
        to: Option<String>,
        /// Print a new Ed25519 key pair (CI's private signing key, the
        /// readers' public key) and exit; publishes nothing.
        #[arg(long, conflicts_with = "to")]
        keygen: bool,
        #[arg(long)]
        root: Option<PathBuf>,
        #[arg(long, value_enum)]
        embedder: Option<tsq::embed::EmbedderChoice>,
        #[arg(long)]
        json: bool,
    },
    /// Trust the share key and store a checkout's tsq.toml names (or the
    /// ones given): recorded in your config directory, never the
    /// checkout's. Until then a checkout's publicKey counts for nothing and
    /// `tsq serve` does not pull its [share] from.
    Trust {
        #[arg(long)]
        root: Option<PathBuf>,
        /// A public key to trust (64 hex digits) instead of the checkout's.
        #[arg(long, value_name = "HEX")]
        public_key: Option<String>,
        /// A store to trust (s3://… or file:///…) instead of the checkout's.
        #[arg(long, value_name = "URL")]
        from: Option<String>,
        /// Print what you trust.
        #[arg(long, conflicts_with_all = ["public_key", "from", "root"])]
        list: bool,
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
    /// Check the installation and the workspace: the engine, TypeScript,
    /// the built-in model, the index, the settings in force and where each came
    /// from. Exits 2 when something is broken, with the fix.
    Doctor {
        #[arg(long)]
        root: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Benchmarks: runs the `tsq-bench` binary beside this one (built from
    /// the repository: cargo build --release -p tsq-bench); `tsq bench
    /// --help` lists them.
    #[command(disable_help_flag = true)]
    Bench {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// `tsq bench …`: the benchmarks live in their own binary (`tsq-bench`,
/// crates/tsq-bench), which the npm packages do not ship.
fn bench(args: &[String]) -> anyhow::Result<ExitStatus> {
    let exe = std::env::current_exe()?;
    let bench = exe.with_file_name(if cfg!(windows) { "tsq-bench.exe" } else { "tsq-bench" });
    if !bench.is_file() {
        eprintln!(
            "tsq: the benchmarks are a separate binary, not found at {}; build it from the tsq repository: cargo build --release -p tsq-bench",
            bench.display()
        );
        return Ok(ExitStatus::Error);
    }
    let status = std::process::Command::new(&bench).args(args).status()?;
    Ok(if status.success() { ExitStatus::Success } else { ExitStatus::Error })
}

/// The engine on `root` (default: the current directory).
/// A one-shot command's engine. It lives until the process exits: the OS
/// reclaims its isolates and tables at once, where dropping them runs
/// QuickJS's teardown of every heap (about 0.3 s after a sync on vue,
/// benches/runs/2026-11-28-edits-issue44-pass4.md). Everything it writes is
/// committed before a command returns, and its writer lock is an OS lock
/// the exit releases.
fn engine(root: Option<PathBuf>, options: tsq::api::EngineOptions) -> anyhow::Result<&'static tsq::api::Engine> {
    let root = match root {
        Some(r) => r,
        None => std::env::current_dir()?,
    };
    Ok(Box::leak(Box::new(tsq::api::Engine::open(&root, options)?)))
}

/// A command's output, written: stderr lines, then stdout.
fn print(printed: tsq::api::printed::Printed) -> anyhow::Result<ExitStatus> {
    use std::io::Write;
    for line in &printed.stderr {
        eprintln!("{line}");
    }
    let mut out = std::io::stdout().lock();
    out.write_all(printed.stdout.as_bytes())?;
    out.flush()?;
    Ok(match printed.outcome {
        tsq::api::printed::Outcome::Success => ExitStatus::Success,
        tsq::api::printed::Outcome::NothingFound => ExitStatus::NothingFound,
        tsq::api::printed::Outcome::Error => ExitStatus::Error,
    })
}

/// The output of a warm `tsq serve` on the workspace, if one answers
/// (`tsq::handoff`). Not with `--local`, nor with `--embedder`, which
/// may name another embedder than the server's.
fn hand_off(place: &query::Place, work: impl FnOnce() -> tsq::handoff::Work) -> Option<tsq::api::printed::Printed> {
    if place.local || place.options.embedder.is_some() {
        return None;
    }
    let root = match &place.root {
        Some(r) => r.clone(),
        None => std::env::current_dir().ok()?,
    };
    tsq::handoff::call(&root, work())
}

/// A refused request: its message on stderr, exit code 2.
fn refused(e: &tsq::api::EngineError) -> anyhow::Result<ExitStatus> {
    print(tsq::api::printed::Printed::refused(e))
}

pub fn run() -> anyhow::Result<ExitStatus> {
    let cli = Cli::parse();
    let default_level = if matches!(cli.command, Command::Serve { .. }) { tracing::Level::INFO } else { tracing::Level::WARN };
    init_logging(cli.verbose, default_level);
    let none = tsq::api::EngineOptions::default;
    let local = cli.local;
    match cli.command {
        Command::Symbols { files, json } => symbols::run(&files, json),
        Command::Chunks { paths, json, root, check } => chunks::run(&paths, chunks::ChunksArgs { json, root, check }),
        Command::Inspect { query, root, call_depth, json } => inspect::run(engine(root, none())?, &query, call_depth, json),
        Command::Lookup { query, root, paths, call_depth, budget, format, json } => {
            let format = if json && format == Format::Text { Format::Json } else { format };
            let overrides = tsq::config::Overrides { max_token_budget: budget, call_depth, ..Default::default() };
            let input = tsq::api::QueryInput { query, paths, shape: format.shape(), overrides, symbol_only: true, ..Default::default() };
            query::run(query::Place { root, options: none(), local }, input, format)
        }
        Command::Serve { root, listen_only } => serve::run(root, listen_only),
        Command::Search { query, root, paths, languages, format, top_k, budget, call_depth, type_depth, threshold, embedder, json, no_wait } => {
            let format = if json && format == Format::Text { Format::Json } else { format };
            let overrides = tsq::config::Overrides {
                top_k,
                max_token_budget: budget,
                call_depth,
                type_depth,
                minimum_relevance_threshold: threshold,
                embedder,
                ..Default::default()
            };
            let input = tsq::api::QueryInput { query, paths, languages, shape: format.shape(), overrides, symbol_only: false };
            query::run(query::Place { root, options: tsq::api::EngineOptions { embedder, warm: false, background: None, no_wait }, local }, input, format)
        }
        Command::Index { root, embedder, no_structure, occurrences: _, from: Some(url), json } => {
            if no_structure {
                eprintln!("tsq: --from pulls the whole index, structure included; drop --no-structure");
                return Ok(ExitStatus::Error);
            }
            index::run_pull(engine(root, tsq::api::EngineOptions { embedder, warm: false, background: None, no_wait: false })?, &url, json)
        }
        Command::Index { root, embedder, no_structure, occurrences: _, from: None, json } => {
            index::run_index(engine(root, tsq::api::EngineOptions { embedder, warm: false, background: None, no_wait: false })?, !no_structure, json)
        }
        Command::Publish { keygen: true, json, .. } => index::run_keygen(json),
        Command::Publish { to, root, embedder, json, .. } => {
            let to = to.expect("clap requires --to without --keygen");
            index::run_publish(engine(root, tsq::api::EngineOptions { embedder, warm: false, background: None, no_wait: false })?, &to, json)
        }
        Command::Relations { query, root, call_depth, json } => relations::run(engine(root, none())?, &query, call_depth, json),
        Command::Impact { rev, staged, worktree, depth, budget, path, root, json } => {
            let base = match (rev, staged, worktree) {
                (_, true, _) => tsq::impact::Base::Staged,
                (_, _, true) => tsq::impact::Base::Worktree,
                (Some(rev), ..) => tsq::impact::Base::Rev(rev),
                (None, ..) => tsq::impact::Base::default(),
            };
            impact::run(query::Place { root, options: none(), local }, tsq::impact::ImpactRequest { base, depth, budget, paths: path }, json)
        }
        Command::Trust { root, public_key, from, list, json } => trust::run(trust::TrustArgs { root, public_key, from, list, json }),
        Command::Status { root, json } => index::run_status(engine(root, none())?, json),
        Command::Clean { root, json } => index::run_clean(engine(root, none())?, json),
        Command::Analyze { analysis, query, root, type_depth } => analyze::run(engine(root, none())?, &analysis, query.as_deref(), type_depth),
        Command::Bench { args } => bench(&args),
        Command::Doctor { root, json } => doctor::run(engine(root, none())?, json),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(shell, &mut Cli::command(), "tsq", &mut std::io::stdout());
            Ok(ExitStatus::Success)
        }
    }
}
