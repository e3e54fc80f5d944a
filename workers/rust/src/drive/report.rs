//! The result document `drive` writes (worker contract, version 1).

use super::engine::Measured;
use super::recorder::{encode, Recorder};
use super::series::Interval;
use crate::contenders::Contender;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Serialize)]
pub struct DriveResult {
    pub contract: u32,
    pub calls: u64,
    pub errors: BTreeMap<String, u64>,
    /// The first failure of each kind in words (beyond the contract's required keys, as Go's).
    pub error_examples: BTreeMap<String, String>,
    pub wall_s: f64,
    pub cpu_user_s: f64,
    pub cpu_sys_s: f64,
    pub histogram: String,
    pub samples: Vec<[u64; 2]>,
    pub histogram_uncorrected: Option<String>,
    /// Open loop only: each call's schedule lag (intended start to send), the driver's own lateness.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub histogram_schedule_lag: Option<String>,
    pub late_calls: u64,
    /// A staged open loop only: each stage's figures, in the spec's order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stages: Option<Vec<StageResult>>,
    pub tool: Tool,
    /// The measured phase interval by interval, in order of start.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub intervals: Vec<Interval>,
    /// The spec's `connections` set: the connections opened, and the calls in flight at once over
    /// the measured phase (the mean sampled at each call's start, that call counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connections: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inflight_max: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inflight_mean: Option<f64>,
    /// Pooled connections only (one call at a time on each): each call's wait for a free one (ns).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub histogram_conn_wait: Option<String>,
    /// One-way streams only: their reply messages, and each one's latency (from the stream's start,
    /// or the message before it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub messages: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub histogram_messages: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct StageResult {
    pub calls: u64,
    pub histogram: String,
    pub histogram_uncorrected: String,
    pub histogram_schedule_lag: String,
}

impl StageResult {
    fn new(recorder: &Recorder) -> Self {
        let open = |h: &Option<_>| h.as_ref().map(encode).unwrap_or_default();
        StageResult {
            calls: recorder.calls,
            histogram: encode(&recorder.histogram),
            histogram_uncorrected: open(&recorder.uncorrected),
            histogram_schedule_lag: open(&recorder.lag),
        }
    }
}

#[derive(Debug, Serialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
    pub runtime: String,
}

impl DriveResult {
    pub fn new(measured: Measured, contender: &Contender) -> Self {
        let mut recorder = measured.recorder;
        let intervals = std::mem::take(&mut recorder.series.closed);
        DriveResult {
            contract: 1,
            calls: recorder.calls,
            errors: recorder.errors,
            error_examples: recorder.examples,
            wall_s: measured.wall_s,
            cpu_user_s: measured.cpu.user_s,
            cpu_sys_s: measured.cpu.sys_s,
            histogram: encode(&recorder.histogram),
            samples: measured.samples,
            histogram_uncorrected: recorder.uncorrected.as_ref().map(encode),
            histogram_schedule_lag: recorder.lag.as_ref().map(encode),
            late_calls: recorder.late_calls,
            stages: (!recorder.stages.is_empty()).then(|| recorder.stages.iter().map(StageResult::new).collect()),
            tool: Tool { name: contender.id.into(), version: contender.version.into(), runtime: crate::runtime::describe_current() },
            intervals,
            connections: measured.shared.as_ref().map(|s| s.connections),
            inflight_max: measured.shared.as_ref().map(|s| s.inflight_max),
            inflight_mean: measured.shared.as_ref().map(|s| s.inflight_mean),
            histogram_conn_wait: recorder.conn_wait.as_ref().map(encode),
            messages: recorder.messages.as_ref().map(|h| h.len()),
            histogram_messages: recorder.messages.as_ref().map(encode),
        }
    }

    /// Failed calls of all kinds.
    pub fn error_total(&self) -> u64 {
        self.errors.values().sum()
    }
}
