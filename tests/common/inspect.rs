//! The differential check of `tsq inspect` shared by the structure and
//! occurrence tests: an answer through the engine against the live
//! Language Service with every program built.

use tsq::api::InspectAnswer;
use tsq::inspect::{InspectConfig, Workspace};

/// Where `answer` (to `q`, at `call_depth`) differs from `live`'s: the
/// matches, the workspace and the coverage (only which programs each
/// process built may differ), as both sides' JSON; `None` when equal.
pub fn differs(answer: &InspectAnswer, live: &Workspace, q: &str, call_depth: i32) -> Option<String> {
    differs_but(answer, live, q, call_depth, false)
}

/// `differs`, with every match's references left out of the comparison
/// when `without_references` (a known difference that concerns them
/// alone: every other field is still compared).
#[allow(dead_code)]
pub fn differs_but(answer: &InspectAnswer, live: &Workspace, q: &str, call_depth: i32, without_references: bool) -> Option<String> {
    let parsed = tsq::query::SymbolQuery::parse(q).unwrap();
    let mut expected = live.inspect(&parsed, &InspectConfig { call_depth, resolvers: None }).unwrap();
    let mut answer = answer.clone();
    if without_references {
        for m in answer.result.matches.iter_mut().chain(expected.matches.iter_mut()) {
            m.references = Default::default();
        }
    }
    let answer = &answer;
    let (a, b) = (&answer.result.coverage, &expected.coverage);
    let projects = |c: &tsq::answer::Coverage| {
        let mut all: Vec<String> = c.projects_loaded.iter().chain(&c.projects_not_loaded).cloned().collect();
        all.sort();
        all
    };
    let mut info = live.info();
    info.build_log.clear();
    let mut got = answer.workspace.clone();
    got.build_log.clear();
    let same = answer.result.matches == expected.matches
        && got == info
        && projects(a) == projects(b)
        && (&a.projects_used, &a.partial, a.files_outside_projects, &a.config_errors)
            == (&b.projects_used, &b.partial, b.files_outside_projects, &b.config_errors);
    (!same).then(|| {
        format!(
            "--- from the engine\n{}\n--- live\n{}",
            serde_json::to_string_pretty(&(&answer.result, &got)).unwrap(),
            serde_json::to_string_pretty(&(&expected, &info)).unwrap()
        )
    })
}
