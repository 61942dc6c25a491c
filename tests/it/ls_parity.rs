//! Parity with tsserver: for every function, method and class in the ts-ls
//! fixtures, tsq's 1-hop call edges and references against what the
//! vendored TypeScript's own tsserver (`ts.server.Session`) answers under
//! Node, through an independent script (`tests/parity/tsserver-oracle.js`)
//! that applies the blueprint's filtering.
//!
//! One known, deliberate difference: tsserver answers incoming calls from
//! the file's default project only, so a caller in a project that
//! references this one (multi-project) is missing there. tsq asks every
//! project holding the file; such extra callers are allowed when they sit
//! in another project's files, and are printed.

use crate::common;

use common::tsserver::compare;

#[test]
fn ts_ls_fixtures_match_tsserver() {
    let base = common::repo().join("fixtures/ts-ls");
    let mut dirs: Vec<_> = std::fs::read_dir(&base).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    let mut all = Vec::new();
    let (mut compared, mut agreed) = (0, 0);
    for dir in dirs {
        let a = compare(&dir, 1, usize::MAX);
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        println!("tsserver parity {name}: {}/{} declarations agree", a.agreed, a.compared);
        for x in &a.cross_project_extras {
            println!("  explained: {x}");
        }
        compared += a.compared;
        agreed += a.agreed;
        all.extend(a.differences.into_iter().map(|d| format!("{name}: {d}")));
    }
    println!("tsserver parity (fixtures): {agreed}/{compared} declarations agree");
    assert!(compared > 0);
    assert!(all.is_empty(), "{}", all.join("\n"));
}

/// Compares a sample of each corpus (every `nth` declaration, at most
/// `limit`), prints the agreement, and fails on any difference.
fn corpora_match(corpora: Vec<(String, std::path::PathBuf)>, nth: usize, limit: usize, at_least: usize) {
    let mut all = Vec::new();
    for (name, dir) in corpora {
        let a = compare(&dir, nth, limit);
        println!(
            "tsserver parity ({name}): {}/{} sampled declarations agree ({:.1}%)",
            a.agreed,
            a.compared,
            100.0 * a.agreed as f64 / a.compared.max(1) as f64
        );
        for d in &a.differences {
            println!("  difference: {d}");
        }
        for e in &a.cross_project_extras {
            println!("  explained: {e}");
        }
        assert!(a.compared >= at_least, "{name}: at least {at_least} symbols sampled");
        all.extend(a.differences.into_iter().map(|d| format!("{name}: {d}")));
    }
    assert!(all.is_empty(), "{}", all.join("\n"));
}

/// A deterministic sample (every 8th function, method and class, at most
/// 60) of rxjs and zod: the agreement rate is printed; the target is 100%.
#[test]
fn corpus_sample_matches_tsserver() {
    let Some(corpora) = common::corpora(&["rxjs", "zod"]) else {
        println!("tsserver parity (corpus): skipped, ../shared/corpus.sh unavailable");
        return;
    };
    corpora_match(corpora, 8, 60, 50);
}

/// The monorepo corpora (`../shared/corpus.sh vue trpc tanstack`), sampled
/// sparsely: multi-project workspaces where tsq builds only the projects a
/// query needs. Skipped (with a note) when a snapshot is not on this machine.
#[test]
fn monorepo_sample_matches_tsserver() {
    let Some(corpora) = common::corpora(&["vue", "trpc", "tanstack"]) else {
        println!("tsserver parity (monorepos): skipped, ../shared/corpus.sh unavailable");
        return;
    };
    if corpora.is_empty() {
        println!("tsserver parity (monorepos): skipped, no monorepo snapshot here (fetch github:vuejs/core, trpc/trpc, TanStack/query)");
        return;
    }
    corpora_match(corpora, 97, 12, 5);
}
