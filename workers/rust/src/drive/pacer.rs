//! Open-loop schedule: intended start times over all clients together, constant or Poisson.

use super::rng::SplitMix64;
use super::spec::{Arrival, Stage};

/// The measured phase's schedule: one pacer, or one per `--rate` stage, each from its stage's
/// start; an offset comes with the stage it is due in.
pub struct Schedule {
    pacers: Vec<Pacer>,
    begins_s: Vec<f64>,
    current: usize,
}

impl Schedule {
    pub fn single(pacer: Pacer) -> Self {
        Schedule { pacers: vec![pacer], begins_s: vec![0.0], current: 0 }
    }

    pub fn staged(arrival: Arrival, stages: &[Stage], seed: u64) -> Self {
        let pacers = stages.iter().map(|s| Pacer::new(arrival, s.rate_per_s, None, Some(s.duration_s), seed)).collect();
        let begins_s = stages.iter().scan(0.0, |begin, s| Some(std::mem::replace(begin, *begin + s.duration_s))).collect();
        Schedule { pacers, begins_s, current: 0 }
    }

    /// The next call's intended start (seconds after the phase began) and its stage.
    pub fn next_due(&mut self) -> Option<(f64, usize)> {
        while self.current < self.pacers.len() {
            if let Some(offset) = self.pacers[self.current].next_offset_s() {
                return Some((self.begins_s[self.current] + offset, self.current));
            }
            self.current += 1;
        }
        None
    }
}

pub struct Pacer {
    arrival: Arrival,
    rate_per_s: f64,
    issued: u64,
    limit: Option<u64>,
    horizon_s: Option<f64>,
    clock_s: f64,
    rng: SplitMix64,
}

impl Pacer {
    /// A schedule of `limit` calls, or of calls intended before `horizon_s`.
    pub fn new(arrival: Arrival, rate_per_s: f64, limit: Option<u64>, horizon_s: Option<f64>, seed: u64) -> Self {
        Pacer { arrival, rate_per_s, issued: 0, limit, horizon_s, clock_s: 0.0, rng: SplitMix64::new(seed) }
    }

    /// The next call's intended start, in seconds after the measured phase began.
    pub fn next_offset_s(&mut self) -> Option<f64> {
        if self.limit.is_some_and(|limit| self.issued >= limit) {
            return None;
        }
        let offset = match self.arrival {
            Arrival::Constant => self.issued as f64 / self.rate_per_s,
            Arrival::Poisson => self.clock_s,
        };
        if self.horizon_s.is_some_and(|h| offset >= h) {
            return None;
        }
        self.issued += 1;
        self.clock_s += -(1.0 - self.rng.unit()).ln() / self.rate_per_s;
        Some(offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(mut pacer: Pacer) -> Vec<f64> {
        std::iter::from_fn(|| pacer.next_offset_s()).collect()
    }

    #[test]
    fn constant_spacing_by_count_and_by_horizon() {
        assert_eq!(drain(Pacer::new(Arrival::Constant, 4.0, Some(3), None, 1)), vec![0.0, 0.25, 0.5]);
        assert_eq!(drain(Pacer::new(Arrival::Constant, 4.0, None, Some(1.0), 1)), vec![0.0, 0.25, 0.5, 0.75]);
    }

    #[test]
    fn stages_keep_each_rate_from_their_own_start() {
        let stages = [Stage { rate_per_s: 10.0, duration_s: 1.0 }, Stage { rate_per_s: 40.0, duration_s: 0.5 }];
        let mut schedule = Schedule::staged(Arrival::Constant, &stages, 1);
        let due: Vec<(f64, usize)> = std::iter::from_fn(|| schedule.next_due()).collect();
        assert_eq!(due.iter().filter(|d| d.1 == 0).count(), 10);
        assert_eq!(due.iter().filter(|d| d.1 == 1).count(), 20);
        assert_eq!(due[10], (1.0, 1));
        assert!(due.windows(2).all(|w| w[0].0 < w[1].0) && due[29].0 < 1.5);
    }

    #[test]
    fn poisson_is_increasing_with_the_right_mean_gap() {
        let offsets = drain(Pacer::new(Arrival::Poisson, 1000.0, Some(20_000), None, 7));
        assert_eq!(offsets.len(), 20_000);
        assert!(offsets.windows(2).all(|w| w[0] <= w[1]));
        let mean_gap = offsets[19_999] / 19_999.0;
        assert!((mean_gap - 0.001).abs() < 0.0001, "mean gap {mean_gap}");
    }
}
