//! tsq: a code-context engine for TypeScript and JavaScript built on the
//! real TypeScript compiler. See ARCHITECTURE.md for the code map.

pub mod api;
pub mod bench;
pub mod chunk;
pub mod config;
pub mod embed;
pub mod engine;
pub mod files;
pub mod graph;
pub mod index;
pub mod inspect;
pub mod lookup;
pub mod mcp;
pub mod parse;
pub mod query;
pub mod runtime;
pub mod search;
pub mod snapshot;
pub mod structure;
pub use tsq_engine::source;
pub mod text;
/// The engine layer (crates/tsq-engine): the only code touching the JS engine.
pub use tsq_engine as ts;
pub mod validate;
