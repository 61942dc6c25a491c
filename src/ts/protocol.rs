//! The Rust <-> JS contract: the serde twins of `js/protocol.d.ts`.
//!
//! Change both files in one commit. Positions are UTF-16 offsets into the
//! text Rust handed to JS; `crate::parse` converts them.

use serde::{Deserialize, Serialize};

/// What Rust hands JS for one parse.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ParseRequest {
    pub file_name: String,
    pub text: String,
}

/// What JS hands back for one parse.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ParseResponse {
    /// Every node in pre-order; roots have `parent == -1`. Flat, so deep
    /// nesting never meets serde's recursion limit.
    pub nodes: Vec<RawNode>,
    pub comments: Vec<(u32, u32)>,
    pub diagnostics: Vec<RawDiagnostic>,
    pub error: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RawNode {
    pub name: String,
    pub kind: String,
    pub start: u32,
    pub end: u32,
    pub sig_start: u32,
    pub sig_end: u32,
    pub body_bearing: bool,
    pub in_expression: bool,
    pub modifiers: Vec<String>,
    pub exported: bool,
    pub jsdoc: Option<(u32, u32)>,
    /// For imports: the local names the import binds.
    pub bindings: Vec<String>,
    /// Index of the parent in `nodes`, or -1.
    pub parent: i32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RawDiagnostic {
    pub start: u32,
    pub length: u32,
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A response shaped exactly as `js/protocol.d.ts` declares it survives
    /// a round trip through the serde types unchanged.
    #[test]
    fn response_round_trips_in_the_declared_shape() {
        let json = serde_json::json!({
            "nodes": [
                { "name": "f", "kind": "function", "start": 0, "end": 20, "sigStart": 0, "sigEnd": 15,
                  "bodyBearing": true, "inExpression": false, "modifiers": ["export"], "exported": true,
                  "jsdoc": null, "bindings": [], "parent": -1 },
                { "name": "import:x", "kind": "import", "start": 21, "end": 40, "sigStart": 21, "sigEnd": 40,
                  "bodyBearing": false, "inExpression": false, "modifiers": [], "exported": false,
                  "jsdoc": [0, 5], "bindings": ["x"], "parent": 0 }
            ],
            "comments": [[41, 50]],
            "diagnostics": [{ "start": 3, "length": 1, "message": "Expression expected." }],
            "error": null
        });
        let response: ParseResponse = serde_json::from_value(json.clone()).expect("declared shape");
        assert_eq!(response.nodes[1].jsdoc, Some((0, 5)));
        assert_eq!(serde_json::to_value(&response).unwrap(), json);
        let request = ParseRequest { file_name: "a.ts".into(), text: "x".into() };
        assert_eq!(serde_json::to_value(&request).unwrap(), serde_json::json!({ "fileName": "a.ts", "text": "x" }));
    }
}
