//! `protocol`'s tests: the messages survive a round trip in the shape
//! `js/protocol.d.ts` declares.

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
        "opaqueBodies": [[14, 20]],
        "error": null
    });
    let response: ParseResponse = serde_json::from_value(json.clone()).expect("declared shape");
    assert_eq!(response.nodes[1].jsdoc, Some((0, 5)));
    assert_eq!(serde_json::to_value(&response).unwrap(), json);
    let request = ParseRequest { file_name: "a.ts".into(), text: "x".into() };
    assert_eq!(serde_json::to_value(&request).unwrap(), serde_json::json!({ "fileName": "a.ts", "text": "x" }));
}

/// The Language Service messages, written in the shape
/// `js/protocol.d.ts` declares (every field, optional ones present),
/// survive a round trip unchanged; a renamed or dropped field fails here.
#[test]
fn service_messages_round_trip_in_the_declared_shape() {
    let sym = |name: &str| serde_json::json!({ "name": name, "kind": "function", "filePath": "a.ts", "line": 1, "isAbstract": false });
    let call = serde_json::json!({ "name": "g", "kind": "function", "filePath": "b.ts", "line": 3, "callSites": [4, 5], "cyclic": true,
        "depthLimited": false, "outgoingCalls": [], "incomingCallers": [] });
    let metadata = serde_json::json!({
        "symbol": sym("f"), "project": "tsconfig.json", "signature": "f(): void", "modifiers": ["export"],
        "outgoingCalls": [call.clone()], "incomingCallers": [call],
        "references": { "totalCount": 2, "fileCount": 1, "files": [{ "filePath": "b.ts", "lines": [4, 5] }] },
        "typeHierarchy": { "extends": sym("Base"), "implements": [sym("I")], "subtypes": [], "isAbstract": true,
            "typeParameters": [{ "name": "T", "constraint": "object", "default": "{}" }] },
        "members": [{ "name": "m", "kind": "method", "line": 2, "type": "() => void", "modifiers": ["static"] }],
        "typeFlows": { "symbol": sym("f"), "parameters": [{ "name": "x", "type": "X", "resolvedTypes": [sym("X")] }],
            "returnType": { "name": "return", "type": "void", "resolvedTypes": [] }, "referencedTypes": [sym("X")] }
    });
    let build = serde_json::json!([{ "project": "tsconfig.json", "files": 3, "rootFiles": 2, "libFilesParsed": 1, "ms": 7 }]);
    let coverage = serde_json::json!({ "projectsLoaded": ["tsconfig.json"], "projectsNotLoaded": ["x/tsconfig.json"], "projectsUsed": ["tsconfig.json"],
        "filesOutsideProjects": 1, "partial": ["unresolved import 'y'"], "configErrors": [] });
    let responses = [
        serde_json::json!({ "kind": "inspected", "result": { "matches": [metadata], "coverage": coverage, "buildLog": build.clone() } }),
        serde_json::json!({ "kind": "lookedUp", "result": {
            "matches": [{ "symbol": sym("f"), "qualifiedName": "f", "startLine": 1, "endLine": 3, "project": "tsconfig.json" }],
            "snapshots": [{ "filePath": "a.ts", "targets": [{ "pos": 0, "end": 15, "start": 0, "text": "function f() {}", "frame": null }],
                "context": [{ "pos": 20, "end": 30, "start": 18, "text": "  x = 1;", "frame": 16 }],
                "frames": [{ "pos": 16, "start": 16, "open": 25, "closeStart": 31, "end": 32, "header": "class C {", "close": "}" }] }], "hints": ["h"], "buildLog": build.clone() } }),
        serde_json::json!({ "kind": "loaded", "workspace": { "buildLog": build, "solutions": [], "filesOutsideProjects": ["z.ts"], "configErrors": [],
            "projects": [{ "name": "tsconfig.json", "configPath": "tsconfig.json", "fileCount": 3, "references": [], "composite": false }] } }),
        serde_json::json!({ "kind": "analyzed", "result": { "anything": [1, 2] } }),
        serde_json::json!({ "kind": "failed", "message": "boom" }),
    ];
    for json in responses {
        let response: ServiceResponse = serde_json::from_value(json.clone()).unwrap_or_else(|e| panic!("{e}: {json}"));
        assert_eq!(serde_json::to_value(&response).unwrap(), json);
    }
    let request = ServiceRequest::Occurrences {
        files: vec!["/w/a.ts".into()],
        release: true,
        memory_mb: 1100,
        narrow: None,
        budget: FileBudget { work: 4_000_000, seconds: 120 },
    };
    let json = serde_json::json!({ "method": "occurrences", "files": ["/w/a.ts"], "release": true, "memoryMb": 1100, "budget": { "work": 4_000_000, "seconds": 120 } });
    assert_eq!(serde_json::to_value(&request).unwrap(), json);
    assert_eq!(serde_json::from_value::<ServiceRequest>(json).unwrap(), request);
    let request = ServiceRequest::Lookup { targets: vec![LookupTarget { file: None, names: vec!["f".into()], candidates: Some(vec!["/w/a.ts".into()]) }] };
    assert_eq!(
        serde_json::to_value(&request).unwrap(),
        serde_json::json!({ "method": "lookup", "targets": [{ "file": null, "names": ["f"], "candidates": ["/w/a.ts"] }] })
    );
}

/// Occurrence batches arrive as JSON text (`op_tsq_service_respond_json`):
/// a lone surrogate escape (a string literal's name) reads as U+FFFD, a
/// pair stays a pair, an escaped backslash before `u` is no escape, and
/// text that does not parse is a `failed` response that says so.
#[test]
fn json_responses_mend_lone_surrogates_and_fail_clearly() {
    assert!(matches!(mend_lone_surrogates(r#"{"a":"x\\ud800"}"#), std::borrow::Cow::Borrowed(_)));
    assert_eq!(mend_lone_surrogates(r#""\ud83d\ude00 \ud800 \udc00x""#), r#""\ud83d\ude00 \ufffd \ufffdx""#);
    let json = r#"{"kind":"occurrences","files":[{"relativePath":"a.ts","declarations":[],"occurrences":[{"line":1,"column":2,"symbol":"a.ts > \ud800","role":"definition","enclosing":"a.ts","meaning":1}],"items":[],"calls":[],"bases":[],"global":false,"imports":[],"reexports":[],"apiText":null}],"failed":[]}"#;
    match ServiceResponse::from_json(json) {
        ServiceResponse::Occurrences { files, .. } => assert_eq!(files[0].occurrences[0].symbol, "a.ts > \u{fffd}"),
        other => panic!("{other:?}"),
    }
    match ServiceResponse::from_json(r#"{"kind":"occurrences","files":7}"#) {
        ServiceResponse::Failed { message } => assert!(message.contains("not valid JSON for its kind"), "{message}"),
        other => panic!("{other:?}"),
    }
}
