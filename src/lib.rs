//! tsq: a code-context engine for TypeScript and JavaScript built on the
//! real TypeScript compiler. See ARCHITECTURE.md for the code map.

pub mod answer;
pub mod api;
pub(crate) mod camel;
pub mod chunk;
pub mod config;
pub mod embed;
pub mod files;
pub mod git;
pub mod graph;
pub mod handoff;
pub mod impact;
pub mod index;
pub mod lookup;
pub mod mcp;
pub mod parse;
pub mod parse_pool;
pub mod progress;
pub mod query;
pub mod runtime;
pub mod search;
pub mod share;
pub mod snapshot;
pub mod structure;
pub mod workspace;
pub use tsq_engine::source;
pub mod text;
/// The engine layer (crates/tsq-engine): the only code touching the JS
/// engine. Its wire types (`protocol`) stay inside the crate: answers, JSON
/// output and stored rows use `answer`.
pub mod ts {
    pub(crate) use tsq_engine::protocol;
    pub use tsq_engine::{files, hex, host, sha256_hex, Isolate, IsolatePool, PoolConfig, Service, TsError, TS_LIBS, TYPESCRIPT_JS, TYPESCRIPT_VERSION};
}
pub mod validate;
