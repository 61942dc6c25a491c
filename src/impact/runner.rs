//! The command that runs the tests to run, read from the nearest
//! package.json of each test file (its `test` script and dependencies):
//! vitest, jest, mocha or `node --test`. Never guessed: a package whose
//! runner cannot be read gets no command, and the answer says so.

use std::collections::BTreeMap;
use std::path::Path;

/// A runner tsq knows how to name files for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Runner {
    Vitest,
    Jest,
    Mocha,
    NodeTest,
}

impl Runner {
    fn command(self, files: &[String]) -> String {
        let files = files.iter().map(|f| quote(f)).collect::<Vec<_>>().join(" ");
        match self {
            Runner::Vitest => format!("npx vitest run {files}"),
            Runner::Jest => format!("npx jest {files}"),
            Runner::Mocha => format!("npx mocha {files}"),
            Runner::NodeTest => format!("node --test {files}"),
        }
    }
}

/// A path as one shell word.
fn quote(s: &str) -> String {
    if s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-@+".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The runner a package.json names: its `test` script first, then its
/// dependencies (one runner only; two or more is not a guess tsq makes).
fn runner_of(package_json: &str) -> Option<Runner> {
    let v: serde_json::Value = serde_json::from_str(package_json).ok()?;
    let script = v.pointer("/scripts/test").and_then(|s| s.as_str()).unwrap_or("");
    let words: Vec<&str> = script.split(|c: char| c.is_whitespace() || c == '&' || c == ';' || c == '|').collect();
    let named = |w: &str| words.iter().any(|x| *x == w || x.ends_with(&format!("/{w}")));
    if named("vitest") {
        return Some(Runner::Vitest);
    }
    if named("jest") {
        return Some(Runner::Jest);
    }
    if named("mocha") {
        return Some(Runner::Mocha);
    }
    if script.contains("node --test") {
        return Some(Runner::NodeTest);
    }
    let has = |name: &str| ["dependencies", "devDependencies"].iter().any(|k| v.get(k).and_then(|d| d.get(name)).is_some());
    let found: Vec<Runner> =
        [("vitest", Runner::Vitest), ("jest", Runner::Jest), ("mocha", Runner::Mocha)].into_iter().filter(|(n, _)| has(n)).map(|(_, r)| r).collect();
    match found[..] {
        [one] => Some(one),
        _ => None,
    }
}

/// Commands for the test files (relative to `root`), one per package:
/// `cd <package> && <runner> <files relative to it>`; and the files no
/// runner could be read for.
pub fn commands(root: &Path, tests: &[String]) -> (Vec<String>, Vec<String>) {
    let mut by_package: BTreeMap<String, (Option<Runner>, Vec<String>)> = BTreeMap::new();
    for t in tests {
        let package = nearest_package(root, t);
        let entry = by_package.entry(package.clone().unwrap_or_default()).or_insert_with(|| {
            let runner = package.as_ref().and_then(|p| {
                let file = if p.is_empty() { root.join("package.json") } else { root.join(p).join("package.json") };
                // A checkout's package.json may be a link out of the root: not read.
                let inside = file.canonicalize().ok().filter(|f| root.canonicalize().is_ok_and(|r| f.starts_with(r)))?;
                crate::config::read_bounded(&inside).ok().and_then(|text| runner_of(&text))
            });
            (runner, Vec::new())
        });
        entry.1.push(t.clone());
    }
    let (mut out, mut unknown) = (Vec::new(), Vec::new());
    for (package, (runner, files)) in by_package {
        match runner {
            Some(r) => {
                let local: Vec<String> = files.iter().map(|f| f.strip_prefix(&format!("{package}/")).unwrap_or(f).to_string()).collect();
                out.push(if package.is_empty() { r.command(&local) } else { format!("cd {} && {}", quote(&package), r.command(&local)) });
            }
            None => unknown.extend(files),
        }
    }
    (out, unknown)
}

/// The directory (relative, "" for the root) of the package.json nearest
/// `file` inside the root.
fn nearest_package(root: &Path, file: &str) -> Option<String> {
    let mut dir = Path::new(file).parent();
    while let Some(d) = dir {
        if root.join(d).join("package.json").is_file() {
            return Some(d.to_string_lossy().replace('\\', "/"));
        }
        dir = d.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runner_comes_from_the_test_script_then_from_one_dependency() {
        assert_eq!(runner_of(r#"{"scripts":{"test":"vitest run"}}"#), Some(Runner::Vitest));
        assert_eq!(runner_of(r#"{"scripts":{"test":"tsc && jest --ci"}}"#), Some(Runner::Jest));
        assert_eq!(runner_of(r#"{"scripts":{"test":"node --test test/"}}"#), Some(Runner::NodeTest));
        assert_eq!(runner_of(r#"{"devDependencies":{"mocha":"10"}}"#), Some(Runner::Mocha));
        assert_eq!(runner_of(r#"{"devDependencies":{"mocha":"10","jest":"29"}}"#), None, "two runners: no guess");
        assert_eq!(runner_of(r#"{"scripts":{"test":"make test"}}"#), None);
        assert_eq!(runner_of("not json"), None);
    }

    #[test]
    fn commands_run_from_each_package_with_files_relative_to_it() {
        let dir = std::env::temp_dir().join(format!("tsq-runner-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let root = dir.as_path();
        std::fs::create_dir_all(root.join("packages/a/test")).unwrap();
        std::fs::create_dir_all(root.join("tools")).unwrap();
        std::fs::write(root.join("packages/a/package.json"), r#"{"scripts":{"test":"vitest"}}"#).unwrap();
        let (cmds, unknown) = commands(root, &["packages/a/test/x.test.ts".into(), "tools/y.test.ts".into()]);
        assert_eq!(cmds, vec!["cd packages/a && npx vitest run test/x.test.ts".to_string()]);
        assert_eq!(unknown, vec!["tools/y.test.ts".to_string()]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
