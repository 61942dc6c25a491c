//! Every file a program read is an input of the rows (issue 73): one
//! scenario per kind of edit the hand-written rule missed, each in a small
//! workspace of its own, compared with a fresh live Language Service after
//! the sync (`assert_exact`: every field of every declaration's `symbol =`
//! answer, references, call trees and inspect), and each pinning the
//! answer that changed, so that it fails while the edit goes unseen.
//!
//! Each was checked to fail on the rule before this one (see
//! benches/README.md, "Every file the program read is an input").

use super::differential::{assert_exact, differences_among, engine};
use super::edit;
use crate::common::TempDir;
use tsq::api::{Answer, Engine, QueryInput};
use tsq::structure::occurrences::OccurrenceReport;

const BUNDLER: &str = r#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "esnext", "moduleResolution": "bundler", "resolveJsonModule": true, "allowJs": true, "checkJs": true }, "include": ["**/*.ts", "**/*.js"] }"#;

fn workspace_of(name: &str, files: &[(&str, &str)]) -> TempDir {
    let ws = TempDir::new(name);
    for (rel, text) in files {
        ws.write(rel, text.as_bytes());
    }
    ws
}

/// The `symbol =` answer for `q`, from the rows (a fresh sync first).
fn answer(e: &Engine, q: &str) -> String {
    let req = e.request(QueryInput { query: q.into(), ..Default::default() }).unwrap();
    let Answer::Full(full) = e.query(&req, &tsq::progress::silent()).unwrap() else { panic!("{q}: a full answer") };
    let rows = full.lookup();
    assert!(rows.text.contains("structure: from the occurrence index"), "{q} answered from the rows: {}", rows.text);
    rows.text.clone()
}

/// `assert_exact` for every declaration but `except` (query, why): a
/// difference between the rows and the live Language Service that holds
/// before any edit, which this file does not test.
fn assert_exact_except(e: &Engine, root: &std::path::Path, at_least: usize, except: &[(&str, &str)]) {
    let (checked, diffs) = differences_among(e, root, 1, &mut |all| all.into_iter().filter(|q| !except.iter().any(|(x, _)| x == q)).collect());
    assert!(checked >= at_least, "{checked} declarations checked, fewer than {at_least}");
    assert!(diffs.is_empty(), "{} differences:\n{}", diffs.len(), diffs.join("\n"));
}

fn sync(e: &Engine) -> OccurrenceReport {
    e.sync_occurrences(&tsq::progress::silent()).unwrap()
}

/// The report names `input` under `rule`, with at least one file re-checked.
fn reported(r: &OccurrenceReport, input: &str, rule: &str) {
    assert!(r.inputs.iter().any(|c| c.input == input && c.rule == rule && c.rechecked > 0), "the sync report lists {input} ({rule}): {:?}", r.inputs);
}

/// A package.json created where a directory import's lookup failed
/// (`./lib` has no index file): the import now resolves through its
/// `types`. The walk never lists a package.json, so only the directory's
/// change finds it.
#[test]
fn a_package_json_created_where_a_directory_import_failed() {
    let ws = workspace_of(
        "inputs-created-package-json",
        &[
            ("tsconfig.json", BUNDLER),
            ("lib/one.ts", "export function pick(): number { return 1; }\n"),
            ("app.ts", "import { pick } from './lib';\nexport function main() { return pick(); }\n"),
        ],
    );
    let e = engine(&ws.0);
    assert_exact(&e, &ws.0, 1, 1);
    assert!(!answer(&e, "symbol = app.ts > main").contains("main(): number"), "the import does not resolve yet");
    ws.write("lib/package.json", br#"{ "name": "lib", "types": "./one.ts" }"#);
    let r = sync(&e);
    reported(&r, "lib", "a failed lookup answers now");
    assert!(answer(&e, "symbol = app.ts > main").contains("main(): number"), "the import resolves through the created package.json");
    assert_exact(&e, &ws.0, 1, 2);
}

/// A package's `types` changed behind `export * from "./lib"`: the
/// re-exporter's own emit is the same text, yet its importers' answers
/// change; in a TS and in a JS re-exporter.
#[test]
fn a_package_types_change_behind_a_re_export_reaches_its_importers() {
    for (re, name) in [("re.ts", "ts"), ("re.js", "js")] {
        let ws = workspace_of(
            &format!("inputs-types-behind-reexport-{name}"),
            &[
                ("tsconfig.json", BUNDLER),
                ("lib/package.json", r#"{ "name": "lib", "types": "./one.ts" }"#),
                ("lib/one.ts", "export function pick(): number { return 1; }\n"),
                ("lib/two.ts", "export function pick(): string { return 'two'; }\n"),
                (re, "export * from './lib';\n"),
                ("app.ts", "import { pick } from './re';\nexport function main() { return pick(); }\n"),
            ],
        );
        let e = engine(&ws.0);
        assert_exact(&e, &ws.0, 1, 3);
        assert!(answer(&e, "symbol = app.ts > main").contains("main(): number"));
        std::fs::write(ws.0.join("lib/package.json"), r#"{ "name": "lib", "types": "./two.ts" }"#).unwrap();
        let r = sync(&e);
        reported(&r, "lib/package.json", "read by module resolution");
        assert!(answer(&e, "symbol = app.ts > main").contains("main(): string"), "{re}: app.ts follows the package's new types");
        assert_exact(&e, &ws.0, 1, 3);
    }
}

/// A created `x.ts` shadows `x/index.ts` behind a re-export: `./x` now
/// resolves to the new file, and the re-exporter's importers follow,
/// whatever the order of their paths.
#[test]
fn a_created_file_shadowing_an_index_behind_a_re_export() {
    let ws = workspace_of(
        "inputs-shadowing-index",
        &[
            ("tsconfig.json", BUNDLER),
            ("x/index.ts", "export function make(): number { return 1; }\n"),
            ("b-re.ts", "export * from './x';\n"),
            ("a-app.ts", "import { make } from './b-re';\nexport function main() { return make(); }\n"),
            // The same chain with paths after `x.ts`.
            ("y-re.ts", "export * from './x';\n"),
            ("z-app.ts", "import { make } from './y-re';\nexport function late() { return make(); }\n"),
        ],
    );
    let e = engine(&ws.0);
    assert_exact(&e, &ws.0, 1, 3);
    ws.write("x.ts", b"export function make(): string { return 'x'; }\n");
    let r = sync(&e);
    reported(&r, "x.ts", "created at a failed lookup");
    assert!(answer(&e, "symbol = a-app.ts > main").contains("main(): string"), "a-app.ts follows the shadowing file");
    assert!(answer(&e, "symbol = z-app.ts > late").contains("late(): string"), "z-app.ts follows the shadowing file");
    assert_exact(&e, &ws.0, 1, 4);
}

/// A module augmentation depends on its target as an import does
/// (TypeScript's builder counts it as a reference): the target's types
/// changing, and the target module created after the augmentation.
#[test]
fn a_module_augmentation_follows_its_target() {
    let ws = workspace_of(
        "inputs-augmentation",
        &[
            ("tsconfig.json", BUNDLER),
            ("target.ts", "export type Extra = number;\nexport interface T { a: number }\n"),
            // `Extra` is the target's own: the augmentation imports nothing.
            ("aug.ts", "declare module './target' { interface T { extra: Extra } }\nexport {};\n"),
            ("late-aug.ts", "declare module './later' { interface L { added: number } }\nexport {};\n"),
            ("use.ts", "import type { T } from './target';\nexport function get(t: T) { return t.extra; }\n"),
        ],
    );
    let e = engine(&ws.0);
    assert_exact(&e, &ws.0, 1, 3);
    edit(&ws.0, "target.ts", "Extra = number", "Extra = string");
    sync(&e);
    assert!(answer(&e, "symbol = use.ts > get").contains("get(t: T): string"), "the augmented member's type follows the target");
    assert_exact(&e, &ws.0, 1, 3);
    ws.write("later.ts", b"export interface L { own: number }\nexport function build(l: L) { return l.added; }\n");
    let r = sync(&e);
    reported(&r, "later.ts", "created at a failed lookup");
    assert!(answer(&e, "symbol = later.ts > build").contains("build(l: L): number"), "the created target sees its augmentation");
    assert_exact(&e, &ws.0, 1, 4);
}

/// Triple-slash directives: the declaration emit drops them, yet they
/// change what every program holding the file declares. A `/// <reference
/// path>` switched to another script, and a `/// <reference lib>` added.
#[test]
fn triple_slash_directives_switched_or_added() {
    let ws = workspace_of(
        "inputs-triple-slash",
        &[
            (
                "tsconfig.json",
                r#"{ "compilerOptions": { "strict": true, "target": "es2015", "lib": ["es2015"], "module": "esnext", "moduleResolution": "bundler" }, "files": ["ref.ts", "main.ts", "text.ts", "util.ts"] }"#,
            ),
            // Outside the walk: each is read only while referenced.
            (".gitignore", "globals/\n"),
            ("globals/one.ts", "declare const globalCfg: { n: number };\n"),
            ("globals/two.ts", "declare const globalCfg: { n: string };\n"),
            ("ref.ts", "/// <reference path=\"./globals/one.ts\" />\nexport const marker = 1;\n"),
            ("main.ts", "export function run() { return globalCfg.n; }\n"),
            ("util.ts", "export const unit = 1;\n"),
            ("text.ts", "export function all(s: string) { return s.replaceAll('a', 'b'); }\n"),
        ],
    );
    let e = engine(&ws.0);
    assert_exact(&e, &ws.0, 1, 3);
    assert!(answer(&e, "symbol = main.ts > run").contains("run(): number"));
    edit(&ws.0, "ref.ts", "./globals/one.ts", "./globals/two.ts");
    let r = sync(&e);
    assert!(r.full, "a global file's directive changed: everything again ({r:?})");
    assert!(answer(&e, "symbol = main.ts > run").contains("run(): string"), "the switched reference declares another globalCfg");
    assert_exact(&e, &ws.0, 1, 3);
    assert!(!answer(&e, "symbol = text.ts > all").contains("all(s: string): string"), "replaceAll is not in es2015");
    edit(&ws.0, "util.ts", "export const unit", "/// <reference lib=\"es2021.string\" />\nexport const unit");
    sync(&e);
    assert!(answer(&e, "symbol = text.ts > all").contains("all(s: string): string"), "the added lib declares replaceAll");
    assert_exact(&e, &ws.0, 1, 3);
}

/// A JSON module (`resolveJsonModule`) is an input of its importers: a
/// value's type follows the file.
#[test]
fn a_json_module_value_changes_a_type() {
    let ws = workspace_of(
        "inputs-json",
        &[
            ("tsconfig.json", BUNDLER),
            ("data.json", r#"{ "limit": 1 }"#),
            ("main.ts", "import data from './data.json';\nexport function limit() { return data.limit; }\n"),
        ],
    );
    let e = engine(&ws.0);
    assert_exact(&e, &ws.0, 1, 1);
    assert!(answer(&e, "symbol = main.ts > limit").contains("limit(): number"));
    std::fs::write(ws.0.join("data.json"), r#"{ "limit": "none" }"#).unwrap();
    let r = sync(&e);
    reported(&r, "data.json", "referenced (TypeScript's builder)");
    assert!(answer(&e, "symbol = main.ts > limit").contains("limit(): string"));
    assert_exact(&e, &ws.0, 1, 1);
}

/// A generated source the walk skips (`.gitignore`d) but a walked file
/// imports: the compiler reads it, so it is an input. (An answer that
/// names one of its declarations, a callee or a linked type, is computed
/// live: that file has no rows. `load` only reads a value's type.)
#[test]
fn an_ignored_generated_source_that_a_walked_file_imports() {
    let ws = workspace_of(
        "inputs-ignored",
        &[
            ("tsconfig.json", BUNDLER),
            (".gitignore", "gen/\n"),
            ("gen/api.ts", "export const limit: number = 1;\n"),
            ("main.ts", "import { limit } from './gen/api';\nexport function load() { return limit; }\n"),
        ],
    );
    let e = engine(&ws.0);
    assert_exact(&e, &ws.0, 1, 1);
    assert!(answer(&e, "symbol = main.ts > load").contains("load(): number"));
    std::fs::write(ws.0.join("gen/api.ts"), "export const limit: string = 'none';\n").unwrap();
    let r = sync(&e);
    reported(&r, "gen/api.ts", "referenced (TypeScript's builder)");
    assert!(answer(&e, "symbol = main.ts > load").contains("load(): string"));
    assert_exact(&e, &ws.0, 1, 1);
}

/// A package's declaration file under `node_modules` rewritten with its
/// package.json unchanged, then the package replaced whole as `npm
/// install` of another version does (a new directory, a new package.json,
/// a declaration file reached through `export *`).
#[test]
fn a_node_modules_declaration_rewritten_and_a_package_reinstalled() {
    let ws = workspace_of(
        "inputs-node-modules",
        &[
            ("tsconfig.json", BUNDLER),
            ("node_modules/pkg/package.json", r#"{ "name": "pkg", "version": "1.0.0", "types": "./index.d.ts" }"#),
            ("node_modules/pkg/index.d.ts", "export * from './lib';\n"),
            ("node_modules/pkg/lib.d.ts", "export declare function pickValue(): number;\n"),
            ("main.ts", "import { pickValue } from 'pkg';\nexport function usePick() { return pickValue(); }\n"),
        ],
    );
    let e = engine(&ws.0);
    assert_exact(&e, &ws.0, 1, 1);
    assert!(answer(&e, "symbol = main.ts > usePick").contains("usePick(): number"));
    std::fs::write(ws.0.join("node_modules/pkg/lib.d.ts"), "export declare function pickValue(): string;\n").unwrap();
    let r = sync(&e);
    reported(&r, "node_modules/pkg/lib.d.ts", "referenced (TypeScript's builder)");
    assert!(answer(&e, "symbol = main.ts > usePick").contains("usePick(): string"), "the rewritten declaration is read");
    assert_exact(&e, &ws.0, 1, 1);
    // `npm install pkg@2`: the directory is replaced.
    std::fs::remove_dir_all(ws.0.join("node_modules/pkg")).unwrap();
    ws.write("node_modules/pkg/package.json", br#"{ "name": "pkg", "version": "2.0.0", "types": "./dist/types.d.ts" }"#);
    ws.write("node_modules/pkg/dist/types.d.ts", b"export declare function pickValue(): boolean;\n");
    sync(&e);
    assert!(answer(&e, "symbol = main.ts > usePick").contains("usePick(): boolean"), "the reinstalled package is read");
    assert_exact(&e, &ws.0, 1, 1);
    // A package installed where a bare import failed.
    edit(
        &ws.0,
        "main.ts",
        "export function usePick",
        "import { later } from 'later-pkg';\nexport function useLater() { return later(); }\nexport function usePick",
    );
    sync(&e);
    assert!(!answer(&e, "symbol = main.ts > useLater").contains("useLater(): number"));
    ws.write("node_modules/later-pkg/package.json", br#"{ "name": "later-pkg", "types": "./index.d.ts" }"#);
    ws.write("node_modules/later-pkg/index.d.ts", b"export declare function later(): number;\n");
    let r = sync(&e);
    reported(&r, "node_modules/later-pkg", "a failed lookup answers now");
    assert!(answer(&e, "symbol = main.ts > useLater").contains("useLater(): number"), "the installed package resolves");
    assert_exact(&e, &ws.0, 1, 2);
}

/// A private method's return type, used from another file through an
/// element access (`s["secret"]()`): the declaration emit prints
/// `private secret;` without a type, so TypeScript's builder signature
/// misses the change. tsq's API text adds private members' types.
#[test]
fn a_private_member_used_through_an_element_access() {
    let ws = workspace_of(
        "inputs-private",
        &[
            ("tsconfig.json", BUNDLER),
            ("s.ts", "export class S {\n  private secret() {\n    return 1;\n  }\n}\n"),
            ("u.ts", "import { S } from './s';\nexport function reveal(s: S) { return s['secret'](); }\n"),
        ],
    );
    // Find-references searches a private member inside its class alone;
    // the rows record the element access in u.ts too (and `reveal` as its
    // caller), before any edit as after.
    let except = [("symbol = s.ts > S > secret", "a private member used outside its class")];
    let e = engine(&ws.0);
    assert_exact_except(&e, &ws.0, 1, &except);
    assert!(answer(&e, "symbol = u.ts > reveal").contains("reveal(s: S): number"));
    edit(&ws.0, "s.ts", "return 1;", "return 'one';");
    sync(&e);
    assert!(answer(&e, "symbol = u.ts > reveal").contains("reveal(s: S): string"), "the importer follows the private member's type");
    assert_exact_except(&e, &ws.0, 1, &except);
}

/// A type exposed by an ambient `declare module "virtual"` gains a
/// member: its users resolve the module to no file, yet TypeScript's
/// builder links them to the declaring file through the module symbol;
/// declared in a workspace script, and in an automatic type package.
#[test]
fn an_ambient_module_gains_a_member() {
    let ws = workspace_of(
        "inputs-ambient-types",
        &[
            ("tsconfig.json", BUNDLER),
            ("node_modules/@types/virtual/index.d.ts", "declare module 'virtual' {\n  export interface V { a: number }\n}\n"),
            ("main.ts", "import type { V } from 'virtual';\nexport function read(v: V) { return v.a; }\n"),
        ],
    );
    let e = engine(&ws.0);
    assert_exact(&e, &ws.0, 1, 1);
    assert!(answer(&e, "symbol = main.ts > read").contains("read(v: V): number"));
    edit(&ws.0, "node_modules/@types/virtual/index.d.ts", "a: number", "a: string; b: number");
    let r = sync(&e);
    reported(&r, "node_modules/@types/virtual/index.d.ts", "referenced (TypeScript's builder)");
    assert!(answer(&e, "symbol = main.ts > read").contains("read(v: V): string"));
    assert_exact(&e, &ws.0, 1, 1);
}

/// As `an_ambient_module_gains_a_member`, declared in a workspace script.
#[test]
fn an_ambient_module_of_a_workspace_script_gains_a_member() {
    let ws = workspace_of(
        "inputs-ambient",
        &[
            ("tsconfig.json", BUNDLER),
            ("virtual.ts", "declare module 'virtual' {\n  export interface V { a: number }\n}\n"),
            ("main.ts", "import type { V } from 'virtual';\nexport function read(v: V) { return v.a; }\n"),
        ],
    );
    let e = engine(&ws.0);
    assert_exact(&e, &ws.0, 1, 1);
    assert!(answer(&e, "symbol = main.ts > read").contains("read(v: V): number"));
    edit(&ws.0, "virtual.ts", "a: number", "a: string; b: number");
    sync(&e);
    assert!(answer(&e, "symbol = main.ts > read").contains("read(v: V): string"));
    assert_exact(&e, &ws.0, 1, 1);
}

/// Nothing changed: a second sync re-checks nothing and reports no input
/// (the record of inputs is written whole after a sync that moved one).
#[test]
fn an_unchanged_workspace_reports_no_input() {
    let ws = workspace_of(
        "inputs-noop",
        &[
            ("tsconfig.json", BUNDLER),
            ("node_modules/pkg/package.json", r#"{ "name": "pkg", "types": "./index.d.ts" }"#),
            ("node_modules/pkg/index.d.ts", "export declare function pickValue(): number;\n"),
            ("data.json", r#"{ "limit": 1 }"#),
            ("main.ts", "import { pickValue } from 'pkg';\nimport data from './data.json';\nexport function both() { return pickValue() + data.limit; }\n"),
        ],
    );
    let e = engine(&ws.0);
    sync(&e);
    let r = sync(&e);
    assert_eq!((r.indexed, r.inputs.len()), (0, 0), "nothing to do: {r:?}");
    // A touch changes the time, not the text: nothing is re-checked.
    let f = std::fs::File::options().append(true).open(ws.0.join("node_modules/pkg/index.d.ts")).unwrap();
    f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5)).unwrap();
    let r = sync(&e);
    assert_eq!(r.indexed, 0, "a touched input with the same text re-checks nothing: {r:?}");
    assert_exact(&e, &ws.0, 1, 1);
}
