//! Build script: embeds tsq's JS in load order, the vendored TypeScript
//! version and its lib.*.d.ts files, so the binary runs without the source
//! tree.
//!
//! Every `js/<role>/NN_name.js` file is loaded after `typescript.js`, in
//! the order of its numeric prefix (Deno's convention), whatever folder
//! holds it (folders group files by role: parse, service, answers,
//! analyses, occurrences); adding a file needs no Rust edit. `js/*.d.ts`
//! files are contracts, not code, and are not embedded.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // js/ and vendor-typescript/ stay at the repository root.
    let manifest = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../..").display().to_string();
    let js_dir = Path::new(&manifest).join("js");
    println!("cargo:rerun-if-changed=../../js");
    println!("cargo:rerun-if-changed=../../vendor-typescript/VERSION");

    // (file name, path under js/), one folder deep.
    let mut files: Vec<(String, String)> = Vec::new();
    for entry in std::fs::read_dir(&js_dir).expect("js/ exists") {
        let entry = entry.expect("readable js/ entry");
        let folder = entry.file_name().to_string_lossy().into_owned();
        if !entry.file_type().expect("js/ entry type").is_dir() {
            assert!(!folder.ends_with(".js"), "js/{folder}: JS files live in a folder by role (js/<role>/NN_name.js)");
            continue;
        }
        for f in std::fs::read_dir(entry.path()).expect("js/ folder") {
            let name = f.expect("readable js/ entry").file_name().to_string_lossy().into_owned();
            if name.ends_with(".js") {
                files.push((name.clone(), format!("{folder}/{name}")));
            }
        }
    }
    files.sort();
    for (f, path) in &files {
        let numbered = f.split('_').next().is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        assert!(numbered, "js/{path}: JS files are named NN_name.js for load order");
    }
    for pair in files.windows(2) {
        let number = |f: &str| f.split('_').next().unwrap_or_default().to_string();
        assert_ne!(number(&pair[0].0), number(&pair[1].0), "js/{} and js/{}: one number per file, so the load order is one", pair[0].1, pair[1].1);
    }

    let mut out = String::from("/// tsq's JS files, in load order: (specifier, source).\npub const TSQ_JS: &[(&str, &str)] = &[\n");
    for (_, path) in &files {
        writeln!(out, "    (\"tsq:js/{path}\", include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/../../js/{path}\"))),").unwrap();
    }
    out.push_str("];\n");
    let version = std::fs::read_to_string(Path::new(&manifest).join("vendor-typescript/VERSION")).expect("vendor-typescript/VERSION");
    writeln!(out, "/// The vendored `typescript` npm package's version.\npub const TYPESCRIPT_VERSION: &str = {:?};", version.trim()).unwrap();

    // The default lib files, served to the compiler at /__tsq__/lib/.
    let lib_dir = Path::new(&manifest).join("vendor-typescript/lib");
    println!("cargo:rerun-if-changed=../../vendor-typescript/lib");
    let mut libs: Vec<String> = std::fs::read_dir(&lib_dir)
        .expect("vendor-typescript/lib exists")
        .map(|e| e.expect("readable lib entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("lib.") && n.ends_with(".d.ts"))
        .collect();
    libs.sort();
    out.push_str("/// The vendored lib.*.d.ts files: (file name, text).\npub const TS_LIBS: &[(&str, &str)] = &[\n");
    for l in &libs {
        writeln!(out, "    ({l:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/../../vendor-typescript/lib/{l}\"))),").unwrap();
    }
    out.push_str("];\n");

    // Paths are spelled relative to CARGO_MANIFEST_DIR, never absolute: a
    // target directory shared between clones (CI's persistent one) reuses
    // this file without rerunning the script.
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("embedded_js.rs");
    std::fs::write(dest, out).expect("write embedded_js.rs");
}
