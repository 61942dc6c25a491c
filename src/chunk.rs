//! Blueprint phase 2: turns a `ParsedFile` into `CodeChunk`s.
//!
//! Every root item (symbol, import, expression, re-export, standalone
//! comment block) is one depth-0 chunk. A child symbol becomes its own chunk
//! unless it spans exactly its parent's lines (same-line fold) or is a
//! single-line member without a body (a property, enum member, overload).
//! A chunk's `embeddingText` is its source with each body-bearing child
//! chunk collapsed to a stub.

use std::collections::HashSet;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::parse::{ParsedFile, ParsedSymbol, Span};

/// Voyage Code 3's document limit, in tokens.
pub(crate) const MAX_CHUNK_TOKENS: usize = 32_000;

/// The blueprint's estimate: four characters per token.
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// Note that ends an `embeddingText` cut at the token limit.
pub(crate) const TRUNCATION_NOTE: &str = "\n/* tsq: embeddingText cut at the 32000-token limit; fullSource is complete */";

/// One chunk, as the blueprint's LanceDB schema has it (minus `vector`,
/// `contentHash` and `lastModified`, which indexing adds).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CodeChunk {
    pub id: String,
    pub file_path: String,
    pub relative_path: String,
    pub node_kind: String,
    pub name: String,
    pub parent_name: Option<String>,
    pub parent_chunk_id: Option<String>,
    pub child_chunk_ids: Vec<String>,
    pub depth: u32,
    pub signature: String,
    pub full_source: String,
    pub start_line: u32,
    pub end_line: u32,
    pub jsdoc: Option<String>,
    pub relevant_imports: Vec<String>,
    pub embedding_text: String,
    pub breadcrumb: String,
    /// Set when `embeddingText` was cut at [`MAX_CHUNK_TOKENS`] (a giant
    /// string or object literal); `fullSource` is always complete.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub embedding_truncated: bool,
    /// Byte span of `fullSource` in the file.
    #[serde(skip)]
    pub span: Span,
    /// The symbol has a body (so a parent collapses it).
    #[serde(skip)]
    pub body_bearing: bool,
}

/// Where a file lives, for ids and breadcrumbs.
#[derive(Debug, Clone)]
pub struct FilePaths {
    pub file_path: String,
    pub relative_path: String,
}

/// An import that chunks may use: its statement text and bound names.
struct Import {
    text: String,
    bindings: Vec<String>,
}

struct Chunker<'a> {
    file: &'a ParsedFile,
    paths: &'a FilePaths,
    imports: Vec<Import>,
    chunks: Vec<CodeChunk>,
    ids: HashSet<String>,
}

/// Chunks one parsed file. Chunks come parents first, in source order.
pub(crate) fn chunk_file(file: &ParsedFile, paths: &FilePaths) -> Vec<CodeChunk> {
    let text = file.source.as_str();
    let imports = file
        .symbols
        .iter()
        .filter(|s| s.kind == "import" && !s.bindings.is_empty())
        .map(|s| Import { text: import_text(text, s).to_string(), bindings: s.bindings.clone() })
        .collect();
    let mut chunker = Chunker { file, paths, imports, chunks: Vec::new(), ids: HashSet::new() };

    // Root items: symbols and standalone comment blocks, in source order.
    enum Root<'s> {
        /// With the start of the comment block right above it, if any.
        Symbol(&'s ParsedSymbol, Option<usize>),
        Comment(Span),
    }
    // A comment block directly above a root item (no blank line between)
    // belongs to it, as a JSDoc block does: one chunk, ranked as the
    // declaration. Other blocks (a file header, a section rule) stand
    // alone.
    let blocks = comment_blocks(file);
    let mut lead_of: Vec<Option<usize>> = vec![None; file.symbols.len()];
    let mut standalone = Vec::new();
    for block in blocks {
        let next = file.symbols.iter().enumerate().filter(|(_, s)| s.span.start >= block.end).min_by_key(|(_, s)| s.span.start);
        match next {
            Some((i, s)) if directly_above(text, block, s.span) && lead_of[i].is_none() => lead_of[i] = Some(block.start),
            _ => standalone.push(block),
        }
    }
    let mut roots: Vec<(usize, Root)> = file.symbols.iter().zip(&lead_of).map(|(s, lead)| (lead.unwrap_or(s.span.start), Root::Symbol(s, *lead))).collect();
    for block in standalone {
        roots.push((block.start, Root::Comment(block)));
    }
    roots.sort_by_key(|(start, _)| *start);
    for (_, root) in roots {
        match root {
            Root::Symbol(s, lead) => {
                chunker.symbol_chunk(s, lead, None, &[]);
            }
            Root::Comment(span) => chunker.comment_chunk(span),
        }
    }
    chunker.finish()
}

impl<'a> Chunker<'a> {
    /// Emits `s` as a chunk (and its chunked descendants); returns its
    /// index. `lead`: where the comment block it takes in starts.
    fn symbol_chunk(&mut self, s: &ParsedSymbol, lead: Option<usize>, parent: Option<usize>, ancestors: &[String]) -> usize {
        let text = self.file.source.as_str();
        let span = Span { start: lead.unwrap_or(s.span.start), end: s.span.end };
        let start_line = lead.map_or(s.range.start, |b| self.file.source.line_of(b));
        let full_source = text[span.start..span.end].to_string();
        let parent_id = parent.map(|p| self.chunks[p].id.clone());
        let id = self.unique_id(&s.kind, &s.name, s.range.start, ancestors);
        let mut breadcrumb = self.paths.relative_path.clone();
        for a in ancestors.iter().chain(std::iter::once(&s.name)) {
            breadcrumb.push_str(" > ");
            breadcrumb.push_str(a);
        }
        let relevant_imports = match s.kind.as_str() {
            "import" => Vec::new(),
            _ => self.relevant_imports(&full_source),
        };
        let index = self.chunks.len();
        self.chunks.push(CodeChunk {
            id,
            file_path: self.paths.file_path.clone(),
            relative_path: self.paths.relative_path.clone(),
            node_kind: s.kind.clone(),
            name: s.name.clone(),
            parent_name: parent.map(|p| self.chunks[p].name.clone()),
            parent_chunk_id: parent_id,
            child_chunk_ids: Vec::new(),
            depth: ancestors.len() as u32,
            signature: s.signature.clone(),
            full_source,
            start_line,
            end_line: s.range.end,
            jsdoc: s.jsdoc.clone(),
            relevant_imports,
            embedding_text: String::new(),
            breadcrumb,
            embedding_truncated: false,
            span,
            body_bearing: s.body_bearing,
        });

        let mut chain = ancestors.to_vec();
        chain.push(s.name.clone());
        let mut collapsed = Vec::new();
        self.children(s, index, &chain, &mut collapsed);
        let (embedding, truncated) = cap_tokens(embedding_text(text, span, &collapsed));
        self.chunks[index].embedding_text = embedding;
        self.chunks[index].embedding_truncated = truncated;
        index
    }

    /// Emits the chunked descendants of `node` under chunk `parent`, folding
    /// the children that do not become chunks.
    fn children(&mut self, node: &ParsedSymbol, parent: usize, chain: &[String], collapsed: &mut Vec<Stub>) {
        for c in &node.children {
            let same_lines = c.range == node.range;
            let multi_line = c.range.end > c.range.start;
            if !same_lines && (c.body_bearing || multi_line) {
                let child = self.symbol_chunk(c, None, Some(parent), chain);
                let id = self.chunks[child].id.clone();
                self.chunks[parent].child_chunk_ids.push(id);
                // One-line children stay verbatim: a stub would save nothing.
                if c.body_bearing && multi_line {
                    collapsed.push(Stub::of(c, self.file.source.as_str()));
                }
            } else {
                self.children(c, parent, chain, collapsed);
            }
        }
    }

    fn comment_chunk(&mut self, span: Span) {
        let text = &self.file.source.as_str()[span.start..span.end];
        let (start, end) = self.file.source.line_range(span.start, span.end);
        let name = comment_label(text);
        let id = self.unique_id("comment", &name, start, &[]);
        self.chunks.push(CodeChunk {
            id,
            file_path: self.paths.file_path.clone(),
            relative_path: self.paths.relative_path.clone(),
            node_kind: "comment".to_string(),
            breadcrumb: format!("{} > {}", self.paths.relative_path, name),
            name,
            parent_name: None,
            parent_chunk_id: None,
            child_chunk_ids: Vec::new(),
            depth: 0,
            signature: String::new(),
            full_source: text.to_string(),
            start_line: start,
            end_line: end,
            jsdoc: None,
            relevant_imports: Vec::new(),
            embedding_text: text.to_string(),
            embedding_truncated: false,
            span,
            body_bearing: false,
        });
    }

    /// The blueprint's id: sha256 of filePath, nodeKind, name, startLine and
    /// the parent chain. Two symbols that agree on all of those (two
    /// callbacks on one line) get an ordinal so ids stay unique.
    fn unique_id(&mut self, kind: &str, name: &str, start_line: u32, ancestors: &[String]) -> String {
        let base = format!("{}\0{}\0{}\0{}\0{}", self.paths.file_path, kind, name, start_line, ancestors.join(" > "));
        let mut input = base.clone();
        let mut n = 1;
        loop {
            let id = crate::ts::hex(&Sha256::digest(input.as_bytes()));
            if self.ids.insert(id.clone()) {
                return id;
            }
            n += 1;
            input = format!("{base}\0#{n}");
        }
    }

    fn relevant_imports(&self, source: &str) -> Vec<String> {
        self.imports.iter().filter(|imp| imp.bindings.iter().any(|b| contains_word(source, b))).map(|imp| imp.text.clone()).collect()
    }

    fn finish(self) -> Vec<CodeChunk> {
        self.chunks
    }
}

/// How a collapsed child shows in its parent's `embeddingText`.
struct Stub {
    /// What the stub replaces.
    replace: Span,
    text: String,
}

impl Stub {
    fn of(c: &ParsedSymbol, text: &str) -> Stub {
        if c.in_expression {
            // A callback or object member: keep the header, drop the body.
            let block = text[c.sig_span.end..].starts_with('{');
            let text = if block { "{ … }" } else { "…" };
            Stub { replace: Span { start: c.sig_span.end, end: c.span.end }, text: text.to_string() }
        } else {
            Stub { replace: Span { start: c.sig_span.start, end: c.span.end }, text: format!("{};", c.signature) }
        }
    }
}

fn embedding_text(text: &str, span: Span, stubs: &[Stub]) -> String {
    let mut out = String::new();
    let mut at = span.start;
    for stub in stubs {
        if stub.replace.start < at || stub.replace.end > span.end {
            continue;
        }
        out.push_str(&text[at..stub.replace.start]);
        out.push_str(&stub.text);
        at = stub.replace.end;
    }
    out.push_str(&text[at..span.end]);
    out
}

/// An import statement's text without its JSDoc.
pub(crate) fn import_text<'t>(text: &'t str, import: &ParsedSymbol) -> &'t str {
    &text[import.sig_span.start.max(import.span.start)..import.span.end]
}

/// Cuts text over [`MAX_CHUNK_TOKENS`] at a char boundary, with a note.
fn cap_tokens(text: String) -> (String, bool) {
    if estimate_tokens(&text) <= MAX_CHUNK_TOKENS {
        return (text, false);
    }
    let budget = MAX_CHUNK_TOKENS * 4 - TRUNCATION_NOTE.chars().count();
    let cut = text.char_indices().nth(budget).map(|(i, _)| i).unwrap_or(text.len());
    let mut out = text[..cut].to_string();
    out.push_str(TRUNCATION_NOTE);
    (out, true)
}

/// Groups root comments into standalone blocks: comments outside every
/// root symbol, adjacent ones joined when no blank line separates them.
fn comment_blocks(file: &ParsedFile) -> Vec<Span> {
    let text = file.source.as_str();
    let mut roots: Vec<Span> = file.symbols.iter().map(|s| s.span).collect();
    roots.sort_by_key(|s| s.start);
    let inside = |c: &Span| {
        let i = roots.partition_point(|r| r.start <= c.start);
        i > 0 && roots[i - 1].end >= c.end
    };
    let mut comments: Vec<Span> = file.comments.iter().copied().filter(|c| !inside(c)).collect();
    comments.sort_by_key(|c| c.start);
    comments.dedup();
    let mut blocks: Vec<Span> = Vec::new();
    for c in comments {
        if let Some(last) = blocks.last_mut() {
            let gap = &text[last.end.min(c.start)..c.start];
            let newlines = gap.matches('\n').count();
            if gap.trim().is_empty() && newlines <= 1 && c.start >= last.end {
                last.end = c.end;
                continue;
            }
        }
        blocks.push(c);
    }
    blocks
}

/// Whether only whitespace with at most one line break separates `block`
/// from the item at `item`: the comment sits on the lines right above it.
fn directly_above(text: &str, block: Span, item: Span) -> bool {
    let gap = &text[block.end.min(item.start)..item.start];
    gap.trim().is_empty() && gap.matches('\n').count() <= 1
}

fn comment_label(text: &str) -> String {
    let first = text
        .lines()
        .map(|l| l.trim().trim_start_matches("/**").trim_start_matches("/*").trim_start_matches("//").trim_start_matches('*').trim())
        .find(|l| !l.is_empty() && *l != "*/")
        .unwrap_or("")
        .trim_end_matches("*/")
        .trim();
    let label: String = first.chars().take(60).collect();
    format!("comment:{label}")
}

/// A chunk with `source` as its whole text, for tests of ranking steps.
#[cfg(test)]
pub(crate) fn test_chunk(path: &str, kind: &str, source: &str) -> CodeChunk {
    CodeChunk {
        id: format!("{path}:{kind}:{}", source.len()),
        file_path: path.to_string(),
        relative_path: path.to_string(),
        node_kind: kind.to_string(),
        name: String::new(),
        parent_name: None,
        parent_chunk_id: None,
        child_chunk_ids: Vec::new(),
        depth: 0,
        signature: String::new(),
        full_source: source.to_string(),
        start_line: 1,
        end_line: source.lines().count() as u32,
        jsdoc: None,
        relevant_imports: Vec::new(),
        embedding_text: source.to_string(),
        breadcrumb: path.to_string(),
        embedding_truncated: false,
        span: Span { start: 0, end: source.len() },
        body_bearing: false,
    }
}

/// Whether `word` occurs in `text` with no identifier character on either side.
pub(crate) fn contains_word(text: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_match_at_boundaries_only() {
        assert!(contains_word("jwt.verify(x)", "jwt"));
        assert!(!contains_word("jwtToken", "jwt"));
        assert!(!contains_word("$jwt", "jwt"));
        assert!(contains_word("a(jwt)", "jwt"));
        assert!(!contains_word("", "jwt"));
    }

    #[test]
    fn comment_labels_take_the_first_words() {
        assert_eq!(comment_label("// ---- section ----"), "comment:---- section ----");
        assert_eq!(comment_label("/**\n * License MIT\n */"), "comment:License MIT");
    }
}
