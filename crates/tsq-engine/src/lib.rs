//! tsq's engine layer, its own crate so that the `v8` feature can be
//! type-checked without the rest of tsq (LanceDB and the embedders): the
//! TypeScript boundary, the only code that touches the JS engine, and the
//! file checks (`source`) the compiler host shares with the walk. The `tsq`
//! crate re-exports it as `tsq::ts` and `tsq::source`.
//!
//! `isolate` holds one isolate with the vendored compiler, `pool` runs a set
//! of them on dedicated threads, `service` runs the warm Language Service on
//! its own thread, `host` is the file system the compiler sees, and
//! `files` is the file view the index and the host share, and
//! `protocol` is the serde half of the Rust-JS contract (its twin is
//! `js/protocol.d.ts`).

mod collector;
pub mod files;
pub mod host;
mod isolate;
mod pool;
pub mod protocol;
mod service;
pub mod source;

pub use isolate::{engine_fingerprint, Isolate, TS_LIBS, TYPESCRIPT_JS, TYPESCRIPT_VERSION};
pub use pool::{IsolatePool, PoolConfig};
pub use service::Service;

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// Lower-case hex of the SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex(&sha2::Sha256::digest(bytes))
}

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
    #[error("the Language Service failed: {0}")]
    Service(String),
}
