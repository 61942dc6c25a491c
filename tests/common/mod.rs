//! Shared test helpers: one warm engine per test binary.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tsq::engine::{EngineConfig, FileParse, TsqEngine};

pub fn engine() -> &'static TsqEngine {
    static ENGINE: OnceLock<TsqEngine> = OnceLock::new();
    ENGINE.get_or_init(|| TsqEngine::new(&EngineConfig::default()).expect("engine starts"))
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Parses files relative to `root`, in order; panics on a skipped file.
pub fn parse(files: &[PathBuf], root: &Path) -> Vec<FileParse> {
    let mut out = Vec::new();
    engine().parse_files(files, root, &mut |r| match r {
        Ok(f) => out.push(f),
        Err(s) => panic!("{}: skipped: {}", s.path, s.message),
    });
    out
}

/// The source files of a fixture directory, sorted.
pub fn fixture_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("fixture dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| tsq::source::is_supported(p))
        .collect();
    files.sort();
    files
}
