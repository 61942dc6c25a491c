//! The TypeScript boundary: the only module that touches the JS engine.
//!
//! `isolate` holds one isolate with the vendored compiler, `pool` runs a set
//! of them on dedicated threads, `protocol` is the serde half of the Rust-JS
//! contract (its twin is `js/protocol.d.ts`).

mod isolate;
mod pool;
pub mod protocol;

pub use isolate::{Engine, TYPESCRIPT_JS, TYPESCRIPT_VERSION};
pub use pool::{EnginePool, PoolConfig};

/// Errors at the Rust-JS boundary.
#[derive(Debug, thiserror::Error)]
pub enum TsError {
    #[error("engine start-up failed: {0}")]
    Startup(String),
    #[error("uncaught JS exception: {0}")]
    Js(String),
    #[error("Rust-JS protocol violation: {0}")]
    Protocol(String),
    #[error("engine pool is shut down")]
    PoolClosed,
    #[error("could not spawn an engine thread: {0}")]
    Thread(String),
}
