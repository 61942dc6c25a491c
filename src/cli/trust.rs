//! `tsq trust`: the user records the share key and store a checkout's
//! `tsq.toml` names (or ones given on the command line) in their own
//! config directory (`share::trust`); only then do they count.

use std::io::Write;
use std::path::PathBuf;

use super::ExitStatus;

pub struct TrustArgs {
    pub root: Option<PathBuf>,
    pub public_key: Option<String>,
    pub from: Option<String>,
    pub list: bool,
    pub json: bool,
}

pub fn run(args: TrustArgs) -> anyhow::Result<ExitStatus> {
    let mut out = std::io::stdout().lock();
    if args.list {
        let trusted = tsq::share::trust::load();
        let path = tsq::share::trust::path().map(|p| p.display().to_string()).unwrap_or_default();
        if args.json {
            writeln!(out, "{}", serde_json::json!({ "file": path, "publicKeys": trusted.public_keys, "stores": trusted.stores }))?;
        } else {
            writeln!(out, "{path}")?;
            for k in &trusted.public_keys {
                writeln!(out, "publicKey {k}")?;
            }
            for s in &trusted.stores {
                writeln!(out, "store {s}")?;
            }
        }
        return Ok(ExitStatus::Success);
    }
    let (mut key, mut from) = (args.public_key, args.from);
    if key.is_none() && from.is_none() {
        let root = match args.root {
            Some(r) => r,
            None => std::env::current_dir()?,
        };
        let share = match tsq::config::checkout_share(&root) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("tsq: {e}");
                return Ok(ExitStatus::Error);
            }
        };
        (key, from) = (share.public_key.filter(|k| !k.trim().is_empty()), share.from.filter(|f| !f.trim().is_empty()));
        if key.is_none() && from.is_none() {
            eprintln!(
                "tsq: {} names no [share] publicKey or from in its tsq.toml: nothing to trust. Give them yourself: `tsq trust --public-key <hex> --from <url>`",
                root.display()
            );
            return Ok(ExitStatus::Error);
        }
    }
    let (path, _) = match tsq::share::trust::record(key.as_deref(), from.as_deref()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("tsq: {e}");
            return Ok(ExitStatus::Error);
        }
    };
    if args.json {
        writeln!(out, "{}", serde_json::json!({ "file": path.display().to_string(), "publicKey": key, "store": from }))?;
    } else {
        if let Some(k) = &key {
            writeln!(out, "trusted publicKey {k}: pulls verify indexes against it")?;
        }
        if let Some(f) = &from {
            writeln!(out, "trusted store {f}: `tsq serve` pulls it on start")?;
        }
        writeln!(out, "recorded in {}", path.display())?;
    }
    Ok(ExitStatus::Success)
}
