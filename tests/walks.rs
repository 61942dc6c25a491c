//! A warm query walks the workspace once and reads no unchanged file: the
//! sync, the Language Service's file lists and the path checks share one
//! walk and one file view. Its own test binary (the one beside
//! `tests/it`), so that no other test's walks are counted: the walk
//! counter is the process's.

#[path = "it/common/mod.rs"]
mod common;

use tsq::api::{Engine, EngineOptions, QueryInput, Shape};
use tsq::source::walk_count;

#[test]
fn a_warm_query_walks_the_tree_once_and_reads_nothing_unchanged() {
    let ws = common::TempDir::copy_of(&common::repo().join("fixtures/search"), "walks");
    ws.write("tsq.toml", b"embedder = \"none\"\n");
    let engine = Engine::open(&ws.0, EngineOptions::default()).unwrap();
    let silent = tsq::progress::silent();
    let ask = |query: &str, shape: Shape| {
        let req = engine.request(QueryInput { query: query.into(), shape, paths: vec!["src".into()], ..Default::default() }).unwrap();
        let answer = engine.query(&req, &silent).unwrap();
        assert!(!answer.is_empty(), "{query}");
    };
    let question = "where do we get a new access token once the old one expired?";
    ask(question, Shape::Full); // cold: opens the index and loads the projects
    for (query, shape) in [(question, Shape::Full), ("symbol = refreshAccessToken", Shape::Full), (question, Shape::Concise)] {
        let (walks, reads) = (walk_count(), engine.files_read());
        ask(query, shape);
        assert_eq!(walk_count() - walks, 1, "{query} ({shape:?}): one walk");
        assert_eq!(engine.files_read() - reads, 0, "{query} ({shape:?}): no unchanged file read");
    }
    // An edit is read once, by whoever needs it first, and shared.
    let file = ws.0.join("src/auth/tokens.ts");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text}\nexport const touched = 1;\n")).unwrap();
    let reads = engine.files_read();
    ask(question, Shape::Full);
    assert_eq!(engine.files_read() - reads, 1, "the edited file is read once");
}
