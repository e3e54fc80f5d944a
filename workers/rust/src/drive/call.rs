//! What a contender's client side provides: connections that make one call at a time (and, where
//! the protocol multiplexes, connections that many clients share).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;

pub type BoxFut<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Why a call failed; counted by kind, never a latency sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    WrongAnswer,
    Timeout,
    Connection,
    /// gRPC status name in lower case (`unavailable`) or HTTP status code (`500`).
    Status(String),
    Other,
}

impl CallError {
    /// The error kind as the result document names it.
    pub fn kind(&self) -> String {
        match self {
            CallError::WrongAnswer => "wrong_answer".into(),
            CallError::Timeout => "timeout".into(),
            CallError::Connection => "connection".into(),
            CallError::Status(code) => format!("status_{code}"),
            CallError::Other => "other".into(),
        }
    }

    /// After these the connection's state is unknown, so the client reconnects before its next call.
    pub fn breaks_connection(&self) -> bool {
        matches!(self, CallError::Timeout | CallError::Connection | CallError::Other)
    }

    /// What the result's `error_examples` says of a failure when the connection has nothing better.
    pub fn describe(&self) -> String {
        match self {
            CallError::WrongAnswer => "the reply differs from the expected response".into(),
            CallError::Timeout => "timed out: no reply within the time limit (--timeout)".into(),
            CallError::Connection => "the connection failed or was closed".into(),
            CallError::Status(code) => format!("status {code}"),
            CallError::Other => "a malformed or oversized reply".into(),
        }
    }
}

/// The kinds every result lists, even at zero.
pub const BASE_KINDS: [&str; 4] = ["wrong_answer", "timeout", "connection", "other"];

/// One client's connection (gRPC channel, HTTP keep-alive connection, TCP socket or stream).
pub trait Conn: Send {
    /// Encodes payload `index`, sends it, receives and decodes the reply (kept for `reply_matches`).
    fn call(&mut self, index: usize) -> BoxFut<'_, Result<(), CallError>>;
    /// Whether the last decoded reply equals the expected response `index`.
    fn reply_matches(&self, index: usize) -> bool;
    /// Why the last reply is not the expected response `index` (the failed check, bounded), when
    /// the connection can say more than [`CallError::describe`].
    fn explain(&self, _index: usize) -> Option<String> {
        None
    }
    /// A one-way stream's call: each reply message's latency, from the stream's start or the
    /// message before it (the drive loop records them per message); nothing for other calls.
    fn message_latencies(&self) -> &[Duration] {
        &[]
    }
}

/// Opens connections for one spec; its payloads are decoded once, before any call.
pub trait Connector: Send + Sync {
    fn connect(&self) -> BoxFut<'_, Result<Box<dyn Conn>, CallError>>;
    /// How many distinct payloads calls cycle through.
    fn payload_count(&self) -> usize;
    /// Where one connection carries many calls at once (a gRPC channel): opens one and returns a
    /// connector whose `connect` puts another caller on it instead of opening a connection.
    /// `None` where a connection carries one call at a time (no call id to match a reply to its
    /// call): clients sharing connections then borrow them from a pool (`drive::sharing`).
    fn connect_shared(&self) -> Option<BoxFut<'_, Result<SharedConnector, CallError>>> {
        None
    }
}

pub type SharedConnector = Arc<dyn Connector>;

/// A client's TCP connection to `target`, with TCP_NODELAY: one request must not wait for the
/// previous reply's ACK (Nagle), or every call would carry a delayed-ACK stall.
pub async fn connect_tcp(target: &str) -> Result<TcpStream, CallError> {
    let stream = TcpStream::connect(target).await.map_err(|_| CallError::Connection)?;
    stream.set_nodelay(true).map_err(|_| CallError::Connection)?;
    Ok(stream)
}
