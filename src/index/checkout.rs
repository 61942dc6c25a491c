//! The index is a cache of positions, never a source of code. Every piece
//! of code an answer shows is read from the checkout's own file when the
//! answer is made, and a file's rows count only while the file's sha256
//! is the hash they were made from:
//!
//! - a stored `symbol =` answer keeps its snapshot as ranges (UTF-16, as
//!   tsc counts), and `fill_snapshot` slices the text from the file;
//! - a search result shown as indexed (a root expression, a comment, a
//!   concise record's preview) keeps its text for ranking, and `chunk`
//!   shows it only when the file holds it within the chunk's lines (its
//!   signature and JSDoc too).
//!
//! A row that fails either check is not shown; the caller answers live or
//! leaves the result out, and the next sync re-indexes the file. So no
//! index, pulled, shipped in an archive or planted in a clone, can put
//! code the checkout lacks into an answer.

use std::path::Path;
use std::sync::Arc;

use crate::answer::SnapshotParts;
use crate::chunk::CodeChunk;
use crate::ts::files::{FileEntry, FileView};

/// The file `rel` under `root` as it is now, when its sha256 is `hash`
/// (the hash the rows were made from), its text was read, and its real
/// path is inside the root's.
pub fn current(view: &FileView, root: &Path, rel: &str, hash: &str) -> Option<Arc<FileEntry>> {
    if hash.is_empty() || !super::names::safe_path(rel) {
        return None;
    }
    // Contained by what it resolves to: a planted row may name a path
    // through a link out of the root, whose hash is easy to know.
    let path = root.join(rel);
    let (real, real_root) = (path.canonicalize().ok()?, root.canonicalize().ok()?);
    if !real.starts_with(&real_root) {
        return None;
    }
    let entry = view.get(&path).ok()?;
    (entry.hash == hash && entry.text.is_ok()).then_some(entry)
}

/// Byte offsets of UTF-16 offsets in one text.
struct Utf16<'a> {
    text: &'a str,
    /// Byte offset of each UTF-16 unit, plus one past the end; `None` for
    /// ASCII text, where the two are equal.
    bytes: Option<Vec<u32>>,
}

impl<'a> Utf16<'a> {
    fn new(text: &'a str) -> Utf16<'a> {
        if text.is_ascii() {
            return Utf16 { text, bytes: None };
        }
        let mut bytes = Vec::with_capacity(text.len() + 1);
        for (i, c) in text.char_indices() {
            bytes.push(i as u32);
            // The second unit of a surrogate pair is no boundary.
            if c.len_utf16() == 2 {
                bytes.push(u32::MAX);
            }
        }
        bytes.push(text.len() as u32);
        Utf16 { text, bytes: Some(bytes) }
    }

    fn byte(&self, unit: u32) -> Option<usize> {
        match &self.bytes {
            None => ((unit as usize) <= self.text.len()).then_some(unit as usize),
            Some(b) => b.get(unit as usize).filter(|&&x| x != u32::MAX).map(|&x| x as usize),
        }
    }

    /// The text of `start..end` (UTF-16 units), when both ends fall in
    /// the text on character boundaries.
    fn slice(&self, start: u32, end: u32) -> Option<&'a str> {
        if start > end {
            return None;
        }
        self.text.get(self.byte(start)?..self.byte(end)?)
    }
}

/// Fills a stored snapshot's texts from `text`, the current content of
/// its file, by the ranges the rows keep. `false` when a range does not
/// fit the text (the rows are not of this content).
pub fn fill_snapshot(parts: &mut SnapshotParts, text: &str) -> bool {
    let at = Utf16::new(text);
    for p in parts.targets.iter_mut().chain(parts.context.iter_mut()) {
        match at.slice(p.start, p.end) {
            Some(s) if p.start <= p.end && p.pos <= p.end => p.text = s.to_string(),
            _ => return false,
        }
    }
    for f in parts.frames.iter_mut() {
        match (at.slice(f.start, f.open), at.slice(f.close_start, f.end)) {
            (Some(h), Some(c)) => {
                f.header = h.to_string();
                f.close = c.to_string();
            }
            _ => return false,
        }
    }
    true
}

/// A chunk as an answer may show it: its file's sha256 must be `hash`
/// (the row's), and the file must hold it (`Holder::holds`). `false`: the
/// row is not shown.
pub fn chunk(view: &FileView, root: &Path, hash: &str, c: &CodeChunk) -> bool {
    let Some(entry) = current(view, root, &c.relative_path, hash) else { return false };
    Holder::new(entry.text_or_empty()).holds(&c.full_source, &c.signature, c.jsdoc.as_deref(), c.start_line as usize, c.end_line as usize)
}

/// One file's text, for checking the chunks it is said to hold (an
/// answer's, and a pulled index's in `verify_pull`).
pub(crate) struct Holder<'a> {
    lines: Vec<&'a str>,
    text: &'a str,
    squeezed: std::cell::OnceCell<String>,
}

impl<'a> Holder<'a> {
    pub(crate) fn new(text: &'a str) -> Holder<'a> {
        Holder { lines: text.split_inclusive('\n').collect(), text, squeezed: std::cell::OnceCell::new() }
    }

    /// Whether the file holds a chunk: its source within its lines, its
    /// signature within them whitespace aside, its JSDoc in the file
    /// whitespace aside (signatures and JSDoc are stored normalized). A
    /// label past 80 characters ends in `…` (its cap, `js/parse/10_parser.js`;
    /// a callee's starts with one): the rest must be there. One cut only,
    /// at an end, so that no row can stitch two pieces of a file together.
    pub(crate) fn holds(&self, full_source: &str, signature: &str, jsdoc: Option<&str>, start_line: usize, end_line: usize) -> bool {
        // Lines may count from 0 or 1 here: one line of slack each side.
        let from = start_line.saturating_sub(1).min(self.lines.len());
        let to = (end_line + 2).min(self.lines.len()).max(from);
        let region: String = self.lines[from..to].concat();
        region.contains(full_source.trim_end_matches('\n'))
            && (signature.is_empty() || {
                let signature = squeeze(signature);
                let kept = signature.strip_suffix('…').or_else(|| signature.strip_prefix('…')).unwrap_or(&signature);
                squeeze(&region).contains(kept)
            })
            && jsdoc.is_none_or(|d| self.squeezed.get_or_init(|| squeeze(self.text)).contains(&squeeze(d)))
    }
}

/// The text without whitespace.
fn squeeze(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::{SnapshotFrame, SnapshotPiece};

    fn parts(pieces: Vec<(u32, u32)>, frames: Vec<(u32, u32, u32, u32)>) -> SnapshotParts {
        SnapshotParts {
            file_path: "a.ts".into(),
            targets: pieces.into_iter().map(|(start, end)| SnapshotPiece { pos: start, end, start, text: "planted".into(), frame: None }).collect(),
            context: Vec::new(),
            frames: frames
                .into_iter()
                .map(|(start, open, close_start, end)| SnapshotFrame {
                    pos: start,
                    start,
                    open,
                    close_start,
                    end,
                    header: "planted".into(),
                    close: "planted".into(),
                })
                .collect(),
        }
    }

    #[test]
    fn texts_come_from_the_file_whatever_the_row_held() {
        let text = "class C {\n  add(a, b) { return a + b; }\n}\n";
        let mut p = parts(vec![(10, 39)], vec![(0, 9, 40, 41)]);
        assert!(fill_snapshot(&mut p, text));
        assert_eq!(p.targets[0].text, "  add(a, b) { return a + b; }");
        assert_eq!((p.frames[0].header.as_str(), p.frames[0].close.as_str()), ("class C {", "}"));
    }

    #[test]
    fn ranges_past_the_text_or_reversed_are_refused() {
        let text = "const a = 1;\n";
        assert!(!fill_snapshot(&mut parts(vec![(0, 99)], vec![]), text));
        assert!(!fill_snapshot(&mut parts(vec![(5, 2)], vec![]), text));
        assert!(!fill_snapshot(&mut parts(vec![], vec![(0, 4, 9, 3)]), text));
    }

    #[test]
    fn utf16_offsets_are_tsc_s() {
        // "é" is one UTF-16 unit and two bytes; "𝒜" is two units, four bytes.
        let text = "const é = \"𝒜\"; const b = 2;";
        let mut p = parts(vec![(16, 28)], vec![]);
        assert!(fill_snapshot(&mut p, text));
        assert_eq!(p.targets[0].text, "const b = 2;");
        // A range that ends inside the surrogate pair is refused.
        assert!(!fill_snapshot(&mut parts(vec![(11, 12)], vec![]), text));
    }

    #[test]
    fn a_chunk_is_held_only_within_its_lines() {
        let text = "// a\nfunction add(a, b) {\n  return a + b;\n}\n// b\n// c\n// d\n";
        let h = Holder::new(text);
        let source = "function add(a, b) {\n  return a + b;\n}";
        assert!(h.holds(source, "function add(a, b)", None, 2, 4));
        assert!(!h.holds("function add(a, b) {\n  return a - b;\n}", "", None, 2, 4), "code the file lacks");
        assert!(!h.holds("// d", "", None, 1, 2), "text of the file outside the chunk's lines");
        assert!(!h.holds(source, "function sub(a, b)", None, 2, 4), "a signature the file lacks");
        assert!(!h.holds(source, "", Some("/** planted */"), 2, 4), "JSDoc the file lacks");
        // A long label cut with an ellipsis (zod's tests and CommonJS
        // builds: before, a pull dropped 26 unchanged files for it, and
        // answers left such chunks out).
        let long = "test(\"ensure early async failure prevents follow-up refinement checks\", async () => {\n  await run();\n});\n";
        let h = Holder::new(long);
        let cut = "test(\"ensure early async failure prevents follow-up refinement checks\", async (…";
        assert!(h.holds(long.trim_end(), cut, None, 1, 3));
        assert!(!h.holds(long.trim_end(), "test(\"planted\", async (…", None, 1, 3), "a cut signature the file lacks");
        assert!(!h.holds(long.trim_end(), "test(…await run();", None, 1, 3), "two pieces of the file stitched");
    }
}
