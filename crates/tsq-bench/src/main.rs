//! `tsq-bench`: tsq's benchmarks, apart from the product crate (`tsq
//! bench <what>` runs this binary when it sits beside `tsq`). Each
//! prints medians beside a baseline measured in the same run and asserts
//! nothing. The commands are here; `eval` (retrieval metrics),
//! `local_rerank` (the measured-but-not-adopted cross-encoder) and
//! `sample` (benchmark-only Language Service requests) support them.

mod changes;
mod cold;
mod eval;
mod fidelity;
mod index;
mod local_rerank;
mod ls;
mod parse;
mod sample;
mod search;
mod shards;
mod stats;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit codes: 0 ok, 2 error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    Success,
}

#[derive(Parser)]
#[command(name = "tsq-bench", version, about = "tsq's benchmarks: medians beside baselines measured in the same run")]
struct Cli {
    #[command(subcommand)]
    what: BenchCommand,
}

fn main() -> ExitCode {
    tsq::embed::configure_process();
    match run(Cli::parse().what) {
        Ok(ExitStatus::Success) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("tsq-bench: error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::from(2)
        }
    }
}

/// The `tsq` binary the benchmarks run: `TSQ_BENCH_BIN` (a "before"
/// build), else the one beside this binary.
pub fn tsq_bin() -> anyhow::Result<PathBuf> {
    if let Some(p) = std::env::var_os("TSQ_BENCH_BIN") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe()?;
    let tsq = exe.with_file_name(if cfg!(windows) { "tsq.exe" } else { "tsq" });
    anyhow::ensure!(tsq.is_file(), "no tsq binary beside {} (build it: cargo build --release --bin tsq)", exe.display());
    Ok(tsq)
}

/// Index progress on stderr, one line per phase.
pub struct PhaseLines(std::cell::RefCell<String>);

impl PhaseLines {
    pub fn new() -> PhaseLines {
        PhaseLines(std::cell::RefCell::new(String::new()))
    }
}

impl Default for PhaseLines {
    fn default() -> Self {
        PhaseLines::new()
    }
}

impl tsq::progress::Progress for PhaseLines {
    fn update(&self, phase: &str, _done: u64, total: u64) {
        let mut last = self.0.borrow_mut();
        if *last != phase {
            eprintln!("  {phase} ({total})");
            *last = phase.to_string();
        }
    }
}

#[derive(Subcommand)]
pub enum BenchCommand {
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
        /// First index each corpus with structure (`tsq index`), reporting
        /// the occurrence pass (files/s, time, peak RSS, index size
        /// added) and, after a one-file body edit, the time until every
        /// answer is fresh again; the lookups then run on that index.
        #[arg(long)]
        index: bool,
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
        /// Only the ablation rows whose label holds one of these words
        /// (the baselines, the hybrid and the default always run; the
        /// local rerank rows only when a word names them).
        #[arg(long)]
        rows: Vec<String>,
    },
    /// Change localization from real history: commit subjects of the
    /// corpus monorepos against the files each commit changed
    /// (benches/search-eval/changes-<repo>.jsonl), file-level NDCG@10,
    /// Acc@1 and Acc@5 beside BM25 over whole files and over windows.
    Changes {
        #[arg(default_values_t = ["vue", "trpc", "tanstack"].map(String::from))]
        repos: Vec<String>,
        #[arg(long, value_enum, default_value = "local")]
        embedder: tsq::embed::EmbedderChoice,
        /// Which set: the 40 newest questions of each repository (none),
        /// or a larger one `changes.py --set NAME` wrote
        /// (changes-NAME-<repo>.jsonl: `train` for vue and trpc, `more`
        /// for tanstack, never tuned on).
        #[arg(long)]
        set: Option<String>,
        /// Only the rows whose label holds one of these words (the BM25
        /// baselines and the default always run).
        #[arg(long)]
        rows: Vec<String>,
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
    /// The occurrence index against the live Language Service on a real
    /// workspace: N sampled declarations, then M random edits (each
    /// followed by the sync), compared exactly. Works on a temp copy.
    Fidelity {
        /// A workspace with an index (`tsq index --embedder none`).
        dir: PathBuf,
        #[arg(long, default_value_t = 200)]
        sample: usize,
        #[arg(long, default_value_t = 50)]
        edits: usize,
        /// Random other declarations checked after each edit (beside all
        /// of the edited file's).
        #[arg(long, default_value_t = 4)]
        per_edit: usize,
        #[arg(long, default_value_t = 23)]
        seed: u64,
        #[arg(long, default_value_t = 1)]
        call_depth: i32,
    },
    /// A shared index published in shards with Lance's distributed write:
    /// N jobs write data fragments of every table of an indexed workspace
    /// to one dataset per table, one commit step commits them all; beside
    /// one writer writing every row.
    Shards {
        /// A workspace with an index (`tsq index`).
        dir: PathBuf,
        /// s3://bucket/prefix (AWS environment) or file:///dir.
        #[arg(long)]
        to: String,
        #[arg(long, default_value_t = 4)]
        jobs: usize,
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

pub fn run(what: BenchCommand) -> anyhow::Result<ExitStatus> {
    match what {
        BenchCommand::Parse { dirs, runs, workers, no_node } => parse::run(&dirs, parse::BenchArgs { runs, workers, node: !no_node }),
        BenchCommand::Lookup { dir, queries, runs } => ls::run_lookup(&dir, queries, runs),
        BenchCommand::Search { repos, embedder, enrich, rows } => search::run(&repos, embedder, enrich, &rows),
        BenchCommand::Changes { repos, embedder, set, rows } => changes::run(&repos, embedder, set.as_deref(), &rows),
        BenchCommand::Index { corpora, synthetic, runs, embedder } => index::run(&corpora, synthetic, runs, embedder),
        BenchCommand::Cold { corpora, samples, runs, no_mcp, index } => cold::run(&corpora, samples, runs, !no_mcp, index),
        BenchCommand::Ls { dir, queries, no_node } => ls::run(&dir, ls::BenchLsArgs { queries, node: !no_node }),
        BenchCommand::Shards { dir, to, jobs } => shards::run(&dir, &to, jobs),
        BenchCommand::Fidelity { dir, sample, edits, per_edit, seed, call_depth } => fidelity::run(&dir, sample, edits, per_edit, seed, call_depth),
    }
}
