//! `tsq doctor`: is this installation and workspace healthy? The engine and
//! TypeScript versions (and a real parse through the engine), the built-in
//! model (loaded and asked for a vector), the index (its state and schema version), and
//! every setting in force with where it came from. Exit 2 when something
//! the settings need is broken, each problem with its fix.

use std::io::Write;

use serde::Serialize;

use tsq::api::Engine;
use tsq::embed::EmbedderChoice;

use super::ExitStatus;

#[derive(Serialize)]
struct Check {
    name: &'static str,
    ok: bool,
    detail: String,
    /// What to do when it is not ok.
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<String>,
}

/// The one-line version: tsq, TypeScript and the engine.
pub fn version() -> String {
    format!("{} (TypeScript {}, {} engine)", env!("CARGO_PKG_VERSION"), tsq::ts::TYPESCRIPT_VERSION, engine_name())
}

fn engine_name() -> &'static str {
    if cfg!(feature = "v8") {
        "V8"
    } else {
        "QuickJS"
    }
}

pub fn run(engine: &Engine, json: bool) -> anyhow::Result<ExitStatus> {
    let root = engine.root().to_path_buf();
    let mut checks = Vec::new();

    checks.push(engine_check(&root)?);

    // Settings, with their sources.
    let provenance = tsq::config::provenance(&root);
    let settings = engine.settings();
    let embedder = settings.as_ref().map(|s| s.embedder).unwrap_or_default();
    match &provenance {
        Ok(_) => checks.push(Check { name: "settings", ok: true, detail: "valid".into(), fix: None }),
        Err(e) => checks.push(Check {
            name: "settings",
            ok: false,
            detail: e.to_string(),
            fix: Some("correct the key named above in tsq.toml or the TSQ_* environment".into()),
        }),
    }

    checks.extend(embedder_checks(embedder));

    checks.push(index_check(engine, &root));

    let healthy = checks.iter().all(|c| c.ok);
    let mut out = std::io::stdout().lock();
    if json {
        let v = serde_json::json!({ "healthy": healthy, "version": version(), "checks": checks, "settings": provenance.unwrap_or_default() });
        out.write_all(tsq::api::render::pretty(&v).as_bytes())?;
    } else {
        writeln!(out, "tsq {}", version())?;
        for c in &checks {
            writeln!(out, "{} {:<12} {}", if c.ok { "ok " } else { "BAD" }, c.name, c.detail)?;
            if let Some(f) = &c.fix {
                writeln!(out, "    fix: {f}")?;
            }
        }
        if let Ok(p) = &provenance {
            writeln!(out, "settings in force:")?;
            for s in p {
                writeln!(out, "    {:<26} {:<10} ({})", s.key, s.value, s.source)?;
            }
        }
    }
    Ok(if healthy { ExitStatus::Success } else { ExitStatus::Error })
}

/// The JS engine, by parsing a file through it.
fn engine_check(root: &std::path::Path) -> anyhow::Result<Check> {
    let probe = std::env::temp_dir().join(format!("tsq-doctor-{}.ts", std::process::id()));
    std::fs::write(&probe, "export function probe(): number { return 1; }\n")?;
    let mut parsed = None;
    let result = tsq::api::parse_files(std::slice::from_ref(&probe), probe.parent().unwrap_or(root), &mut |r| parsed = Some(r.is_ok()));
    let _ = std::fs::remove_file(&probe);
    let ok = result.is_ok() && parsed == Some(true);
    Ok(Check {
        name: "engine",
        ok,
        detail: format!("{} running TypeScript {} (tsq {})", engine_name(), tsq::ts::TYPESCRIPT_VERSION, env!("CARGO_PKG_VERSION")),
        fix: (!ok).then(|| {
            format!("the engine could not parse a file ({}); rebuild tsq (README, Build from source)", result.err().map(|e| e.to_string()).unwrap_or_default())
        }),
    })
}

/// The local model (built in; loaded and asked for one vector when it is
/// the embedder in force, the default without a key) and Voyage's key.
fn embedder_checks(embedder: EmbedderChoice) -> Vec<Check> {
    let voyage_key = std::env::var("VOYAGE_API_KEY").is_ok_and(|k| !k.trim().is_empty());
    let needs_local = matches!(embedder, EmbedderChoice::Local) || (embedder == EmbedderChoice::Auto && !voyage_key);
    let model = format!("{} ({}d), {}", tsq::embed::local::model_name(), tsq::embed::local::DIMENSION, tsq::embed::local::model_source());
    let answered = needs_local.then(|| {
        use tsq::embed::Embedder;
        tsq::embed::local::LocalEmbedder::load().and_then(|e| e.embed_query("doctor")).map(|v| v.len())
    });
    let (ok, detail) = match answered {
        None => (true, format!("{model}; not used: the embedder is {embedder:?}")),
        Some(Ok(n)) if n == tsq::embed::local::DIMENSION => (true, format!("{model}: loaded and answered (dense layers: {})", tsq::embed::local::kernel())),
        Some(Ok(n)) => (false, format!("{model}: answered with {n} dimensions")),
        Some(Err(e)) => (false, format!("{model}: {e}")),
    };
    let local = Check {
        name: "local model",
        ok,
        detail,
        fix: (!ok).then(|| match std::env::var_os(tsq::embed::local::MODEL_FILE_ENV) {
            Some(_) => format!("unset {} to use the built-in model", tsq::embed::local::MODEL_FILE_ENV),
            None => "this binary's embedded model is damaged: reinstall tsq, or use `embedder = \"none\"` in tsq.toml".into(),
        }),
    };
    let voyage = Check {
        name: "voyage",
        ok: true,
        detail: if voyage_key { "VOYAGE_API_KEY is set (not shown)".into() } else { "VOYAGE_API_KEY is not set: the local embedder answers".into() },
        fix: None,
    };
    vec![local, voyage]
}

/// The index: none yet, its counts, or why it cannot be read.
fn index_check(engine: &Engine, root: &std::path::Path) -> Check {
    match engine.status() {
        Ok(None) => Check { name: "index", ok: true, detail: format!("none yet in {} (the first search or `tsq index` builds it)", root.display()), fix: None },
        Ok(Some(s)) => Check {
            name: "index",
            ok: true,
            detail: format!(
                "{}: schema v{}, {} files, {} chunks, vectors {}/{} ({}), structure {}/{} declarations",
                s.location,
                tsq::index::SCHEMA_VERSION,
                s.files,
                s.chunks,
                s.vectors,
                s.embeddable,
                s.embedder,
                s.structure[0],
                s.structure[1]
            ),
            fix: None,
        },
        Err(e) => Check { name: "index", ok: false, detail: e.to_string(), fix: Some(format!("run `tsq clean --root {}` then `tsq index`", root.display())) },
    }
}
