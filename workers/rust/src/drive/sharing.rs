//! The spec's `connections`: the run's clients sharing M connections. Where a connection carries
//! many calls at once (a gRPC channel) client i calls over connection i mod M, many calls in
//! flight on each; elsewhere (HTTP/1.1, tcp-raw: no call id to match a reply to its call) a call
//! borrows a free connection from a pool and gives it back, its wait for one timed by the client.

use super::call::{BoxFut, CallError, Conn, Connector, SharedConnector};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

pub struct Sharing {
    shape: Shape,
    connections: usize,
    /// Calls in flight at once, on every shared connection together.
    pub gauge: Gauge,
}

enum Shape {
    /// One connector per connection; each dials its connection once and adds callers to it.
    Multiplexed(Vec<SharedConnector>),
    Pooled(Pool),
}

impl Sharing {
    /// Opens a pool's connections now (a dial that fails is retried by the call that borrows
    /// it); a multiplexed connection is opened by the first client that calls over it.
    pub async fn open(connector: &SharedConnector, connections: usize, limit: Duration) -> Sharing {
        let shape = match connector.connect_shared().is_some() {
            true => Shape::Multiplexed((0..connections).map(|_| Multiplexed::over(connector)).collect()),
            false => Shape::Pooled(Pool::open(connector.clone(), connections, limit).await),
        };
        Sharing { shape, connections, gauge: Gauge::default() }
    }

    /// What client `id` dials: its share of a multiplexed connection; `None` where it borrows.
    pub fn connector_for(&self, id: usize) -> Option<SharedConnector> {
        match &self.shape {
            Shape::Multiplexed(connectors) => Some(connectors[id % connectors.len()].clone()),
            Shape::Pooled(_) => None,
        }
    }

    pub fn pool(&self) -> Option<&Pool> {
        match &self.shape {
            Shape::Pooled(pool) => Some(pool),
            Shape::Multiplexed(_) => None,
        }
    }

    pub fn connections(&self) -> usize {
        self.connections
    }
}

/// One multiplexed connection: dialled once (again only after a failed dial), shared by its clients.
struct Multiplexed {
    base: SharedConnector,
    opened: tokio::sync::Mutex<Option<SharedConnector>>,
}

impl Multiplexed {
    fn over(base: &SharedConnector) -> SharedConnector {
        Arc::new(Multiplexed { base: base.clone(), opened: tokio::sync::Mutex::new(None) })
    }

    async fn shared(&self) -> Result<SharedConnector, CallError> {
        let mut opened = self.opened.lock().await;
        if let Some(shared) = opened.as_ref() {
            return Ok(shared.clone());
        }
        let dial = self.base.connect_shared().ok_or(CallError::Connection)?;
        Ok(opened.insert(dial.await?).clone())
    }
}

impl Connector for Multiplexed {
    fn connect(&self) -> BoxFut<'_, Result<Box<dyn Conn>, CallError>> {
        Box::pin(async move { self.shared().await?.connect().await })
    }

    fn payload_count(&self) -> usize {
        self.base.payload_count()
    }
}

/// Connections that carry one call at a time; a call waits for a free one (FIFO, so use is
/// spread over all of them).
pub struct Pool {
    connector: SharedConnector,
    /// The free connections; `None`: broken or never opened, dialled by the call that borrows it.
    idle: Mutex<VecDeque<Option<Box<dyn Conn>>>>,
    /// One permit per entry of `idle`.
    free: Semaphore,
    limit: Duration,
}

impl Pool {
    async fn open(connector: SharedConnector, connections: usize, limit: Duration) -> Pool {
        let dials = (0..connections).map(|_| tokio::time::timeout(limit, connector.connect()));
        let opened = futures_util::future::join_all(dials).await;
        let idle = opened.into_iter().map(|dialled| dialled.ok().and_then(Result::ok)).collect();
        Pool { connector, idle: Mutex::new(idle), free: Semaphore::new(connections), limit }
    }

    /// A free connection (dialled first if it has none) and how long the call waited for it.
    /// A connection that cannot be dialled goes back at once, still to be dialled.
    pub async fn borrow(&self) -> (Result<Box<dyn Conn>, CallError>, Duration) {
        let asked = Instant::now();
        self.free.acquire().await.expect("the pool's semaphore is never closed").forget();
        let waited = asked.elapsed();
        let idle = lock(&self.idle).pop_front().expect("a permit stands for a free connection");
        let conn = match idle {
            Some(conn) => Ok(conn),
            None => tokio::time::timeout(self.limit, self.connector.connect()).await.unwrap_or(Err(CallError::Timeout)),
        };
        if conn.is_err() {
            self.give_back(None);
        }
        (conn, waited)
    }

    /// Returns a borrowed connection; `None` (it broke) is dialled again by its next borrower.
    pub fn give_back(&self, conn: Option<Box<dyn Conn>>) {
        lock(&self.idle).push_back(conn);
        self.free.add_permits(1);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Calls in flight at once: the most, and the mean sampled at each call's start (that call
/// counted), since the last reset.
#[derive(Default)]
pub struct Gauge {
    now: AtomicU64,
    max: AtomicU64,
    starts: AtomicU64,
    total: AtomicU64,
}

impl Gauge {
    pub fn enter(&self) {
        let now = self.now.fetch_add(1, Ordering::Relaxed) + 1;
        self.starts.fetch_add(1, Ordering::Relaxed);
        self.total.fetch_add(now, Ordering::Relaxed);
        self.max.fetch_max(now, Ordering::Relaxed);
    }

    pub fn leave(&self) {
        self.now.fetch_sub(1, Ordering::Relaxed);
    }

    /// Forgets the warm-up's figures; called while no call is in flight.
    pub fn reset(&self) {
        for figure in [&self.max, &self.starts, &self.total] {
            figure.store(0, Ordering::Relaxed);
        }
    }

    pub fn max(&self) -> u64 {
        self.max.load(Ordering::Relaxed)
    }

    pub fn mean(&self) -> f64 {
        match self.starts.load(Ordering::Relaxed) {
            0 => 0.0,
            starts => self.total.load(Ordering::Relaxed) as f64 / starts as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gauge_samples_at_each_start_and_forgets_the_warm_up() {
        let gauge = Gauge::default();
        gauge.enter();
        gauge.reset();
        gauge.enter(); // 2 in flight
        gauge.leave();
        gauge.leave();
        gauge.enter(); // 1 in flight
        assert_eq!((gauge.max(), gauge.mean()), (2, 1.5));
    }
}
