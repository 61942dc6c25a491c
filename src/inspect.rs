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

/// A workspace loaded into the Language Service, kept warm. Projects are
/// parsed from their configs at load; a program is built only when a query
/// needs it (see js/20_service.js).
pub struct Workspace {
    root: PathBuf,
    service: Service,
    info: WorkspaceInfo,
    skipped: Vec<Skipped>,
    /// The walk the projects were last loaded from: when a query finds it
    /// changed (files created or deleted), the projects are refreshed.
    files: std::sync::Mutex<Walked>,
}

#[derive(PartialEq, Eq)]
struct Walked {
    sources: Vec<String>,
    configs: Vec<String>,
}

impl Walked {
    fn now(root: &Path) -> (Walked, Vec<Skipped>) {
        let sources = source::walk(root);
        let configs = source::walk_configs(root);
        let mut skipped = sources.skipped;
        skipped.extend(configs.skipped);
        (Walked { sources: sources.files.iter().map(|p| slash(p)).collect(), configs: configs.files.iter().map(|p| slash(p)).collect() }, skipped)
    }
}

/// Relative module specifiers a file imports (`from './x'`, `require('../y')`,
/// `import('./z')`), resolved lexically against its directory, without
/// extension: enough to find which files import which, without a parse.
fn relative_imports(file: &str, text: &str) -> Vec<String> {
    let dir = Path::new(file).parent().unwrap_or(Path::new("/"));
    let mut out = Vec::new();
    for marker in ["from ", "require(", "import(", "import "] {
        for (i, _) in text.match_indices(marker) {
            let rest = text[i + marker.len()..].trim_start();
            let Some(q) = rest.chars().next().filter(|c| *c == '\'' || *c == '"') else { continue };
            let Some(end) = rest[1..].find(q) else { continue };
            let spec = &rest[1..1 + end];
            if spec.starts_with("./") || spec.starts_with("../") {
                let joined = normalize(&dir.join(spec));
                out.push(strip_source_ext(&joined));
            }
        }
    }
    out
}

fn normalize(p: &Path) -> String {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out.display().to_string()
}

/// `a/b.ts` -> `a/b`; `a/index.ts` -> `a/index` (and `a` matches it too).
fn strip_source_ext(p: &str) -> String {
    for ext in [".d.ts", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"] {
        if let Some(s) = p.strip_suffix(ext) {
            return s.to_string();
        }
    }
    p.to_string()
}

/// Files that import any of `targets` through relative specifiers,
/// transitively (barrels re-exporting a module count), up to 4 hops.
fn importers(sources: &[String], targets: &[String]) -> Vec<String> {
    let mut keys: std::collections::HashSet<String> = std::collections::HashSet::new();
    let add_keys = |keys: &mut std::collections::HashSet<String>, f: &str| {
        let k = strip_source_ext(f);
        if let Some(dir) = k.strip_suffix("/index") {
            keys.insert(dir.to_string());
        }
        keys.insert(k);
    };
    for t in targets {
        add_keys(&mut keys, t);
    }
    let graph: Vec<(String, Vec<String>)> =
        sources.iter().filter_map(|f| std::fs::read_to_string(f).ok().map(|t| (f.clone(), relative_imports(f, &t)))).collect();
    let mut found: Vec<String> = Vec::new();
    for _ in 0..4 {
        let before = found.len();
        for (f, imports) in &graph {
            if !found.contains(f) && !targets.contains(f) && imports.iter().any(|i| keys.contains(i)) {
                found.push(f.clone());
            }
        }
        if found.len() == before {
            break;
        }
        for f in found[before..].to_vec() {
            add_keys(&mut keys, &f);
        }
    }
    found
}

/// Logs the programs an answer built, and takes the log out of the answer:
/// timings belong in `TSQ_LOG=debug`, never in output or goldens.
fn log_builds(log: &mut Vec<crate::ts::protocol::BuildEntry>) {
    for b in std::mem::take(log) {
        tracing::debug!(project = %b.project, files = b.files, root_files = b.root_files, lib_files_parsed = b.lib_files_parsed, ms = b.ms, "program built");
    }
}

/// Whether `text` may declare `name`: an occurrence as a whole identifier
/// that follows a declaration keyword (`function`, `class`, `const`…), or
/// starts its line after modifiers (methods, properties, members), or is
/// assigned as a property (`exports.name =`). A superset of tsc's answer,
/// cheap enough to run over every file; tsc decides in the projects left.
fn may_declare(text: &str, name: &str) -> bool {
    const KEYWORDS: &[&str] = &["function", "function*", "class", "interface", "type", "enum", "namespace", "module", "const", "let", "var"];
    const MODIFIERS: &[&str] =
        &["export", "default", "declare", "abstract", "public", "private", "protected", "static", "readonly", "override", "async", "get", "set", "accessor", "*"];
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(name).any(|(i, _)| {
        if text[..i].chars().next_back().is_some_and(ident) || text[i + name.len()..].chars().next().is_some_and(ident) {
            return false;
        }
        let line_start = text[..i].rfind('\n').map_or(0, |n| n + 1);
        let words: Vec<&str> = text[line_start..i].split_whitespace().collect();
        let after = text[i + name.len()..].trim_start();
        match words.last() {
            Some(w) if KEYWORDS.contains(w) => true,
            _ if words.iter().all(|w| MODIFIERS.contains(w)) => true,
            Some(w) if w.ends_with('.') => after.starts_with('=') && !after.starts_with("=="),
            _ => false,
        }
    })
}

fn slash(p: &Path) -> String {
    p.display().to_string()
}

impl Workspace {
    /// Walks `root` for source files and tsconfig/jsconfig files and loads
    /// the projects.
    pub fn open(root: &Path) -> Result<Workspace, TsError> {
        let root = root.canonicalize().map_err(|e| TsError::Service(format!("{}: {e}", root.display())))?;
        let started = std::time::Instant::now();
        let (walked, skipped) = Walked::now(&root);
        tracing::debug!(ms = started.elapsed().as_millis() as u64, sources = walked.sources.len(), configs = walked.configs.len(), "walk");
        let started = std::time::Instant::now();
        let service = Service::start(WorkspaceFs::new(&root, TS_LIBS))?;
        tracing::debug!(ms = started.elapsed().as_millis() as u64, "engine start-up (service isolate)");
        let started = std::time::Instant::now();
        let request = ServiceRequest::Load { root: slash(&root), configs: walked.configs.clone(), source_files: walked.sources.clone() };
        let info = match service.call(request)? {
            ServiceResponse::Loaded { mut workspace } => {
                log_builds(&mut workspace.build_log);
                workspace
            }
            other => return Err(TsError::Protocol(format!("expected `loaded`, got {other:?}"))),
        };
        tracing::debug!(ms = started.elapsed().as_millis() as u64, projects = info.projects.len(), "config parsing (no programs built)");
        Ok(Workspace { root, service, info, skipped, files: std::sync::Mutex::new(walked) })
    }

    /// Re-walks the workspace; when files were created or deleted since the
    /// projects were loaded, the projects' file lists are refreshed.
    pub fn refresh(&self) -> Result<bool, TsError> {
        let (walked, _) = Walked::now(&self.root);
        let mut last = self.files.lock().unwrap_or_else(|p| p.into_inner());
        if *last == walked {
            return Ok(false);
        }
        let started = std::time::Instant::now();
        let request = ServiceRequest::Refresh { configs: walked.configs.clone(), source_files: walked.sources.clone() };
        match self.service.call(request)? {
            ServiceResponse::Loaded { mut workspace } => log_builds(&mut workspace.build_log),
            other => return Err(TsError::Protocol(format!("expected `loaded`, got {other:?}"))),
        }
        tracing::debug!(ms = started.elapsed().as_millis() as u64, "file lists refreshed");
        *last = walked;
        Ok(true)
    }

    /// Files that may declare `query`'s name (`may_declare`, a superset of
    /// the declaring files). `None` when the query names an existing file,
    /// whose project is enough.
    fn candidates(&self, query_file: Option<&str>, names: &[String]) -> Option<Vec<String>> {
        if let Some(f) = query_file {
            if self.root.join(f.trim_start_matches("./")).is_file() {
                return None;
            }
        }
        let name = names.last()?;
        let started = std::time::Instant::now();
        let files = self.files.lock().unwrap_or_else(|p| p.into_inner()).sources.clone();
        let out: Vec<String> = files.into_iter().filter(|f| std::fs::read_to_string(f).is_ok_and(|t| may_declare(&t, name))).collect();
        tracing::debug!(ms = started.elapsed().as_millis() as u64, name = %name, files = out.len(), "candidate files");
        Some(out)
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
        self.refresh()?;
        let targets = queries
            .iter()
            .map(|q| LookupTarget { file: q.file.clone(), names: q.names.clone(), candidates: self.candidates(q.file.as_deref(), &q.names) })
            .collect();
        let request = ServiceRequest::Lookup { targets };
        let started = std::time::Instant::now();
        match self.service.call(request)? {
            ServiceResponse::LookedUp { mut result } => {
                log_builds(&mut result.build_log);
                tracing::debug!(ms = started.elapsed().as_millis() as u64, "lookup (query)");
                Ok(result)
            }
            other => Err(TsError::Protocol(format!("expected `lookedUp`, got {other:?}"))),
        }
    }

    pub fn inspect(&self, query: &SymbolQuery, config: &InspectConfig) -> Result<InspectResult, TsError> {
        self.refresh()?;
        let candidates = self.candidates(query.file.as_deref(), &query.names);
        let started = std::time::Instant::now();
        let declaring: Vec<String> = match (&candidates, &query.file) {
            (Some(c), _) => c.clone(),
            (None, Some(f)) => vec![slash(&self.root.join(f.trim_start_matches("./")))],
            (None, None) => Vec::new(),
        };
        let sources = self.files.lock().unwrap_or_else(|p| p.into_inner()).sources.clone();
        let importers = importers(&sources, &declaring);
        tracing::debug!(ms = started.elapsed().as_millis() as u64, files = importers.len(), "importers (relative imports, transitive)");
        let request = ServiceRequest::Inspect {
            file: query.file.clone(),
            names: query.names.clone(),
            call_depth: config.call_depth,
            resolvers: config.resolvers.clone(),
            candidates,
            importers: Some(importers),
        };
        let started = std::time::Instant::now();
        match self.service.call(request)? {
            ServiceResponse::Inspected { mut result } => {
                log_builds(&mut result.build_log);
                tracing::debug!(ms = started.elapsed().as_millis() as u64, "inspect (query and checker work)");
                Ok(result)
            }
            other => Err(TsError::Protocol(format!("expected `inspected`, got {other:?}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::may_declare;

    #[test]
    fn relative_imports_resolve_lexically_and_importers_are_transitive() {
        let imports = super::relative_imports("/w/a/b.ts", "import { x } from './c';\nconst y = require(\"../d/index.js\");\nimport 'lib';");
        assert_eq!(imports, vec!["/w/a/c".to_string(), "/w/d/index".to_string()]);
        let dir = std::env::temp_dir().join(format!("tsq-importers-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("core")).unwrap();
        std::fs::create_dir_all(dir.join("app")).unwrap();
        let f = |p: &str, t: &str| {
            std::fs::write(dir.join(p), t).unwrap();
            dir.join(p).display().to_string()
        };
        let math = f("core/math.ts", "export const add = 1;");
        let barrel = f("core/index.ts", "export { add } from './math';");
        let app = f("app/main.ts", "import { add } from '../core';");
        let other = f("app/other.ts", "import { x } from './main2';");
        let found = super::importers(&[math.clone(), barrel.clone(), app.clone(), other], &[math]);
        assert_eq!(found, vec![barrel, app]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn declaration_sites_are_candidates_and_uses_are_not() {
        for decl in [
            "export function add(a, b) {}",
            "export default class add {}",
            "const add = () => 1;",
            "class A {\n  private async add(x) {}\n}",
            "interface I {\n  add: number;\n}",
            "enum E {\n  add = 1,\n}",
            "exports.add = function () {};",
            "const o = {\n  add() {},\n};",
            "type add = string;",
        ] {
            assert!(may_declare(decl, "add"), "{decl}");
        }
        for usage in ["x.add(1);", "return add(1, 2);", "import { add } from './m';", "function addAll() {}", "const y = add;", "if (a.add == b) {}"] {
            assert!(!may_declare(usage, "add"), "{usage}");
        }
    }
}
