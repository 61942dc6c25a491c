//! The occurrence index's stored JSON as tsq's own types: a file's facts
//! (`Facts`: declarations, call-hierarchy items, call edges, base members)
//! and each declaration's answer parts (`DeclarationRow`). The occurrence
//! pass's wire messages (`ts::protocol::FileOccurrences`) are converted
//! here when rows are written, so a protocol change cannot silently change
//! what an index on disk holds, or how it is read back. The JSON shape is
//! the one rows had before they had their own types (indexes stay
//! readable); `tests` pins it.

use serde::{Deserialize, Serialize};

use crate::answer::{all, LookupMatch, MemberInfo, SnapshotParts, SymbolRef, TypeFlow, TypeHierarchy};
use crate::ts::protocol as wire;

/// One file's facts from one checker pass (`occ_files.facts`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Facts {
    pub declarations: Vec<Declaration>,
    pub items: Vec<CallItem>,
    pub calls: Vec<CallEdge>,
    pub bases: Vec<BaseEdge>,
}

/// A declaration of the file, as lookups find it by name.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Declaration {
    pub id: String,
    pub name: String,
    pub kind: String,
    pub containers: Vec<String>,
    pub line: u32,
    pub end_line: u32,
    /// The call-hierarchy item `prepareCallHierarchy` picks at the name.
    pub item: Option<String>,
    /// The meanings (value 1, type 2, namespace 4) find-references looks for.
    pub meaning: u8,
}

/// A call-hierarchy item of the file and how answers name it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CallItem {
    pub key: String,
    #[serde(rename = "ref")]
    pub symbol: SymbolRef,
}

/// TypeScript's outgoing call of an item, with the call sites' lines.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CallEdge {
    pub from: String,
    pub to: String,
    pub sites: Vec<u32>,
}

/// A member and the base member it overrides or implements; or
/// (`contextual`) an object literal's member and the property of its
/// contextual type (find-references searches it from the member, but
/// not the member from it: only the literal's own definition site
/// relates the two, and that site holds a row of the property).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BaseEdge {
    pub member: String,
    pub base: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub contextual: bool,
}

/// What a `symbol =` answer shows of one declaration that its own file
/// decides (`occ_declarations.answer`); references, call trees and
/// subtypes are derived from the rows when answering.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DeclarationRow {
    pub name: String,
    pub containers: Vec<String>,
    /// The symbol id (`None`: no symbol, e.g. a binding pattern).
    pub id: Option<String>,
    pub item: Option<String>,
    pub meaning: u8,
    /// The Language Service's order: project, file in its program, node.
    pub ord: f64,
    #[serde(rename = "match")]
    pub matched: LookupMatch,
    pub snapshot: SnapshotParts,
    pub signature: String,
    pub modifiers: Vec<String>,
    /// The declaration's key: its id in its file and its kind.
    pub key: String,
    /// The keys of each resolved base class or interface.
    pub supertypes: Vec<String>,
    /// Declarations in other files the type flows and hierarchy name.
    #[serde(default)]
    pub links: Vec<DeclarationLink>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_hierarchy: Option<TypeHierarchy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub members: Option<Vec<MemberInfo>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_flows: Option<TypeFlow>,
}

/// A declaration in another file an answer names, by key (`None` when the
/// pass could not name it), with the place it had when stored.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DeclarationLink {
    pub key: Option<String>,
    pub file_path: String,
    pub line: u32,
    pub name: String,
}

impl From<wire::OccurrenceDeclaration> for Declaration {
    fn from(w: wire::OccurrenceDeclaration) -> Self {
        Declaration { id: w.id, name: w.name, kind: w.kind, containers: w.containers, line: w.line, end_line: w.end_line, item: w.item, meaning: w.meaning }
    }
}

impl From<wire::CallItem> for CallItem {
    fn from(w: wire::CallItem) -> Self {
        CallItem { key: w.key, symbol: w.symbol.into() }
    }
}

impl From<wire::CallEdge> for CallEdge {
    fn from(w: wire::CallEdge) -> Self {
        CallEdge { from: w.from, to: w.to, sites: w.sites }
    }
}

impl From<wire::BaseEdge> for BaseEdge {
    fn from(w: wire::BaseEdge) -> Self {
        BaseEdge { member: w.member, base: w.base, contextual: w.contextual }
    }
}

impl From<wire::DeclarationLink> for DeclarationLink {
    fn from(w: wire::DeclarationLink) -> Self {
        DeclarationLink { key: w.key, file_path: w.file_path, line: w.line, name: w.name }
    }
}

impl From<wire::DeclarationAnswer> for DeclarationRow {
    fn from(w: wire::DeclarationAnswer) -> Self {
        DeclarationRow {
            name: w.name,
            containers: w.containers,
            id: w.id,
            item: w.item,
            meaning: w.meaning,
            ord: w.ord,
            matched: w.matched.into(),
            snapshot: w.snapshot.into(),
            signature: w.signature,
            modifiers: w.modifiers,
            key: w.key,
            supertypes: w.supertypes,
            links: all(w.links),
            type_hierarchy: w.type_hierarchy.map(TypeHierarchy::from),
            members: w.members.map(all),
            type_flows: w.type_flows.map(TypeFlow::from),
        }
    }
}

impl Facts {
    /// A file's facts from the pass's message.
    pub(crate) fn from_wire(
        declarations: Vec<wire::OccurrenceDeclaration>,
        items: Vec<wire::CallItem>,
        calls: Vec<wire::CallEdge>,
        bases: Vec<wire::BaseEdge>,
    ) -> Facts {
        Facts { declarations: all(declarations), items: all(items), calls: all(calls), bases: all(bases) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows read back as the pass wrote them: the stored JSON of a
    /// converted row equals the wire message's, so indexes written before
    /// rows had their own types stay readable, and a wire change shows here.
    #[test]
    fn stored_rows_keep_the_passs_json() {
        let answer = serde_json::json!({
            "name": "get", "containers": ["Cache"], "id": "src/c.ts#Cache.get", "item": "src/c.ts:4", "meaning": 1, "ord": 12.0,
            "match": {"symbol": {"name": "get", "kind": "method", "filePath": "src/c.ts", "line": 4}, "qualifiedName": "Cache.get", "startLine": 4, "endLine": 6, "project": "tsconfig.json"},
            "snapshot": {"filePath": "src/c.ts", "targets": [{"pos": 40, "end": 90, "text": "get() {}", "frame": 0}], "context": [], "frames": [{"pos": 0, "header": "class Cache {", "close": "}"}]},
            "signature": "get(): number", "modifiers": [], "key": "src/c.ts>Cache>get#0:method", "supertypes": [],
            "links": [{"key": null, "filePath": "src/d.ts", "line": 2, "name": "D"}],
            "members": [{"name": "x", "kind": "property", "line": 5, "modifiers": []}]
        });
        let w: wire::DeclarationAnswer = serde_json::from_value(answer.clone()).unwrap();
        let row = DeclarationRow::from(w.clone());
        assert_eq!(serde_json::to_value(&row).unwrap(), serde_json::to_value(&w).unwrap());
        assert_eq!(serde_json::from_value::<DeclarationRow>(answer).unwrap(), row);

        let facts = serde_json::json!({
            "declarations": [{"id": "i", "name": "get", "kind": "method", "containers": ["Cache"], "line": 4, "endLine": 6, "item": null, "meaning": 1}],
            "items": [{"key": "k", "ref": {"name": "get", "kind": "method", "filePath": "src/c.ts", "line": 4}}],
            "calls": [{"from": "k", "to": "m", "sites": [5]}],
            "bases": [{"member": "k", "base": "b"}]
        });
        let d: Vec<wire::OccurrenceDeclaration> = serde_json::from_value(facts["declarations"].clone()).unwrap();
        let i: Vec<wire::CallItem> = serde_json::from_value(facts["items"].clone()).unwrap();
        let c: Vec<wire::CallEdge> = serde_json::from_value(facts["calls"].clone()).unwrap();
        let b: Vec<wire::BaseEdge> = serde_json::from_value(facts["bases"].clone()).unwrap();
        let f = Facts::from_wire(d, i, c, b);
        assert_eq!(serde_json::to_value(&f).unwrap(), facts);
    }
}
