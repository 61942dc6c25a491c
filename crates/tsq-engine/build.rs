//! Build script: embeds tsq's JS in load order, the vendored TypeScript
//! version and its lib.*.d.ts files, so the binary runs without the source
//! tree.
//!
//! Every `js/NN_name.js` file is loaded after `typescript.js`, in the order
//! of its numeric prefix (Deno's convention); adding a file needs no Rust
//! edit. `js/*.d.ts` files are contracts, not code, and are not embedded.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // js/ and vendor-typescript/ stay at the repository root.
    let manifest = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../..").display().to_string();
    let js_dir = Path::new(&manifest).join("js");
    println!("cargo:rerun-if-changed=../../js");
    println!("cargo:rerun-if-changed=../../vendor-typescript/VERSION");

    let mut files: Vec<String> = std::fs::read_dir(&js_dir)
        .expect("js/ exists")
        .map(|e| e.expect("readable js/ entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".js"))
        .collect();
    files.sort();
    for f in &files {
        let numbered = f.split('_').next().is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        assert!(numbered, "js/{f}: JS files are named NN_name.js for load order");
    }

    let mut out = String::from("/// tsq's JS files, in load order: (specifier, source).\npub const TSQ_JS: &[(&str, &str)] = &[\n");
    for f in &files {
        writeln!(out, "    (\"tsq:js/{f}\", include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/../../js/{f}\"))),").unwrap();
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
