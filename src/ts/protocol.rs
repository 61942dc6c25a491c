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
    pub roots: Vec<RawNode>,
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
    pub children: Vec<RawNode>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RawDiagnostic {
    pub start: u32,
    pub length: u32,
    pub message: String,
}
