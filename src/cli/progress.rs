//! Progress on stderr: an indicatif bar with ETA when stderr is a
//! terminal, a plain line every two seconds otherwise.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use tsq::progress::Progress;

pub struct Stderr {
    bar: Option<ProgressBar>,
    phase: Mutex<String>,
    last_line: Mutex<Option<Instant>>,
}

impl Stderr {
    pub fn new() -> Stderr {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template("{prefix:>9} [{bar:30}] {pos}/{len} ({eta} left)")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar
        });
        Stderr { bar, phase: Mutex::new(String::new()), last_line: Mutex::new(None) }
    }
}

impl Progress for Stderr {
    fn update(&self, phase: &str, done: u64, total: u64) {
        let mut current = self.phase.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(bar) = &self.bar {
            if *current != phase {
                bar.reset();
                bar.set_prefix(phase.to_string());
            }
            bar.set_length(total);
            bar.set_position(done);
        } else {
            let mut last = self.last_line.lock().unwrap_or_else(|p| p.into_inner());
            let due = last.is_none_or(|t| t.elapsed() >= Duration::from_secs(2)) || done == total || *current != phase;
            if due {
                eprintln!("tsq: {phase} {done}/{total}");
                *last = Some(Instant::now());
            }
        }
        *current = phase.to_string();
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
