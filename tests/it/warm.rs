//! The Language Service stays warm: an edited file gets a new script
//! version (a content hash) and the next answer reflects it, from the same
//! service, without reopening the workspace.

use crate::common;

use std::path::Path;

use tsq::query::SymbolQuery;
use tsq::workspace::{InspectConfig, Workspace};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn an_edit_updates_the_answer_without_a_reload() {
    let dir = std::env::temp_dir().join(format!("tsq-warm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(&common::repo().join("fixtures/ts-ls/call-chain"), &dir);
    std::fs::remove_file(dir.join("queries.txt")).ok();
    std::fs::remove_file(dir.join("expected.inspect.json")).ok();

    let ws = Workspace::open(&dir).unwrap();
    let query = SymbolQuery::parse("symbol = helper.ts > normalize").unwrap();
    let config = InspectConfig::default();
    let callers = |ws: &Workspace| -> Vec<String> {
        let r = ws.inspect(&query, &config).unwrap();
        r.matches[0].incoming_callers.iter().map(|c| c.name.clone()).collect()
    };
    assert_eq!(callers(&ws), ["formatName", "isBlank", "validateEmail"]);

    // validateEmail stops calling normalize.
    let v = dir.join("validator.ts");
    let text = std::fs::read_to_string(&v).unwrap().replace("normalize(email).includes('@')", "email.includes('@')");
    std::fs::write(&v, text).unwrap();
    assert_eq!(callers(&ws), ["formatName", "isBlank"]);

    // And back: a file restored to old content answers as before.
    let f = dir.join("formatter.ts");
    let old = std::fs::read_to_string(&f).unwrap();
    std::fs::write(&f, old.replace("normalize(last)", "last").replace("normalize(first)", "first")).unwrap();
    assert_eq!(callers(&ws), ["isBlank"]);
    std::fs::write(&f, old).unwrap();
    assert_eq!(callers(&ws), ["formatName", "isBlank"]);
    let _ = std::fs::remove_dir_all(&dir);
}
