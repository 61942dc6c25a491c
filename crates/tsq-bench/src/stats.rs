//! The paired bootstrap: how far a row's mean over the same questions can
//! move from the default's by the luck of which questions were asked.
//! Every ranking row is scored on the same questions as the default, so
//! each question gives one difference; resampling the questions (with
//! replacement) gives the spread of their mean. An interval that holds 0
//! is a difference these questions cannot tell from chance.

/// How many resamples each interval is taken over.
const RESAMPLES: usize = 4000;
/// The resamples are drawn from a fixed seed, so a run's intervals are the
/// same on every run with the same scores.
const SEED: u64 = 0x7451_2024_0045;

/// The mean paired difference and its 95% percentile interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

impl Interval {
    /// `+0.012 [-0.020, +0.045]`.
    pub fn fmt(&self) -> String {
        format!("{:+.3} [{:+.3}, {:+.3}]", self.mean, self.low, self.high)
    }
}

/// The mean of `a[i] - b[i]` with its 95% interval; `None` when the two
/// are not scores of the same questions (lengths differ) or are empty.
pub fn paired_interval(a: &[f64], b: &[f64]) -> Option<Interval> {
    if a.len() != b.len() || a.is_empty() {
        return None;
    }
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let n = d.len();
    let mean = d.iter().sum::<f64>() / n as f64;
    let mut state = SEED;
    let mut means: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            let sum: f64 = (0..n).map(|_| d[(splitmix(&mut state) % n as u64) as usize]).sum();
            sum / n as f64
        })
        .collect();
    means.sort_by(|x, y| x.total_cmp(y));
    let at = |p: f64| means[((RESAMPLES - 1) as f64 * p).round() as usize];
    Some(Interval { mean, low: at(0.025), high: at(0.975) })
}

/// SplitMix64: a small, well-mixed generator; enough for resampling.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_scores_differ_by_nothing() {
        let a = [0.2, 0.9, 0.4, 1.0];
        assert_eq!(paired_interval(&a, &a), Some(Interval { mean: 0.0, low: 0.0, high: 0.0 }));
    }

    #[test]
    fn a_shift_on_every_question_is_certain() {
        let b = [0.2, 0.5, 0.4, 0.0, 0.7];
        let a: Vec<f64> = b.iter().map(|x| x + 0.25).collect();
        let i = paired_interval(&a, &b).unwrap();
        for v in [i.mean, i.low, i.high] {
            assert!((v - 0.25).abs() < 1e-12, "{i:?}");
        }
    }

    #[test]
    fn one_question_gained_among_many_is_not_certain() {
        // One question of 20 goes from 0 to 1: the mean is +0.05, but a
        // resample without that question shows no difference at all.
        let b = vec![0.5; 20];
        let mut a = b.clone();
        a[7] = 1.5;
        let i = paired_interval(&a, &b).unwrap();
        assert!((i.mean - 0.05).abs() < 1e-12);
        assert_eq!(i.low, 0.0, "{i:?}");
        assert!(i.high >= 0.1, "{i:?}");
        assert_eq!(i.fmt(), format!("+0.050 [+0.000, {:+.3}]", i.high));
    }

    #[test]
    fn scores_of_other_questions_are_refused() {
        assert_eq!(paired_interval(&[0.1, 0.2], &[0.1]), None);
        assert_eq!(paired_interval(&[], &[]), None);
    }
}
