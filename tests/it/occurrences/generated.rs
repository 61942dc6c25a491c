//! Seeded, generated edits of the kinds that break a rule weaker than
//! TypeScript's own (issue 44): heritage clauses, a type alias that flows
//! through a re-export chain of two files, an inferred return type used
//! two files away, overloads, a script that becomes a module and back,
//! `declare global` and `declare module` augmentations, an extended
//! config's `paths`/`strict`/`lib`, a `.d.ts`, a file created where an
//! import failed to resolve, a file deleted and restored, a declaration
//! moved between files, a file renamed, a body-only edit that adds a
//! local with a repeated name, a project reference added or removed, and
//! a package.json `types` and `exports` changed. Each kind toggles
//! between two states, so any sequence keeps the workspace well-formed.
//! The test that runs them (`generated_edits_of_every_kind_keep_rows_exact`)
//! is here too.

use std::path::Path;

use crate::common::random_edits::Rng;
use crate::common::{self, TempDir};

use super::differential::{differences, engine};

/// The workspace the edits start from: (path, text).
pub const WORKSPACE: &[(&str, &str)] = &[
    (
        "tsconfig.base.json",
        r#"{ "compilerOptions": { "strict": true, "target": "es2022", "lib": ["es2022"], "module": "esnext", "moduleResolution": "bundler", "paths": { "@m/*": ["./src/*"] } } }"#,
    ),
    ("tsconfig.json", r#"{ "extends": "./tsconfig.base.json", "include": ["src/**/*.ts"] }"#),
    // `src/self.ts` imports the package by its own name (`exports`), a
    // directory through its package.json's `types`, and a file of a
    // project that the root config references or not.
    ("package.json", r#"{ "name": "gen", "type": "module", "exports": { "./feat": { "types": "./src/feat-a.ts" } } }"#),
    ("src/feat-a.ts", "export function feat(): number { return 1; }\n"),
    ("src/feat-b.ts", "export function feat(): string { return 'b'; }\n"),
    ("lib/package.json", r#"{ "name": "lib", "types": "./one.ts" }"#),
    ("lib/one.ts", "export function pick(): number { return 1; }\n"),
    ("lib/two.ts", "export function pick(): string { return 'two'; }\n"),
    ("lib2/tsconfig.json", r#"{ "compilerOptions": { "composite": true, "strict": true, "module": "esnext", "moduleResolution": "bundler" }, "include": ["*.ts"] }"#),
    ("lib2/core.ts", "export function core(): number { return 7; }\n"),
    (
        "src/self.ts",
        "import { feat } from 'gen/feat';\nimport { pick } from '../lib';\nimport { core } from '../lib2/core';\nexport function useAll() { return [feat(), pick(), core()]; }\n",
    ),
    (
        "src/z.ts",
        "export class Base1 { run(): number { return 1; } }\nexport class Base2 { run(): number { return 2; } }\nexport class Svc extends Base1 {}\nexport type Id = string;\nexport function make() { return { n: 1 }; }\nexport function over(a: string): string;\nexport function over(a: any) { return a; }\nexport function rows(xs: number[]) {\n  return xs\n    .map((x) => {\n      const y = x + 1;\n      return y;\n    })\n    .map((x) => {\n      const y = x * 2;\n      return y;\n    });\n}\n",
    ),
    ("src/y.ts", "import { Svc, make } from './z';\nexport { Svc };\nexport type { Id } from './z';\nexport const made = () => make();\n"),
    ("src/w.ts", "export * from './y';\n"),
    (
        "src/x.ts",
        "import { Svc, made, type Id } from './w';\nimport { over } from './z';\nimport { late } from './late';\nexport function go(id: Id) { return [new Svc().run(), made().n, over('a'), id, late]; }\n",
    ),
    ("src/globals.ts", "function logEvent(name: string) { return name; }\n"),
    ("src/app.ts", "import { helper } from '@m/util';\nexport function start() { return [logEvent('start'), helper(), ambientThing()]; }\n"),
    ("src/util.ts", "export function helper() { return 1; }\nexport function mover() { return 'moved'; }\n"),
    ("src/util2.ts", "import { mover } from './util';\nexport function useMover() { return mover(); }\n"),
    ("src/ambient.d.ts", "declare function ambientThing(): number;\n"),
    ("src/aug.ts", "import { Base1 } from './z';\nexport function extra(b: Base1) { return b.run(); }\n"),
];

/// The kinds, by name; `apply(kind, …)` makes one edit of that kind.
pub const KINDS: &[&str] = &[
    "heritage clause changed",
    "type alias changed through a re-export chain",
    "inferred return type changed two files away",
    "overload added or removed",
    "script becomes a module or back",
    "declare global added or removed",
    "declare module added or removed",
    "extended config's paths changed",
    "extended config's strict changed",
    "extended config's lib changed",
    ".d.ts edited",
    "file created at a failed lookup location, or deleted",
    "file deleted or restored",
    "declaration moved between files",
    "file renamed or back",
    "body-only edit adding a repeated local",
    "project reference added or removed",
    "package.json types and exports changed",
];

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap_or_default()
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Replaces `a` by `b` in `rel`, or `b` by `a` when `a` is gone.
fn toggle(root: &Path, rel: &str, a: &str, b: &str) {
    let text = read(root, rel);
    let next = if text.contains(a) { text.replacen(a, b, 1) } else { text.replacen(b, a, 1) };
    assert_ne!(text, next, "{rel}: neither {a:?} nor {b:?}");
    write(root, rel, &next);
}

/// Creates `rel` with `text`, or deletes it when it exists.
fn flip_file(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    if p.exists() {
        std::fs::remove_file(p).unwrap();
    } else {
        write(root, rel, text);
    }
}

pub fn write_workspace(root: &Path) {
    for (rel, text) in WORKSPACE {
        write(root, rel, text);
    }
}

/// Makes one edit of kind `kind` (an index into `KINDS`); `rng` varies the
/// body-only edit. Answers the files it touched.
pub fn apply(root: &Path, kind: usize, rng: &mut Rng) -> Vec<String> {
    let touched = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    match kind {
        0 => {
            toggle(root, "src/z.ts", "class Svc extends Base1", "class Svc extends Base2");
            touched(&["src/z.ts"])
        }
        1 => {
            toggle(root, "src/z.ts", "export type Id = string;", "export type Id = number;");
            touched(&["src/z.ts"])
        }
        2 => {
            toggle(root, "src/z.ts", "return { n: 1 };", "return { n: 'one', m: 2 };");
            touched(&["src/z.ts"])
        }
        3 => {
            toggle(
                root,
                "src/z.ts",
                "export function over(a: string): string;\n",
                "export function over(a: string): string;\nexport function over(a: number): number;\n",
            );
            touched(&["src/z.ts"])
        }
        4 => {
            toggle(root, "src/globals.ts", "function logEvent", "export function logEvent");
            touched(&["src/globals.ts"])
        }
        5 => {
            flip_file(root, "src/global-aug.ts", "export {};\ndeclare global {\n  function tsqGlobal(): number;\n}\n");
            let app = read(root, "src/app.ts");
            if root.join("src/global-aug.ts").exists() && !app.contains("tsqGlobal") {
                write(root, "src/app.ts", &format!("{app}export function usesGlobal() {{ return typeof tsqGlobal; }}\n"));
            }
            touched(&["src/global-aug.ts", "src/app.ts"])
        }
        6 => {
            flip_file(root, "src/mod-aug.ts", "export {};\ndeclare module './z' {\n  interface Base1 { extra(): number }\n}\n");
            touched(&["src/mod-aug.ts"])
        }
        7 => {
            // The alias the app imports through goes (another one stays).
            toggle(root, "tsconfig.base.json", r#""paths": { "@m/*": ["./src/*"] }"#, r#""paths": { "@gone/*": ["./src/*"] }"#);
            touched(&["tsconfig.base.json"])
        }
        8 => {
            toggle(root, "tsconfig.base.json", r#""strict": true"#, r#""strict": false"#);
            touched(&["tsconfig.base.json"])
        }
        9 => {
            toggle(root, "tsconfig.base.json", r#""lib": ["es2022"]"#, r#""lib": ["es2022", "dom"]"#);
            touched(&["tsconfig.base.json"])
        }
        10 => {
            toggle(root, "src/ambient.d.ts", "declare function ambientThing(): number;", "declare function ambientThing(): string;");
            touched(&["src/ambient.d.ts"])
        }
        11 => {
            flip_file(root, "src/late.ts", "export const late = 1;\n");
            touched(&["src/late.ts"])
        }
        12 => {
            flip_file(root, "src/util.ts", "export function helper() { return 1; }\nexport function mover() { return 'moved'; }\n");
            touched(&["src/util.ts"])
        }
        13 => {
            // `mover` moves to util2.ts (its importer then declares it) and back.
            let util = read(root, "src/util.ts");
            if util.is_empty() {
                // util.ts is deleted (kind 12): restore first.
                return apply(root, 12, rng);
            }
            if util.contains("export function mover") {
                write(root, "src/util.ts", &util.replacen("export function mover() { return 'moved'; }\n", "", 1));
                write(root, "src/util2.ts", "export function mover() { return 'moved'; }\nexport function useMover() { return mover(); }\n");
            } else {
                write(root, "src/util.ts", &format!("{util}export function mover() {{ return 'moved'; }}\n"));
                write(root, "src/util2.ts", "import { mover } from './util';\nexport function useMover() { return mover(); }\n");
            }
            touched(&["src/util.ts", "src/util2.ts"])
        }
        14 => {
            let (a, b) = (root.join("src/aug.ts"), root.join("src/aug-renamed.ts"));
            if a.exists() {
                std::fs::rename(&a, &b).unwrap();
            } else {
                std::fs::rename(&b, &a).unwrap();
            }
            touched(&["src/aug.ts", "src/aug-renamed.ts"])
        }
        16 => {
            toggle(root, "tsconfig.json", r#""include": ["src/**/*.ts"] }"#, r#""include": ["src/**/*.ts"], "references": [{ "path": "./lib2" }] }"#);
            touched(&["tsconfig.json"])
        }
        17 => {
            toggle(root, "lib/package.json", r#""types": "./one.ts""#, r#""types": "./two.ts""#);
            toggle(root, "package.json", r#""types": "./src/feat-a.ts""#, r#""types": "./src/feat-b.ts""#);
            touched(&["lib/package.json", "package.json"])
        }
        _ => {
            // A local `y` added to (or taken from) the first callback of
            // `rows`, on a line of its own, beside the callbacks' own `y`s.
            let v = rng.next() % 3;
            let z = read(root, "src/z.ts");
            let plain = "    .map((x) => {\n      const y = x + 1;";
            let next = match z.find("    .map((x) => {\n      { const y = ") {
                Some(i) => {
                    let end = i + z[i..].find("\n      const y = x + 1;").unwrap();
                    format!("{}{}", &z[..i + "    .map((x) => {".len()], &z[end..])
                }
                None => z.replacen(plain, &format!("    .map((x) => {{\n      {{ const y = {v}; void y; }}\n      const y = x + 1;"), 1),
            };
            assert_ne!(z, next);
            write(root, "src/z.ts", &next);
            touched(&["src/z.ts"])
        }
    }
}

/// `tsq index --embedder none --json` on `root` in its own process: the
/// occurrence sync's files re-indexed and whether it was a full pass.
fn cli_sync(root: &Path) -> (usize, bool) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tsq")).args(["index", "--embedder", "none", "--json", "--root"]).arg(root).output().unwrap();
    assert!(out.status.success(), "tsq index: {}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let occ = &v["occurrences"];
    (occ["indexed"].as_u64().unwrap() as usize, occ["full"].as_bool().unwrap())
}

/// Issue 44's generated differential test: seeded edits of every kind in
/// `KINDS` (at least 300 per run: `TSQ_GENERATED_EDITS`), each
/// followed by a sync and a comparison of every declaration of the
/// workspace with a fresh live Language Service: references, callers,
/// callees, the full `symbol =` answer and `tsq inspect`; every 25th edit,
/// the index's references and call hierarchy against tsserver under Node
/// as well. Every kind must occur, and the number compared must clear a
/// floor.
#[test]
fn generated_edits_of_every_kind_keep_rows_exact() {
    let edits: usize = std::env::var("TSQ_GENERATED_EDITS").ok().and_then(|v| v.parse().ok()).unwrap_or(300);
    let ws = TempDir::new("occ-generated");
    write_workspace(&ws.0);
    let e = engine(&ws.0);
    e.sync_occurrences(&tsq::progress::silent()).unwrap();
    let mut rng = Rng(0x5eed_0044_0000_0001);
    let (mut failures, mut checked) = (Vec::new(), 0usize);
    let mut seen = vec![0usize; KINDS.len()];
    let (ws_root, mut tsserver_checked) = (ws.0.clone(), 0usize);
    let (mut sync_time, mut compare_time, mut tsserver_time) = Default::default();
    for step in 0..edits {
        // Every kind once in each round of KINDS.len() edits, in a
        // seeded order, so that any run of 300 has every kind many times.
        let round = step / KINDS.len();
        let mut order: Vec<usize> = (0..KINDS.len()).collect();
        let mut r = Rng(0x9e37_79b9 ^ round as u64);
        for i in (1..order.len()).rev() {
            order.swap(i, (r.next() % (i as u64 + 1)) as usize);
        }
        let kind = order[step % KINDS.len()];
        let touched = apply(&ws.0, kind, &mut rng);
        seen[kind] += 1;
        // What the rule re-indexed for this kind (the first time it ran).
        // Every other sync is a `tsq index` process, as a user's CLI runs
        // it: its programs are not built, so a few files are checked in
        // their import closure's program (`Narrow`); the others run in the
        // warm engine, as `tsq serve` does. (A process, not a fresh engine
        // in this one: an isolate's teardown keeps 20-45 MB, which 150
        // fresh engines turned into gigabytes.)
        let started = std::time::Instant::now();
        let (indexed, full) = if step % 2 == 0 { cli_sync(&ws.0) } else { e.sync_occurrences(&tsq::progress::silent()).map(|s| (s.indexed, s.full)).unwrap() };
        sync_time += started.elapsed();
        if seen[kind] == 1 {
            eprintln!("generated kind {:<48} re-indexed {:>2} files{}", KINDS[kind], indexed, if full { " (full)" } else { "" });
        }
        let started = std::time::Instant::now();
        let (n, diffs) = differences(&e, &ws.0, 1);
        compare_time += started.elapsed();
        checked += n;
        // Every declaration of a small workspace is compared; a floor per
        // edit catches a comparison that silently checks nothing.
        assert!(n >= 8, "step {step} ({}): only {n} declarations compared", KINDS[kind]);
        failures.extend(diffs.into_iter().map(|d| format!("step {step}, {} ({touched:?}): {d}", KINDS[kind])));
        // Every 25th edit, the index's answers against tsserver under Node
        // too (references and 1-hop call hierarchy of every function,
        // method and class).
        if step % 25 == 24 {
            let started = std::time::Instant::now();
            let live = tsq::workspace::Workspace::open(&ws_root).unwrap();
            let a = common::tsserver::compare_with(&ws_root, 1, usize::MAX, &live, &|q| {
                let answer = e.inspect(&q.to_string(), Some(1)).unwrap();
                assert!(answer.structure.as_deref().unwrap_or_default().contains("from the occurrence index"), "{q}: {:?}", answer.structure);
                answer.result
            });
            assert!(a.compared >= 8, "step {step}: only {} declarations compared with tsserver", a.compared);
            tsserver_checked += a.compared;
            failures.extend(a.differences.into_iter().map(|d| format!("step {step}, {} (tsserver): {d}", KINDS[kind])));
            tsserver_time += started.elapsed();
        }
    }
    eprintln!("{edits} generated edits, {checked} declarations compared with the live Language Service, {tsserver_checked} with tsserver; per kind: {seen:?}");
    let (sync_time, compare_time, tsserver_time): (std::time::Duration, std::time::Duration, std::time::Duration) = (sync_time, compare_time, tsserver_time);
    eprintln!("time: syncs {sync_time:.1?}, live comparisons {compare_time:.1?}, tsserver {tsserver_time:.1?}");
    if edits >= KINDS.len() {
        assert!(seen.iter().all(|&n| n > 0), "a kind never ran: {seen:?}");
    }
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
}
