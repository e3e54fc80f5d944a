//! One client's measurements: HdrHistograms of successful calls and error counts by kind.

use super::call::{CallError, BASE_KINDS};
use super::series::Series;
use base64::Engine;
use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};
use hdrhistogram::Histogram;
use std::collections::BTreeMap;

const LOWEST_NS: u64 = 1;
const HIGHEST_NS: u64 = 60_000_000_000;
const SIGNIFICANT_DIGITS: u8 = 3;

pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(LOWEST_NS, HIGHEST_NS, SIGNIFICANT_DIGITS).expect("valid histogram bounds")
}

/// The standard V2 compressed encoding, base64 (what every HdrHistogram library reads).
pub fn encode(histogram: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    V2DeflateSerializer::new().serialize(histogram, &mut bytes).expect("serialize to memory");
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

pub struct Recorder {
    pub histogram: Histogram<u64>,
    /// Open loop only: latency from the actual send instead of the intended start.
    pub uncorrected: Option<Histogram<u64>>,
    /// Open loop only: each call's schedule lag, from its intended start to its send (the driver's own lateness).
    pub lag: Option<Histogram<u64>>,
    pub calls: u64,
    pub late_calls: u64,
    pub errors: BTreeMap<String, u64>,
    /// The first failure of each kind, said in words (bounded to `EXAMPLE_CHARS`).
    pub examples: BTreeMap<String, String>,
    /// A staged open loop: each stage's own recorder (successes only), a call in the stage it was due in.
    pub stages: Vec<Recorder>,
    /// The measured phase interval by interval (a one-second series until the engine sets the spec's).
    pub series: Series,
    /// Calls borrowing pooled connections (the spec's `connections`): each call's wait for one.
    pub conn_wait: Option<Histogram<u64>>,
    /// One-way streams: each reply message's latency (made at the first stream).
    pub messages: Option<Histogram<u64>>,
}

/// The longest error example kept, as the Go worker bounds them.
pub const EXAMPLE_CHARS: usize = 200;

impl Recorder {
    pub fn new(open_loop: bool) -> Self {
        let errors = BASE_KINDS.iter().map(|k| (k.to_string(), 0)).collect();
        Recorder {
            histogram: new_histogram(),
            uncorrected: open_loop.then(new_histogram),
            lag: open_loop.then(new_histogram),
            calls: 0,
            late_calls: 0,
            errors,
            examples: BTreeMap::new(),
            stages: Vec::new(),
            series: Series::new(std::time::Duration::from_secs(1)),
            conn_wait: None,
            messages: None,
        }
    }

    /// A recorder with one recorder per stage (none: no stages).
    pub fn staged(open_loop: bool, stages: usize) -> Self {
        Recorder { stages: (0..stages).map(|_| Recorder::new(true)).collect(), ..Recorder::new(open_loop) }
    }

    pub fn success(&mut self, latency_ns: u64) {
        self.calls += 1;
        self.histogram.saturating_record(latency_ns.clamp(LOWEST_NS, HIGHEST_NS));
        self.series.histogram.saturating_record(latency_ns.clamp(LOWEST_NS, HIGHEST_NS));
    }

    /// A verified stream's reply messages, each with its latency.
    pub fn messages(&mut self, latencies: &[std::time::Duration]) {
        if latencies.is_empty() {
            return;
        }
        let histogram = self.messages.get_or_insert_with(new_histogram);
        for latency in latencies {
            histogram.saturating_record(u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX).clamp(LOWEST_NS, HIGHEST_NS));
        }
    }

    /// Open loop: the from-send latency, the schedule lag (intended start to send), and whether the send was late.
    pub fn schedule(&mut self, uncorrected_ns: u64, lag_ns: u64, late: bool) {
        if let Some(h) = self.uncorrected.as_mut() {
            h.saturating_record(uncorrected_ns.clamp(LOWEST_NS, HIGHEST_NS));
        }
        if let Some(h) = self.lag.as_mut() {
            h.saturating_record(lag_ns.min(HIGHEST_NS));
        }
        self.late_calls += u64::from(late);
    }

    /// Counts a failure; `explain` runs only for the first of its kind (it may format a reply).
    pub fn failure(&mut self, error: &CallError, explain: impl FnOnce() -> String) {
        let kind = error.kind();
        if !self.examples.contains_key(&kind) {
            self.examples.insert(kind.clone(), explain().chars().take(EXAMPLE_CHARS).collect());
        }
        *self.series.errors.entry(kind.clone()).or_insert(0) += 1;
        *self.errors.entry(kind).or_insert(0) += 1;
    }

    pub fn merge(&mut self, other: Recorder) {
        self.histogram.add(&other.histogram).expect("histograms share bounds");
        if let (Some(mine), Some(theirs)) = (self.uncorrected.as_mut(), other.uncorrected.as_ref()) {
            mine.add(theirs).expect("histograms share bounds");
        }
        if let (Some(mine), Some(theirs)) = (self.lag.as_mut(), other.lag.as_ref()) {
            mine.add(theirs).expect("histograms share bounds");
        }
        add_to(&mut self.conn_wait, other.conn_wait);
        add_to(&mut self.messages, other.messages);
        self.calls += other.calls;
        self.late_calls += other.late_calls;
        for (kind, count) in other.errors {
            *self.errors.entry(kind).or_insert(0) += count;
        }
        for (kind, text) in other.examples {
            self.examples.entry(kind).or_insert(text);
        }
        for (mine, theirs) in self.stages.iter_mut().zip(other.stages) {
            mine.merge(theirs);
        }
        self.series.closed.extend(other.series.closed);
    }
}

/// `theirs` added into `mine` (taken as it is when `mine` has none).
fn add_to(mine: &mut Option<Histogram<u64>>, theirs: Option<Histogram<u64>>) {
    let Some(theirs) = theirs else { return };
    match mine {
        Some(kept) => kept.add(&theirs).expect("histograms share bounds"),
        None => *mine = Some(theirs),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdrhistogram::serialization::Deserializer;

    #[test]
    fn encoding_round_trips_and_merge_adds() {
        let mut a = Recorder::new(false);
        let mut b = Recorder::new(false);
        a.success(80_000);
        b.success(0);
        b.failure(&CallError::Status("500".into()), || "x".repeat(500));
        a.merge(b);
        let bytes = base64::engine::general_purpose::STANDARD.decode(encode(&a.histogram)).unwrap();
        let decoded: Histogram<u64> = Deserializer::new().deserialize(&mut bytes.as_slice()).unwrap();
        assert_eq!((decoded.len(), a.calls, a.errors["status_500"], a.errors["timeout"]), (2, 2, 1, 0));
        assert_eq!(a.examples["status_500"].len(), EXAMPLE_CHARS);
    }

    #[test]
    fn open_loop_keeps_the_schedule_lag_apart_and_merges_it() {
        let mut a = Recorder::new(true);
        let mut b = Recorder::new(true);
        a.schedule(1_000_000, 5_000_000, true);
        b.schedule(1_000_000, 0, false);
        a.merge(b);
        let lag = a.lag.as_ref().unwrap();
        assert_eq!((lag.len(), lag.equivalent(lag.max(), 5_000_000), a.late_calls), (2, true, 1));
        assert!(Recorder::new(false).lag.is_none());
    }

    #[test]
    fn a_streams_messages_are_kept_only_when_there_are_some_and_merge_adds() {
        let (mut a, mut b, mut unary) = (Recorder::new(false), Recorder::new(false), Recorder::new(false));
        unary.messages(&[]);
        a.messages(&[std::time::Duration::from_micros(40), std::time::Duration::from_micros(10)]);
        b.messages(&[std::time::Duration::from_micros(30)]);
        a.merge(b);
        assert_eq!((unary.messages.is_none(), a.messages.as_ref().map(|h| h.len())), (true, Some(3)));
        let mut none = Recorder::new(false);
        none.merge(a);
        assert_eq!(none.messages.map(|h| h.len()), Some(3));
    }
}
