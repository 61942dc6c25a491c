//! How an occurrence pass is paced: files per request, the memory bound
//! of each request, the order of batches, and what a pass may leave for
//! the next one (`Defer`) instead of re-checking it now.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

/// Files per request to the service isolate (one progress step) in a full
/// pass.
pub(super) const BATCH: usize = 64;
/// Files per request in an incremental pass (the cascade after an edit,
/// mostly inside `tsq serve`). A request's response sits in the JS heap
/// and again in Rust while it is converted, on top of the programs a
/// server keeps: on vue, a signature edit's 375-file cascade peaked at
/// 1,606 MB with 64 files a request, 1,359-1,371 MB with 16 and 1,268 MB
/// with 8 (benches/runs/2026-11-29-serve-edits-issue47-pass4.md).
pub(super) const INCREMENTAL_BATCH: usize = 8;
/// An incremental sync of at most this many files, whose owner program is
/// not built (a fresh CLI process), checks them in a program of their
/// import closure (`protocol::Narrow`): on vue, a body-only edit's program
/// is a few dozen files instead of 461. More files share the whole program.
pub(super) const NARROW_FILES: usize = 8;
/// A full pass's soft bound on resident memory, MiB: past it the engine
/// collects garbage, then starts a fresh checker if that was not enough;
/// 0 starts fresh checkers only between requests. Checked between files,
/// so one type-heavy file can overshoot it. The bound alone paces a
/// pass's collections (`tsq_engine`'s `collector`): at 1,200 that took
/// desktop's pass from 96-98 to 86 s and vue's peak from 1,381 to 1,462
/// MiB; at 1,100, 88 s and 1,301-1,333 MiB, with vue's time unchanged
/// (benches/runs/2026-11-30-pacing-issue47-pass8.md).
const MEMORY_MB: u32 = 1100;
/// The bound of an incremental pass longer than one request: the cascade
/// after a signature edit, which `tsq serve` runs in the background beside
/// the programs it keeps. With the checkers a cascade leaves dropped at
/// the bound (`Project.dropChecker`), vue's 375-file cascade peaked at
/// 1,171-1,173 MiB with this bound, 1,211-1,212 with 1,100 and
/// 1,280-1,291 with 1,200, at about the number of collections the server
/// made before at 1,200 (benches/runs/2026-11-30-serve-edits-issue47-pass6.md). The
/// request an answer waits for (the edited files) has no bound at all.
const CASCADE_MEMORY_MB: u32 = 1000;
/// What a sync may leave recorded for the next one (`Pending`,
/// `OccurrenceReport::deferred`) instead of re-indexing it now.
#[derive(Debug, Clone, Default)]
pub enum Defer {
    /// Nothing: every queued file, cascades included, is re-indexed.
    #[default]
    Nothing,
    /// `tsq serve`'s inline budget: a sync whose files, cascades included
    /// (one that reached a global importer: every file), outnumber it
    /// stops after the batch that found them.
    Past(usize),
    /// The cascade, where the caller knows that no changed file moved
    /// what other files' names are bound to: these files' declarations
    /// keep their names and export forms, and their text outside
    /// declarations is unchanged (`impact::declarations::keeps_bindings`).
    /// The files the sync queues at its start are re-indexed; what an API
    /// change among them queues is left. Those files' text and resolution
    /// are unchanged, so their rows still name what they reference
    /// (`tsq impact` reads exactly that); only their types wait for the
    /// next sync. When a queued file is not in the set, or an input
    /// changed (a package behind `export *` may export other names), it is
    /// `Nothing`.
    ///
    /// `kept`: each such file, with the hash of the base text whose
    /// bindings it keeps; the sync records it beside the file's new rows
    /// (`Pending::kept`), so that a later edit of the file is compared
    /// with the text its rows came from, not only with the base.
    ///
    /// `carry`: the files an earlier such cascade left (`Pending` with
    /// `names_current`), unchanged since their rows and not in `kept`,
    /// are left too, not re-checked first (`tsq serve`, whose background
    /// pass re-checks them; a CLI process, which has none, re-checks them
    /// now).
    Cascade { kept: BTreeMap<String, String>, carry: bool },
    /// `tsq serve`'s background pass: everything, but an incremental one
    /// stops between batches, leaving the rest recorded, as soon as an
    /// answer waits for the pass (the count is the engine's waiters),
    /// which then runs its own sync; the worker resumes after it.
    Yield(Arc<AtomicUsize>),
}

/// The next `size` files of `queue`: by owner project when `owners` is
/// known (a full pass), else in path order.
pub(super) fn next_batch(queue: &BTreeSet<String>, owners: Option<&HashMap<String, usize>>, size: usize) -> Vec<String> {
    let Some(owners) = owners else {
        return queue.iter().take(size).cloned().collect();
    };
    let mut all: Vec<&String> = queue.iter().collect();
    all.sort_by_key(|p| (owners.get(*p).copied().unwrap_or(usize::MAX), *p));
    all.into_iter().take(size).cloned().collect()
}

/// The memory bound of one occurrence request (`MEMORY_MB`,
/// `CASCADE_MEMORY_MB`), with `done` files checked before it in the pass
/// and `left` after it. The first request of an incremental pass that is
/// all an answer waits for (the edited files; their cascade, when
/// deferred, is the next pass's) has none: a collection costs a second or
/// more on a server's heap (1.2-1.5 s at trpc's 560 MiB, 2.7 of a 3.0 s
/// edit) and frees little, and `tsq serve` collects when idle
/// (`Workspace::tidy`).
pub(super) fn request_bound(full: bool, done: usize, batch: usize, left: usize, defer: &Defer) -> u32 {
    if !full && done == 0 && (left == 0 || matches!(defer, Defer::Cascade { .. })) {
        0
    } else if !full && done + batch + left > INCREMENTAL_BATCH {
        CASCADE_MEMORY_MB
    } else {
        MEMORY_MB
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_request_an_answer_waits_for_goes_unbounded() {
        // The edited file alone, or before a cascade left to the next pass.
        assert_eq!(request_bound(false, 0, 1, 0, &Defer::Nothing), 0);
        assert_eq!(request_bound(false, 0, 1, 278, &Defer::Cascade { kept: Default::default(), carry: false }), 0);
        // The cascade run now: its first request and the later ones.
        assert_eq!(request_bound(false, 0, 8, 270, &Defer::Nothing), CASCADE_MEMORY_MB);
        assert_eq!(request_bound(false, 0, 8, 270, &Defer::Past(50)), CASCADE_MEMORY_MB);
        assert_eq!(request_bound(false, 8, 8, 262, &Defer::Nothing), CASCADE_MEMORY_MB);
        // A short incremental pass past its first request.
        assert_eq!(request_bound(false, 4, 3, 0, &Defer::Nothing), MEMORY_MB);
        // A full pass, whatever its position.
        assert_eq!(request_bound(true, 0, 64, 0, &Defer::Nothing), MEMORY_MB);
        assert_eq!(request_bound(true, 0, 64, 900, &Defer::Cascade { kept: Default::default(), carry: false }), MEMORY_MB);
    }
}
