//! `tsq bench`: the benchmarks, apart from the product commands. Each
//! prints medians beside a baseline measured in the same run and asserts
//! nothing.

mod cold;
mod index;
mod ls;
mod parse;
mod search;

use std::path::PathBuf;

use clap::Subcommand;

use super::ExitStatus;

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
        /// the precompute (declarations/s, time, peak RSS, index size
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

pub fn run(what: BenchCommand) -> anyhow::Result<ExitStatus> {
    match what {
        BenchCommand::Parse { dirs, runs, workers, no_node } => parse::run(&dirs, parse::BenchArgs { runs, workers, node: !no_node }),
        BenchCommand::Lookup { dir, queries, runs } => ls::run_lookup(&dir, queries, runs),
        BenchCommand::Search { repos, embedder, enrich } => search::run(&repos, embedder, enrich),
        BenchCommand::Index { corpora, synthetic, runs, embedder } => index::run(&corpora, synthetic, runs, embedder),
        BenchCommand::Cold { corpora, samples, runs, no_mcp, index } => cold::run(&corpora, samples, runs, !no_mcp, index),
        BenchCommand::Ls { dir, queries, no_node } => ls::run(&dir, ls::BenchLsArgs { queries, node: !no_node }),
    }
}
