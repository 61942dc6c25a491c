//! Random edits of a TypeScript workspace, of ten kinds (body-only with
//! and without a return type, a changed signature, a rename, a new export,
//! and more: see `edit`), from a seeded generator: the workloads the
//! structure and occurrence tests check stored answers against.

use std::path::{Path, PathBuf};

/// A small deterministic generator (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> Option<&'a T> {
        (!v.is_empty()).then(|| &v[(self.next() % v.len() as u64) as usize])
    }
}

pub fn ts_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().to_string();
            if p.is_dir() && name != ".tsq" && name != "node_modules" {
                stack.push(p);
            } else if name.ends_with(".ts") && !name.ends_with(".d.ts") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Positions in `text` just after `pat`.
fn after_all(text: &str, pat: &str) -> Vec<usize> {
    text.match_indices(pat).map(|(i, _)| i + pat.len()).collect()
}

/// The name declared right after `function ` at `at`.
fn ident_at(text: &str, at: usize) -> &str {
    let end = text[at..].find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')).map_or(text.len(), |n| at + n);
    &text[at..end]
}

/// The local names of a file's named imports (`import { a, b as c }`).
fn imported_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices("import {") {
        let Some(end) = text[i..].find('}') else { continue };
        for part in text[i + "import {".len()..i + end].split(',') {
            let local = part.rsplit(" as ").next().unwrap_or("").trim().trim_start_matches("type ").trim();
            if !local.is_empty() && local.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                out.push(local.to_string());
            }
        }
    }
    out
}

/// One random edit of kind `kind`; returns what it did.
pub fn edit(root: &Path, rng: &mut Rng, kind: usize, step: usize) -> String {
    let files = ts_files(root);
    let file = rng.pick(&files).expect("the workspace has files").clone();
    let rel = file.strip_prefix(root).unwrap().display().to_string();
    let text = std::fs::read_to_string(&file).unwrap();
    let write = |t: String| std::fs::write(&file, t).unwrap();
    match kind {
        0 | 9 => {
            // Bodies with and without a return type (only the first kind
            // leaves the file's API unchanged).
            let mut at = after_all(&text, ") {\n");
            at.extend(text.match_indices(" {\n").map(|(i, _)| i + 3).filter(|&i| {
                let line = &text[text[..i - 3].rfind('\n').map_or(0, |n| n + 1)..i];
                line.contains("): ") && !line.trim_start().starts_with("//")
            }));
            at.sort();
            let Some(&i) = rng.pick(&at) else { return format!("body edit: no body in {rel}") };
            // Kind 9 calls and references a name the file imports: new
            // callers and references of a declaration in another file.
            let imported = imported_names(&text);
            match rng.pick(&imported).filter(|_| kind == 9) {
                Some(name) => {
                    write(format!("{}  if (Math.random() < 0) {name}();\n{}", &text[..i], &text[i..]));
                    format!("body-only edit calling {name} in {rel}")
                }
                None => {
                    write(format!("{}  void {step};\n{}", &text[..i], &text[i..]));
                    format!("body-only edit in {rel}")
                }
            }
        }
        1 => {
            let at = after_all(&text, "function ");
            let Some(&i) = rng.pick(&at) else { return format!("signature change: no function in {rel}") };
            let Some(close) = text[i..].find(')').map(|n| i + n) else { return "no parameter list".into() };
            let extra = if text[..close].ends_with('(') { format!("extra{step}?: number") } else { format!(", extra{step}?: number") };
            write(format!("{}{extra}{}", &text[..close], &text[close..]));
            format!("signature change of {} in {rel}", ident_at(&text, i))
        }
        2 => {
            let at = after_all(&text, "function ");
            let Some(&i) = rng.pick(&at) else { return format!("rename: no function in {rel}") };
            let name = ident_at(&text, i).to_string();
            write(format!("{}{name}Renamed{}", &text[..i], &text[i + name.len()..]));
            format!("rename of {name} in {rel}")
        }
        3 => {
            let callee = after_all(&text, "export function ").first().map(|&i| ident_at(&text, i).to_string());
            let body = callee.map_or(format!("return {step};"), |c| format!("return {c} as unknown;"));
            write(format!("{text}\nexport function added{step}(): unknown {{\n  {body}\n}}\n"));
            format!("new export in {rel}")
        }
        4 => match text.find("export function ").or_else(|| text.find("export const ")).or_else(|| text.find("export class ")) {
            Some(i) => {
                write(format!("{}{}", &text[..i], &text[i + "export ".len()..]));
                format!("removed export in {rel}")
            }
            None => format!("no export to remove in {rel}"),
        },
        5 => {
            if let Some(i) = text.find("export * from") {
                let end = text[i..].find('\n').map_or(text.len(), |n| i + n + 1);
                write(format!("{}{}", &text[..i], &text[end..]));
                return format!("removed an export * in {rel}");
            }
            let siblings: Vec<&PathBuf> = files.iter().filter(|f| f.parent() == file.parent() && **f != file).collect();
            let Some(other) = rng.pick(&siblings) else { return format!("no sibling for a barrel in {rel}") };
            let stem = other.file_stem().unwrap().to_string_lossy();
            write(format!("{text}\nexport * from './{stem}';\n"));
            format!("export * from './{stem}' added to {rel}")
        }
        6 => {
            let exported: Vec<String> = after_all(&text, "export function ").iter().map(|&i| ident_at(&text, i).to_string()).collect();
            let stem = file.file_stem().unwrap().to_string_lossy().to_string();
            let new = file.with_file_name(format!("new{step}.ts"));
            let body = match rng.pick(&exported) {
                Some(f) => format!("import {{ {f} }} from './{stem}';\n\nexport function caller{step}() {{\n  return {f};\n}}\n"),
                None => format!("export function caller{step}() {{\n  return {step};\n}}\n"),
            };
            std::fs::write(&new, body).unwrap();
            format!("new file {}", new.strip_prefix(root).unwrap().display())
        }
        7 => {
            std::fs::remove_file(&file).unwrap();
            format!("deleted {rel}")
        }
        _ => {
            let to = file.with_file_name(format!("moved{step}.ts"));
            std::fs::rename(&file, &to).unwrap();
            format!("moved {rel} to {}", to.strip_prefix(root).unwrap().display())
        }
    }
}
