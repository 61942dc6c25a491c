//! Where long work reports: the CLI's progress bars, MCP's progress
//! notifications, nothing (`Silent`) in tests and one-shot reads. One
//! trait that every layer takes and no layer owns.

/// Where long work reports. `total` 0 means unknown.
pub trait Progress {
    fn update(&self, phase: &str, done: u64, total: u64);
    /// A state that is reported whatever the rate limit (how far an index
    /// still being built is, when an answer is made).
    fn stage(&self, phase: &str, done: u64, total: u64) {
        self.update(phase, done, total);
    }
    fn finish(&self) {}
}

/// Reports nothing.
pub struct Silent;

impl Progress for Silent {
    fn update(&self, _: &str, _: u64, _: u64) {}
}

/// A `Silent` progress, for callers that report nothing.
pub fn silent() -> Silent {
    Silent
}
