//! Bounded raw latency samples over all clients: Algorithm R, with each call's index.

use super::rng::SplitMix64;

pub struct Reservoir {
    limit: usize,
    seen: u64,
    samples: Vec<(u64, u64)>,
    rng: SplitMix64,
}

impl Reservoir {
    pub fn new(limit: usize, seed: u64) -> Self {
        Reservoir { limit, seen: 0, samples: Vec::with_capacity(limit.min(1 << 16)), rng: SplitMix64::new(seed) }
    }

    /// Offers the next measured call (its index is the number of calls offered before it).
    pub fn offer(&mut self, latency_ns: u64) {
        let index = self.seen;
        self.seen += 1;
        if self.samples.len() < self.limit {
            self.samples.push((index, latency_ns));
            return;
        }
        let slot = self.rng.below(self.seen);
        if slot < self.limit as u64 {
            self.samples[slot as usize] = (index, latency_ns);
        }
    }

    /// The samples as `[call_index, latency_ns]`, sorted by call index.
    pub fn into_samples(mut self) -> Vec<[u64; 2]> {
        self.samples.sort_unstable();
        self.samples.into_iter().map(|(i, ns)| [i, ns]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_at_most_limit_distinct_calls() {
        let mut reservoir = Reservoir::new(100, 1);
        (0..10_000).for_each(|ns| reservoir.offer(ns));
        let samples = reservoir.into_samples();
        assert_eq!(samples.len(), 100);
        assert!(samples.iter().all(|[i, ns]| i == ns && *i < 10_000));
        assert!(samples.windows(2).all(|w| w[0][0] < w[1][0]));
        assert!(samples.iter().any(|[i, _]| *i >= 100), "later calls must replace early ones");
    }

    #[test]
    fn keeps_everything_under_the_limit_and_nothing_at_zero() {
        let mut small = Reservoir::new(10, 1);
        (0..5).for_each(|ns| small.offer(ns));
        assert_eq!(small.into_samples().len(), 5);
        let mut none = Reservoir::new(0, 1);
        none.offer(1);
        assert!(none.into_samples().is_empty());
    }
}
