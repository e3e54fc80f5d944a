//! One client's measured phase interval by interval: the histogram and errors of the calls begun (open loop:
//! due) in each, closed as the client's clock passes the interval's end and kept encoded, so that a soak of
//! hours stays small. The clients' intervals are added by start at the end.

use super::recorder::{encode, new_histogram};
use base64::Engine;
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::Histogram;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// One interval of the result: from `start_s` seconds after the phase's start, for the spec's `interval_s`.
#[derive(Debug, Clone, Serialize)]
pub struct Interval {
    #[serde(skip)]
    index: u64,
    pub start_s: f64,
    pub calls: u64,
    pub errors: BTreeMap<String, u64>,
    pub histogram: String,
}

pub struct Series {
    start: Option<Instant>,
    every: Duration,
    index: u64,
    pub histogram: Histogram<u64>,
    pub errors: BTreeMap<String, u64>,
    pub closed: Vec<Interval>,
}

impl Series {
    pub fn new(every: Duration) -> Self {
        Series {
            start: None,
            every: every.max(Duration::from_nanos(1)),
            index: 0,
            histogram: new_histogram(),
            errors: BTreeMap::new(),
            closed: Vec::new(),
        }
    }

    pub fn begin(&mut self, start: Instant) {
        self.start = Some(start);
    }

    /// Opens the interval holding `at` (a call's start, or its intended start), closing the one before.
    pub fn at(&mut self, at: Instant) {
        let Some(start) = self.start else { return };
        let index = (at.saturating_duration_since(start).as_nanos() / self.every.as_nanos()) as u64;
        if index != self.index {
            self.close();
            self.index = index;
        }
    }

    pub fn close(&mut self) {
        if self.histogram.is_empty() && self.errors.is_empty() {
            return;
        }
        self.closed.push(Interval {
            index: self.index,
            start_s: start_s(self.index, self.every),
            calls: self.histogram.len(),
            errors: std::mem::take(&mut self.errors),
            histogram: encode(&self.histogram),
        });
        self.histogram.reset();
    }

    /// The intervals of every series given, those of the same start added, in order of start.
    pub fn merged(every: Duration, closed: Vec<Interval>) -> Vec<Interval> {
        let mut by_index: BTreeMap<u64, (Histogram<u64>, BTreeMap<String, u64>)> = BTreeMap::new();
        for interval in closed {
            let (histogram, errors) = by_index.entry(interval.index).or_insert_with(|| (new_histogram(), BTreeMap::new()));
            histogram.add(decode(&interval.histogram)).expect("histograms share bounds");
            for (kind, n) in interval.errors {
                *errors.entry(kind).or_insert(0) += n;
            }
        }
        let every = every.max(Duration::from_nanos(1));
        by_index
            .into_iter()
            .map(|(index, (histogram, errors))| Interval {
                index,
                start_s: start_s(index, every),
                calls: histogram.len(),
                errors,
                histogram: encode(&histogram),
            })
            .collect()
    }
}

/// The start as the orchestrator merges it: to the microsecond.
fn start_s(index: u64, every: Duration) -> f64 {
    (index as f64 * every.as_secs_f64() * 1e6).round() / 1e6
}

fn decode(encoded: &str) -> Histogram<u64> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(encoded).expect("encoded here");
    Deserializer::new().deserialize(&mut bytes.as_slice()).expect("encoded here")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_call_lands_in_one_interval_by_start_and_clients_add_up() {
        let start = Instant::now();
        let mut all = Vec::new();
        for step_ms in [100u64, 250] {
            let mut series = Series::new(Duration::from_secs(1));
            series.begin(start);
            for ms in (0..2500).step_by(step_ms as usize) {
                series.at(start + Duration::from_millis(ms));
                series.histogram.record(1_000_000).unwrap();
            }
            series.at(start + Duration::from_millis(1500));
            *series.errors.entry("timeout".into()).or_insert(0) += 1;
            series.at(start + Duration::from_millis(2400));
            series.close();
            all.extend(series.closed);
        }
        let merged = Series::merged(Duration::from_secs(1), all);
        let shape: Vec<(f64, u64, u64)> =
            merged.iter().map(|i| (i.start_s, i.calls, i.errors.get("timeout").copied().unwrap_or(0))).collect();
        assert_eq!(shape, vec![(0.0, 14, 0), (1.0, 14, 2), (2.0, 7, 0)]);
    }
}
