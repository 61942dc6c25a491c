//! Benchmark-only Language Service requests: build every program, and a
//! deterministic sample of declarations (the internal `program-build` and
//! `symbol-sample` analyses, which no product path calls).

use tsq::query::SymbolQuery;
use tsq::ts::TsError;
use tsq::workspace::{AnalyzeConfig, Workspace};

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

/// Builds (or brings up to date) every project's program and checker;
/// returns how many source files the programs hold.
pub fn build_programs(ws: &Workspace) -> Result<u64, TsError> {
    let result = ws.analyze_internal("program-build", &AnalyzeConfig { type_depth: 0 })?;
    Ok(result.get("files").and_then(|f| f.as_u64()).unwrap_or(0))
}

/// A deterministic sample of functions, methods and classes: every
/// `every_nth` in file order (`symbol-sample` reads the stride from
/// `typeDepth`).
pub fn symbol_sample(ws: &Workspace, every_nth: i32) -> Result<Vec<SampledSymbol>, TsError> {
    let result = ws.analyze_internal("symbol-sample", &AnalyzeConfig { type_depth: every_nth })?;
    serde_json::from_value(result).map_err(|e| TsError::Protocol(e.to_string()))
}
