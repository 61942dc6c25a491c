//! Smart snapshots from their parts. The Language Service decides what a
//! file's snapshot holds (`js/answers/50_lookup.js`: the targets and the same-file
//! declarations they reference, as the checker resolves them); this module
//! only lays the pieces out. Parts computed apart, one target at a time
//! (stored answers, `src/structure/`), merge here into exactly the text
//! that one computation over all the targets gives: the context of a set
//! of targets is the union of each target's context, less what lies inside
//! a target.

use crate::answer::{Snapshot, SnapshotParts, SnapshotPiece};

/// One snapshot per file, in the order files first appear in `parts`.
pub fn assemble(parts: &[SnapshotParts]) -> Vec<Snapshot> {
    let mut files: Vec<&str> = Vec::new();
    for p in parts {
        if !files.contains(&p.file_path.as_str()) {
            files.push(&p.file_path);
        }
    }
    files.into_iter().map(|f| Snapshot { file_path: f.to_string(), text: file_text(f, parts.iter().filter(|p| p.file_path == f)) }).collect()
}

fn file_text<'a>(file: &str, parts: impl Iterator<Item = &'a SnapshotParts>) -> String {
    let (mut targets, mut context, mut frames): (Vec<&SnapshotPiece>, Vec<&SnapshotPiece>, Vec<_>) = (Vec::new(), Vec::new(), Vec::new());
    for p in parts {
        for t in &p.targets {
            if !targets.iter().any(|x| x.pos == t.pos) {
                targets.push(t);
            }
        }
        for c in &p.context {
            if !context.iter().any(|x| x.pos == c.pos) {
                context.push(c);
            }
        }
        for f in &p.frames {
            if !frames.iter().any(|x: &&crate::answer::SnapshotFrame| x.pos == f.pos) {
                frames.push(f);
            }
        }
    }
    let inside_target = |u: &SnapshotPiece| targets.iter().any(|t| u.pos >= t.pos && u.end <= t.end);
    context.retain(|u| !inside_target(u));
    // Classes framed: those with a target member.
    let mut framed: Vec<u32> = targets.iter().filter_map(|t| t.frame).collect();
    framed.dedup();
    let is_framed = |p: &SnapshotPiece| p.frame.is_some_and(|f| framed.contains(&f));
    let mut pieces: Vec<(u32, String)> = Vec::new();
    pieces.extend(context.iter().filter(|u| !is_framed(u)).map(|u| (u.pos, u.text.clone())));
    pieces.extend(targets.iter().filter(|t| !is_framed(t)).map(|t| (t.pos, t.text.clone())));
    let mut seen_frames: Vec<u32> = Vec::new();
    for &f in &framed {
        if seen_frames.contains(&f) {
            continue;
        }
        seen_frames.push(f);
        let Some(frame) = frames.iter().find(|x| x.pos == f) else { continue };
        let mut inner: Vec<&&SnapshotPiece> = context.iter().filter(|u| u.frame == Some(f)).chain(targets.iter().filter(|t| t.frame == Some(f))).collect();
        inner.sort_by_key(|p| p.pos);
        let body = inner.iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join("\n\n");
        pieces.push((frame.pos, format!("{}\n{body}\n{}", frame.header, frame.close)));
    }
    pieces.sort_by_key(|p| p.0);
    // Imports sit together; other pieces are separated by a blank line.
    let mut out = format!("// {file}\n\n");
    let mut prev_import: Option<bool> = None;
    for (_, text) in &pieces {
        let import = is_import(text);
        if let Some(prev) = prev_import {
            out.push_str(if prev && import { "\n" } else { "\n\n" });
        }
        out.push_str(text.trim_start_matches('\n'));
        prev_import = Some(import);
    }
    out.push('\n');
    out
}

/// `/^\s*import\b/`.
fn is_import(text: &str) -> bool {
    text.trim_start().strip_prefix("import").is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::SnapshotFrame;

    fn piece(pos: u32, end: u32, text: &str, frame: Option<u32>) -> SnapshotPiece {
        SnapshotPiece { pos, end, start: pos, text: text.into(), frame }
    }

    fn parts(targets: Vec<SnapshotPiece>, context: Vec<SnapshotPiece>) -> SnapshotParts {
        let frames = vec![SnapshotFrame { pos: 100, start: 100, open: 109, close_start: 200, end: 201, header: "class C {".into(), close: "}".into() }];
        SnapshotParts { file_path: "a.ts".into(), targets, context, frames }
    }

    #[test]
    fn parts_computed_apart_merge_as_one() {
        let import = piece(0, 20, "import { x } from './x';", None);
        let import2 = piece(20, 40, "\nimport { y } from './y';", None);
        let konst = piece(40, 60, "const K = 1;", None);
        let prop = piece(110, 120, "  p = K;", Some(100));
        let m1 = piece(120, 140, "  m1() { return x + this.p; }", Some(100));
        let m2 = piece(140, 160, "  m2() { return y; }", Some(100));
        let a = parts(vec![m1.clone()], vec![import.clone(), prop.clone(), konst.clone()]);
        let b = parts(vec![m2.clone()], vec![import2.clone()]);
        let merged = assemble(&[a, b]);
        assert_eq!(
            merged[0].text,
            "// a.ts\n\nimport { x } from './x';\nimport { y } from './y';\n\nconst K = 1;\n\nclass C {\n  p = K;\n\n  m1() { return x + this.p; }\n\n  m2() { return y; }\n}\n"
        );
        // A context piece inside another part's target is shown once, as
        // that target.
        let whole = piece(40, 60, "const K = 1;", None);
        let c = parts(vec![piece(200, 220, "function f() { return K; }", None)], vec![konst]);
        let d = parts(vec![whole], vec![]);
        assert_eq!(assemble(&[c, d])[0].text, "// a.ts\n\nconst K = 1;\n\nfunction f() { return K; }\n");
        assert!(is_import("  import x from 'y';") && !is_import("imported = 1;"));
    }
}
