//! Benchmark support, apart from the product: the retrieval evaluation
//! (`eval`), the measured-but-not-adopted local cross-encoder
//! (`local_rerank`) and benchmark-only Language Service requests
//! (`sample`). The `tsq bench` commands (`src/cli/bench/`) call into this
//! module; no product path does.

pub mod eval;
pub mod local_rerank;
pub mod sample;
