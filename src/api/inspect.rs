//! `tsq inspect` through the engine: every declaration a query names with
//! its `SymbolMetadata`, and the coverage behind it. From the occurrence
//! index when its rows are fresh and its scope record can tell the
//! coverage (`structure::scope`), else from the live Language Service,
//! which `inspect_live` asks alone (the differential tests' oracle).

use super::{lock, structure_error, structure_line, Engine, EngineError, InspectAnswer, SymbolRequest};
use crate::answer::Inspection;
use crate::config::Overrides;
use crate::query::SymbolQuery;
use crate::source::Tree;
use crate::structure::answers;
use crate::structure::occurrences::Defer;
use crate::workspace::InspectConfig;

impl Engine {
    /// `SymbolMetadata` for every declaration `query` names
    /// (`symbol =` optional), with the coverage behind it.
    pub fn inspect(&self, query: &str, call_depth: Option<i32>) -> Result<InspectAnswer, EngineError> {
        let SymbolRequest { query: parsed, settings } = SymbolRequest::new(&self.root, query, Overrides { call_depth, ..Default::default() })?;
        let tree = self.walk();
        if let Some(answer) = self.occurrence_inspect(&parsed, settings.call_depth, &tree)? {
            return Ok(answer);
        }
        self.live_inspect(&parsed, settings.call_depth, &tree)
    }

    /// The live Language Service's inspect alone, whatever the index holds.
    pub fn inspect_live(&self, query: &str, call_depth: Option<i32>) -> Result<InspectAnswer, EngineError> {
        let SymbolRequest { query: parsed, settings } = SymbolRequest::new(&self.root, query, Overrides { call_depth, ..Default::default() })?;
        self.live_inspect(&parsed, settings.call_depth, &self.walk())
    }

    fn live_inspect(&self, query: &SymbolQuery, call_depth: i32, tree: &Tree) -> Result<InspectAnswer, EngineError> {
        let ws = self.workspace(tree, &crate::progress::silent())?;
        let result = ws.inspect(query, &InspectConfig { call_depth, resolvers: None })?;
        Ok(InspectAnswer { query: query.to_string(), workspace: ws.info(), result, structure: self.live_structure_line()? })
    }

    /// What a live answer says of the index's structure; `None` without an
    /// index.
    pub(super) fn live_structure_line(&self) -> Result<Option<String>, EngineError> {
        if !crate::index::index_dir(&self.root).exists() {
            return Ok(None);
        }
        Ok(Some(structure_line(self.open_index()?.as_ref().expect("opened"), "computed live")?))
    }

    /// An inspect answer from the occurrence rows (synced first), at any
    /// call depth, when every file that may declare the name is fresh and
    /// the scope record knows each match's holding programs and their
    /// unresolved imports: the coverage the live Language Service reports
    /// with every program built.
    fn occurrence_inspect(&self, query: &SymbolQuery, call_depth: i32, tree: &Tree) -> Result<Option<InspectAnswer>, EngineError> {
        if !crate::index::index_dir(&self.root).exists() {
            return Ok(None);
        }
        {
            let guard = self.open_index()?;
            if !guard.as_ref().expect("opened above").has_occurrences()? {
                return Ok(None);
            }
        }
        let sync = self.sync_occurrences_of(tree, &crate::progress::silent(), Defer::Nothing)?;
        let guard = lock(&self.index);
        let index = guard.as_ref().expect("opened by the sync");
        let rows = answers::Rows::new(index, &self.view, &tree.sources);
        let found = match rows.answer(query, call_depth).map_err(structure_error)? {
            Ok(found) if !found.metadata.is_empty() => found,
            Ok(_) => return Ok(None),
            Err(why) => {
                tracing::debug!(query = %query, "occurrence index cannot inspect: {why:?}");
                return Ok(None);
            }
        };
        let Some((workspace, coverage)) = rows.scope().map_err(structure_error)?.coverage(&found.metadata) else {
            tracing::debug!(query = %query, "the scope record cannot tell this inspect's coverage");
            return Ok(None);
        };
        Ok(Some(InspectAnswer {
            query: query.to_string(),
            workspace,
            result: Inspection { matches: found.metadata, coverage, build_log: Vec::new() },
            structure: Some(structure_line(index, &super::from_rows(sync.indexed))?),
        }))
    }
}
