//! Blueprint phase 1: turns tsc's answer (`ts::protocol::ParseResponse`)
//! into the `ParsedSymbol` tree, with 1-based line ranges, signatures and
//! JSDoc text sliced from the source.

use serde::Serialize;

use crate::text::SourceText;
use crate::ts::protocol::{ParseResponse, RawNode};

/// A half-open byte span in the source.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

/// A 1-based inclusive line range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LineRange {
    pub start: u32,
    pub end: u32,
}

/// One symbol of the blueprint's phase-1 tree.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParsedSymbol {
    pub name: String,
    pub kind: String,
    pub depth: u32,
    pub parent_name: Option<String>,
    pub range: LineRange,
    pub signature: String,
    pub modifiers: Vec<String>,
    pub jsdoc: Option<String>,
    pub children: Vec<ParsedSymbol>,
    pub exported: bool,
    /// Has a body that a parent chunk collapses to a stub.
    pub body_bearing: bool,
    #[serde(skip)]
    pub span: Span,
    /// Where the signature starts and ends (the body's start).
    #[serde(skip)]
    pub sig_span: Span,
    #[serde(skip)]
    pub in_expression: bool,
    /// Local names an import binds (imports only).
    #[serde(skip)]
    pub bindings: Vec<String>,
}

/// A parse diagnostic from tsc, at a 1-based line and column.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Diagnostic {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// Everything tsq knows about one file after parsing.
pub struct ParsedFile {
    pub source: SourceText,
    pub symbols: Vec<ParsedSymbol>,
    /// Comments that lead root statements or end the file.
    pub comments: Vec<Span>,
    pub diagnostics: Vec<Diagnostic>,
    /// Set when the parse was abandoned (a JS exception or stack overflow):
    /// the index records it as the file's skip reason.
    pub failure: Option<String>,
    /// Bodies that cannot change the file's API (`ParseResponse`'s
    /// `opaqueBodies`), outermost, in source order.
    pub opaque_bodies: Vec<Span>,
}

impl ParsedFile {
    /// A hash of the file's API: its text without the opaque bodies. Equal
    /// hashes mean no importer can see a difference (structure
    /// invalidation, ARCHITECTURE.md "Structure stays exact"). Whitespace
    /// and comments outside the bodies count (a literal type may hold
    /// them; JSDoc may type JavaScript). An abandoned parse has no API hash
    /// (empty: always counted as changed).
    pub(crate) fn api_hash(&self) -> String {
        use sha2::{Digest, Sha256};
        if self.failure.is_some() {
            return String::new();
        }
        let text = self.source.as_str();
        let mut h = Sha256::new();
        let mut at = 0;
        for b in self.bodies() {
            h.update(&text.as_bytes()[at..b.start]);
            // The body's place stays marked: `f(): T {}` differs from `f(): T`.
            h.update(b"\0{}\0");
            at = b.end;
        }
        h.update(&text.as_bytes()[at..]);
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The opaque bodies the API hash leaves out, in source order: those
    /// that do not overlap, are in the text, and load no module.
    pub fn bodies(&self) -> Vec<std::ops::Range<usize>> {
        let text = self.source.as_str();
        let mut out = Vec::new();
        let mut at = 0;
        for b in &self.opaque_bodies {
            if b.start < at || b.end > text.len() || b.start > b.end || text.get(b.start..b.end).is_none_or(loads_modules) {
                continue;
            }
            out.push(b.start..b.end);
            at = b.end;
        }
        out
    }
}

/// Whether a body may load a module (`import(…)`, `require(…)`): its
/// imports decide module resolution, so it counts as API text
/// (`structure::coverage` keys unresolved imports by the API hash).
fn loads_modules(body: &str) -> bool {
    ["import", "require"].iter().any(|word| body.match_indices(word).any(|(i, _)| body[i + word.len()..].trim_start().starts_with('(')))
}

/// Builds the symbol tree from tsc's answer. An abandoned parse (`error`)
/// still yields whatever diagnostics tsc produced.
pub(crate) fn build(source: SourceText, response: ParseResponse) -> ParsedFile {
    let mut diagnostics: Vec<Diagnostic> = response
        .diagnostics
        .iter()
        .map(|d| {
            let byte = source.byte(d.start);
            let line = source.line_of(byte);
            let line_start = source.lines(line, line).as_ptr() as usize - source.as_str().as_ptr() as usize;
            let column = source.as_str()[line_start..byte.max(line_start)].chars().count() as u32 + 1;
            Diagnostic { line, column, message: d.message.clone() }
        })
        .collect();
    if let Some(error) = &response.error {
        diagnostics.push(Diagnostic { line: 1, column: 1, message: error.clone() });
    }
    let symbols = tree(&source, &response.nodes);
    let comments = response.comments.iter().map(|&(s, e)| Span { start: source.byte(s), end: source.byte(e) }).collect();
    let opaque_bodies = response.opaque_bodies.iter().map(|&(s, e)| Span { start: source.byte(s), end: source.byte(e) }).collect();
    ParsedFile { source, symbols, comments, diagnostics, failure: response.error, opaque_bodies }
}

/// Rebuilds the tree from JS's flat pre-order list, without recursion.
fn tree(source: &SourceText, nodes: &[RawNode]) -> Vec<ParsedSymbol> {
    let mut depths: Vec<u32> = Vec::with_capacity(nodes.len());
    let mut slots: Vec<Option<ParsedSymbol>> = Vec::with_capacity(nodes.len());
    for (i, raw) in nodes.iter().enumerate() {
        let parent = usize::try_from(raw.parent).ok().filter(|&p| p < i);
        let depth = parent.map_or(0, |p| depths[p] + 1);
        depths.push(depth);
        let parent_name = parent.map(|p| nodes[p].name.as_str());
        slots.push(Some(symbol(source, raw, depth, parent_name)));
    }
    // Children come after their parent: attach them back to front.
    let mut roots = Vec::new();
    for i in (0..nodes.len()).rev() {
        let Some(symbol) = slots[i].take() else { continue };
        match usize::try_from(nodes[i].parent).ok().filter(|&p| p < i) {
            Some(p) => slots[p].as_mut().expect("parent precedes child").children.push(symbol),
            None => roots.push(symbol),
        }
    }
    roots.reverse();
    reverse_children(&mut roots);
    roots
}

/// Children were pushed back to front; restore source order, iteratively.
fn reverse_children(roots: &mut [ParsedSymbol]) {
    let mut stack: Vec<&mut ParsedSymbol> = roots.iter_mut().collect();
    while let Some(s) = stack.pop() {
        s.children.reverse();
        stack.extend(s.children.iter_mut());
    }
}

fn symbol(source: &SourceText, raw: &RawNode, depth: u32, parent: Option<&str>) -> ParsedSymbol {
    let span = Span { start: source.byte(raw.start), end: source.byte(raw.end) };
    let sig_span = Span { start: source.byte(raw.sig_start), end: source.byte(raw.sig_end) };
    let (start, end) = source.line_range(span.start, span.end);
    let signature = match raw.kind.as_str() {
        "expression" | "export" => normalize_signature(&raw.name),
        _ => normalize_signature(&source.as_str()[sig_span.start..sig_span.end.max(sig_span.start)]),
    };
    ParsedSymbol {
        name: raw.name.clone(),
        kind: raw.kind.clone(),
        depth,
        parent_name: parent.map(str::to_string),
        range: LineRange { start, end },
        signature,
        modifiers: raw.modifiers.clone(),
        jsdoc: raw.jsdoc.map(|(s, e)| source.as_str()[source.byte(s)..source.byte(e)].to_string()),
        children: Vec::new(),
        exported: raw.exported,
        body_bearing: raw.body_bearing,
        span,
        sig_span,
        in_expression: raw.in_expression,
        bindings: raw.bindings.clone(),
    }
}

/// Collapses whitespace runs to one space and drops what joins a header to
/// its body (`{`, `=>`, `=`) or ends a statement (`;`, `,`).
pub(crate) fn normalize_signature(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    loop {
        let trimmed = out.trim_end();
        let cut = ["=>", "{", "=", ";", ","].iter().find_map(|t| trimmed.strip_suffix(t));
        match cut {
            Some(rest) => out = rest.trim_end().to_string(),
            None => break,
        }
    }
    out
}

/// Walks a symbol tree depth-first, parents before children.
pub fn walk<'a>(symbols: &'a [ParsedSymbol], f: &mut dyn FnMut(&'a ParsedSymbol)) {
    for s in symbols {
        f(s);
        walk(&s.children, f);
    }
}

#[cfg(test)]
mod tests {
    use super::normalize_signature;

    #[test]
    fn signatures_lose_body_joiners() {
        assert_eq!(normalize_signature("async  foo(\n  a: string\n): Promise<void> {"), "async foo( a: string ): Promise<void>");
        assert_eq!(normalize_signature("export const f = (a) =>"), "export const f = (a)");
        assert_eq!(normalize_signature("export const config ="), "export const config");
        assert_eq!(normalize_signature("type A = B | C;"), "type A = B | C");
    }
}
