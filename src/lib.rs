//! tsq: a code-context engine for TypeScript and JavaScript built on the
//! real TypeScript compiler. See ARCHITECTURE.md for the code map.

pub mod chunk;
pub mod config;
pub mod embed;
pub mod engine;
pub mod graph;
pub mod index;
pub mod inspect;
pub mod lookup;
pub mod mcp;
pub mod parse;
pub mod query;
pub mod search;
pub mod source;
pub mod text;
pub mod ts;
pub mod validate;
