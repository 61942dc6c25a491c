//! `tsq inspect` from the index. An inspect answer is the depth-1
//! `SymbolMetadata` of each match (stored per declaration, like a lookup's)
//! plus its coverage: the workspace's projects, the projects the answer
//! used, and the unresolved imports of the projects that hold each match's
//! file. Those last depend only on the configs, the files and their
//! imports, so they are recorded once for the fully built workspace
//! (`workspace-coverage` in js/20_service.js) under `Index::api_key`, and
//! served while that key holds: a body-only edit keeps it; a new file, a
//! config change or an API change (imports included) makes inspect live
//! until the next precompute records it again.
//!
//! Served from the index, no program is built: `projectsLoaded` is empty
//! and `projectsNotLoaded` lists every project. The rest is what the live
//! Language Service answers with every program built.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{StructureError, WithIndex};
use crate::answer::{Coverage, SymbolMetadata, WorkspaceInfo};
use crate::index::Index;
use crate::inspect::{AnalyzeConfig, Workspace};
use crate::ts::TsError;

const RECORD: &str = "structure-workspace";

/// What inspect's coverage rests on, for one state of the workspace.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// `Index::api_key` when it was recorded.
    key: String,
    pub info: WorkspaceInfo,
    /// Each project's unresolved imports, in the Language Service's order.
    unresolved: HashMap<String, Vec<String>>,
    /// Each user file's holding projects, in the Language Service's order.
    holders: HashMap<String, Vec<String>>,
}

#[derive(Deserialize)]
struct Raw {
    unresolved: HashMap<String, Vec<String>>,
    holders: HashMap<String, Vec<String>>,
}

/// The record, if it was taken in the index's current state.
pub fn current(index: &Index) -> Result<Option<Record>, StructureError> {
    let Some(text) = index.record(RECORD) else { return Ok(None) };
    let Ok(record) = serde_json::from_str::<Record>(&text) else { return Ok(None) };
    Ok((record.key == index.api_key()?).then_some(record))
}

/// Records the coverage of `ws` with every program built, unless the
/// index holds a current record. The key is read before the Language
/// Service runs and again after: an edit synced in between leaves no
/// record.
pub fn record(index: &WithIndex<'_>, ws: &Workspace) -> Result<(), StructureError> {
    let key = || {
        let mut key = (String::new(), false);
        index(&mut |ix| {
            key = (ix.api_key()?, current(ix)?.is_some());
            Ok(())
        })?;
        Ok::<_, StructureError>(key)
    };
    let (before, is_current) = key()?;
    if is_current {
        return Ok(());
    }
    let v = ws.analyze_internal("workspace-coverage", &AnalyzeConfig::default())?;
    let raw: Raw = serde_json::from_value(v).map_err(|e| TsError::Protocol(format!("workspace-coverage: {e}")))?;
    if key()?.0 != before {
        return Ok(());
    }
    let mut info = ws.info();
    info.build_log.clear();
    let json = serde_json::to_string(&Record { key: before, info, unresolved: raw.unresolved, holders: raw.holders }).unwrap_or_default();
    index(&mut |ix| Ok(ix.put_record(RECORD, &json)?))
}

/// The coverage of an answer with these matches, as `tsqInspect`
/// (js/39_inspect.js) computes it with every program built; `None` when a
/// match's file is not in the record.
pub fn coverage(record: &Record, matches: &[SymbolMetadata]) -> Option<Coverage> {
    let mut used: Vec<String> = Vec::new();
    let mut partial: Vec<String> = Vec::new();
    for m in matches {
        if !used.contains(&m.project) {
            used.push(m.project.clone());
        }
        for p in record.holders.get(m.symbol.file_path.as_deref()?)? {
            for u in record.unresolved.get(p).map(Vec::as_slice).unwrap_or_default() {
                if !partial.contains(u) {
                    partial.push(u.clone());
                }
            }
        }
    }
    Some(Coverage {
        projects_loaded: Vec::new(),
        projects_not_loaded: record.info.projects.iter().map(|p| p.name.clone()).collect(),
        projects_used: used,
        files_outside_projects: record.info.files_outside_projects.len() as u32,
        partial,
        config_errors: record.info.config_errors.clone(),
    })
}
