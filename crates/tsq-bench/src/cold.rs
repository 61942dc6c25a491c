//! `tsq bench cold`: a new user's first question on real workspaces. For
//! sampled declarations (files from different projects, functions and
//! methods), the median of fresh processes for `tsq lookup` (bare name),
//! `tsq lookup` (file-qualified) and `tsq inspect`, beside Node running the
//! vendored typescript.js as a tsserver `Session` (open the file, then
//! references, prepareCallHierarchy, incoming and outgoing calls), in the
//! same run; peak RSS of both; the first MCP `tools/call` of a fresh
//! `tsq serve` and warm p50/p95, for those lookups and for full
//! natural-language answers to the search evaluation's questions.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context};

use crate::parse::percentile;
use crate::ExitStatus;

const NODE_SCRIPT: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../benches/node-cold.js"));

/// One sampled declaration.
#[derive(Debug, Clone)]
struct Sample {
    rel: String,
    abs: PathBuf,
    /// Containers then name.
    names: Vec<String>,
    line: u32,
    column: u32,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        f64::NAN
    } else {
        v[v.len() / 2]
    }
}

/// The nearest tsconfig/jsconfig directory above a file: its project.
fn project_dir(file: &Path, root: &Path) -> PathBuf {
    let mut dir = file.parent();
    while let Some(d) = dir {
        if d.join("tsconfig.json").exists() || d.join("jsconfig.json").exists() {
            return d.to_path_buf();
        }
        if d == root {
            break;
        }
        dir = d.parent();
    }
    root.to_path_buf()
}

/// Up to `n` functions and methods, round-robin over projects so files
/// come from different projects; deterministic.
fn sample(root: &Path, n: usize) -> anyhow::Result<Vec<Sample>> {
    let mut by_project: std::collections::BTreeMap<PathBuf, Vec<PathBuf>> = Default::default();
    for f in tsq::source::walk(root).files {
        let s = f.to_string_lossy();
        if s.contains(".d.ts") || s.contains("/__tests__/") || s.contains(".test.") || s.contains(".spec.") || s.contains("/test/") {
            continue;
        }
        by_project.entry(project_dir(&f, root)).or_default().push(f);
    }
    let engine = tsq::parse_pool::ParsePool::new(&Default::default())?;
    let mut out = Vec::new();
    let mut round = 0;
    while out.len() < n && round < 50 {
        let mut progressed = false;
        for files in by_project.values() {
            if out.len() >= n {
                break;
            }
            // The round-th file (spread over the list) of this project.
            let Some(file) = files.get((round * 7919) % files.len().max(1)).filter(|_| round < files.len()) else { continue };
            progressed = true;
            let text = std::fs::read_to_string(file)?;
            let parsed = engine.parse_text(&file.to_string_lossy(), text.clone());
            let want_method = out.len() % 2 == 1;
            let mut pick = None;
            for s in &parsed.symbols {
                if !want_method && s.kind == "function" && !s.name.is_empty() {
                    pick = Some((vec![s.name.clone()], s.span.start));
                    break;
                }
                if want_method && s.kind == "class" {
                    if let Some(m) = s.children.iter().find(|c| c.kind == "method" && c.body_bearing) {
                        pick = Some((vec![s.name.clone(), m.name.clone()], m.span.start));
                        break;
                    }
                }
            }
            let Some((names, start)) = pick.or_else(|| {
                parsed
                    .symbols
                    .iter()
                    .find(|s| matches!(s.kind.as_str(), "function" | "class") && !s.name.is_empty())
                    .map(|s| (vec![s.name.clone()], s.span.start))
            }) else {
                continue;
            };
            // The name's position, past JSDoc and modifiers.
            let name = names.last().unwrap();
            let at = text[start..].match_indices(name.as_str()).map(|(i, _)| start + i).find(|&i| {
                let before = text[..i].chars().next_back();
                !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '.')
            });
            let Some(at) = at else { continue };
            let line = text[..at].matches('\n').count() as u32 + 1;
            let col = text[..at].rsplit('\n').next().map(|l| l.encode_utf16().count()).unwrap_or(0) as u32 + 1;
            let rel = tsq::parse_pool::file_paths(file, root).relative_path;
            out.push(Sample { rel, abs: file.clone(), names, line, column: col });
        }
        if !progressed {
            break;
        }
        round += 1;
    }
    Ok(out)
}

/// Runs a command under GNU time: (wall ms, max RSS KB, stdout).
/// Runs `cmd` under GNU time: (wall ms, peak RSS KB, stdout). A failed
/// `tsq index` is an error (with its last lines of stderr); other commands
/// may exit 1 (nothing found).
fn timed(cmd: &mut Command) -> anyhow::Result<(f64, u64, String)> {
    let rss_file = std::env::temp_dir().join(format!("tsq-bench-cold-rss-{}", std::process::id()));
    let program = cmd.get_program().to_owned();
    let args: Vec<_> = cmd.get_args().map(|a| a.to_owned()).collect();
    let started = Instant::now();
    let out = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&rss_file)
        .arg(&program)
        .args(&args)
        .output()
        .context("running under /usr/bin/time (Debian package `time`)")?;
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let rss = std::fs::read_to_string(&rss_file).ok().and_then(|s| s.lines().last().and_then(|l| l.trim().parse().ok())).unwrap_or(0);
    if !out.status.success() && args.first().is_some_and(|a| a == "index") {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(5).collect();
        bail!("{program:?} failed: {}", tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
    }
    Ok((ms, rss, String::from_utf8_lossy(&out.stdout).into_owned()))
}

struct Side {
    ms: Vec<f64>,
    rss: Vec<f64>,
}

impl Side {
    fn new() -> Side {
        Side { ms: Vec::new(), rss: Vec::new() }
    }
}

fn dir_bytes(p: &Path) -> u64 {
    let Ok(read) = std::fs::read_dir(p) else { return 0 };
    read.flatten().map(|e| if e.path().is_dir() { dir_bytes(&e.path()) } else { e.metadata().map(|m| m.len()).unwrap_or(0) }).sum()
}

/// `tsq index` with structure, timed: (wall s, peak RSS MB, the report).
fn index_timed(tsq: &Path, root: &Path) -> anyhow::Result<(f64, f64, serde_json::Value)> {
    let mut c = Command::new(tsq);
    c.args(["index", "--json", "--root"]).arg(root);
    let (ms, rss, stdout) = timed(&mut c)?;
    let report: serde_json::Value = serde_json::from_str(stdout.trim()).with_context(|| format!("tsq index --json: {stdout}"))?;
    Ok((ms / 1000.0, rss as f64 / 1024.0, report))
}

/// `text` with a statement added to its first body that has a return
/// type (so its file's API hash stays), if it has one.
fn body_edit(text: &str) -> Option<String> {
    let body = text.match_indices(" {\n").map(|(i, _)| i + 3).find(|&i| text[text[..i - 3].rfind('\n').map_or(0, |n| n + 1)..i].contains("): "))?;
    Some(format!("{}  void 0;\n{}", &text[..body], &text[body..]))
}

/// The occurrence pass on `root`, and the time until every answer is
/// fresh after a body-only edit of `edited`, and after an API edit.
fn structure_figures(out: &mut dyn Write, tsq: &Path, root: &Path, edited: &Path) -> anyhow::Result<()> {
    let before = dir_bytes(&root.join(".tsq"));
    let mut c = Command::new(tsq);
    c.args(["index", "--no-structure", "--json", "--root"]).arg(root);
    timed(&mut c)?;
    let chunks_only = dir_bytes(&root.join(".tsq"));
    let (s, rss, report) = index_timed(tsq, root)?;
    let n = report["occurrences"]["indexed"].as_u64().unwrap_or(0);
    let ms = report["occurrences"]["ms"].as_u64().unwrap_or(0) as f64;
    let size = dir_bytes(&root.join(".tsq")) as f64 - chunks_only as f64;
    writeln!(
        out,
        "  occurrence pass: {n} files in {:.1} s ({:.1} files/s; tsq index {s:.1} s in all), peak RSS {rss:.0} MB, index +{:.1} MB (was {:.1} MB)",
        ms / 1000.0,
        n as f64 / (ms / 1000.0).max(0.001),
        size / 1e6,
        before.max(chunks_only) as f64 / 1e6
    )?;
    let text = std::fs::read_to_string(edited)?;
    // A body-only edit (`body_edit`); then an API edit: a comment after
    // the last line. Each is reverted (and synced) before the next.
    let edits = [("body-only edit", body_edit(&text)), ("API edit", Some(format!("{text}\n// tsq bench\n")))];
    for (what, edit) in edits {
        let Some(edit) = edit else {
            writeln!(out, "  {what}: no function with a return type in {}", edited.display())?;
            continue;
        };
        std::fs::write(edited, edit)?;
        // The corpus is restored whatever happened.
        let measured = index_timed(tsq, root);
        std::fs::write(edited, &text)?;
        let (s, _, report) = measured?;
        writeln!(
            out,
            "  after a {what} of {}: {} files re-indexed, every answer fresh again in {s:.1} s",
            edited.display(),
            report["occurrences"]["indexed"].as_u64().unwrap_or(0)
        )?;
        index_timed(tsq, root)?;
    }
    Ok(())
}

pub fn run(names: &[String], samples: usize, runs: usize, mcp: bool, index: bool) -> anyhow::Result<ExitStatus> {
    let names: Vec<String> = if names.is_empty() { ["vue", "trpc", "tanstack", "rxjs"].map(String::from).to_vec() } else { names.to_vec() };
    let mut dirs: Vec<(String, PathBuf)> = Vec::new();
    for n in &names {
        if Path::new(n).is_dir() {
            dirs.push((n.clone(), PathBuf::from(n)));
            continue;
        }
        let out = Command::new("bash").arg("../shared/corpus.sh").arg(n).output().context("running ../shared/corpus.sh")?;
        match String::from_utf8_lossy(&out.stdout).lines().find_map(|l| l.split_once('\t')) {
            Some((_, d)) => dirs.push((n.clone(), PathBuf::from(d))),
            None => eprintln!("bench cold: {n}: not available ({})", String::from_utf8_lossy(&out.stderr).trim()),
        }
    }
    if dirs.is_empty() {
        bail!("no corpus to measure");
    }
    // TSQ_BENCH_BIN measures another build (a "before" binary) with this harness.
    let tsq = crate::tsq_bin()?;
    let tmp = std::env::temp_dir().join(format!("tsq-bench-cold-{}", std::process::id()));
    std::fs::create_dir_all(tmp.join("lib"))?;
    std::fs::write(tmp.join("lib/typescript.js"), tsq::ts::TYPESCRIPT_JS)?;
    for (name, text) in tsq::ts::TS_LIBS {
        std::fs::write(tmp.join("lib").join(name), text)?;
    }
    std::fs::write(tmp.join("node-cold.js"), NODE_SCRIPT)?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "tsq bench cold — fresh processes, median of {runs} per query, {} engine; Node runs the same typescript.js as a tsserver Session",
        crate::parse::backend()
    )?;
    for (name, dir) in &dirs {
        let root = dir.canonicalize()?;
        let picked = sample(&root, samples)?;
        if index {
            // The edits go to the first sampled file that has a body to edit.
            let editable = |s: &&Sample| std::fs::read_to_string(&s.abs).ok().and_then(|t| body_edit(&t)).is_some();
            if let Some(edited) = picked.iter().find(editable).or(picked.first()) {
                writeln!(out, "\n{name}: indexing with structure")?;
                structure_figures(&mut out, &tsq, &root, &edited.abs)?;
            }
        }
        eprintln!(
            "bench cold: {name}: {} declarations from {} files",
            picked.len(),
            picked.iter().map(|s| &s.rel).collect::<std::collections::BTreeSet<_>>().len()
        );
        let (mut bare, mut qualified, mut inspect, mut node) = (Side::new(), Side::new(), Side::new(), Side::new());
        let mut node_warm: Vec<f64> = Vec::new();
        for s in &picked {
            let qual = format!("symbol = {} > {}", s.rel, s.names.join(" > "));
            let bare_q = format!("symbol = {}", s.names.join(" > "));
            let mut per = |side: &mut Side, cmd: &dyn Fn() -> Command| -> anyhow::Result<()> {
                let mut ms = Vec::new();
                let mut rss = Vec::new();
                for _ in 0..runs {
                    let (m, r, stdout) = timed(&mut cmd())?;
                    ms.push(m);
                    rss.push(r as f64);
                    // Node reports its warm repeat of the query.
                    if let Some(w) = serde_json::from_str::<serde_json::Value>(stdout.trim()).ok().and_then(|v| v["warmMs"].as_f64()) {
                        node_warm.push(w);
                    }
                }
                side.ms.push(median(&mut ms));
                side.rss.push(median(&mut rss));
                Ok(())
            };
            let r = root.clone();
            per(&mut bare, &|| {
                let mut c = Command::new(&tsq);
                c.args(["lookup", &bare_q, "--root"]).arg(&r);
                c
            })?;
            per(&mut qualified, &|| {
                let mut c = Command::new(&tsq);
                c.args(["lookup", &qual, "--root"]).arg(&r);
                c
            })?;
            per(&mut inspect, &|| {
                let mut c = Command::new(&tsq);
                c.args(["inspect", &qual, "--root"]).arg(&r);
                c
            })?;
            per(&mut node, &|| {
                let mut c = Command::new("node");
                c.arg(tmp.join("node-cold.js")).arg(tmp.join("lib/typescript.js")).arg(&s.abs).arg(s.line.to_string()).arg(s.column.to_string());
                c
            })?;
            eprintln!(
                "  {qual}: lookup {:.0} / qualified {:.0} / inspect {:.0} / node {:.0} ms",
                bare.ms.last().unwrap(),
                qualified.ms.last().unwrap(),
                inspect.ms.last().unwrap(),
                node.ms.last().unwrap()
            );
        }
        let n_ms = median(&mut node.ms.clone());
        let n_rss = median(&mut node.rss.clone()) / 1024.0;
        writeln!(out, "\n{name} ({} declarations)          median ms   ×node   peak RSS MB   ×node", picked.len())?;
        for (label, side) in [("tsq lookup (bare name)", &bare), ("tsq lookup (file-qualified)", &qualified), ("tsq inspect (file-qualified)", &inspect)] {
            let ms = median(&mut side.ms.clone());
            let rss = median(&mut side.rss.clone()) / 1024.0;
            writeln!(out, "  {label:<30} {ms:>10.0} {:>7.2} {rss:>13.0} {:>7.2}", ms / n_ms, rss / n_rss)?;
        }
        writeln!(out, "  {:<30} {n_ms:>10.0} {:>7} {n_rss:>13.0} {:>7}", "node tsserver (same query)", "1.00", "1.00")?;
        if mcp && !picked.is_empty() {
            let qual = |s: &Sample| format!("symbol = {} > {}", s.rel, s.names.join(" > "));
            let twice: Vec<String> = picked.iter().chain(&picked).map(qual).collect();
            let (first, warm) = serve_latency(&tsq, &root, &qual(&picked[0]), &twice)?;
            writeln!(
                out,
                "  {:<30} {first:>10.0} {:>7.2}\n  {:<30} p50 {:.0} ms, p95 {:.0} ms ({} calls); node tsserver warm p50 {:.0} ms, p95 {:.0} ms; p50 ×node {:.2}",
                "first MCP tools/call",
                first / n_ms,
                "warm MCP tools/call",
                percentile(&warm, 0.5),
                percentile(&warm, 0.95),
                warm.len(),
                percentile(&node_warm, 0.5),
                percentile(&node_warm, 0.95),
                percentile(&warm, 0.5) / percentile(&node_warm, 0.5)
            )?;
        }
        // Full natural-language answers (graph and snapshots, callDepth 1):
        // the evaluation's first questions for this corpus, after the first.
        let questions = eval_questions(name, 8)?;
        if mcp && !questions.is_empty() {
            let (first, warm) = serve_latency(&tsq, &root, &questions[0], &questions)?;
            writeln!(
                out,
                "  {:<30} {first:>10.0}\n  {:<30} p50 {:.0} ms, p95 {:.0} ms ({} questions, full answer, callDepth 1)",
                "first MCP question",
                "warm MCP questions",
                percentile(&warm, 0.5),
                percentile(&warm, 0.95),
                warm.len()
            )?;
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(ExitStatus::Success)
}

/// A fresh `tsq serve`: the time of its first `codebase_search` (which
/// loads the workspace), then of each query in `warm`, in order.
fn serve_latency(tsq: &Path, root: &Path, first: &str, warm: &[String]) -> anyhow::Result<(f64, Vec<f64>)> {
    let mut child = Command::new(tsq).arg("serve").arg("--root").arg(root).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn()?;
    let mut stdin = child.stdin.take().context("stdin")?;
    let mut lines = BufReader::new(child.stdout.take().context("stdout")?).lines();
    let mut call = |id: u64, line: String| -> anyhow::Result<f64> {
        let started = Instant::now();
        writeln!(stdin, "{line}")?;
        stdin.flush()?;
        for l in lines.by_ref() {
            let v: serde_json::Value = serde_json::from_str(&l?)?;
            if v["id"] == id {
                if v["result"]["isError"] == true {
                    eprintln!("bench cold: tool error: {}", v["result"]["content"]);
                }
                return Ok(started.elapsed().as_secs_f64() * 1000.0);
            }
        }
        bail!("tsq serve ended")
    };
    call(0, r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#.into())?;
    let request = |id: u64, q: &str| {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "codebase_search", "arguments": {"query": q}}}).to_string()
    };
    let notified = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string();
    // Notifications have no answer: send it with the first call.
    let first = call(1, format!("{notified}\n{}", request(1, first)))?;
    let mut times = Vec::new();
    for (id, q) in (2..).zip(warm) {
        times.push(call(id, request(id, q))?);
    }
    let _ = child.kill();
    let _ = child.wait();
    Ok((first, times))
}

/// The first natural-language questions of the search evaluation for
/// `name` (a corpus name), tuned and untuned sets alike.
fn eval_questions(name: &str, n: usize) -> anyhow::Result<Vec<String>> {
    Ok(crate::search::eval_queries()?.into_iter().filter(|q| q.repo == name).map(|q| q.query).take(n).collect())
}
