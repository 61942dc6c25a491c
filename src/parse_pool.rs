//! The one API both front ends use: read files, parse them in the engine
//! pool, and chunk them. Per-file problems are data (`Skipped`,
//! diagnostics), never an early return.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::chunk::{chunk_file, CodeChunk, FilePaths};
use crate::parse::{self, Diagnostic, ParsedFile};
use crate::source::{self, ReadConfig, Skipped};
use crate::text::SourceText;
use crate::ts::protocol::{ParseRequest, ParseResponse};
use crate::ts::{IsolatePool, PoolConfig, TsError};

/// Everything the engine needs, built once at the edge.
#[derive(Debug, Clone, Default)]
pub struct ParsePoolConfig {
    pub pool: PoolConfig,
    pub read: ReadConfig,
}

/// A parsed file with its place in the workspace.
pub struct FileParse {
    pub paths: FilePaths,
    pub parsed: ParsedFile,
}

impl FileParse {
    pub fn chunks(&self) -> Vec<CodeChunk> {
        chunk_file(&self.parsed, &self.paths)
    }
}

pub struct ParsePool {
    /// Started on the first parse: a sync that finds nothing changed (a
    /// lookup from the index) never loads the compiler. Released by
    /// [`ParsePool::release`] (a full index frees its isolates before the
    /// occurrence pass) and started again on the next parse.
    pool: std::sync::Mutex<Option<Arc<Result<IsolatePool, TsError>>>>,
    config: crate::ts::PoolConfig,
    read: ReadConfig,
}

/// Files go to the pool in batches of this many, bounding memory.
const BATCH: usize = 256;
/// A batch this small is parsed by one isolate (an edit's sync).
const ONE_WORKER_FILES: usize = 4;

impl ParsePool {
    pub fn new(config: &ParsePoolConfig) -> Result<ParsePool, TsError> {
        Ok(ParsePool { pool: std::sync::Mutex::new(None), config: config.pool.clone(), read: config.read.clone() })
    }

    /// The pool, started if it is not running, with every configured
    /// worker.
    fn pool(&self) -> Arc<Result<IsolatePool, TsError>> {
        self.pool_for(usize::MAX)
    }

    /// The pool for a batch of `files`: a batch of at most `ONE_WORKER_FILES`
    /// starts one isolate, not one per core (each start loads the compiler,
    /// on the core a CLI's service isolate is preparing the occurrence
    /// sync on); a larger batch later restarts the pool with every worker.
    fn pool_for(&self, files: usize) -> Arc<Result<IsolatePool, TsError>> {
        let wanted = if files <= ONE_WORKER_FILES { 1 } else { self.config.workers.max(1) };
        let mut slot = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        let short = slot.as_ref().is_some_and(|p| p.as_ref().as_ref().is_ok_and(|p| p.workers() < wanted));
        if short {
            slot.take();
        }
        slot.get_or_insert_with(|| Arc::new(IsolatePool::new(&PoolConfig { workers: wanted.min(self.config.workers.max(1)) }))).clone()
    }

    /// Stops the pool's isolates (each holds a compiler: tens of MB); the
    /// next parse starts them again. Work in flight keeps its pool.
    pub fn release(&self) {
        self.pool.lock().unwrap_or_else(|e| e.into_inner()).take();
    }

    pub fn startup_times(&self) -> Vec<Duration> {
        self.pool().as_ref().as_ref().map(|p| p.startup_times().to_vec()).unwrap_or_default()
    }

    pub fn workers(&self) -> usize {
        self.pool().as_ref().as_ref().map(|p| p.workers()).unwrap_or(0)
    }

    /// Reads and parses `files`, calling `sink` for each in input order.
    /// Paths are reported relative to `root`.
    pub fn parse_files(&self, files: &[PathBuf], root: &Path, sink: &mut dyn FnMut(Result<FileParse, Skipped>)) {
        for batch in files.chunks(BATCH) {
            let read: Vec<Result<(PathBuf, String), Skipped>> =
                batch.iter().map(|path| source::read_source(path, &self.read).map(|text| (path.clone(), text)).map_err(|e| Skipped::new(path, e))).collect();
            self.parse_batch(read, root, sink);
        }
    }

    /// Parses texts already read (the index sync reads each file once,
    /// through `FileView`), calling `sink` for each in input order.
    pub(crate) fn parse_texts(&self, files: Vec<(PathBuf, String)>, root: &Path, sink: &mut dyn FnMut(Result<FileParse, Skipped>)) {
        let mut files = files.into_iter().map(Ok).peekable();
        while files.peek().is_some() {
            self.parse_batch(files.by_ref().take(BATCH).collect(), root, sink);
        }
    }

    fn parse_batch(&self, batch: Vec<Result<(PathBuf, String), Skipped>>, root: &Path, sink: &mut dyn FnMut(Result<FileParse, Skipped>)) {
        let mut slots: Vec<Result<(FilePaths, usize), Skipped>> = Vec::new();
        let mut requests = Vec::new();
        let mut texts: Vec<Option<String>> = Vec::new();
        for item in batch {
            match item {
                Ok((path, text)) => {
                    let paths = file_paths(&path, root);
                    requests.push(ParseRequest { file_name: paths.relative_path.clone(), text: text.clone() });
                    texts.push(Some(text));
                    slots.push(Ok((paths, requests.len() - 1)));
                }
                Err(skipped) => slots.push(Err(skipped)),
            }
        }
        let mut responses: Vec<Option<Result<ParseResponse, TsError>>> = match self.pool_for(requests.len()).as_ref() {
            Ok(pool) => pool.parse_all(requests).into_iter().map(Some).collect(),
            Err(e) => requests.iter().map(|_| Some(Err(TsError::Startup(e.to_string())))).collect(),
        };
        for slot in slots {
            match slot {
                Err(skipped) => sink(Err(skipped)),
                Ok((paths, i)) => {
                    let text = texts[i].take().unwrap_or_default();
                    let response = responses[i].take().unwrap_or(Err(TsError::PoolClosed));
                    sink(Ok(FileParse { parsed: build_parsed(text, response), paths }));
                }
            }
        }
    }

    /// Parses text that did not come from disk (`tsq impact`'s base
    /// versions, tests, benchmarks): one isolate is enough.
    pub fn parse_text(&self, file_name: &str, text: String) -> ParsedFile {
        let response = match self.pool_for(1).as_ref() {
            Ok(pool) => pool.parse(ParseRequest { file_name: file_name.to_string(), text: text.clone() }),
            Err(e) => Err(TsError::Startup(e.to_string())),
        };
        build_parsed(text, response)
    }
}

fn build_parsed(text: String, response: Result<ParseResponse, TsError>) -> ParsedFile {
    let source = SourceText::new(text);
    match response {
        Ok(response) => parse::build(source, response),
        Err(e) => ParsedFile {
            source,
            symbols: Vec::new(),
            comments: Vec::new(),
            diagnostics: vec![Diagnostic { line: 1, column: 1, message: e.to_string() }],
            failure: Some(e.to_string()),
            opaque_bodies: Vec::new(),
        },
    }
}

/// The absolute path and the path relative to `root` (with `/`).
pub fn file_paths(path: &Path, root: &Path) -> FilePaths {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let root_abs = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    let relative_path = match absolute.strip_prefix(&root_abs) {
        Ok(relative) => relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"),
        // Outside the root (an explicit file argument elsewhere): keep it whole.
        Err(_) => path.display().to_string(),
    };
    FilePaths { file_path: absolute.display().to_string(), relative_path }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_to_the_root_with_slashes() {
        let p = file_paths(Path::new("/w/src/a.ts"), Path::new("/w"));
        assert_eq!(p.relative_path, "src/a.ts");
        assert_eq!(p.file_path, "/w/src/a.ts");
        let outside = file_paths(Path::new("/elsewhere/b.ts"), Path::new("/w"));
        assert_eq!(outside.relative_path, "/elsewhere/b.ts");
    }
}
