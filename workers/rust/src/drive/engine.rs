//! The drive loop: warm-up by time, a gate (the `sync` handshake, or nothing), then the measured
//! phase (closed or open loop), which every client starts together.

use super::alarm::Alarm;
use super::call::{BoxFut, SharedConnector};
use super::client::{Client, Timing};
use super::pacer::{Pacer, Schedule};
use super::recorder::Recorder;
use super::reservoir::Reservoir;
use super::rusage::{cpu_times, CpuTimes};
use super::series::Series;
use super::sharing::Sharing;
use super::spec::{Spec, Stop};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::Barrier;

/// A send more than this after its intended start is a late call (open loop).
const LATE: Duration = Duration::from_millis(1);
const RESERVOIR_SEED: u64 = 0x5EED_0001;
const PACER_SEED: u64 = 0x5EED_0002;

pub struct Measured {
    pub recorder: Recorder,
    pub samples: Vec<[u64; 2]>,
    pub wall_s: f64,
    pub cpu: CpuTimes,
    /// The spec's `connections` set: what sharing them measured.
    pub shared: Option<Shared>,
}

/// The shared connections of a run and the calls in flight on them over the measured phase.
pub struct Shared {
    pub connections: usize,
    pub inflight_max: u64,
    pub inflight_mean: f64,
}

struct Run {
    connector: SharedConnector,
    sharing: Option<Arc<Sharing>>,
    clients: usize,
    stop: Stop,
    timeout: Duration,
    warmup_until: Instant,
    /// Clients and the coordinator meet here when every client is warm ...
    warm: Barrier,
    /// ... and here once the gate has opened.
    go: Barrier,
    start: OnceLock<(Instant, CpuTimes)>,
    reservoir: Mutex<Reservoir>,
    pacer: Option<Mutex<Schedule>>,
    /// Where this driver's schedule starts after the phase's start (`schedule_offset_ns`).
    shift: Duration,
    stages: usize,
    interval: Duration,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs the spec's clients as tasks on the current runtime and gathers their measurements.
/// `gate` runs once every client is warm; the measured phase starts when it resolves.
pub async fn run(spec: &Spec, connector: SharedConnector, gate: BoxFut<'static, ()>) -> Measured {
    let sharing = match spec.connections {
        Some(connections) => Some(Arc::new(Sharing::open(&connector, connections, spec.timeout()).await)),
        None => None,
    };
    let run = Arc::new(Run::new(spec, connector, sharing));
    let tasks: Vec<_> = (0..run.clients).map(|id| tokio::spawn(client_task(run.clone(), id))).collect();
    run.warm.wait().await;
    gate.await;
    let _ = run.start.set((Instant::now(), cpu_times()));
    if let Some(sharing) = &run.sharing {
        sharing.gauge.reset(); // every client waits at the barrier: none is in flight
    }
    run.go.wait().await;
    let mut recorder = Recorder::staged(run.pacer.is_some(), run.stages);
    let mut last_end = None;
    for task in tasks {
        let (client_recorder, end) = task.await.expect("client task does not panic");
        recorder.merge(client_recorder);
        last_end = last_end.max(Some(end));
    }
    recorder.series.closed = Series::merged(run.interval, std::mem::take(&mut recorder.series.closed));
    let cpu_end = cpu_times();
    let (start, cpu_start) = *run.start.get().expect("set before the go barrier opens");
    let samples = std::mem::replace(&mut *lock(&run.reservoir), Reservoir::new(0, 0)).into_samples();
    let wall_s = last_end.map_or(0.0, |end| end.duration_since(start).as_secs_f64());
    let shared =
        run.sharing.as_ref().map(|s| Shared { connections: s.connections(), inflight_max: s.gauge.max(), inflight_mean: s.gauge.mean() });
    Measured { recorder, samples, wall_s, cpu: cpu_end.since(cpu_start), shared }
}

impl Run {
    fn new(spec: &Spec, connector: SharedConnector, sharing: Option<Arc<Sharing>>) -> Run {
        let stop = spec.stop().expect("validated spec");
        let shift = Duration::from_nanos(spec.schedule_offset_ns.unwrap_or(0));
        let pacer = spec.rate_per_s.map(|rate| {
            let (limit, horizon) = match stop {
                Stop::Calls(n) => (Some(n), None),
                Stop::Seconds(s) => (None, Some(s - shift.as_secs_f64())),
            };
            Mutex::new(match &spec.stages {
                Some(stages) => Schedule::staged(spec.arrival, stages, PACER_SEED),
                None => Schedule::single(Pacer::new(spec.arrival, rate, limit, horizon, PACER_SEED)),
            })
        });
        Run {
            connector,
            sharing,
            clients: spec.clients,
            stop,
            timeout: spec.timeout(),
            warmup_until: Instant::now() + Duration::from_secs_f64(spec.warmup_s.max(0.0)),
            warm: Barrier::new(spec.clients + 1),
            go: Barrier::new(spec.clients + 1),
            start: OnceLock::new(),
            reservoir: Mutex::new(Reservoir::new(spec.sample_limit, RESERVOIR_SEED)),
            pacer,
            shift,
            stages: spec.stages.as_ref().map_or(0, Vec::len),
            interval: Duration::from_secs_f64(spec.interval_s.max(1e-9)),
        }
    }

    /// Client `id`'s share of a call count: even split, the first `calls % clients` do one more.
    fn quota(&self, id: usize, calls: u64) -> u64 {
        let clients = self.clients as u64;
        calls / clients + u64::from((id as u64) < calls % clients)
    }
}

async fn client_task(run: Arc<Run>, id: usize) -> (Recorder, Instant) {
    let mut client = Client::new(id, run.connector.clone(), run.sharing.clone(), run.timeout);
    client.open().await;
    while Instant::now() < run.warmup_until {
        let _ = client.attempt().await;
    }
    run.warm.wait().await;
    run.go.wait().await;
    client.reset_waits();
    let start = run.start.get().expect("set before the go barrier opens").0;
    let mut recorder = Recorder::staged(run.pacer.is_some(), run.stages);
    recorder.series = Series::new(run.interval);
    recorder.series.begin(start);
    match &run.pacer {
        None => closed_loop(&run, &mut client, id, start, &mut recorder).await,
        Some(pacer) => open_loop(&run, &mut client, pacer, start, &mut recorder).await,
    }
    recorder.series.close();
    recorder.conn_wait = client.waits.take();
    (recorder, Instant::now())
}

async fn closed_loop(run: &Run, client: &mut Client, id: usize, start: Instant, recorder: &mut Recorder) {
    match run.stop {
        Stop::Calls(calls) => {
            for _ in 0..run.quota(id, calls) {
                closed_call(run, client, recorder).await;
            }
        }
        Stop::Seconds(seconds) => {
            let end = start + Duration::from_secs_f64(seconds);
            while Instant::now() < end {
                closed_call(run, client, recorder).await;
            }
        }
    }
}

async fn closed_call(run: &Run, client: &mut Client, recorder: &mut Recorder) {
    recorder.series.at(Instant::now());
    match client.attempt().await {
        Ok(Timing { sent, done, messages }) => {
            record(run, recorder, nanos(done - sent));
            recorder.messages(&messages);
        }
        Err(error) => recorder.failure(&error, || client.explain(&error)),
    }
}

fn record(run: &Run, recorder: &mut Recorder, latency_ns: u64) {
    recorder.success(latency_ns);
    lock(&run.reservoir).offer(latency_ns);
}

/// wrk2-style: each call takes the next slot of the shared schedule and is timed from it.
async fn open_loop(run: &Run, client: &mut Client, pacer: &Mutex<Schedule>, start: Instant, recorder: &mut Recorder) {
    let mut alarm = Alarm::default();
    loop {
        let Some((offset_s, stage)) = lock(pacer).next_due() else { break };
        let intended = start + run.shift + Duration::from_secs_f64(offset_s);
        alarm.wait_until(intended).await;
        recorder.series.at(intended);
        match client.attempt().await {
            Ok(Timing { sent, done, messages }) => {
                record(run, recorder, nanos(done - intended));
                recorder.messages(&messages);
                let lag = sent.saturating_duration_since(intended);
                recorder.schedule(nanos(done - sent), nanos(lag), lag > LATE);
                if let Some(staged) = recorder.stages.get_mut(stage) {
                    staged.success(nanos(done - intended));
                    staged.schedule(nanos(done - sent), nanos(lag), lag > LATE);
                }
            }
            Err(error) => recorder.failure(&error, || client.explain(&error)),
        }
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}
