//! Settings: one struct, one set of defaults, read once at the edge.
//! Precedence: MCP or CLI argument, then environment (`TSQ_*`), then the
//! file (`tsq.toml` at the root, else `.tsq/config.toml`), then default.
//! An unknown key or a bad value is an error that names it.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::embed::EmbedderChoice;

/// Every setting, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub embedder: EmbedderChoice,
    /// Weight of the rerank signal in `finalScore` (blueprint: 0.65).
    pub rerank_weight: f64,
    /// Weight of the vector signal (blueprint: 0.35).
    pub vector_weight: f64,
    /// BM25's share of the hybrid relevance (`bm25Weight·bm25 +
    /// (1 - bm25Weight)·vector`), the ranking when no reranker runs.
    /// Chosen on `tsq bench search` (benches/README.md).
    pub bm25_weight: f64,
    /// The relevance gate on `finalScore`.
    pub minimum_relevance_threshold: f64,
    pub max_token_budget: usize,
    /// Candidates from each of vector search and BM25.
    pub max_vector_candidates: usize,
    /// Results in the concise format.
    pub top_k: usize,
    pub call_depth: i32,
    /// How deep `advanced-types` expands type structure (-1: no limit);
    /// MCP's `typeDepth`, checked for every command that takes it.
    pub type_depth: i32,
    /// The ranking steps after fusion (`search::rank`); `fileRoles = false`
    /// turns off the demotion of tests, examples, mocks and the like;
    /// `barrels`, `usagePrior` (`fanin`, `off`) and
    /// `testLending`, `callLending` turn the evidence steps off or choose the
    /// prior;
    /// `demoteTypes = false` keeps type-only declarations in place.
    pub ranking: crate::search::steps::Steps,
    /// `[share] from` (or `TSQ_SHARE_FROM`): the shared index that `tsq
    /// serve` pulls on start (`s3://bucket/prefix` or `file:///dir`; see
    /// `share`), when `share_from_trusted`.
    pub share_from: Option<String>,
    /// Whether `share_from` is the user's choice (the environment, or a
    /// store `tsq trust` recorded), not only the checkout's `tsq.toml`.
    pub share_from_trusted: bool,
    /// The Ed25519 public key (hex) whose signature a pulled index must
    /// carry: `TSQ_SHARE_PUBLIC_KEY`, or the checkout's `[share] publicKey`
    /// once the user trusts it (`share::trust`). Without one a pull is
    /// taken but reported unsigned.
    pub share_public_key: Option<String>,
    /// A `[share] publicKey` the checkout names that the user has not
    /// trusted: it counts for nothing, and a pull says so.
    pub share_untrusted_key: Option<String>,
}

impl Settings {
    /// What a search reads of these settings.
    pub fn search(&self) -> crate::search::SearchConfig {
        crate::search::SearchConfig {
            ranking: self.ranking,
            max_vector_candidates: self.max_vector_candidates,
            bm25_weight: self.bm25_weight,
            rerank_weight: self.rerank_weight,
            vector_weight: self.vector_weight,
            minimum_relevance_threshold: self.minimum_relevance_threshold,
            max_token_budget: self.max_token_budget,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            embedder: EmbedderChoice::Auto,
            rerank_weight: 0.65,
            vector_weight: 0.35,
            bm25_weight: 0.5,
            minimum_relevance_threshold: 0.5,
            max_token_budget: crate::lookup::MAX_TOKEN_BUDGET,
            max_vector_candidates: 40,
            top_k: 10,
            call_depth: crate::workspace::CALL_DEPTH,
            type_depth: 1,
            ranking: crate::search::steps::Steps::DEFAULT,
            share_from: None,
            share_from_trusted: false,
            share_public_key: None,
            share_untrusted_key: None,
        }
    }
}

/// `[share]` in tsq.toml.
#[derive(Debug, Clone, Default, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ShareOverrides {
    pub from: Option<String>,
    pub public_key: Option<String>,
}

/// Values that may be set anywhere; `None` defers to the next source.
#[derive(Debug, Clone, Default, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Overrides {
    pub embedder: Option<EmbedderChoice>,
    pub rerank_weight: Option<f64>,
    pub vector_weight: Option<f64>,
    pub bm25_weight: Option<f64>,
    pub minimum_relevance_threshold: Option<f64>,
    pub max_token_budget: Option<usize>,
    pub max_vector_candidates: Option<usize>,
    pub top_k: Option<usize>,
    pub call_depth: Option<i32>,
    pub type_depth: Option<i32>,
    pub file_roles: Option<bool>,
    pub barrels: Option<bool>,
    /// `fanin` or `off`.
    pub usage_prior: Option<String>,
    pub test_lending: Option<bool>,
    pub call_lending: Option<bool>,
    pub demote_types: Option<bool>,
    /// History evidence (`Steps::history`).
    pub history_evidence: Option<bool>,
    /// Whole-file evidence (`Steps::whole_files`).
    pub whole_file_evidence: Option<bool>,
    pub share: Option<ShareOverrides>,
}

/// Which `[share]` values count: the user's (arguments, environment)
/// always; the checkout's `tsq.toml` only where the user trusts them
/// (`share::trust`), since a hostile checkout would name its own store
/// and the key that verifies its forged index.
struct Share {
    from: Option<String>,
    from_trusted: bool,
    public_key: Option<String>,
    untrusted_key: Option<String>,
}

impl Share {
    fn resolve(user: Option<ShareOverrides>, checkout: Option<ShareOverrides>) -> Share {
        let set = |v: Option<String>| v.filter(|s| !s.trim().is_empty());
        let (user, checkout) = (user.unwrap_or_default(), checkout.unwrap_or_default());
        let (user_from, user_key) = (set(user.from), set(user.public_key));
        let (checkout_from, checkout_key) = (set(checkout.from), set(checkout.public_key));
        // The user's trust file is read only when the checkout asks for it.
        let trusted = match (&user_from, &checkout_from, &user_key, &checkout_key) {
            (None, Some(_), _, _) | (_, _, None, Some(_)) => crate::share::trust::load(),
            _ => Default::default(),
        };
        let (public_key, untrusted_key) = match (user_key, checkout_key) {
            (Some(k), _) => (Some(k), None),
            (None, Some(k)) if trusted.key(&k) => (Some(k), None),
            (None, k) => (None, k),
        };
        let from_trusted = user_from.is_some() || checkout_from.as_deref().is_some_and(|f| trusted.store(f));
        Share { from: user_from.or(checkout_from), from_trusted, public_key, untrusted_key }
    }
}

/// The `[share]` table of the checkout's own config file (what `tsq
/// trust` shows and records).
pub fn checkout_share(root: &Path) -> Result<ShareOverrides, ConfigError> {
    Ok(Overrides::from_file(root)?.share.unwrap_or_default())
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {message}")]
    File { path: String, message: String },
    #[error("{key}: {message}")]
    Value { key: String, message: String },
}

/// The config file of a workspace, if any.
pub(crate) fn config_file(root: &Path) -> Option<PathBuf> {
    [root.join("tsq.toml"), root.join(".tsq").join("config.toml")].into_iter().find(|p| p.is_file())
}

/// The largest config file tsq reads.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// A config file's text: a regular file of at most `MAX_CONFIG_BYTES`
/// (a checkout's `tsq.toml` may be a link to anything).
pub(crate) fn read_bounded(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() || meta.len() > MAX_CONFIG_BYTES {
        return Err(format!("not a regular file of at most {MAX_CONFIG_BYTES} bytes; fix or remove it"));
    }
    let mut text = String::new();
    std::fs::File::open(path).and_then(|f| f.take(MAX_CONFIG_BYTES + 1).read_to_string(&mut text)).map_err(|e| e.to_string())?;
    if text.len() as u64 > MAX_CONFIG_BYTES {
        return Err(format!("larger than {MAX_CONFIG_BYTES} bytes; fix or remove it"));
    }
    Ok(text)
}

impl Overrides {
    fn from_file(root: &Path) -> Result<Overrides, ConfigError> {
        let Some(path) = config_file(root) else { return Ok(Overrides::default()) };
        let text = read_bounded(&path).map_err(|message| ConfigError::File { path: path.display().to_string(), message })?;
        toml::from_str(&text).map_err(|e| ConfigError::File { path: path.display().to_string(), message: e.message().to_string() })
    }

    fn from_env() -> Result<Overrides, ConfigError> {
        fn var<T: std::str::FromStr>(key: &str) -> Result<Option<T>, ConfigError>
        where
            T::Err: std::fmt::Display,
        {
            match std::env::var(key) {
                Ok(v) if !v.trim().is_empty() => v.trim().parse().map(Some).map_err(|e| ConfigError::Value { key: key.into(), message: format!("`{v}`: {e}") }),
                _ => Ok(None),
            }
        }
        Ok(Overrides {
            embedder: var("TSQ_EMBEDDER")?,
            rerank_weight: var("TSQ_RERANK_WEIGHT")?,
            vector_weight: var("TSQ_VECTOR_WEIGHT")?,
            bm25_weight: var("TSQ_BM25_WEIGHT")?,
            minimum_relevance_threshold: var("TSQ_MINIMUM_RELEVANCE_THRESHOLD")?,
            max_token_budget: var("TSQ_MAX_TOKEN_BUDGET")?,
            max_vector_candidates: var("TSQ_MAX_VECTOR_CANDIDATES")?,
            top_k: var("TSQ_TOP_K")?,
            call_depth: var("TSQ_CALL_DEPTH")?,
            type_depth: var("TSQ_TYPE_DEPTH")?,
            file_roles: var("TSQ_FILE_ROLES")?,
            barrels: var("TSQ_BARRELS")?,
            usage_prior: var("TSQ_USAGE_PRIOR")?,
            test_lending: var("TSQ_TEST_LENDING")?,
            call_lending: var("TSQ_CALL_LENDING")?,
            demote_types: var("TSQ_DEMOTE_TYPES")?,
            history_evidence: var("TSQ_HISTORY_EVIDENCE")?,
            whole_file_evidence: var("TSQ_WHOLE_FILE_EVIDENCE")?,
            share: match (var::<String>("TSQ_SHARE_FROM")?, var::<String>("TSQ_SHARE_PUBLIC_KEY")?) {
                (None, None) => None,
                (from, public_key) => Some(ShareOverrides { from, public_key }),
            },
        })
    }

    /// `self` where set, else `next`.
    fn or(self, next: Overrides) -> Overrides {
        Overrides {
            embedder: self.embedder.or(next.embedder),
            rerank_weight: self.rerank_weight.or(next.rerank_weight),
            vector_weight: self.vector_weight.or(next.vector_weight),
            bm25_weight: self.bm25_weight.or(next.bm25_weight),
            minimum_relevance_threshold: self.minimum_relevance_threshold.or(next.minimum_relevance_threshold),
            max_token_budget: self.max_token_budget.or(next.max_token_budget),
            max_vector_candidates: self.max_vector_candidates.or(next.max_vector_candidates),
            top_k: self.top_k.or(next.top_k),
            call_depth: self.call_depth.or(next.call_depth),
            type_depth: self.type_depth.or(next.type_depth),
            file_roles: self.file_roles.or(next.file_roles),
            barrels: self.barrels.or(next.barrels),
            usage_prior: self.usage_prior.or(next.usage_prior),
            test_lending: self.test_lending.or(next.test_lending),
            call_lending: self.call_lending.or(next.call_lending),
            demote_types: self.demote_types.or(next.demote_types),
            history_evidence: self.history_evidence.or(next.history_evidence),
            whole_file_evidence: self.whole_file_evidence.or(next.whole_file_evidence),
            share: match (self.share, next.share) {
                (None, next) => next,
                (mine, None) => mine,
                (Some(a), Some(b)) => Some(ShareOverrides { from: a.from.or(b.from), public_key: a.public_key.or(b.public_key) }),
            },
        }
    }
}

impl Settings {
    /// Resolves settings for `root` with `args` from the CLI or MCP.
    pub fn load(root: &Path, args: Overrides) -> Result<Settings, ConfigError> {
        let user = args.or(Overrides::from_env()?);
        let checkout = Overrides::from_file(root)?;
        let share = Share::resolve(user.share.clone(), checkout.share.clone());
        let merged = user.or(checkout);
        let d = Settings::default();
        let s = Settings {
            embedder: merged.embedder.unwrap_or(d.embedder),
            rerank_weight: merged.rerank_weight.unwrap_or(d.rerank_weight),
            vector_weight: merged.vector_weight.unwrap_or(d.vector_weight),
            bm25_weight: merged.bm25_weight.unwrap_or(d.bm25_weight),
            minimum_relevance_threshold: merged.minimum_relevance_threshold.unwrap_or(d.minimum_relevance_threshold),
            max_token_budget: merged.max_token_budget.unwrap_or(d.max_token_budget),
            max_vector_candidates: merged.max_vector_candidates.unwrap_or(d.max_vector_candidates),
            top_k: merged.top_k.unwrap_or(d.top_k),
            call_depth: merged.call_depth.unwrap_or(d.call_depth),
            type_depth: merged.type_depth.unwrap_or(d.type_depth),
            ranking: crate::search::steps::Steps {
                roles: merged.file_roles.unwrap_or(d.ranking.roles),
                barrels: merged.barrels.unwrap_or(d.ranking.barrels),
                usage: match merged.usage_prior.as_deref().map(str::trim) {
                    None => d.ranking.usage,
                    Some("fanin") => crate::search::steps::Prior::FanIn,
                    Some("off") => crate::search::steps::Prior::Off,
                    Some(other) => return Err(ConfigError::Value { key: "usagePrior".into(), message: format!("{other:?} is not one of fanin, off") }),
                },
                test_lending: merged.test_lending.unwrap_or(d.ranking.test_lending),
                call_lending: merged.call_lending.unwrap_or(d.ranking.call_lending),
                types: match merged.demote_types {
                    Some(true) => crate::search::steps::TYPE_DEMOTE,
                    Some(false) => 1.0,
                    None => d.ranking.types,
                },
                history: match merged.history_evidence {
                    Some(true) => crate::search::steps::HISTORY,
                    Some(false) => 0.0,
                    None => d.ranking.history,
                },
                whole_files: match merged.whole_file_evidence {
                    Some(true) => crate::search::steps::WHOLE_FILES,
                    Some(false) => 0.0,
                    None => d.ranking.whole_files,
                },
                ..d.ranking
            },
            share_from: share.from.or(d.share_from),
            share_from_trusted: share.from_trusted,
            share_public_key: share.public_key.or(d.share_public_key),
            share_untrusted_key: share.untrusted_key,
        };
        s.validate()?;
        Ok(s)
    }

    fn validate(&self) -> Result<(), ConfigError> {
        let bad = |key: &str, message: String| Err(ConfigError::Value { key: key.into(), message });
        for (key, v) in [
            ("rerankWeight", self.rerank_weight),
            ("vectorWeight", self.vector_weight),
            ("bm25Weight", self.bm25_weight),
            ("minimumRelevanceThreshold", self.minimum_relevance_threshold),
        ] {
            if !(0.0..=1.0).contains(&v) || v.is_nan() {
                return bad(key, format!("{v} is outside 0.0-1.0"));
            }
        }
        if self.rerank_weight + self.vector_weight <= 0.0 {
            return bad("rerankWeight", "rerankWeight and vectorWeight cannot both be 0".into());
        }
        if !(200..=200_000).contains(&self.max_token_budget) {
            return bad("maxTokenBudget", format!("{} is outside 200-200000", self.max_token_budget));
        }
        if !(1..=1000).contains(&self.max_vector_candidates) {
            return bad("maxVectorCandidates", format!("{} is outside 1-1000", self.max_vector_candidates));
        }
        if !(1..=200).contains(&self.top_k) {
            return bad("topK", format!("{} is outside 1-200", self.top_k));
        }
        if self.call_depth < -1 || self.call_depth > 10 {
            return bad("callDepth", format!("{} is outside -1..10", self.call_depth));
        }
        if self.type_depth < -1 || self.type_depth > 10 {
            return bad("typeDepth", format!("{} is outside -1..10", self.type_depth));
        }
        for k in self.share_public_key.iter().chain(&self.share_untrusted_key) {
            if let Err(e) = crate::share::sign::public_key(k) {
                return bad("share.publicKey", e);
            }
        }
        Ok(())
    }
}

/// Where a setting in force came from.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Provenance {
    pub key: &'static str,
    pub value: String,
    /// `default`, `env TSQ_X`, or the config file's path.
    pub source: String,
}

/// Every setting's value and source for `root` (no arguments: `tsq
/// doctor`). The API key is never part of it.
pub fn provenance(root: &Path) -> Result<Vec<Provenance>, ConfigError> {
    let s = Settings::load(root, Overrides::default())?;
    let file = config_file(root);
    let keys: toml::Table = match &file {
        Some(p) => read_bounded(p).ok().and_then(|t| toml::from_str(&t).ok()).unwrap_or_default(),
        None => toml::Table::new(),
    };
    let embedder = format!("{:?}", s.embedder).to_lowercase();
    let prior = match s.ranking.usage {
        crate::search::steps::Prior::FanIn => "fanin",
        crate::search::steps::Prior::Off => "off",
    };
    let rows: [(&'static str, &str, String); 20] = [
        ("embedder", "TSQ_EMBEDDER", embedder),
        ("rerankWeight", "TSQ_RERANK_WEIGHT", s.rerank_weight.to_string()),
        ("vectorWeight", "TSQ_VECTOR_WEIGHT", s.vector_weight.to_string()),
        ("bm25Weight", "TSQ_BM25_WEIGHT", s.bm25_weight.to_string()),
        ("minimumRelevanceThreshold", "TSQ_MINIMUM_RELEVANCE_THRESHOLD", s.minimum_relevance_threshold.to_string()),
        ("maxTokenBudget", "TSQ_MAX_TOKEN_BUDGET", s.max_token_budget.to_string()),
        ("maxVectorCandidates", "TSQ_MAX_VECTOR_CANDIDATES", s.max_vector_candidates.to_string()),
        ("topK", "TSQ_TOP_K", s.top_k.to_string()),
        ("callDepth", "TSQ_CALL_DEPTH", s.call_depth.to_string()),
        ("typeDepth", "TSQ_TYPE_DEPTH", s.type_depth.to_string()),
        ("fileRoles", "TSQ_FILE_ROLES", s.ranking.roles.to_string()),
        ("barrels", "TSQ_BARRELS", s.ranking.barrels.to_string()),
        ("usagePrior", "TSQ_USAGE_PRIOR", prior.to_string()),
        ("testLending", "TSQ_TEST_LENDING", s.ranking.test_lending.to_string()),
        ("callLending", "TSQ_CALL_LENDING", s.ranking.call_lending.to_string()),
        ("demoteTypes", "TSQ_DEMOTE_TYPES", (s.ranking.types < 1.0).to_string()),
        ("historyEvidence", "TSQ_HISTORY_EVIDENCE", (s.ranking.history > 0.0).to_string()),
        ("wholeFileEvidence", "TSQ_WHOLE_FILE_EVIDENCE", (s.ranking.whole_files > 0.0).to_string()),
        (
            "share.from",
            "TSQ_SHARE_FROM",
            match &s.share_from {
                Some(f) if !s.share_from_trusted => format!("{f} (named only by the checkout: `tsq serve` does not pull it until you `tsq trust` it)"),
                f => f.clone().unwrap_or_default(),
            },
        ),
        (
            "share.publicKey",
            "TSQ_SHARE_PUBLIC_KEY",
            match (&s.share_public_key, &s.share_untrusted_key) {
                (Some(k), _) => k.clone(),
                (None, Some(k)) => format!("{k} (not trusted: `tsq trust` to use it)"),
                (None, None) => String::new(),
            },
        ),
    ];
    Ok(rows
        .into_iter()
        .map(|(key, env, value)| {
            let source = if std::env::var(env).is_ok_and(|v| !v.trim().is_empty()) {
                format!("env {env}")
            } else if keys.contains_key(key) || key.split_once('.').is_some_and(|(t, k)| keys.get(t).and_then(|t| t.get(k)).is_some()) {
                file.as_ref().map(|p| p.display().to_string()).unwrap_or_default()
            } else {
                "default".to_string()
            };
            Provenance { key, value, source }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_is_argument_file_default_and_bad_keys_are_named() {
        let dir = std::env::temp_dir().join(format!("tsq-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("tsq.toml"), "topK = 7\nrerankWeight = 0.5\n").unwrap();
        let s = Settings::load(&dir, Overrides { top_k: Some(3), ..Default::default() }).unwrap();
        assert_eq!((s.top_k, s.rerank_weight, s.max_token_budget), (3, 0.5, 8000));
        std::fs::write(dir.join("tsq.toml"), "topk = 7\n").unwrap();
        let e = Settings::load(&dir, Overrides::default()).unwrap_err().to_string();
        assert!(e.contains("topk"), "{e}");
        std::fs::write(dir.join("tsq.toml"), "vectorWeight = 1.5\n").unwrap();
        let e = Settings::load(&dir, Overrides::default()).unwrap_err().to_string();
        assert!(e.starts_with("vectorWeight"), "{e}");
        std::fs::write(dir.join("tsq.toml"), "topK = 7\n[share]\nfrom = \"s3://team-bucket/tsq\"\n").unwrap();
        let s = Settings::load(&dir, Overrides::default()).unwrap();
        assert_eq!((s.top_k, s.share_from.as_deref()), (7, Some("s3://team-bucket/tsq")));
        // A key for a step that is no longer an option is named, not ignored.
        std::fs::write(dir.join("tsq.toml"), "callGraph = true\n").unwrap();
        let e = Settings::load(&dir, Overrides::default()).unwrap_err().to_string();
        assert!(e.contains("callGraph"), "{e}");
        std::fs::write(dir.join("tsq.toml"), "usagePrior = \"pagerank\"\n").unwrap();
        let e = Settings::load(&dir, Overrides::default()).unwrap_err().to_string();
        assert!(e.starts_with("usagePrior"), "{e}");
        std::fs::write(dir.join("tsq.toml"), "[share]\nurl = \"s3://x\"\n").unwrap();
        let e = Settings::load(&dir, Overrides::default()).unwrap_err().to_string();
        assert!(e.contains("url"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
