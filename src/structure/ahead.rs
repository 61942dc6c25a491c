//! A full occurrence pass on two cores: a second service isolate over the
//! same workspace checks every other batch, one batch ahead, while the
//! workspace's own isolate checks the batches between
//! (`occurrence_sync::sync`, `TSQ_OCCURRENCE_JOBS`).
//!
//! Invariant: the rows do not depend on which isolate checked a batch. A
//! full pass's batches are fixed before it starts (owner order; nothing
//! cascades in a full pass), each request carries its own files and
//! `release`, and a batch's answer is a function of the workspace and
//! its files only (tests/it/engine_parity.rs compares a two-isolate pass
//! of two-file batches with one isolate's rows on V8). The results are
//! consumed in batch order, so the rows are written in the same order as
//! with one isolate.
//!
//! Memory: each isolate holds the programs of the batches it checks, so a
//! project split between them is built twice. The soft memory bound both
//! isolates read is the process's resident memory, so together they
//! collect garbage as one would.

use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::source::Tree;
use crate::ts::files::FileView;
use crate::ts::protocol::FileBudget;
use crate::ts::TsError;
use crate::workspace::{Occurrences, Workspace};

/// The second isolate's thread and the answers it has computed.
pub(crate) struct Ahead {
    answers: Option<Receiver<Result<Occurrences, TsError>>>,
    thread: Option<JoinHandle<()>>,
}

impl Ahead {
    /// Starts a second isolate on `root` (the same `tree` and `view` as
    /// the pass's workspace) that checks `batches[1]`, `batches[3]`, … in
    /// order, holding at most one finished answer the pass has not taken.
    pub(crate) fn start(
        root: PathBuf,
        tree: Tree,
        view: Arc<FileView>,
        batches: Vec<Vec<PathBuf>>,
        memory_mb: u32,
        budget: FileBudget,
    ) -> Result<Ahead, TsError> {
        let (send, answers) = sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("tsq-occurrences-ahead".into())
            .spawn(move || {
                let ws = match Workspace::open_with(&root, &tree, view) {
                    Ok(ws) => ws,
                    Err(e) => {
                        let _ = send.send(Err(e));
                        return;
                    }
                };
                for batch in batches.iter().skip(1).step_by(2) {
                    // The pass stopped (interrupted, deferred or failed):
                    // nobody takes the answer.
                    if send.send(ws.occurrences(batch, true, memory_mb, None, budget)).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| TsError::Thread(e.to_string()))?;
        Ok(Ahead { answers: Some(answers), thread: Some(thread) })
    }

    /// Whether the `k`th batch (0-based) is this isolate's.
    pub(super) fn has(k: usize) -> bool {
        k % 2 == 1
    }

    /// The answer for the next batch this isolate checks.
    pub(super) fn take(&self) -> Result<Occurrences, TsError> {
        self.answers.as_ref().ok_or(TsError::PoolClosed)?.recv().map_err(|_| TsError::PoolClosed)?
    }
}

impl Drop for Ahead {
    /// Stops the thread after its current batch and tears its isolate
    /// down, so that the next phase does not start beside it.
    fn drop(&mut self) {
        self.answers.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
