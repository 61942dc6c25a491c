//! tsq's integration tests, one binary (each file a module): every test
//! links LanceDB and deno_core once, not once per file. `common` holds
//! the shared helpers (one warm parse engine for the whole binary).
//! Run one file's tests with `cargo test --release --test it <file>::`.
//! `tests/walks.rs` is the one test with its own binary: it counts the
//! process's walks, which other tests would add to.

mod common;

mod answer_shape;
mod call_sites;
mod cli;
mod corpus;
mod engine;
mod engine_parity;
mod first_answer;
mod fixtures;
mod front_ends;
mod handoff;
mod hostile;
mod impact;
mod index;
mod layers;
mod lookup;
mod ls_parity;
mod mcp;
mod mcp_inspector;
mod occurrences;
mod parity;
mod planted;
mod search;
mod share;
mod structure;
mod ts_ls;
mod vendor;
mod voyage;
mod warm;
