//! One closed- or open-loop client: its connection (or its share of the spec's `connections`),
//! its call counter, and one attempt at a time.

use super::call::{CallError, Conn, SharedConnector};
use super::recorder::new_histogram;
use super::sharing::{Pool, Sharing};
use hdrhistogram::Histogram;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};
use tokio::time::{sleep_until, timeout, Sleep};

pub struct Client {
    id: usize,
    calls_made: usize,
    /// The payload of the last attempt, for `explain`.
    last_index: usize,
    conn: Option<Box<dyn Conn>>,
    connector: SharedConnector,
    payload_count: usize,
    timeout: Duration,
    /// One timer for every call's timeout, armed once and reset only when it fires (see
    /// `timed_call`): no timer registration per call.
    timer: Option<Pin<Box<Sleep>>>,
    /// The spec's shared connections, when set: the pool a call borrows from, and the gauge of
    /// calls in flight.
    sharing: Option<Arc<Sharing>>,
    /// `conn` is borrowed from the pool for the call under way.
    borrowed: bool,
    /// A pool's: each call's wait for a free connection (ns).
    pub waits: Option<Histogram<u64>>,
    /// The borrowed connection's account of the last wrong answer (it is back in the pool when
    /// `explain` runs).
    told: Option<String>,
}

/// When a successful call was sent (a pooled one: asked for a connection) and when its reply was
/// decoded.
pub struct Timing {
    pub sent: Instant,
    pub done: Instant,
    /// A one-way stream's call: each reply message's latency (empty for other calls).
    pub messages: Vec<Duration>,
}

impl Client {
    /// Client `id` over its own connection, or over its share of `sharing`'s.
    pub fn new(id: usize, connector: SharedConnector, sharing: Option<Arc<Sharing>>, timeout: Duration) -> Self {
        let payload_count = connector.payload_count().max(1);
        let connector = sharing.as_ref().and_then(|s| s.connector_for(id)).unwrap_or(connector);
        let waits = sharing.as_ref().and_then(|s| s.pool()).map(|_| new_histogram());
        Client {
            id,
            calls_made: 0,
            last_index: 0,
            conn: None,
            connector,
            payload_count,
            timeout,
            timer: None,
            sharing,
            borrowed: false,
            waits,
            told: None,
        }
    }

    /// Opens the connection (or stream) ahead of time; a failure shows up on the first call. A
    /// pool's connections are opened by the pool.
    pub async fn open(&mut self) {
        if self.pool().is_none() {
            let _ = self.connection().await;
        }
    }

    /// Call k of client i sends payload (i + k) mod len, then checks the reply against its response.
    pub async fn attempt(&mut self) -> Result<Timing, CallError> {
        let index = (self.id + self.calls_made) % self.payload_count;
        self.calls_made += 1;
        self.last_index = index;
        let outcome = self.timed_call(index).await;
        if let Err(error) = &outcome {
            if self.borrowed && *error == CallError::WrongAnswer {
                self.told = self.conn.as_ref().and_then(|conn| conn.explain(index));
            }
            if error.breaks_connection() {
                self.conn = None;
            }
        }
        self.give_back();
        outcome
    }

    /// Returns a borrowed connection to the pool after its call.
    fn give_back(&mut self) {
        if std::mem::take(&mut self.borrowed) {
            if let Some(pool) = self.sharing.as_ref().and_then(|s| s.pool()) {
                pool.give_back(self.conn.take());
            }
        }
    }

    fn pool(&self) -> Option<&Pool> {
        self.sharing.as_ref().and_then(|s| s.pool())
    }

    /// Forgets the warm-up's waits for a connection.
    pub fn reset_waits(&mut self) {
        if let Some(waits) = self.waits.as_mut() {
            waits.reset();
        }
    }

    async fn timed_call(&mut self, index: usize) -> Result<Timing, CallError> {
        let asked = Instant::now();
        self.connection().await?;
        // A pooled call is timed as its caller sees it, the wait for a free connection included (as
        // the Go and Python clients time it); its timeout still runs from the send, as theirs do.
        let start = if self.borrowed { Some(asked) } else { None };
        let Client { conn, timer, timeout: limit, sharing, .. } = self;
        let gauge = sharing.as_ref().map(|s| &s.gauge);
        let conn = conn.as_mut().ok_or(CallError::Connection)?;
        let sent = Instant::now();
        let deadline = tokio::time::Instant::from_std(sent + *limit);
        // The timer is left at an earlier call's deadline (never later than this one's); when it
        // fires before this call's deadline it is moved there, so a call times out exactly at
        // its own deadline while a timer is reset at most once per timeout period.
        let timer = timer.get_or_insert_with(|| Box::pin(sleep_until(deadline)));
        if let Some(gauge) = gauge {
            gauge.enter();
        }
        let mut call = conn.call(index);
        let result = poll_fn(|cx| {
            if let Poll::Ready(result) = call.as_mut().poll(cx) {
                return Poll::Ready(result);
            }
            while timer.as_mut().poll(cx).is_ready() {
                if timer.deadline() >= deadline {
                    return Poll::Ready(Err(CallError::Timeout));
                }
                timer.as_mut().reset(deadline);
            }
            Poll::Pending
        })
        .await;
        drop(call);
        let done = Instant::now();
        if let Some(gauge) = gauge {
            gauge.leave();
        }
        result?;
        // tokio's timer has a millisecond's granularity: a reply that came after the deadline but
        // before the timer fired is a timeout too, never a sample.
        if done - sent > *limit {
            return Err(CallError::Timeout);
        }
        match conn.reply_matches(index) {
            true => Ok(Timing { sent: start.unwrap_or(sent), done, messages: conn.message_latencies().to_vec() }),
            false => Err(CallError::WrongAnswer),
        }
    }

    /// Why the last attempt failed with `error`: the connection's account of a wrong answer,
    /// otherwise the kind's description.
    pub fn explain(&self, error: &CallError) -> String {
        let told = match (error, &self.conn) {
            (CallError::WrongAnswer, Some(conn)) => conn.explain(self.last_index),
            (CallError::WrongAnswer, None) => self.told.clone(),
            _ => None,
        };
        told.unwrap_or_else(|| error.describe())
    }

    /// The open connection, reconnecting first when the last one failed; a pool's, borrowed.
    async fn connection(&mut self) -> Result<&mut Box<dyn Conn>, CallError> {
        if self.conn.is_none() {
            self.conn = Some(match self.sharing.clone().as_ref().and_then(|s| s.pool()) {
                Some(pool) => self.borrow(pool).await?,
                None => timeout(self.timeout, self.connector.connect()).await.unwrap_or(Err(CallError::Timeout))?,
            });
        }
        self.conn.as_mut().ok_or(CallError::Connection)
    }

    async fn borrow(&mut self, pool: &Pool) -> Result<Box<dyn Conn>, CallError> {
        let (conn, waited) = pool.borrow().await;
        if let Some(waits) = self.waits.as_mut() {
            waits.saturating_record(u64::try_from(waited.as_nanos()).unwrap_or(u64::MAX).max(1));
        }
        self.borrowed = conn.is_ok();
        conn
    }
}
