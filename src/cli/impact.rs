//! `tsq impact [<rev>|--staged|--worktree]`: what the working tree's
//! changes touch (`Engine::impact`), synced first with progress on stderr;
//! answered by a warm `tsq serve` on the workspace when one runs.

use tsq::api::printed;
use tsq::impact::ImpactRequest;
use tsq::progress::Progress as _;

use super::query::Place;
use super::{progress, ExitStatus};

pub fn run(place: Place, req: ImpactRequest, json: bool) -> anyhow::Result<ExitStatus> {
    if let Some(printed) = super::hand_off(&place, || tsq::handoff::Work::Impact { request: req.clone(), json }) {
        return super::print(printed);
    }
    let engine = super::engine(place.root, place.options)?;
    let progress = progress::Stderr::new();
    let printed = printed::impact(engine, &req, json, &progress);
    progress.finish();
    super::print(printed?)
}
