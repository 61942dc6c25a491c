//! `tsq impact` on a two-package git workspace, edited as a user would
//! after `tsq index`: each case's expected answer was checked by hand
//! against the code below, and the affected files of an API change are
//! compared with the live Language Service's find-references.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use common::TempDir;

fn tsq(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tsq")).current_dir(dir).args(args).output().unwrap()
}

fn json(o: &Output) -> Value {
    assert_eq!(o.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

const SHAPES: &str = r#"export interface Shape {
  area(): number;
  name: string;
}

export class Base {
  describe(x: number): string {
    return "b" + x;
  }
}

export class Square extends Base implements Shape {
  name = "square";
  area(): number {
    return 4;
  }
  describe(x: number): string {
    return "s" + x;
  }
}

export function total(shapes: Shape[]): number {
  return shapes.reduce((n, s) => n + s.area(), 0);
}
"#;

const REPORT: &str = r#"import { Base, total } from "./index";

export function report(b: Base): string {
  return b.describe(1);
}

export function sum(): number {
  return total([]);
}

export function outer(): string {
  return report(new Base());
}
"#;

/// Two packages: `core` (a re-exporting index, a vitest test script) and
/// `app`, whose `Circle` implements `core`'s `Shape`. Committed, indexed.
pub(crate) fn workspace(name: &str) -> TempDir {
    let t = TempDir::new(name);
    t.write("packages/core/package.json", br#"{ "name": "core", "scripts": { "test": "vitest run" } }"#);
    t.write(
        "packages/core/tsconfig.json",
        br#"{ "compilerOptions": { "target": "es2020", "module": "esnext", "moduleResolution": "bundler" }, "include": ["src", "test"] }"#,
    );
    t.write("packages/core/src/shapes.ts", SHAPES.as_bytes());
    t.write("packages/core/src/index.ts", b"export * from \"./shapes\";\n");
    t.write("packages/core/src/report.ts", REPORT.as_bytes());
    t.write("packages/core/test/report.test.ts", b"import { outer } from \"../src/report\";\n\nouter();\n");
    t.write("packages/core/test/sum.test.ts", b"import { sum } from \"../src/report\";\n\nsum();\n");
    t.write(
        "packages/app/tsconfig.json",
        br#"{ "compilerOptions": { "target": "es2020", "module": "esnext", "moduleResolution": "bundler" }, "include": ["src"] }"#,
    );
    t.write(
        "packages/app/src/circle.ts",
        b"import { Shape } from \"../../core/src/index\";\n\nexport class Circle implements Shape {\n  name = \"circle\";\n  area(): number {\n    return 3;\n  }\n}\n",
    );
    commit_and_index(&t);
    t
}

/// Commits the workspace as the base and indexes it (`tsq index`).
fn commit_and_index(t: &TempDir) {
    common::git(&t.0, &["init", "-q"]);
    common::git(&t.0, &["add", "-A"]);
    common::git(&t.0, &["commit", "-q", "-m", "base"]);
    let o = tsq(&t.0, &["index", "--embedder", "none", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
}

pub(crate) fn edit(t: &TempDir, rel: &str, from: &str, to: &str) {
    let p = t.0.join(rel);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{rel} holds {from:?}");
    std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
}

/// (change, name) of each changed declaration.
pub(crate) fn changed(v: &Value) -> Vec<(String, String)> {
    v["changed"].as_array().unwrap().iter().map(|c| (c["change"].as_str().unwrap().to_string(), c["name"].as_str().unwrap().to_string())).collect()
}

/// (depth, file, name, why) of each affected declaration, sorted.
pub(crate) fn affected(v: &Value) -> Vec<(u64, String, String, String)> {
    let mut out: Vec<_> = v["affected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["depth"].as_u64().unwrap(),
                a["file"].as_str().unwrap().to_string(),
                a["name"].as_str().unwrap().to_string(),
                a["why"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

fn tests_to_run(v: &Value) -> Vec<String> {
    v["tests"].as_array().unwrap().iter().map(|t| t["file"].as_str().unwrap().to_string()).collect()
}

fn s(x: &str) -> String {
    x.to_string()
}

#[test]
fn a_base_method_changed_behind_a_re_export_reaches_overrides_callers_and_their_tests() {
    let t = workspace("impact-api");
    edit(&t, "packages/core/src/shapes.ts", "  describe(x: number): string {\n    return \"b\"", "  describe(x: number, y = 0): string {\n    return \"b\"");
    let v = json(&tsq(&t.0, &["impact", "--json"]));
    assert_eq!(changed(&v), vec![(s("api"), s("Base.describe"))]);
    let c = &v["changed"][0];
    assert_eq!(c["beforeSignature"], "describe(x: number): string");
    assert_eq!(c["afterSignature"], "describe(x: number, y = 0): string");
    assert_eq!(
        affected(&v),
        vec![
            (1, s("packages/core/src/report.ts"), s("report"), s("calls")),
            // A member's API is its class's: a subclass must stay compatible.
            (1, s("packages/core/src/shapes.ts"), s("Square"), s("extends or implements")),
            (1, s("packages/core/src/shapes.ts"), s("Square.describe"), s("overrides or implements")),
            (2, s("packages/core/src/report.ts"), s("outer"), s("calls")),
        ]
    );
    assert_eq!(tests_to_run(&v), vec![s("packages/core/test/report.test.ts")]);
    assert_eq!(v["commands"], serde_json::json!(["cd packages/core && npx vitest run test/report.test.ts"]));
    // The code shown is the checkout's.
    assert!(v["snapshots"][0]["code"].as_str().unwrap().starts_with("describe(x: number, y = 0): string {"), "{}", v["snapshots"]);

    // Differential: the depth-1 files are the files where the live
    // Language Service finds references to the changed method.
    let engine = tsq::api::Engine::open(&t.0, Default::default()).unwrap();
    let live = engine.inspect_live("symbol = packages/core/src/shapes.ts > Base > describe", Some(1)).unwrap();
    let mut live_files: Vec<String> = live.result.matches[0].references.files.iter().map(|f| f.file_path.clone()).collect();
    live_files.sort();
    let mut ours: Vec<String> = affected(&v).into_iter().filter(|a| a.0 == 1).map(|a| a.1).collect();
    ours.dedup();
    assert_eq!(ours, live_files, "affected at depth 1 against live find-references");

    // The text form says the same.
    let o = tsq(&t.0, &["impact"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("api      packages/core/src/shapes.ts:7-9  Base.describe (method)"), "{text}");
    assert!(text.contains("$ cd packages/core && npx vitest run test/report.test.ts"), "{text}");
}

/// An API change answers from the changed file's fresh rows and its
/// users' rows as they were: their text and imports did not change, so
/// neither did what they reference. Their re-check is left to the next
/// sync, which the next command runs first; that answer is the same.
#[test]
fn an_api_change_answers_before_its_users_are_re_checked_and_the_next_sync_re_checks_them() {
    let t = workspace("impact-deferred");
    edit(&t, "packages/core/src/shapes.ts", "  describe(x: number): string {\n    return \"b\"", "  describe(x: string): string {\n    return \"b\"");
    let notes = |v: &Value| v["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect::<Vec<_>>();
    let first = json(&tsq(&t.0, &["impact", "--json"]));
    assert_eq!(changed(&first), vec![(s("api"), s("Base.describe"))]);
    let left = notes(&first);
    assert!(left.iter().any(|n| n.contains("re-checked after this answer")), "{left:?}");
    let second = json(&tsq(&t.0, &["impact", "--json"]));
    assert!(!notes(&second).iter().any(|n| n.contains("re-checked after this answer")), "{:?}", notes(&second));
    assert_eq!(changed(&second), changed(&first));
    assert_eq!(affected(&second), affected(&first));
    assert!(affected(&first).contains(&(1, s("packages/core/src/report.ts"), s("report"), s("calls"))), "{:?}", affected(&first));
    assert_eq!(tests_to_run(&second), tests_to_run(&first));
}

#[test]
fn a_body_only_edit_reaches_direct_callers_only() {
    let t = workspace("impact-body");
    edit(&t, "packages/core/src/shapes.ts", "n + s.area()", "s.area() + n");
    let v = json(&tsq(&t.0, &["impact", "--json"]));
    assert_eq!(changed(&v), vec![(s("body"), s("total"))]);
    assert_eq!(affected(&v), vec![(1, s("packages/core/src/report.ts"), s("sum"), s("calls"))]);
    assert_eq!(tests_to_run(&v), vec![s("packages/core/test/sum.test.ts")]);
}

#[test]
fn an_interface_member_renamed_reaches_its_users_and_implementers_in_another_package() {
    let t = workspace("impact-rename");
    edit(&t, "packages/core/src/shapes.ts", "  area(): number;\n", "  size(): number;\n");
    let v = json(&tsq(&t.0, &["impact", "--json"]));
    let c = changed(&v);
    assert_eq!(c, vec![(s("renamed"), s("Shape.size"))]);
    assert_eq!(v["changed"][0]["renamedFrom"], "Shape.area");
    let a = affected(&v);
    // `total` called the old member; `Square` and `app`'s `Circle` implement the interface.
    assert!(a.contains(&(1, s("packages/core/src/shapes.ts"), s("total"), s("referenced the removed declaration"))), "{a:?}");
    assert!(a.iter().any(|x| x.1 == "packages/app/src/circle.ts" && x.2 == "Circle" && x.3 == "extends or implements"), "{a:?}");
    assert!(a.iter().any(|x| x.1 == "packages/core/src/shapes.ts" && x.2 == "Square" && x.3 == "extends or implements"), "{a:?}");
}

#[test]
fn an_overload_added_is_an_api_change_of_the_function() {
    let t = workspace("impact-overload");
    edit(
        &t,
        "packages/core/src/shapes.ts",
        "export function total(",
        "export function total(shapes: Shape[], scale: number): number;\nexport function total(shapes: Shape[]): number;\nexport function total(",
    );
    let v = json(&tsq(&t.0, &["impact", "--json"]));
    let c = changed(&v);
    assert!(c.iter().all(|(_, n)| n == "total") && !c.is_empty(), "{c:?}");
    assert!(c.iter().any(|(k, _)| k == "added" || k == "api"), "{c:?}");
    let a = affected(&v);
    assert!(a.contains(&(1, s("packages/core/src/report.ts"), s("sum"), s("calls"))), "{a:?}");
}

#[test]
fn a_config_edit_is_said_aloud_with_what_was_re_checked() {
    let t = workspace("impact-config");
    edit(&t, "packages/core/tsconfig.json", "\"target\": \"es2020\"", "\"target\": \"es2022\"");
    let v = json(&tsq(&t.0, &["impact", "--json"]));
    assert_eq!(v["files"][0]["path"], "packages/core/tsconfig.json");
    let notes = v["notes"].to_string();
    assert!(notes.contains("a configuration changed"), "{notes}");
    assert!(v["changed"].as_array().unwrap().is_empty());
}

#[test]
fn bad_input_is_refused_with_what_to_do() {
    let t = workspace("impact-bad");
    let o = tsq(&t.0, &["impact", "no-such-rev"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown revision `no-such-rev`"), "{}", String::from_utf8_lossy(&o.stderr));
    let o = tsq(&t.0, &["impact", "--output=/tmp/x"]);
    assert_eq!(o.status.code(), Some(2));
    let o = tsq(&t.0, &["impact", "--path", "../.."]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("leaves the workspace"), "{}", String::from_utf8_lossy(&o.stderr));
    // Nothing changed: exit 1.
    let o = tsq(&t.0, &["impact"]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stdout));
    // Not a repository.
    let plain = TempDir::new("impact-plain");
    plain.write("a.ts", b"export const a = 1;\n");
    let o = tsq(&plain.0, &["impact"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not inside a git work tree"), "{}", String::from_utf8_lossy(&o.stderr));
}

/// One package whose `Shape` is augmented from another file, a global
/// `Window` member declared in a module's `declare global`, and an import
/// through a `paths` alias. Committed, indexed.
fn ambient_workspace(name: &str) -> TempDir {
    let t = TempDir::new(name);
    t.write(
        "tsconfig.json",
        br##"{ "compilerOptions": { "target": "es2020", "module": "esnext", "moduleResolution": "bundler", "strict": true, "paths": { "#s": ["./src/shapes.ts"] } }, "include": ["src"] }"##,
    );
    t.write("src/shapes.ts", b"export interface Shape {\n  area(): number;\n}\n\nexport function total(shapes: Shape[]): number {\n  return shapes.reduce((n, s) => n + s.area(), 0);\n}\n");
    t.write("src/augment.ts", b"import \"./shapes\";\n\ndeclare module \"./shapes\" {\n  interface Shape {\n    color?: string;\n  }\n}\n");
    t.write("src/paint.ts", b"import { Shape } from \"./shapes\";\n\nexport function paint(s: Shape): string {\n  return s.color ?? \"none\";\n}\n");
    t.write("src/globals.d.ts", b"declare global {\n  interface Window {\n    tsqFlag: boolean;\n  }\n}\nexport {};\n");
    t.write("src/flag.ts", b"export function flagged(w: Window): boolean {\n  return w.tsqFlag;\n}\n");
    t.write("src/shapes2.ts", b"export function total(xs: number[]): number {\n  return xs.length;\n}\n");
    t.write("src/use.ts", b"import { total } from \"#s\";\n\nexport function useTotal(): number {\n  return total([]);\n}\n");
    commit_and_index(&t);
    t
}

#[test]
fn a_module_augmentation_gaining_a_member_reaches_the_users_of_the_augmented_interface() {
    let t = ambient_workspace("impact-augment");
    edit(&t, "src/augment.ts", "    color?: string;\n", "    color?: string;\n    shade?: number;\n");
    let v = json(&tsq(&t.0, &["impact", "--json"]));
    let c = changed(&v);
    assert!(c.contains(&(s("added"), s("./shapes.Shape.shade"))), "{c:?}");
    let a = affected(&v);
    // The merged interface's users, in both files that name it.
    assert!(a.contains(&(1, s("src/paint.ts"), s("paint"), s("uses the type"))), "{a:?}");
    assert!(a.contains(&(1, s("src/shapes.ts"), s("total"), s("uses the type"))), "{a:?}");
}

#[test]
fn a_declare_global_member_retyped_reaches_its_readers() {
    let t = ambient_workspace("impact-global");
    edit(&t, "src/globals.d.ts", "tsqFlag: boolean;", "tsqFlag: string;");
    let v = json(&tsq(&t.0, &["impact", "--json"]));
    assert_eq!(changed(&v), vec![(s("api"), s("global.Window.tsqFlag"))]);
    assert_eq!(v["changed"][0]["afterSignature"], "tsqFlag: string");
    assert_eq!(affected(&v), vec![(1, s("src/flag.ts"), s("flagged"), s("references"))]);
}

#[test]
fn a_paths_remap_names_the_files_whose_imports_now_resolve_elsewhere() {
    let t = ambient_workspace("impact-paths");
    edit(&t, "tsconfig.json", "./src/shapes.ts", "./src/shapes2.ts");
    let v = json(&tsq(&t.0, &["impact", "--json"]));
    assert!(v["notes"].to_string().contains("a configuration changed"), "{}", v["notes"]);
    let a = affected(&v);
    assert_eq!(a, vec![(1, s("src/use.ts"), s("(top-level code)"), s("its imports now resolve elsewhere"))]);
    assert_eq!(v["affected"][0]["of"], "src/shapes2.ts (was src/shapes.ts)");
}

/// Generated edits (the random-edit kinds of the structure tests) on the
/// random-edit workspaces, each committed and indexed: after each edit,
/// every file where the live Language Service finds a reference to an
/// API-changed declaration is in the answer (affected at depth 1, or
/// itself changed), and every depth-1 dependent the answer gives for a
/// declaration is in a file the live references name.
#[test]
fn generated_edits_affect_exactly_the_live_references() {
    use tsq::impact::{Change, ImpactRequest};
    let repo = common::repo();
    let mut compared = 0;
    for (name, dir, seed) in common::random_edit_workspaces(&repo) {
        let t = TempDir::copy_of(&dir, &format!("impact-gen-{}", name.replace([' ', '/'], "-")));
        common::git(&t.0, &["init", "-q"]);
        common::git(&t.0, &["add", "-A"]);
        common::git(&t.0, &["commit", "-q", "-m", "base"]);
        let engine = tsq::api::Engine::open(&t.0, tsq::api::EngineOptions { embedder: Some(tsq::embed::EmbedderChoice::None), ..Default::default() }).unwrap();
        engine.index(tsq::api::StructureMode::Occurrences, &tsq::progress::silent()).unwrap();
        let mut rng = common::random_edits::Rng(seed);
        for step in 0..30 {
            let kind = (rng.next() % 10) as usize;
            let what = common::random_edits::edit(&t.0, &mut rng, kind, step);
            let a = engine.impact(&ImpactRequest::default(), &tsq::progress::silent()).unwrap();
            let changed_files: std::collections::BTreeSet<&str> = a.changed.iter().map(|c| c.file.as_str()).collect();
            for c in a.changed.iter().filter(|c| c.change == Change::Api) {
                let (parent, member) = c.name.rsplit_once('.').map_or((None, c.name.as_str()), |(p, m)| (Some(p), m));
                let query = match parent {
                    Some(p) => format!("symbol = {} > {} > {member}", c.file, p.replace('.', " > ")),
                    None => format!("symbol = {} > {member}", c.file),
                };
                let Ok(live) = engine.inspect_live(&query, Some(1)) else { continue };
                let Some(m) = live
                    .result
                    .matches
                    .iter()
                    .find(|m| Some(m.symbol.line.unwrap_or(0)) >= c.lines.map(|l| l.0) && Some(m.symbol.line.unwrap_or(0)) <= c.lines.map(|l| l.1))
                else {
                    continue;
                };
                let live_files: std::collections::BTreeSet<&str> = m.references.files.iter().map(|f| f.file_path.as_str()).collect();
                let ours: std::collections::BTreeSet<&str> = a.affected.iter().filter(|x| x.depth == 1).map(|x| x.file.as_str()).collect();
                for f in &live_files {
                    assert!(
                        ours.contains(f) || changed_files.contains(f),
                        "{name} step {step} ({what}): {query} is referenced in {f}, which the answer misses: {a:#?}"
                    );
                }
                for x in a.affected.iter().filter(|x| x.depth == 1 && x.of == c.name && x.why != "extends or implements") {
                    assert!(
                        live_files.contains(x.file.as_str()),
                        "{name} step {step} ({what}): {} in {} depends on {query} by the answer, not by live references {live_files:?} of {} at {:?} ({c:?})",
                        x.name,
                        x.file,
                        m.symbol.kind,
                        m.symbol.line
                    );
                }
                compared += 1;
            }
            // The next edit is compared with this one's tree.
            common::git(&t.0, &["add", "-A"]);
            common::git(&t.0, &["commit", "-q", "--allow-empty", "-m", &format!("step {step}")]);
        }
    }
    assert!(compared >= 10, "only {compared} API changes compared: the generated edits made too few");
}

/// The test files a live walk reaches from `query`'s declaration, over
/// the Language Service's answers alone: from each declaration reached,
/// the test files among its live references; its callers (the live call
/// hierarchy, 10 deep, the most a lookup takes), each reached in turn; and,
/// for a member, its class's live subtypes (a member's API is its class's:
/// a subclass must stay compatible), each reached in turn. In the workspace
/// of `tests_to_run_equal_a_live_reachability_walk` every dependency on a
/// changed declaration is a call, a subclass, or a test's reference, so
/// this is the whole reachability walk.
fn live_tests(engine: &tsq::api::Engine, query: &str) -> std::collections::BTreeSet<String> {
    fn callers(c: &tsq::answer::CallEntry, work: &mut Vec<String>, out: &mut std::collections::BTreeSet<String>) {
        let Some(file) = &c.file_path else { return };
        if is_test(file) {
            out.insert(file.clone());
        }
        if c.kind != "module" && c.kind != "script" {
            work.push(format!("symbol = {file} > {}", c.name.replace('.', " > ")));
        }
        for d in c.incoming_callers.as_deref().unwrap_or_default() {
            callers(d, work, out);
        }
    }
    let mut out = std::collections::BTreeSet::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut work = vec![query.to_string()];
    while let Some(q) = work.pop() {
        if !seen.insert(q.clone()) {
            continue;
        }
        let live = engine.inspect_live(&q, Some(10)).unwrap_or_else(|e| panic!("{q}: {e}"));
        for m in &live.result.matches {
            out.extend(m.references.files.iter().map(|f| f.file_path.clone()).filter(|f| is_test(f)));
            for c in &m.incoming_callers {
                callers(c, &mut work, &mut out);
            }
            for sub in m.type_hierarchy.iter().flat_map(|h| &h.subtypes) {
                if let Some(file) = &sub.file_path {
                    work.push(format!("symbol = {file} > {}", sub.name));
                }
            }
        }
        // A member: its class's subtypes.
        let names: Vec<&str> = q.trim_start_matches("symbol = ").split(" > ").collect();
        if names.len() == 3 {
            let class = format!("symbol = {} > {}", names[0], names[1]);
            let live = engine.inspect_live(&class, Some(0)).unwrap_or_else(|e| panic!("{class}: {e}"));
            for sub in live.result.matches.iter().flat_map(|m| m.type_hierarchy.iter().flat_map(|h| &h.subtypes)) {
                if let Some(file) = &sub.file_path {
                    work.push(format!("symbol = {file} > {}", sub.name));
                }
            }
        }
    }
    out
}

/// A test file, as these workspaces name them.
fn is_test(f: &str) -> bool {
    f.contains(".test.")
}

/// For each API change below (made, answered, then undone), the test
/// files `tsq impact` says to run are exactly those a live walk over the
/// Language Service's references, call hierarchy and type hierarchy
/// reaches from the changed declaration (`live_tests`). Two more tests
/// join the workspace: one references a type only, one calls a method of
/// the subclass.
#[test]
fn tests_to_run_equal_a_live_reachability_walk() {
    let t = workspace("impact-live-tests");
    t.write("packages/core/test/shape.test.ts", b"import type { Shape } from \"../src/index\";\n\nexport const probe: Shape | undefined = undefined;\n");
    t.write(
        "packages/core/test/square.test.ts",
        b"import { Square } from \"../src/shapes\";\n\nfunction check(): number {\n  return new Square().area();\n}\n\ncheck();\n",
    );
    common::git(&t.0, &["add", "-A"]);
    common::git(&t.0, &["commit", "-q", "-m", "two more tests"]);
    let engine = tsq::api::Engine::open(&t.0, tsq::api::EngineOptions { embedder: Some(tsq::embed::EmbedderChoice::None), ..Default::default() }).unwrap();
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "packages/core/src/shapes.ts",
            "  describe(x: number): string {\n    return \"b\"",
            "  describe(x: number, y = 0): string {\n    return \"b\"",
            "symbol = packages/core/src/shapes.ts > Base > describe",
        ),
        (
            "packages/core/src/shapes.ts",
            "export function total(shapes: Shape[]): number {",
            "export function total(shapes: Shape[], k = 1): number {",
            "symbol = packages/core/src/shapes.ts > total",
        ),
        (
            "packages/core/src/report.ts",
            "export function report(b: Base): string {",
            "export function report(b: Base, n = 1): string {",
            "symbol = packages/core/src/report.ts > report",
        ),
        (
            "packages/core/src/shapes.ts",
            "  area(): number {\n    return 4;",
            "  area(k = 1): number {\n    return 4;",
            "symbol = packages/core/src/shapes.ts > Square > area",
        ),
        (
            "packages/core/src/report.ts",
            "export function sum(): number {",
            "export function sum(k = 1): number {",
            "symbol = packages/core/src/report.ts > sum",
        ),
    ];
    let mut nonempty = 0;
    for (file, from, to, query) in cases {
        let before = std::fs::read_to_string(t.0.join(file)).unwrap();
        edit(&t, file, from, to);
        let v = json(&tsq(&t.0, &["impact", "--json"]));
        assert!(!v["changed"].as_array().unwrap().is_empty(), "{query}: nothing changed: {v}");
        let ours: std::collections::BTreeSet<String> = tests_to_run(&v).into_iter().collect();
        let live = live_tests(&engine, query);
        assert_eq!(ours, live, "{query}: tests to run against the live walk; the answer: {v:#}");
        nonempty += usize::from(!live.is_empty());
        std::fs::write(t.0.join(file), before).unwrap();
    }
    // The walk is not vacuous: most cases reach a test.
    assert!(nonempty >= 4, "only {nonempty} cases reach a test");
}

/// An empty workspace with a strict tsconfig over `src`.
fn strict_workspace(name: &str) -> TempDir {
    let t = TempDir::new(name);
    t.write(
        "tsconfig.json",
        br#"{ "compilerOptions": { "target": "es2020", "module": "esnext", "moduleResolution": "bundler", "strict": true }, "include": ["src"] }"#,
    );
    t
}

/// A `/// <reference path>` switched to another declaration file changes
/// the type `read` infers, though no declaration's text changed: the
/// compiler's signatures before and after decide it is an API change, and
/// its caller is affected. A comment added beside it changes nothing.
#[test]
fn a_reference_directive_switched_changes_an_inferred_type() {
    let t = strict_workspace("impact-reference");
    t.write("types/a.d.ts", b"declare const flagA: number;\n");
    t.write("types/b.d.ts", b"declare const flagA: string;\n");
    t.write("src/use.ts", b"/// <reference path=\"../types/a.d.ts\" />\n\nexport function read() {\n  return flagA;\n}\n");
    t.write("src/caller.ts", b"import { read } from \"./use\";\n\nexport function twice() {\n  return read();\n}\n");
    commit_and_index(&t);

    std::fs::write(t.0.join("src/use.ts"), b"/// <reference path=\"../types/a.d.ts\" />\n// a note\n\nexport function read() {\n  return flagA;\n}\n").unwrap();
    let v = json(&tsq(&t.0, &["impact", "--json"]));
    assert_eq!(changed(&v), vec![], "a comment beside the declarations: {v:#}");
    // The base is now the version the rows were synced to.
    common::git(&t.0, &["commit", "-q", "-am", "a note"]);

    std::fs::write(t.0.join("src/use.ts"), b"/// <reference path=\"../types/b.d.ts\" />\n// a note\n\nexport function read() {\n  return flagA;\n}\n").unwrap();
    let v = json(&tsq(&t.0, &["impact", "--json"]));
    assert_eq!(changed(&v), vec![(s("api"), s("read"))], "{v:#}");
    assert_eq!(v["changed"][0]["decidedBy"], "the compiler's signature changed");
    assert_eq!(affected(&v), vec![(1, s("src/caller.ts"), s("twice"), s("calls"))]);
}

/// A package's `types` switched to another declaration file (as `npm
/// install` of another version does): git shows no change, but `read`'s
/// inferred return type moved from `number` to `string`. The sync
/// re-checks `use.ts` for its package.json and compares its compiler
/// signatures before and after: `read` is an API change and its caller is
/// affected. The same edit undone and redone with an unchanged type
/// (another file declaring `number`) changes nothing.
#[test]
fn a_package_types_switch_changes_an_inferred_type_though_git_shows_nothing() {
    let t = strict_workspace("impact-package-types");
    t.write(".gitignore", b"node_modules\n");
    t.write("node_modules/lib/package.json", br#"{ "name": "lib", "version": "1.0.0", "types": "a.d.ts" }"#);
    t.write("node_modules/lib/a.d.ts", b"export declare function pick(): number;\n");
    t.write("node_modules/lib/b.d.ts", b"export declare function pick(): string;\n");
    t.write("node_modules/lib/c.d.ts", b"export declare function pick(): number;\n");
    t.write("src/use.ts", b"import { pick } from \"lib\";\n\nexport function read() {\n  return pick();\n}\n");
    t.write("src/caller.ts", b"import { read } from \"./use\";\n\nexport function twice() {\n  return read();\n}\n");
    commit_and_index(&t);

    t.write("node_modules/lib/package.json", br#"{ "name": "lib", "version": "1.0.1", "types": "c.d.ts" }"#);
    let o = tsq(&t.0, &["impact", "--json"]);
    assert_eq!(o.status.code(), Some(1), "nothing changed: {}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(changed(&v), vec![], "the same type from another file: {v:#}");
    assert!(v["notes"].to_string().contains("node_modules/lib/package.json changed"), "{}", v["notes"]);

    t.write("node_modules/lib/package.json", br#"{ "name": "lib", "version": "2.0.0", "types": "b.d.ts" }"#);
    let v = json(&tsq(&t.0, &["impact", "--json"]));
    assert_eq!(changed(&v), vec![(s("api"), s("read"))], "{v:#}");
    assert_eq!(v["changed"][0]["file"], "src/use.ts");
    assert_eq!(v["changed"][0]["beforeSignature"], "read(): number", "{v:#}");
    assert_eq!(v["changed"][0]["afterSignature"], "read(): string", "{v:#}");
    assert!(v["changed"][0]["decidedBy"].as_str().unwrap().contains("node_modules/lib/package.json"), "{v:#}");
    assert_eq!(affected(&v), vec![(1, s("src/caller.ts"), s("twice"), s("calls"))]);
    assert!(v["notes"].to_string().contains("node_modules/lib/package.json changed"), "{}", v["notes"]);
}

/// In `tsq serve` (an engine with a background worker), a second edit
/// after an API change does not wait for the first one's cascade: the
/// files it left, unchanged since their rows and named by them as before,
/// stay left for the worker, and the answer equals a CLI's, which
/// re-checks them first. Where a pass that could not tell whether the
/// bindings were kept (an answer's inline budget) left them, they are
/// re-checked first.
#[test]
fn a_second_edit_in_serve_leaves_the_first_api_change_cascade_to_the_worker() {
    use tsq::api::{Engine, EngineOptions};
    use tsq::embed::EmbedderChoice;
    let api = ("  describe(x: number): string {\n    return \"b\"", "  describe(x: string): string {\n    return \"b\"");
    let body = ("n + s.area()", "s.area() + n");
    let left = |a: &tsq::impact::ImpactAnswer| a.notes.iter().any(|n| n.contains("re-checked after this answer"));
    let req = tsq::impact::ImpactRequest::default();
    let silent = tsq::progress::silent();
    let t = workspace("impact-serve-carry");
    let e = Engine::open(&t.0, EngineOptions { embedder: Some(EmbedderChoice::None), background: Some(32), ..Default::default() }).unwrap();
    edit(&t, "packages/core/src/shapes.ts", api.0, api.1);
    let first = e.impact(&req, &silent).unwrap();
    assert!(left(&first), "the API change leaves its cascade: {:?}", first.notes);
    edit(&t, "packages/core/src/shapes.ts", body.0, body.1);
    let second = e.impact(&req, &silent).unwrap();
    assert!(left(&second), "the first cascade is still left to the worker: {:?}", second.notes);
    let second = serde_json::to_value(&second).unwrap();
    assert_eq!(changed(&second), vec![(s("api"), s("Base.describe")), (s("body"), s("total"))]);
    // A CLI process re-checks what was left, then answers the same.
    let cli = json(&tsq(&t.0, &["--local", "impact", "--json"]));
    assert_eq!(changed(&cli), changed(&second));
    assert_eq!(affected(&cli), affected(&second));
    assert_eq!(tests_to_run(&cli), tests_to_run(&second));

    // The inline budget of an answer (1 file here) leaves an API change's
    // cascade without knowing whether names moved: the next impact
    // re-checks it before answering.
    let t = workspace("impact-serve-budget");
    let e = Engine::open(&t.0, EngineOptions { embedder: Some(EmbedderChoice::None), background: Some(1), ..Default::default() }).unwrap();
    edit(&t, "packages/core/src/shapes.ts", api.0, api.1);
    let req_lookup = e.request(tsq::api::QueryInput { query: "symbol = report".into(), ..Default::default() }).unwrap();
    e.query(&req_lookup, &silent).unwrap();
    edit(&t, "packages/core/src/shapes.ts", body.0, body.1);
    let after = e.impact(&req, &silent).unwrap();
    assert!(!left(&after), "a cascade left by the budget is re-checked first: {:?}", after.notes);
}

/// Whether a changed file keeps every binding is asked of the text its
/// rows came from, not only of the base: after a rename that a command
/// synced and then undid (with an API change), the users' rows name
/// what the renamed text bound, so they are re-checked before the
/// answer, which finds `report`'s call again.
#[test]
fn a_rename_undone_is_compared_with_the_text_the_rows_came_from() {
    let t = workspace("impact-rename-undone");
    let shapes = "packages/core/src/shapes.ts";
    edit(&t, shapes, "  describe(x: number): string {\n    return \"b\"", "  describeX(x: number): string {\n    return \"b\"");
    let o = tsq(&t.0, &["--local", "lookup", "symbol = report"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    edit(&t, shapes, "  describeX(x: number): string {\n    return \"b\"", "  describe(x: string): string {\n    return \"b\"");
    let v = json(&tsq(&t.0, &["--local", "impact", "--json"]));
    assert_eq!(changed(&v), vec![(s("api"), s("Base.describe"))]);
    assert!(affected(&v).contains(&(1, s("packages/core/src/report.ts"), s("report"), s("calls"))), "{:?}", affected(&v));
}
