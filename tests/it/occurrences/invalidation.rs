//! The invalidation rule's scenarios (issue 44): each edit that a weaker
//! rule gets wrong, in a small workspace of its own, compared with a
//! fresh live Language Service after the sync: a heritage change through
//! an unchanged re-export, an extended config, a script that becomes a
//! module, a file created at a failed lookup location, a package.json
//! that resolution read, body-only edits that must move no symbol id, and
//! the narrow program of a fresh process (which augmenters it holds).

use super::differential::{assert_exact, engine};
use super::edit;
use crate::common::TempDir;
use tsq::embed::EmbedderChoice;

/// The config most scenarios use: strict, ES modules, bundler resolution.
const ESNEXT: &str = r#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "esnext", "moduleResolution": "bundler" }, "include": ["*.ts"] }"#;

/// A workspace of `files` (path, text) in a fresh directory.
/// A `tsq index` process over `root`, as a user runs it, with `env` set:
/// its JSON report and its log (`--verbose`).
fn tsq_index(root: &std::path::Path, env: &[(&str, &str)]) -> (serde_json::Value, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tsq"))
        .args(["index", "--embedder", "none", "--json", "--verbose", "--root"])
        .arg(root)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(out.status.success(), "tsq index: {}", String::from_utf8_lossy(&out.stderr));
    (serde_json::from_slice(&out.stdout).unwrap(), String::from_utf8_lossy(&out.stderr).to_string())
}

fn workspace_of(name: &str, files: &[(&str, &str)]) -> TempDir {
    let ws = TempDir::new(name);
    for (rel, text) in files {
        ws.write(rel, text.as_bytes());
    }
    ws
}

/// `z.ts` exporting `make(): number`, and six files `u0.ts`…`u5.ts` that
/// import and call it: a signature edit of `make` cascades to all six.
fn make_and_six_importers(name: &str) -> TempDir {
    make_and_importers(name, 6)
}

fn make_and_importers(name: &str, importers: usize) -> TempDir {
    let mut files: Vec<(String, String)> =
        vec![("tsconfig.json".into(), ESNEXT.into()), ("z.ts".into(), "export function make(): number { return 1; }\n".into())];
    for i in 0..importers {
        files.push((format!("u{i}.ts"), format!("import {{ make }} from './z';\nexport function use{i}() {{ return make(); }}\n")));
    }
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    workspace_of(name, &refs)
}

/// Issue 44's first scenario: a heritage change in `z.ts` reaches
/// `x.ts`'s call through `y.ts`, whose own emit (`export { Svc }`) does
/// not change. TypeScript re-checks every file that imports `z.ts`,
/// transitively; so must the index.
#[test]
fn a_heritage_change_reaches_callers_through_an_unchanged_re_export() {
    let ws = workspace_of(
        "occ-heritage",
        &[
            ("tsconfig.json", ESNEXT),
            (
                "z.ts",
                "export class Base1 { run(): number { return 1; } }\nexport class Base2 { run(): number { return 2; } }\nexport class Svc extends Base1 {}\n",
            ),
            ("y.ts", "import { Svc } from './z';\nexport { Svc };\n"),
            ("x.ts", "import { Svc } from './y';\nexport function go(): number { return new Svc().run(); }\n"),
        ],
    );
    let e = engine(&ws.0);
    assert_exact(&e, &ws.0, 1, 5);
    edit(&ws.0, "z.ts", "class Svc extends Base1", "class Svc extends Base2");
    assert_exact(&e, &ws.0, 1, 5);
    let callers = e.relations("symbol = z.ts > Base2 > run", Some(1), &tsq::progress::silent()).unwrap();
    let text = serde_json::to_string(&callers).unwrap();
    assert!(text.contains("x.ts"), "x.ts calls Base2.run now: {text}");
}

/// The second: the `paths` a project resolves with live in the config it
/// extends; removing them there must change the answers as it changes
/// TypeScript's (the import no longer resolves).
#[test]
fn an_extended_config_is_an_input_of_the_index() {
    let ws = workspace_of(
        "occ-extends",
        &[
            (
                "tsconfig.base.json",
                r#"{ "compilerOptions": { "strict": true, "module": "esnext", "moduleResolution": "bundler", "paths": { "@lib/*": ["./lib/*"] } } }"#,
            ),
            ("tsconfig.json", r#"{ "extends": "./tsconfig.base.json", "include": ["**/*.ts"] }"#),
            ("lib/util.ts", "export function helper(): number { return 1; }\n"),
            ("app.ts", "import { helper } from '@lib/util';\nexport function main(): number { return helper(); }\n"),
        ],
    );
    let e = engine(&ws.0);
    assert_exact(&e, &ws.0, 1, 2);
    let before = serde_json::to_string(&e.relations("symbol = lib/util.ts > helper", Some(1), &tsq::progress::silent()).unwrap()).unwrap();
    assert!(before.contains("app.ts"), "app.ts calls helper through the alias: {before}");
    std::fs::write(ws.0.join("tsconfig.base.json"), r#"{ "compilerOptions": { "strict": true, "module": "esnext", "moduleResolution": "bundler" } }"#).unwrap();
    assert_exact(&e, &ws.0, 1, 2);
    let after = serde_json::to_string(&e.relations("symbol = lib/util.ts > helper", Some(1), &tsq::progress::silent()).unwrap()).unwrap();
    assert!(!after.contains("app.ts"), "the alias no longer resolves: {after}");
}

/// The third: a script's top-level function is global; once the file
/// gains an `export` it is a module, and its former callers no longer
/// reach it. The stored `global` flag is read on both sides of the edit.
#[test]
fn a_script_that_becomes_a_module_loses_its_global_callers() {
    let ws = workspace_of(
        "occ-script-module",
        &[
            ("tsconfig.json", r#"{ "compilerOptions": { "strict": false, "module": "esnext", "moduleResolution": "bundler" }, "include": ["*.ts"] }"#),
            ("globals.ts", "function logEvent(name: string): string { return name; }\n"),
            ("app.ts", "export function start(): string { return logEvent('start'); }\n"),
        ],
    );
    let e = engine(&ws.0);
    assert_exact(&e, &ws.0, 1, 2);
    edit(&ws.0, "globals.ts", "function logEvent", "export function logEvent");
    assert_exact(&e, &ws.0, 1, 2);
    let callers = serde_json::to_string(&e.relations("symbol = globals.ts > logEvent", Some(1), &tsq::progress::silent()).unwrap()).unwrap();
    assert!(!callers.contains("app.ts"), "app.ts no longer reaches the module's function: {callers}");
    // And back: a module that becomes a script again is global again.
    edit(&ws.0, "globals.ts", "export function logEvent", "function logEvent");
    assert_exact(&e, &ws.0, 1, 2);
}

/// Point 3 of issue 44: a created file re-indexes exactly the files
/// whose module resolution failed at its path (TypeScript's
/// `failedLookupLocations`), a relative import and a `paths` alias alike;
/// deleting a file behind an alias re-indexes its importer, and restoring
/// it is found again.
#[test]
fn a_file_created_where_an_import_failed_re_indexes_its_importers_alone() {
    let ws = workspace_of(
        "occ-created",
        &[
            (
                "tsconfig.json",
                r#"{ "compilerOptions": { "strict": false, "module": "esnext", "moduleResolution": "bundler", "baseUrl": ".", "paths": { "@lib/*": ["./lib/*"] } }, "include": ["**/*.ts"] }"#,
            ),
            ("lib/util.ts", "export function helper(): number { return 1; }\n"),
            (
                "app.ts",
                "import { later } from './later';\nimport { helper } from '@lib/util';\nexport function main(): number { return later() + helper(); }\n",
            ),
            ("other.ts", "export function later(): number { return 0; }\nexport const unrelated = later();\n"),
        ],
    );
    let e = engine(&ws.0);
    assert_exact(&e, &ws.0, 1, 3);
    let sync = |what: &str| {
        let r = e.sync_occurrences(&tsq::progress::silent()).unwrap();
        assert!(!r.full, "{what}: not a full re-index");
        r.indexed
    };
    ws.write("later.ts", b"export function later(): number { return 2; }\n");
    assert_eq!(sync("later.ts created"), 2, "later.ts and app.ts, whose import looked there; other.ts mentions `later` but never looked there");
    assert_exact(&e, &ws.0, 1, 3);
    let callers = serde_json::to_string(&e.relations("symbol = later.ts > later", Some(1), &tsq::progress::silent()).unwrap()).unwrap();
    assert!(callers.contains("app.ts"), "app.ts calls the created later(): {callers}");
    std::fs::remove_file(ws.0.join("lib/util.ts")).unwrap();
    assert_eq!(sync("lib/util.ts deleted"), 1, "its importer app.ts");
    assert_exact(&e, &ws.0, 1, 3);
    ws.write("lib/util.ts", b"export function helper(): number { return 1; }\n");
    assert_eq!(sync("lib/util.ts restored"), 2, "lib/util.ts and app.ts, whose alias looked there");
    assert_exact(&e, &ws.0, 1, 3);
    let callers = serde_json::to_string(&e.relations("symbol = lib/util.ts > helper", Some(1), &tsq::progress::silent()).unwrap()).unwrap();
    assert!(callers.contains("app.ts"), "the restored file behind the alias is found: {callers}");
}

/// Point 2 of issue 44: a package.json that module resolution consulted
/// (`affectingLocations`: here a directory import's `types`) is an input
/// of exactly the files that consulted it.
#[test]
fn a_package_json_resolution_read_is_an_input_of_its_importers_alone() {
    let ws = workspace_of(
        "occ-package-json",
        &[
            ("tsconfig.json", r#"{ "compilerOptions": { "strict": true, "module": "esnext", "moduleResolution": "bundler" }, "include": ["**/*.ts"] }"#),
            ("lib/package.json", r#"{ "name": "lib", "types": "./one.ts" }"#),
            ("lib/one.ts", "export function pick(): number { return 1; }\n"),
            ("lib/two.ts", "export function pick(): number { return 2; }\n"),
            ("app.ts", "import { pick } from './lib';\nexport function main(): number { return pick(); }\n"),
            ("other.ts", "export function alone(): number { return 3; }\n"),
        ],
    );
    let e = engine(&ws.0);
    assert_exact(&e, &ws.0, 1, 3);
    let callers = |q: &str| serde_json::to_string(&e.relations(q, Some(1), &tsq::progress::silent()).unwrap()).unwrap();
    assert!(callers("symbol = lib/one.ts > pick").contains("app.ts"));
    std::fs::write(ws.0.join("lib/package.json"), r#"{ "name": "lib", "types": "./two.ts" }"#).unwrap();
    let r = e.sync_occurrences(&tsq::progress::silent()).unwrap();
    assert!(!r.full, "not a full re-index");
    assert_eq!(r.indexed, 1, "app.ts alone consulted lib/package.json");
    assert_exact(&e, &ws.0, 1, 3);
    assert!(callers("symbol = lib/two.ts > pick").contains("app.ts"), "the import now resolves to two.ts");
    assert!(!callers("symbol = lib/one.ts > pick").contains("app.ts"));
    // Nothing changed since: no sync is pending.
    assert_eq!(e.sync_occurrences(&tsq::progress::silent()).unwrap().indexed, 0);
}

/// A pass killed after its last batch and before its last records (the
/// layout marker, the full record of what resolution read): the
/// package.json that an edited file's new import consulted was recorded
/// with the rows that consulted it, so a later edit of that package.json
/// still re-indexes the importer. Before, the record was written only at
/// the end, and the edit went unseen: the rows answered as before it.
#[test]
fn a_pass_killed_before_its_last_records_still_tracks_what_resolution_read() {
    use std::io::BufRead;
    let ws = workspace_of(
        "occ-killed-affecting",
        &[
            ("tsconfig.json", r#"{ "compilerOptions": { "strict": true, "module": "esnext", "moduleResolution": "bundler" }, "include": ["**/*.ts"] }"#),
            ("lib/package.json", r#"{ "name": "lib", "types": "./one.ts" }"#),
            ("lib/one.ts", "export function pick(): number { return 1; }\n"),
            ("lib/two.ts", "export function pick(): number { return 2; }\n"),
            ("app.ts", "export function main(): number { return 0; }\n"),
        ],
    );
    tsq_index(&ws.0, &[]);
    // app.ts now imports the directory: its resolution reads lib/package.json.
    ws.write("app.ts", b"import { pick } from './lib';\nexport function main(): number { return pick(); }\n");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tsq"))
        .args(["index", "--embedder", "none", "--root"])
        .arg(&ws.0)
        .env("TSQ_TEST_PAUSE", "occurrences-finish")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    assert!(stderr.lines().map_while(Result::ok).any(|l| l.contains("paused at occurrences-finish")), "the pass ended before its last records");
    child.kill().unwrap(); // kill -9: the last records are never written
    child.wait().unwrap();
    std::fs::write(ws.0.join("lib/package.json"), r#"{ "name": "lib", "types": "./two.ts" }"#).unwrap();
    let e = engine(&ws.0);
    let r = e.sync_occurrences(&tsq::progress::silent()).unwrap();
    assert_eq!(r.indexed, 1, "app.ts, whose resolution read lib/package.json, is re-indexed: {r:?}");
    let callers = |q: &str| serde_json::to_string(&e.relations(q, Some(1), &tsq::progress::silent()).unwrap()).unwrap();
    assert!(callers("symbol = lib/two.ts > pick").contains("app.ts"), "the import now resolves to two.ts");
    assert!(!callers("symbol = lib/one.ts > pick").contains("app.ts"));
    assert_exact(&e, &ws.0, 1, 3);
}

/// Point 4 of issue 44: a body-only edit that adds a local whose name
/// repeats others' (`x` in several arrow functions, blocks and accessors)
/// changes no symbol id outside the edited body: every definition that
/// was there keeps its id, in the edited file and in its importer, and
/// the importer is not re-indexed.
#[test]
fn a_body_only_edit_adding_a_repeated_local_moves_no_id() {
    let ws = workspace_of(
        "occ-stable-ids",
        &[
            ("tsconfig.json", ESNEXT),
            (
                "a.ts",
                "export function run(items: number[]): number {\n  let total = 0;\n  items.forEach((n) => { const x = n * 2; total += x; });\n  items.forEach((n) => { const x = n + 1; total += x; });\n  if (total > 1) { const x = 1; total += x; } else { const x = 2; total -= x; }\n  return total;\n}\nexport const api = {\n  first: (): number => { const x = 1; return x; },\n  second: (): { y: number } => { const x = 2; return { y: x }; },\n};\nexport class Box {\n  get value(): number { const x = 1; return x; }\n  set value(v: number) { const x = v; void x; }\n}\n[1, 2].map((x) => x + 1);\n",
            ),
            ("b.ts", "import { api, run, Box } from './a';\nexport const y = api.second().y + run([1]) + new Box().value;\n"),
        ],
    );
    let e = engine(&ws.0);
    e.sync_occurrences(&tsq::progress::silent()).unwrap();
    let definitions = |file: &str| -> std::collections::BTreeMap<(u32, u32), String> {
        let index = tsq::index::Index::open(&ws.0, &tsq::index::IndexConfig { embedder: EmbedderChoice::None, ..Default::default() }).unwrap();
        index.occurrences_in(file).unwrap().into_iter().filter(|r| r.role == "definition").map(|r| ((r.line, r.column), r.symbol)).collect()
    };
    let references = |file: &str| -> std::collections::BTreeSet<String> {
        let index = tsq::index::Index::open(&ws.0, &tsq::index::IndexConfig { embedder: EmbedderChoice::None, ..Default::default() }).unwrap();
        index.occurrences_in(file).unwrap().into_iter().map(|r| r.symbol).collect()
    };
    let (before, importer) = (definitions("a.ts"), references("b.ts"));
    let xs = before.values().filter(|id| id.contains("x")).count();
    assert!(xs >= 7, "the fixture repeats `x` in many bodies: {before:?}");
    let ids: std::collections::BTreeSet<&String> = before.values().collect();
    // Every declaration has its own id, but for the accessor pair (one
    // symbol, one id).
    assert_eq!(ids.len() + 1, before.len(), "every declaration has its own id: {before:?}");
    // Each body in turn gains a local `x` (on its own line's end, so no
    // definition moves), then loses it again.
    for (from, to) in [
        ("const x = n * 2; total += x; });", "const x = n * 2; total += x; { const x = 0; void x; } });"),
        ("first: (): number => { const x = 1;", "first: (): number => { const x = 1; { const x = 9; void x; }"),
        ("get value(): number { const x = 1;", "get value(): number { const x = 1; { const x = 3; void x; }"),
    ] {
        edit(&ws.0, "a.ts", from, to);
        let report = e.sync_occurrences(&tsq::progress::silent()).unwrap();
        assert_eq!(report.indexed, 1, "{to}: a body-only edit re-indexes its file alone");
        let after = definitions("a.ts");
        for (at, id) in &before {
            assert_eq!(after.get(at), Some(id), "{to}: the definition at {at:?} kept its id");
        }
        assert_eq!(after.len(), before.len() + 1, "{to}: one new definition");
        assert_eq!(references("b.ts"), importer, "{to}: the importer's rows are unchanged");
        assert_exact(&e, &ws.0, 1, 2);
        edit(&ws.0, "a.ts", to, from);
        e.sync_occurrences(&tsq::progress::silent()).unwrap();
        assert_eq!(definitions("a.ts"), before, "{from}: restored");
    }
}

/// The full answer to `query` of a fresh `tsq serve` engine over `root`
/// that re-indexes at most 3 files before an answer.
fn serve_answer(root: &std::path::Path, query: &str) -> String {
    let serve =
        tsq::api::Engine::open(root, tsq::api::EngineOptions { embedder: Some(EmbedderChoice::None), background: Some(3), ..Default::default() }).unwrap();
    let req = serve.request(tsq::api::QueryInput { query: query.into(), ..Default::default() }).unwrap();
    let tsq::api::Answer::Full(full) = serve.query(&req, &tsq::progress::silent()).unwrap() else { unreachable!("a full answer") };
    full.lookup().text.to_string()
}

/// A cascade is recorded before the rows that queued it are written: a
/// sync that stops early (`tsq serve`'s inline budget here; an edit during
/// the pass or `kill -9` the same way) leaves the importers it did not
/// reach to the next sync, in any process, although their own hashes did
/// not change. The answer meanwhile is computed live and says so.
#[test]
fn a_cascade_left_by_a_sync_is_finished_by_the_next() {
    let ws = make_and_six_importers("occ-deferred");
    engine(&ws.0).sync_occurrences(&tsq::progress::silent()).unwrap();
    edit(&ws.0, "z.ts", "make(): number { return 1; }", "make(): string { return 'one'; }");
    let text = serve_answer(&ws.0, "symbol = z.ts > make");
    let header = text.lines().next().unwrap_or_default();
    assert!(header.contains("structure: the occurrence index is being refreshed in the background (6 files to re-index)"), "{header}");
    assert!(text.contains("u5.ts"), "the live answer has every caller: {text}");
    // The next sync, in another engine (a CLI process), finishes the cascade.
    let next = engine(&ws.0).sync_occurrences(&tsq::progress::silent()).unwrap();
    assert_eq!((next.indexed, next.full), (6, false), "{next:?}");
    assert_eq!(engine(&ws.0).sync_occurrences(&tsq::progress::silent()).unwrap().indexed, 0, "nothing is left");
    assert_exact(&engine(&ws.0), &ws.0, 1, 7);
}

/// A cascade that reaches a global importer re-indexes every file, and
/// it is left to the next sync like any other: `tsq serve` answers the
/// edit at once (live, saying so) instead of re-indexing the workspace
/// first, and what the pass did not reach is recorded, although no hash
/// and no layout input of those files changed.
#[test]
fn a_cascade_turned_full_is_left_to_the_next_sync() {
    let mut files = vec![
        ("tsconfig.json", ESNEXT.to_string()),
        ("size.ts", "export interface Size {\n  w: number;\n}\n".to_string()),
        // A script (TypeScript's rule: it affects the global scope) that names size.ts.
        ("globals.ts", "declare function defineThing(name: string): Thing;\ninterface Thing {\n  size: import('./size').Size;\n}\n".to_string()),
    ];
    let users: Vec<String> = (0..4).map(|i| format!("u{i}.ts")).collect();
    for (i, u) in users.iter().enumerate() {
        files.push((u.as_str(), format!("export function width{i}(): number {{\n  return defineThing('{i}').size.w;\n}}\n")));
    }
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let ws = workspace_of("occ-deferred-full", &refs);
    engine(&ws.0).sync_occurrences(&tsq::progress::silent()).unwrap();
    edit(&ws.0, "size.ts", "  w: number;\n", "  w: number;\n  h?: number;\n");
    let text = serve_answer(&ws.0, "symbol = size.ts > Size");
    let header = text.lines().next().unwrap_or_default();
    assert!(header.contains("structure: the occurrence index is being refreshed in the background (5 files to re-index)"), "{header}");
    // The next sync, in another engine (a CLI process), re-indexes the
    // five files the first one left; then nothing is left.
    let next = engine(&ws.0).sync_occurrences(&tsq::progress::silent()).unwrap();
    assert_eq!(next.indexed, 5, "{next:?}");
    assert_eq!(engine(&ws.0).sync_occurrences(&tsq::progress::silent()).unwrap().indexed, 0, "nothing is left");
    assert_exact(&engine(&ws.0), &ws.0, 1, 6);
    // The same edit in a CLI process is one full pass.
    edit(&ws.0, "size.ts", "  h?: number;\n", "  h?: number;\n  d?: number;\n");
    let cli = engine(&ws.0).sync_occurrences(&tsq::progress::silent()).unwrap();
    assert!(cli.full && cli.indexed == 6 && cli.deferred == 0, "{cli:?}");
    assert_exact(&engine(&ws.0), &ws.0, 1, 6);
}

/// A fresh process's narrow program (the edited file's import closure)
/// holds the augmenters of the modules it holds and no others: a module
/// that augments `store.ts` (`declare module './store'`) is a root when
/// the edited file imports `store.ts`, and left out when it does not; a
/// declaration file that is a plain module is never a root. Each sync is
/// a `tsq index` process, as a user's; the rows stay exact either way.
#[test]
fn a_narrow_program_holds_the_augmenters_of_the_modules_it_holds() {
    let ws = workspace_of(
        "occ-narrow-augmenters",
        &[
            ("tsconfig.json", r#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "esnext", "moduleResolution": "bundler" }, "include": ["*.ts"] }"#),
            ("store.ts", "export interface Options { name: string }\nexport function make(o: Options): string { return o.name; }\n"),
            ("plugin.ts", "import './store';\ndeclare module './store' {\n  interface Options { plugin?: boolean }\n}\nexport const pluginName = 'p';\n"),
            ("user.ts", "import { make, type Options } from './store';\nexport function build(): string {\n  const o: Options = { name: 'a', plugin: true };\n  return make(o);\n}\n"),
            ("other.ts", "export function other(): number {\n  return 1;\n}\n"),
            ("shapes.d.ts", "export interface Shape { x: number }\n"),
        ],
    );
    let e = engine(&ws.0);
    assert_exact(&e, &ws.0, 1, 5);
    // The roots of the narrow program a `tsq index` process built, from its build log.
    let sync = |rel: &str, from: &str, to: &str| -> u64 {
        edit(&ws.0, rel, from, to);
        let (v, log) = tsq_index(&ws.0, &[]);
        assert_eq!(v["occurrences"]["indexed"], 1, "a body-only edit of {rel} re-indexes it alone");
        let line = log.lines().find(|l| l.contains("program built")).unwrap_or_else(|| panic!("no program build logged: {log}"));
        line.split_whitespace().find_map(|w| w.strip_prefix("root_files=")).and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{line}"))
    };
    // user.ts imports store.ts, which plugin.ts augments: both are roots.
    assert_eq!(sync("user.ts", "return make(o);", "void 0;\n  return make(o);"), 2);
    assert_exact(&e, &ws.0, 1, 5);
    let refs = serde_json::to_string(&e.relations("symbol = plugin.ts > Options > plugin", Some(1), &tsq::progress::silent()).unwrap()).unwrap();
    assert!(refs.contains("user.ts"), "user.ts sets the augmented member: {refs}");
    // other.ts imports nothing: plugin.ts and shapes.d.ts stay out.
    assert_eq!(sync("other.ts", "return 1;", "void 0;\n  return 1;"), 1);
    assert_exact(&e, &ws.0, 1, 5);
}

/// A file that two programs hold, where only its owner resolves one of
/// its imports (`ext`, through the owner's `paths` into `node_modules`;
/// the catch-all program holds the file through an import): after a
/// cascade re-indexes it in its owner's program alone, the other
/// program's record of what the file fails to resolve still holds (the
/// file imports the same specifiers), so `tsq inspect` stays on the rows.
/// Found by vue's corpus run: after a rename's cascade, every inspect in
/// `reactivity` went live. One file per batch (`TSQ_OCCURRENCE_BATCH`), so
/// the catch-all program is reported before the owner's batch.
#[test]
fn a_cascade_keeps_what_other_holders_fail_to_resolve() {
    let ws = workspace_of(
        "occ-holders-unresolved",
        &[
            (
                "tsconfig.json",
                r#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "esnext", "moduleResolution": "bundler" }, "include": ["aaa/**/*.ts"] }"#,
            ),
            (
                "app/tsconfig.json",
                r#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "esnext", "moduleResolution": "bundler", "paths": { "ext": ["./node_modules/.ext/index.d.ts"] } }, "include": ["src/**/*.ts"] }"#,
            ),
            ("app/node_modules/.ext/index.d.ts", "export declare const ext: number;\n"),
            ("app/src/g.ts", "export function g(): number {\n  return 1;\n}\n"),
            ("app/src/f.ts", "import { g } from './g';\nimport { ext } from 'ext';\nexport function f() {\n  return [g(), ext];\n}\n"),
            ("aaa/use.ts", "import { f } from '../app/src/f';\nexport const used = f();\n"),
        ],
    );
    let e = engine(&ws.0);
    assert_exact(&e, &ws.0, 1, 3);
    // Not vacuous: the catch-all program fails to resolve `ext` from f.ts.
    let coverage = serde_json::to_string(&e.inspect("symbol = app/src/f.ts > f", Some(1)).unwrap()).unwrap();
    assert!(coverage.contains("ext"), "the coverage names the import the catch-all program fails to resolve: {coverage}");
    // g's API changes: f.ts and use.ts are re-indexed through the cascade.
    edit(&ws.0, "app/src/g.ts", "export function g(): number {\n  return 1;", "export function g(): string {\n  return 'one';");
    let (v, _) = tsq_index(&ws.0, &[("TSQ_OCCURRENCE_BATCH", "1")]);
    assert_eq!((v["occurrences"]["indexed"].as_u64(), v["occurrences"]["cascaded"].as_u64()), (Some(3), Some(2)), "{v}");
    assert_exact(&e, &ws.0, 1, 3);
}

/// Issue 47: the memory bound holds in an incremental pass too. Before,
/// only a full pass had it, so `tsq serve` re-checking the cascade of a
/// signature edit kept one checker holding the types of every importer
/// (2.2-2.7 GB on vue). With a 1 MiB bound, the cascade goes on with fresh
/// checkers at almost every file, and its rows are still a fresh
/// Language Service's.
#[test]
fn a_cascade_under_the_memory_bound_stays_exact() {
    let ws = make_and_six_importers("occ-bounded-cascade");
    tsq_index(&ws.0, &[]);
    edit(&ws.0, "z.ts", "make(): number { return 1; }", "make(): string { return 'one'; }");
    let (report, log) = tsq_index(&ws.0, &[("TSQ_OCCURRENCE_MEMORY_MB", "1")]);
    assert_eq!(report["occurrences"]["full"], false, "{report}");
    assert_eq!(report["occurrences"]["indexed"], 7, "the edited file and its six importers: {report}");
    let fresh = crate::common::fresh_checkers(&log);
    assert!(fresh >= 1, "the bound started no fresh checker in the incremental pass:\n{log}");
    assert_exact(&engine(&ws.0), &ws.0, 1, 7);
}

/// A cascade longer than one request (twelve importers, eight files a
/// request) ends with fresh checkers and a collection before the usage
/// prior and compaction (`Workspace::settle`), and the rows stay exact.
#[test]
fn a_long_cascade_settles_and_stays_exact() {
    let ws = make_and_importers("occ-settled-cascade", 12);
    tsq_index(&ws.0, &[]);
    edit(&ws.0, "z.ts", "make(): number { return 1; }", "make(): string { return 'one'; }");
    let (report, log) = tsq_index(&ws.0, &[]);
    assert_eq!(report["occurrences"]["full"], false, "{report}");
    assert_eq!(report["occurrences"]["indexed"], 13, "the edited file and its twelve importers: {report}");
    assert!(log.contains("settled: fresh checkers after a long incremental pass files=13"), "no settle after the cascade:\n{log}");
    // The settle collects inside its own request (to record the level it
    // leaves, where the next bounded request starts), just before the
    // pass says it settled.
    let at = log.find("settled: fresh checkers").expect("checked above");
    let before_settled = &log[..log[..at].rfind('\n').unwrap_or(0)];
    let last = before_settled.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
    assert!(last.contains("engine heap after a collection"), "the settle did not collect (the line before it: {last}):\n{log}");
    assert_exact(&engine(&ws.0), &ws.0, 1, 13);
    // One file's edit is one request: nothing to settle.
    edit(&ws.0, "u0.ts", "return make();", "return make() + '';");
    let (report, log) = tsq_index(&ws.0, &[]);
    assert_eq!(report["occurrences"]["indexed"], 1, "{report}");
    assert!(!log.contains("settled:"), "a one-request pass settled:\n{log}");
}

/// Declaration files have rows like any source: a name a workspace
/// `.d.ts` declares (vue's `defineProps`; here a global `declare
/// function` and a module's `export declare function`) is answered from
/// the rows, not computed live, while references inside a `.d.ts` stay
/// uncounted as the Language Service's answers count user files only.
/// An edit of a `.d.ts` (a layout input) re-indexes everything, and an
/// API edit of a module a `.d.ts` imports re-indexes it with the other
/// importers; the rows stay exact after each.
#[test]
fn a_declaration_file_is_answered_from_its_rows() {
    use tsq::api::{Answer, QueryInput};
    let ws = workspace_of(
        "occ-dts-rows",
        &[
            ("tsconfig.json", ESNEXT),
            ("globals.d.ts", "declare function defineThing(name: string): Thing;\ninterface Thing {\n  name: string;\n  size: import('./size').Size;\n}\n"),
            (
                "shapes.d.ts",
                "import type { Size } from './size';\nimport type { Dim } from './dim';\nexport interface Shape {\n  x: Dim;\n  size: Size;\n}\nexport declare function makeShape(x: number): Shape;\n",
            ),
            ("dim.ts", "export type Dim = number;\n"),
            // Global for the layout (its reference joins every program
            // holding it), not by TypeScript's builder rule.
            ("refs.ts", "/// <reference lib=\"es2022\" />\nimport type { Dim } from './dim';\nexport const one: Dim = 1;\n"),
            ("size.ts", "export interface Size {\n  w: number;\n  h: number;\n}\nexport function area(s: Size): number {\n  return s.w * s.h;\n}\n"),
            (
                "use.ts",
                "import { makeShape, type Shape } from './shapes';\nimport { area } from './size';\nexport function build(): number {\n  const t = defineThing('a');\n  const s: Shape = makeShape(1);\n  return area(s.size) + t.name.length;\n}\n",
            ),
        ],
    );
    let e = engine(&ws.0);
    let first = e.sync_occurrences(&tsq::progress::silent()).unwrap();
    assert_eq!((first.indexed, first.full), (6, true), "both declaration files have rows: {first:?}");
    assert_exact(&e, &ws.0, 1, 10);
    let header = |q: &str| {
        let req = e.request(QueryInput { query: q.into(), ..Default::default() }).unwrap();
        let Answer::Full(full) = e.query(&req, &tsq::progress::silent()).unwrap() else { unreachable!("a full answer") };
        full.lookup().text.to_string()
    };
    for q in ["symbol = defineThing", "symbol = makeShape", "symbol = Shape"] {
        let text = header(q);
        assert!(text.lines().next().unwrap_or("").contains("structure: from the occurrence index"), "{q}: {text}");
    }
    // `Size` is named in both declaration files and used in use.ts
    // through `s.size` only: its references are size.ts's own use alone.
    let size = serde_json::to_string(&e.relations("symbol = size.ts > Size", Some(1), &tsq::progress::silent()).unwrap()).unwrap();
    assert!(!size.contains("shapes.d.ts") && !size.contains("globals.d.ts"), "references in declaration files are not counted: {size}");

    // The global declaration file changes: everything again, exactly.
    edit(&ws.0, "globals.d.ts", "defineThing(name: string)", "defineThing(name: string, n?: number)");
    let layout = e.sync_occurrences(&tsq::progress::silent()).unwrap();
    assert!(layout.full && layout.indexed == 6, "a .d.ts is a layout input: {layout:?}");
    assert_exact(&e, &ws.0, 1, 10);

    // An API edit of dim.ts, which shapes.d.ts (a module) and refs.ts (a
    // module with a `/// <reference>`) import: dim.ts, both, and use.ts,
    // nothing else.
    edit(&ws.0, "dim.ts", "Dim = number;", "Dim = number | bigint;");
    let module = e.sync_occurrences(&tsq::progress::silent()).unwrap();
    assert_eq!((module.indexed, module.cascaded, module.full), (4, 3, false), "{module:?}");
    assert_exact(&e, &ws.0, 1, 10);

    // An API edit of size.ts: globals.d.ts, a script, names it, so every
    // file is re-indexed (TypeScript's builder re-checks them all).
    edit(&ws.0, "size.ts", "  h: number;\n", "  h: number;\n  d?: number;\n");
    let api = e.sync_occurrences(&tsq::progress::silent()).unwrap();
    assert!(api.full && api.indexed == 6, "a global importer passes the change on to every file: {api:?}");
    assert_exact(&e, &ws.0, 1, 10);
    assert!(header("symbol = makeShape").lines().next().unwrap_or("").contains("structure: from the occurrence index"));

    // other.ts reads `size.w` through the global `Thing` and imports
    // nothing: when `w` moves to a base interface, only the global
    // declaration file that names size.ts connects the two. TypeScript's
    // builder re-checks every file when a file that references a changed
    // one affects the global scope (`handleDtsMayChangeOfGlobalScope`).
    ws.write("other.ts", b"export function widthOf(): number {\n  return defineThing('b').size.w;\n}\n");
    e.sync_occurrences(&tsq::progress::silent()).unwrap();
    assert_exact(&e, &ws.0, 1, 10);
    ws.write("base.ts", b"export interface Base {\n  w: number;\n}\n");
    e.sync_occurrences(&tsq::progress::silent()).unwrap();
    edit(&ws.0, "size.ts", "export interface Size {\n  w: number;\n", "import type { Base } from './base';\nexport interface Size extends Base {\n");
    e.sync_occurrences(&tsq::progress::silent()).unwrap();
    assert_exact(&e, &ws.0, 1, 10);
    let w = serde_json::to_string(&e.relations("symbol = base.ts > Base > w", Some(1), &tsq::progress::silent()).unwrap()).unwrap();
    assert!(w.contains("other.ts"), "other.ts reads Base's w through the global declaration: {w}");
}
