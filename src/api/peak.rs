//! Peak resident memory by phase of `tsq index`: a sampling
//! thread reads the process's resident size every 20 ms and keeps the
//! largest since the phase began. (Resetting the kernel's high-water mark
//! instead, through `/proc/self/clear_refs`, would also reset what
//! `getrusage` and `/usr/bin/time` report for the whole run.) Where
//! resident memory cannot be read (not Linux), nothing is reported.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use serde::Serialize;

/// Each phase's peak resident memory, MiB. The chunk phase includes what
/// is prepared for the occurrence pass beside it (the service isolate,
/// the projects and their lib files).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct PhasePeaks {
    pub chunks: u64,
    pub embed: u64,
    pub occurrences: u64,
}

/// Resident memory now, KiB (`VmRSS`).
fn resident_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find_map(|l| l.strip_prefix("VmRSS:"))?.split_whitespace().next()?.parse().ok()
}

/// The sampling thread; stopped when dropped.
pub(super) struct Sampler {
    max_kb: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Sampler {
    /// Starts sampling; `None` where resident memory cannot be read.
    pub(super) fn start() -> Option<Sampler> {
        let max_kb = Arc::new(AtomicU64::new(resident_kb()?));
        let stop = Arc::new(AtomicBool::new(false));
        let (m, s) = (Arc::clone(&max_kb), Arc::clone(&stop));
        let thread = std::thread::Builder::new()
            .name("tsq-peak".into())
            .spawn(move || {
                while !s.load(Ordering::Relaxed) {
                    if let Some(kb) = resident_kb() {
                        m.fetch_max(kb, Ordering::Relaxed);
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
            })
            .ok()?;
        Some(Sampler { max_kb, stop, thread: Some(thread) })
    }

    /// The peak since the last call (or the start), MiB; the next phase
    /// starts from what is resident now.
    pub(super) fn take(&self) -> u64 {
        let now = resident_kb().unwrap_or(0);
        self.max_kb.swap(now, Ordering::Relaxed).max(now) / 1024
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_phase_reports_its_own_peak() {
        let Some(sampler) = super::Sampler::start() else {
            eprintln!("skipped: resident memory cannot be read here");
            return;
        };
        // 300 MiB touched and held past a few samples, then freed.
        let big = vec![1u8; 300 << 20];
        assert_eq!(big.iter().step_by(4096).map(|&b| b as usize).sum::<usize>(), (300 << 20) / 4096);
        std::thread::sleep(std::time::Duration::from_millis(200));
        drop(big);
        let with = sampler.take();
        std::thread::sleep(std::time::Duration::from_millis(100));
        let after = sampler.take();
        assert!(with >= after + 250, "peak {with} MiB with the buffer, {after} MiB in the phase after it");
    }
}
