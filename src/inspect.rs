//! Blueprint phase 3 from the front ends' side: open a workspace (its
//! projects, loaded tsserver-style in the warm service isolate) and answer
//! symbol queries with `SymbolMetadata` and the coverage behind them.

use std::path::{Path, PathBuf};

use crate::query::SymbolQuery;
use crate::source::{self, Skipped};
use crate::ts::host::WorkspaceFs;
use crate::ts::protocol::{InspectResult, LookupResult, LookupTarget, ServiceRequest, ServiceResponse, WorkspaceInfo};
use crate::ts::{Service, TsError, TS_LIBS};

/// What `inspect` computes.
#[derive(Debug, Clone)]
pub struct InspectConfig {
    /// How deep call trees go: 1, N, or -1 for all (cycles are cut).
    pub call_depth: i32,
    /// Only these resolvers (`RESOLVERS`); all when `None`.
    pub resolvers: Option<Vec<String>>,
}

impl Default for InspectConfig {
    fn default() -> Self {
        InspectConfig { call_depth: 1, resolvers: None }
    }
}

/// The resolvers `inspect` runs, by name.
pub const RESOLVERS: &[&str] = &["signature", "members", "typeHierarchy", "outgoingCalls", "incomingCallers", "references", "typeFlows"];

/// A sampled declaration: absolute file, UTF-16 offset of its name, and
/// the names a query needs.
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SampledSymbol {
    pub file: String,
    pub rel_file: String,
    pub pos: u32,
    pub line: u32,
    pub names: Vec<String>,
}

impl SampledSymbol {
    pub fn query(&self) -> SymbolQuery {
        SymbolQuery { file: Some(self.rel_file.clone()), names: self.names.clone() }
    }
}

/// Options of the extended analyses.
#[derive(Debug, Clone)]
pub struct AnalyzeConfig {
    /// How deep advanced-types expands nested type structure.
    pub type_depth: i32,
}

impl Default for AnalyzeConfig {
    fn default() -> Self {
        AnalyzeConfig { type_depth: 1 }
    }
}

/// The extended analyses (blueprint phase 3), by CLI name.
pub const ANALYSES: &[&str] = &[
    "alias-graph",
    "ambients",
    "project-structure",
    "type-guards",
    "callbacks",
    "guard-callbacks",
    "advanced-types",
    "enum-members",
    "unicode-identifiers",
    "side-effects",
];

/// A workspace loaded into the Language Service, kept warm.
pub struct Workspace {
    root: PathBuf,
    service: Service,
    info: WorkspaceInfo,
    skipped: Vec<Skipped>,
}

fn slash(p: &Path) -> String {
    p.display().to_string()
}

impl Workspace {
    /// Walks `root` for source files and tsconfig/jsconfig files and loads
    /// the projects.
    pub fn open(root: &Path) -> Result<Workspace, TsError> {
        let root = root.canonicalize().map_err(|e| TsError::Service(format!("{}: {e}", root.display())))?;
        let sources = source::walk(&root);
        let configs = source::walk_configs(&root);
        let service = Service::start(WorkspaceFs::new(&root, TS_LIBS))?;
        let request = ServiceRequest::Load {
            root: slash(&root),
            configs: configs.files.iter().map(|p| slash(p)).collect(),
            source_files: sources.files.iter().map(|p| slash(p)).collect(),
        };
        let info = match service.call(request)? {
            ServiceResponse::Loaded { workspace } => workspace,
            other => return Err(TsError::Protocol(format!("expected `loaded`, got {other:?}"))),
        };
        let mut skipped = sources.skipped;
        skipped.extend(configs.skipped);
        Ok(Workspace { root, service, info, skipped })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn info(&self) -> &WorkspaceInfo {
        &self.info
    }

    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    /// Runs an extended analysis (`ANALYSES`) over the workspace, or over
    /// the declarations `query` names.
    pub fn analyze(&self, analysis: &str, query: Option<&SymbolQuery>, config: &AnalyzeConfig) -> Result<serde_json::Value, TsError> {
        let request = ServiceRequest::Analyze {
            analysis: analysis.to_string(),
            file: query.and_then(|q| q.file.clone()),
            names: query.map(|q| q.names.clone()),
            type_depth: config.type_depth,
        };
        match self.service.call(request)? {
            ServiceResponse::Analyzed { result } => Ok(result),
            other => Err(TsError::Protocol(format!("expected `analyzed`, got {other:?}"))),
        }
    }

    /// Builds (or brings up to date) every project's program and checker;
    /// returns how many source files the programs hold.
    pub fn build_programs(&self) -> Result<u64, TsError> {
        let request = ServiceRequest::Analyze { analysis: "program-build".into(), file: None, names: None, type_depth: 0 };
        match self.service.call(request)? {
            ServiceResponse::Analyzed { result } => Ok(result.get("files").and_then(|f| f.as_u64()).unwrap_or(0)),
            other => Err(TsError::Protocol(format!("expected `analyzed`, got {other:?}"))),
        }
    }

    /// A deterministic sample of functions, methods and classes: every
    /// `every_nth` in file order (the internal `symbol-sample` analysis,
    /// which reads the stride from `typeDepth`).
    pub fn symbol_sample(&self, every_nth: i32) -> Result<Vec<SampledSymbol>, TsError> {
        let request = ServiceRequest::Analyze { analysis: "symbol-sample".into(), file: None, names: None, type_depth: every_nth };
        match self.service.call(request)? {
            ServiceResponse::Analyzed { result } => serde_json::from_value(result).map_err(|e| TsError::Protocol(e.to_string())),
            other => Err(TsError::Protocol(format!("expected `analyzed`, got {other:?}"))),
        }
    }

    /// Exact declarations for `query`, their files' smart snapshots, or
    /// hints when nothing matches.
    /// Several queries' targets share snapshots when they share a file.
    pub fn lookup(&self, queries: &[SymbolQuery]) -> Result<LookupResult, TsError> {
        let targets = queries.iter().map(|q| LookupTarget { file: q.file.clone(), names: q.names.clone() }).collect();
        let request = ServiceRequest::Lookup { targets };
        match self.service.call(request)? {
            ServiceResponse::LookedUp { result } => Ok(result),
            other => Err(TsError::Protocol(format!("expected `lookedUp`, got {other:?}"))),
        }
    }

    pub fn inspect(&self, query: &SymbolQuery, config: &InspectConfig) -> Result<InspectResult, TsError> {
        let request = ServiceRequest::Inspect {
            file: query.file.clone(),
            names: query.names.clone(),
            call_depth: config.call_depth,
            resolvers: config.resolvers.clone(),
        };
        match self.service.call(request)? {
            ServiceResponse::Inspected { result } => Ok(result),
            other => Err(TsError::Protocol(format!("expected `inspected`, got {other:?}"))),
        }
    }
}
