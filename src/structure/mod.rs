//! Structure: the occurrence index (`occurrences`, `occurrence_sync`,
//! `rows`, `scope`, `usage`) and the answers read from it (`answers`).
//! Every structural answer comes from the occurrence rows when they are
//! fresh, or from the live Language Service when they are missing or
//! stale; nothing else is stored or read (ARCHITECTURE.md, "Structure
//! stays exact").

pub mod answers;
pub mod inputs;
pub(crate) mod occurrence_sync;
pub mod occurrences;
mod pacing;
pub mod rows;
pub mod scope;
mod sync_plan;
pub mod usage;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use crate::answer::SnapshotParts;
use crate::answer::{LookupMatch, SymbolMetadata};
use crate::chunk::CodeChunk;
use crate::index::IndexError;
use crate::query::SymbolQuery;
use crate::ts::TsError;
use crate::workspace::{InspectConfig, Workspace};

#[derive(Debug, thiserror::Error)]
pub enum StructureError {
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Ts(#[from] TsError),
}

/// The symbol query that names a chunk: its file, then the breadcrumb's
/// containers and name. `None` for chunks without a declaration.
pub(crate) fn chunk_query(c: &CodeChunk) -> Option<SymbolQuery> {
    if matches!(c.node_kind.as_str(), "expression" | "comment" | "import" | "re-export") || c.name.is_empty() {
        return None;
    }
    let names: Vec<String> = c.breadcrumb.split(" > ").skip(1).map(str::to_string).collect();
    (!names.is_empty()).then(|| SymbolQuery { file: Some(c.relative_path.clone()), names })
}

/// A `symbol =` query's parts: its matches, their snapshot parts, and
/// their `SymbolMetadata` (empty until inspected).
#[derive(Debug, Clone, Default)]
pub struct StoredLookup {
    pub matches: Vec<LookupMatch>,
    pub snapshots: Vec<SnapshotParts>,
    pub metadata: Vec<SymbolMetadata>,
}

/// The structure of a search's results: read from the occurrence rows
/// (synced by the caller) at the answer's call depth, or computed live by
/// the Language Service (opened only when needed) for what the rows
/// cannot answer. Nothing is stored: the occurrence sync fills the index.
pub struct Structures<'a> {
    live: &'a dyn Fn() -> Result<Arc<Workspace>, TsError>,
    ws: RefCell<Option<Arc<Workspace>>>,
    /// The occurrence index, when its rows are fresh.
    rows: Option<&'a answers::Rows<'a>>,
    call_depth: i32,
    /// Neither rows nor the Language Service: results are shown as indexed.
    as_indexed: bool,
    /// Results answered from the rows, and computed live.
    pub served: Cell<usize>,
    pub computed: Cell<usize>,
}

impl<'a> Structures<'a> {
    pub fn new(live: &'a dyn Fn() -> Result<Arc<Workspace>, TsError>, call_depth: i32) -> Structures<'a> {
        Structures { live, ws: RefCell::new(None), rows: None, call_depth, as_indexed: false, served: Default::default(), computed: Default::default() }
    }

    /// Reads answers from the occurrence index first (synced by the caller).
    pub fn with_rows(mut self, rows: &'a answers::Rows<'a>) -> Structures<'a> {
        self.rows = Some(rows);
        self
    }

    /// Answers with neither: every result is shown as indexed (a
    /// workspace still being indexed does not wait for its projects).
    pub fn as_indexed(mut self) -> Structures<'a> {
        self.as_indexed = true;
        self
    }

    /// Whether results are shown as indexed, without structure.
    pub fn is_as_indexed(&self) -> bool {
        self.as_indexed
    }

    /// The live workspace, opened on first use.
    pub fn workspace(&self) -> Result<Arc<Workspace>, TsError> {
        if let Some(ws) = self.ws.borrow().as_ref() {
            return Ok(Arc::clone(ws));
        }
        let ws = (self.live)()?;
        *self.ws.borrow_mut() = Some(Arc::clone(&ws));
        Ok(ws)
    }

    /// The rows' answers for these chunks (matches, snapshots and
    /// metadata at the call depth), by chunk id; a chunk the rows cannot
    /// answer (stale or unindexed files) is left out.
    pub fn from_rows(&self, chunks: &[&CodeChunk]) -> Result<HashMap<String, StoredLookup>, StructureError> {
        let mut out = HashMap::new();
        if let Some(rows) = self.rows {
            // One read of each kind for every chunk's answer.
            rows.prefetch(&chunks.iter().filter_map(|c| chunk_query(c)).collect::<Vec<_>>())?;
            for c in chunks {
                let Some(q) = chunk_query(c) else { continue };
                match rows.answer(&q, self.call_depth)? {
                    Ok(found) => {
                        out.insert(c.id.clone(), found);
                    }
                    // Fresh rows and no declaration by that name (an
                    // anonymous function's chunk): live finds none
                    // either, and the chunk is shown as indexed.
                    Err(answers::Unanswered::NoMatch) => {
                        out.insert(c.id.clone(), StoredLookup::default());
                    }
                    Err(_) => {}
                }
            }
        }
        self.served.set(self.served.get() + out.len());
        Ok(out)
    }

    /// Matches and snapshot parts computed live, without metadata.
    pub(crate) fn located(&self, q: &SymbolQuery) -> Result<StoredLookup, StructureError> {
        let found = self.workspace()?.locate(std::slice::from_ref(q))?;
        self.computed.set(self.computed.get() + 1);
        Ok(StoredLookup { matches: found.matches, snapshots: found.snapshots, metadata: Vec::new() })
    }

    /// `SymbolMetadata` computed live at the call depth.
    pub fn inspect(&self, q: &SymbolQuery) -> Result<Vec<SymbolMetadata>, StructureError> {
        Ok(self.workspace()?.inspect(q, &InspectConfig { call_depth: self.call_depth, resolvers: None })?.matches)
    }
}

/// Whether a query's parents appear, in order, among a declaration's
/// containers (`findDeclarations`' rule: `A > m` matches `A > B > m`).
pub(crate) fn parents_within(parents: &[String], containers: &[String]) -> bool {
    let mut at = 0;
    for c in containers {
        if at < parents.len() && *c == parents[at] {
            at += 1;
        }
    }
    at == parents.len()
}
