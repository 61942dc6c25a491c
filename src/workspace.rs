//! Blueprint phase 3 from the front ends' side: open a workspace (its
//! projects, loaded tsserver-style in the warm service isolate) and answer
//! symbol queries with `SymbolMetadata` and the coverage behind them.

use std::path::{Path, PathBuf};

use std::sync::Arc;

use crate::answer::{Inspection, Located, WorkspaceInfo};
use crate::query::SymbolQuery;
use crate::source::{Skipped, Tree};
use crate::ts::files::FileView;
use crate::ts::host::WorkspaceFs;
use crate::ts::protocol::{FileBudget, FileFailure, FileOccurrences, LookupTarget, Narrow, ProgramFiles, ServiceRequest, ServiceResponse};
use crate::ts::{Service, TsError, TS_LIBS};

/// How deep call trees go by default (`callDepth`; `config` builds the
/// settings from it).
pub(crate) const CALL_DEPTH: i32 = 1;

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
        InspectConfig { call_depth: CALL_DEPTH, resolvers: None }
    }
}

/// The resolvers `inspect` runs, by name.
pub const RESOLVERS: &[&str] = &["signature", "members", "typeHierarchy", "outgoingCalls", "incomingCallers", "references", "typeFlows"];

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
pub(crate) const ANALYSES: &[&str] = &[
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

/// One occurrence request's answer (`Workspace::occurrences`).
pub(crate) struct Occurrences {
    pub files: Vec<FileOccurrences>,
    pub failed: Vec<FileFailure>,
    pub programs: Vec<ProgramFiles>,
}

/// A workspace loaded into the Language Service, kept warm. Projects are
/// parsed from their configs at load; a program is built only when a query
/// needs it (see js/service/20_service.js).
pub struct Workspace {
    root: PathBuf,
    service: Service,
    /// The workspace as last loaded or refreshed.
    info: std::sync::Mutex<WorkspaceInfo>,
    skipped: Vec<Skipped>,
    /// File texts, shared with the index and the compiler host.
    view: Arc<FileView>,
    /// The walk the projects were last loaded from: when a query finds it
    /// changed (files created or deleted), the projects are refreshed.
    files: std::sync::Mutex<Walked>,
    /// `configs_read`.
    read: std::sync::Mutex<Vec<String>>,
    /// Whether an occurrence request ran without a memory bound since the
    /// last collection (`tidy`).
    untidy: std::sync::atomic::AtomicBool,
}

#[derive(PartialEq, Eq)]
struct Walked {
    sources: Vec<PathBuf>,
    configs: Vec<PathBuf>,
    /// The stamp (mtime, size) of every config the projects read: the
    /// walked ones and those their `extends` chains and `references` name.
    /// An edit of any of them re-reads the configs, as a created or
    /// deleted file does. A stat each, no read: this runs every query.
    config_stamps: Vec<(PathBuf, Option<(std::time::SystemTime, u64)>)>,
}

/// The configs a loaded workspace's projects read beyond the walked ones:
/// each project's `extends` chain (TypeScript's `extendedSourceFiles`)
/// and its `references`, relative to the root.
fn configs_read(w: &crate::ts::protocol::WorkspaceInfo) -> Vec<String> {
    let mut out: Vec<String> = w.projects.iter().flat_map(|p| p.extends.iter().chain(&p.references)).cloned().collect();
    out.sort();
    out.dedup();
    out
}

impl Walked {
    fn of(tree: &Tree, root: &Path, extra: &[String]) -> Walked {
        let mut read: Vec<PathBuf> = tree.configs.clone();
        read.extend(extra.iter().map(|x| root.join(x)));
        read.sort();
        read.dedup();
        let config_stamps = read
            .into_iter()
            .map(|c| {
                let stamp = std::fs::metadata(&c).ok().and_then(|m| Some((m.modified().ok()?, m.len())));
                (c, stamp)
            })
            .collect();
        Walked { sources: tree.sources.clone(), configs: tree.configs.clone(), config_stamps }
    }

    fn sources(&self) -> Vec<String> {
        self.sources.iter().map(|p| slash(p)).collect()
    }

    fn configs(&self) -> Vec<String> {
        self.configs.iter().map(|p| slash(p)).collect()
    }
}

/// Logs the programs an answer built, and takes the log out of the answer:
/// timings belong in `TSQ_LOG=debug`, never in output or goldens.
fn log_builds(log: &mut Vec<crate::ts::protocol::BuildEntry>) {
    for b in std::mem::take(log) {
        tracing::debug!(
            project = %b.project,
            files = b.files,
            root_files = b.root_files,
            lib_files_parsed = b.lib_files_parsed,
            ms = b.ms,
            note = b.note.as_deref().unwrap_or(""),
            "program built"
        );
    }
}

/// Whether `text` may declare `name`: an occurrence as a whole identifier
/// that follows a declaration keyword (`function`, `class`, `const`…), or
/// starts its line after modifiers (methods, properties, members), or is
/// assigned as a property (`exports.name =`). A superset of tsc's answer,
/// cheap enough to run over every file; tsc decides in the projects left.
pub(crate) fn may_declare(text: &str, name: &str) -> bool {
    const KEYWORDS: &[&str] = &["function", "function*", "class", "interface", "type", "enum", "namespace", "module", "const", "let", "var"];
    const MODIFIERS: &[&str] = &[
        "export",
        "default",
        "declare",
        "abstract",
        "public",
        "private",
        "protected",
        "static",
        "readonly",
        "override",
        "async",
        "get",
        "set",
        "accessor",
        "*",
    ];
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

/// Sends `Load` for `tree` (every project built from nothing): the
/// workspace, the configs the projects read, the walk with those configs.
fn load(service: &Service, root: &Path, tree: &Tree) -> Result<(WorkspaceInfo, Vec<String>, Walked), TsError> {
    let walked = Walked::of(tree, root, &[]);
    let started = std::time::Instant::now();
    let request = ServiceRequest::Load { root: slash(root), configs: walked.configs(), source_files: walked.sources() };
    let (info, read) = match service.call(request)? {
        ServiceResponse::Loaded { mut workspace } => {
            log_builds(&mut workspace.build_log);
            let read = configs_read(&workspace);
            (WorkspaceInfo::from(workspace), read)
        }
        other => return Err(TsError::Protocol(format!("expected `loaded`, got {other:?}"))),
    };
    tracing::debug!(ms = started.elapsed().as_millis() as u64, projects = info.projects.len(), "config parsing (no programs built)");
    let walked = Walked::of(tree, root, &read);
    Ok((info, read, walked))
}

fn slash(p: &Path) -> String {
    p.display().to_string()
}

impl Workspace {
    /// Walks `root` and loads its projects (tests and tools; the engine API
    /// uses `open_with` and its own walk).
    pub fn open(root: &Path) -> Result<Workspace, TsError> {
        let view = Arc::new(FileView::new(crate::source::ReadConfig::default()));
        Workspace::open_with(root, &Tree::walk(root), view)
    }

    /// Loads the projects of `root` from `tree` (its one walk), reading
    /// files through `view`.
    pub fn open_with(root: &Path, tree: &Tree, view: Arc<FileView>) -> Result<Workspace, TsError> {
        let root = root.canonicalize().map_err(|e| TsError::Service(format!("{}: {e}", root.display())))?;
        let started = std::time::Instant::now();
        let service = Service::start(WorkspaceFs::with_view(&root, TS_LIBS, Arc::clone(&view)))?;
        tracing::debug!(ms = started.elapsed().as_millis() as u64, "engine start-up (service isolate)");
        let (info, read, walked) = load(&service, &root, tree)?;
        Ok(Workspace {
            root,
            service,
            info: std::sync::Mutex::new(info),
            skipped: tree.skipped.clone(),
            view,
            files: std::sync::Mutex::new(walked),
            read: std::sync::Mutex::new(read),
            untidy: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// Loads the workspace again from nothing, in the same isolate: a new
    /// walk, every file read again, new projects and Language Services.
    /// Only what the isolate holds of TypeScript itself is kept: its code
    /// and the parsed lib files, which no edit of the workspace can change.
    /// For comparisons with a fresh Language Service after every edit
    /// (the differential tests), without an isolate's start-up each time.
    pub fn reload(&mut self) -> Result<(), TsError> {
        self.view.forget_all();
        let tree = Tree::walk(&self.root);
        let (info, read, walked) = load(&self.service, &self.root, &tree)?;
        self.skipped = tree.skipped.clone();
        *self.info.get_mut().unwrap_or_else(|p| p.into_inner()) = info;
        *self.files.get_mut().unwrap_or_else(|p| p.into_inner()) = walked;
        *self.read.get_mut().unwrap_or_else(|p| p.into_inner()) = read;
        Ok(())
    }

    /// Brings the projects' file lists up to `tree` (the query's walk):
    /// when files were created or deleted since they were loaded, the
    /// projects are refreshed; so are they when a config they read (walked,
    /// or named by an `extends` chain or `references`) changed.
    pub fn refresh(&self, tree: &Tree) -> Result<bool, TsError> {
        let walked = Walked::of(tree, &self.root, &self.configs_read());
        let mut last = self.files.lock().unwrap_or_else(|p| p.into_inner());
        if *last == walked {
            return Ok(false);
        }
        let started = std::time::Instant::now();
        let request = ServiceRequest::Refresh { configs: walked.configs(), source_files: walked.sources() };
        match self.service.call(request)? {
            ServiceResponse::Loaded { mut workspace } => {
                log_builds(&mut workspace.build_log);
                *self.read.lock().unwrap_or_else(|p| p.into_inner()) = configs_read(&workspace);
                *self.info.lock().unwrap_or_else(|p| p.into_inner()) = WorkspaceInfo::from(workspace);
            }
            other => return Err(TsError::Protocol(format!("expected `loaded`, got {other:?}"))),
        }
        tracing::debug!(ms = started.elapsed().as_millis() as u64, "file lists refreshed");
        // The configs the refreshed projects read (an `extends` may be new).
        *last = Walked::of(tree, &self.root, &self.configs_read());
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
        let out: Vec<String> = files.into_iter().filter(|f| self.view.get(f).is_ok_and(|e| may_declare(e.text_or_empty(), name))).map(|f| slash(&f)).collect();
        tracing::debug!(ms = started.elapsed().as_millis() as u64, name = %name, files = out.len(), "candidate files");
        Some(out)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The workspace as last loaded or refreshed (its projects, the files
    /// outside them, config errors).
    pub fn info(&self) -> WorkspaceInfo {
        self.info.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The configs the projects read beyond the walked ones (`extends`
    /// chains, `references`), relative to the root: inputs of the
    /// occurrence index like the walked configs.
    pub(crate) fn configs_read(&self) -> Vec<String> {
        self.read.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    /// Runs an internal analysis over the whole workspace (benchmarks).
    pub fn analyze_internal(&self, analysis: &str, config: &AnalyzeConfig) -> Result<serde_json::Value, TsError> {
        self.analyze(analysis, None, config)
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

    /// The occurrence index's rows of `files` (one checker pass each, with
    /// the owner project's program); `release` drops each program after
    /// its files. Also the workspace files of every program it used.
    /// With `narrow`, a file may be checked in a program of its import
    /// closure (`protocol::Narrow`). A file past `budget` is one of the
    /// failures, with the reason.
    pub(crate) fn occurrences(
        &self,
        files: &[PathBuf],
        release: bool,
        memory_mb: u32,
        narrow: Option<Narrow>,
        budget: FileBudget,
    ) -> Result<Occurrences, TsError> {
        let request = ServiceRequest::Occurrences { files: files.iter().map(|f| slash(f)).collect(), release, memory_mb, narrow, budget };
        if memory_mb == 0 && !release {
            self.untidy.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        match self.service.call(request)? {
            ServiceResponse::Occurrences { files, failed, programs, mut build_log, fresh_checkers, collected_inside } => {
                log_builds(&mut build_log);
                if fresh_checkers > 0 {
                    tracing::debug!(fresh_checkers, files = files.len(), "memory bound: the request went on with fresh checkers");
                }
                if collected_inside > 0 {
                    tracing::debug!(collected_inside, files = files.len(), "memory bound: collected inside files");
                }
                Ok(Occurrences { files, failed, programs })
            }
            other => Err(TsError::Protocol(format!("expected `occurrences`, got {other:?}"))),
        }
    }

    /// Each file's owner project (its index in load order; `None` when no
    /// config includes it), without building a program.
    pub(crate) fn owners(&self, files: &[PathBuf]) -> Result<Vec<Option<usize>>, TsError> {
        let request = ServiceRequest::Owners { files: files.iter().map(|f| slash(f)).collect() };
        match self.service.call(request)? {
            ServiceResponse::Owners { projects } => Ok(projects.into_iter().map(|p| usize::try_from(p).ok()).collect()),
            other => Err(TsError::Protocol(format!("expected `owners`, got {other:?}"))),
        }
    }

    /// Makes every project resolve `files`' imports again at its next
    /// program (`ServiceRequest::Invalidate`): what a changed package.json
    /// may resolve differently.
    pub(crate) fn invalidate_resolutions(&self, files: &[PathBuf]) -> Result<(), TsError> {
        self.call_warmed(ServiceRequest::Invalidate { files: files.iter().map(|f| slash(f)).collect() })
    }

    /// Sends a request the service answers `warmed` with nothing built.
    fn call_warmed(&self, request: ServiceRequest) -> Result<(), TsError> {
        match self.service.call(request)? {
            ServiceResponse::Warmed { .. } => Ok(()),
            other => Err(TsError::Protocol(format!("expected `warmed`, got {other:?}"))),
        }
    }

    /// Fresh checkers for every program checked since its last one, then a collection
    /// (`ServiceRequest::Settle`): a long incremental pass's types stop
    /// holding memory. The programs stay built.
    pub(crate) fn settle(&self) -> Result<(), TsError> {
        self.untidy.store(false, std::sync::atomic::Ordering::SeqCst);
        self.call_warmed(ServiceRequest::Settle)
    }

    /// Collects what occurrence requests without a memory bound left (the
    /// ones an answer waited for: `structure::occurrence_sync`), and
    /// records the level, where the next bounded request starts
    /// (`ServiceRequest::Collect`). False when none ran since the last
    /// collection. `tsq serve` calls it when idle.
    pub(crate) fn tidy(&self) -> Result<bool, TsError> {
        if !self.untidy.swap(false, std::sync::atomic::Ordering::SeqCst) {
            return Ok(false);
        }
        let started = std::time::Instant::now();
        self.call_warmed(ServiceRequest::Collect)?;
        tracing::debug!(ms = started.elapsed().as_millis() as u64, "tidied: collected what the answers' passes left");
        Ok(true)
    }

    /// Builds and binds the programs of `files`' owner projects (`tsq
    /// serve` when idle), so that the occurrence pass after an edit of
    /// one of them is incremental. Returns how many programs were built.
    pub fn warm(&self, files: &[PathBuf]) -> Result<usize, TsError> {
        let request = ServiceRequest::Warm { files: files.iter().map(|f| slash(f)).collect() };
        match self.service.call(request)? {
            ServiceResponse::Warmed { built, mut build_log } => {
                log_builds(&mut build_log);
                Ok(built)
            }
            other => Err(TsError::Protocol(format!("expected `warmed`, got {other:?}"))),
        }
    }

    /// Parses the lib files of `files`' owner projects, building no
    /// program (`ServiceRequest::Libs`).
    pub(crate) fn parse_libs(&self, files: &[PathBuf]) -> Result<(), TsError> {
        self.call_warmed(ServiceRequest::Libs { files: files.iter().map(|f| slash(f)).collect() })
    }

    /// Exact declarations for `query`, their files' smart snapshots, or
    /// hints when nothing matches.
    /// Several queries' targets share snapshots when they share a file.
    /// The exact matches of `queries`, as tsq's answer types.
    pub fn locate(&self, queries: &[SymbolQuery]) -> Result<Located, TsError> {
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
                Ok(result.into())
            }
            other => Err(TsError::Protocol(format!("expected `lookedUp`, got {other:?}"))),
        }
    }

    /// The metadata of every match, as tsq's answer types.
    pub fn inspect(&self, query: &SymbolQuery, config: &InspectConfig) -> Result<Inspection, TsError> {
        let candidates = self.candidates(query.file.as_deref(), &query.names);
        let started = std::time::Instant::now();
        let declaring: Vec<String> = match (&candidates, &query.file) {
            (Some(c), _) => c.clone(),
            (None, Some(f)) => vec![slash(&self.root.join(f.trim_start_matches("./")))],
            (None, None) => Vec::new(),
        };
        let sources = self.files.lock().unwrap_or_else(|p| p.into_inner()).sources.clone();
        let importers = self.view.importers(&sources, &declaring);
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
                Ok(result.into())
            }
            other => Err(TsError::Protocol(format!("expected `inspected`, got {other:?}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::may_declare;

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
