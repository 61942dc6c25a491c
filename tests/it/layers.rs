//! ARCHITECTURE.md's "Modules import downward", checked on the source:
//! each layer's `crate::` paths name only the modules below it. A circle
//! (lookup reaching up into the engine API, the index into lookup) fails
//! here with the file and the path that crossed.

use std::path::{Path, PathBuf};

/// The layers this test keeps apart, and what each may not name.
const FORBIDDEN: &[(&str, &[&str])] = &[
    ("src/lookup.rs", &["api", "search", "index", "structure", "cli", "mcp"]),
    ("src/index", &["api", "search", "lookup", "structure", "cli", "mcp"]),
    ("src/structure", &["api", "search", "lookup", "cli", "mcp"]),
    ("src/search", &["api", "cli", "mcp"]),
    ("src/share", &["api", "search", "lookup", "structure", "inspect", "cli", "mcp"]),
    ("src/files.rs", &["api", "search", "lookup", "index", "structure", "cli", "mcp"]),
    ("src/query.rs", &["api", "search", "lookup", "index", "structure", "cli", "mcp"]),
];

fn rust_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut out = Vec::new();
    for entry in std::fs::read_dir(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())) {
        let p = entry.unwrap().path();
        if p.is_dir() {
            out.extend(rust_files(&p));
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
    out
}

/// The `crate::<module>` names a file's code uses (comments skipped).
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            let after = &rest[i + "crate::".len()..];
            let name: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            out.push((n + 1, name));
            rest = after;
        }
    }
    out
}

#[test]
fn the_paths_parser_sees_what_a_layer_names() {
    let found = crate_paths("use crate::api::Engine; // crate::search in a comment\nlet x = crate::index::now_ms() + crate::files::f();");
    assert_eq!(found, vec![(1, "api".to_string()), (2, "index".to_string()), (2, "files".to_string())]);
}

#[test]
fn modules_import_downward() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut crossings = Vec::new();
    for (layer, forbidden) in FORBIDDEN {
        let files = rust_files(&root.join(layer));
        assert!(!files.is_empty(), "{layer}: no Rust files (was it moved? update this test and ARCHITECTURE.md)");
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for (line, name) in crate_paths(&text) {
                if forbidden.contains(&name.as_str()) {
                    crossings.push(format!("{}:{line}: crate::{name}", file.strip_prefix(root).unwrap().display()));
                }
            }
        }
    }
    assert!(crossings.is_empty(), "imports that cross ARCHITECTURE.md's layers upward:\n{}", crossings.join("\n"));
}
