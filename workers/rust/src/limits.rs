//! The bounds every server keeps against a hostile peer (docs/worker-contract.md, "Bounds every
//! server keeps"): the largest request a server reads, and how long a connection may stay idle or
//! leave its replies untaken. The same numbers, and the same setting, in every language.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// The largest request any server reads: a gRPC message, an HTTP body, an own-protocol frame.
/// The largest workload request is about 120 KB (Average of 10,000 int32 as JSON); 4 MiB is
/// gRPC's default and over thirty times that.
pub const MAX_REQUEST_BYTES: usize = 4 << 20;

/// Names the setting that lowers the idle timeout, so a test sees an idle connection closed in a
/// second instead of a minute.
pub const IDLE_ENV: &str = "RPCARENA_IDLE_TIMEOUT_S";

const DEFAULT_IDLE: Duration = Duration::from_secs(60);

/// How long a connection may send nothing, or take none of its replies, before the server
/// closes it: 60 s, or `RPCARENA_IDLE_TIMEOUT_S` seconds when that is a positive number below it.
pub fn idle_timeout() -> Duration {
    idle_timeout_of(std::env::var(IDLE_ENV).ok().as_deref())
}

/// The longest accept queue this system allows (net.core.somaxconn): every server listens with it.
pub fn listen_backlog() -> u32 {
    std::fs::read_to_string("/proc/sys/net/core/somaxconn")
        .ok()
        .and_then(|text| text.trim().parse::<u32>().ok())
        .map_or(4096, |n| n.max(128))
}

fn idle_timeout_of(value: Option<&str>) -> Duration {
    match value.and_then(|v| v.trim().parse::<f64>().ok()) {
        Some(s) if s > 0.0 && s < DEFAULT_IDLE.as_secs_f64() => Duration::from_secs_f64(s),
        _ => DEFAULT_IDLE,
    }
}

/// A connection that fails (`TimedOut`) once it has written nothing for its idle time since it
/// was opened or since its last write: a request must arrive whole, and its reply be taken, within
/// it (docs/worker-contract.md). hyper and tonic keep an idle connection, one whose peer stopped
/// reading, or one whose request comes a byte every 5 s, for ever (a deadline moved by every read
/// kept the last); under this each is closed as the Go servers' deadlines close it. An HTTP/2
/// connection writes on its own (settings, ping and window acks), so a peer that keeps it alive
/// keeps it.
pub struct Idle<S> {
    inner: S,
    idle: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl<S> Idle<S> {
    pub fn new(inner: S, idle: Duration) -> Idle<S> {
        Idle { inner, idle, deadline: Box::pin(tokio::time::sleep(idle)) }
    }

    /// After a write: the idle time counts again from now.
    fn progressed<T>(&mut self, ready: T) -> Poll<T> {
        self.deadline.as_mut().reset(Instant::now() + self.idle);
        Poll::Ready(ready)
    }

    /// No progress: pending until the deadline, then `TimedOut`.
    fn stalled<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        match self.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "connection idle"))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Idle<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Ready(result) => Poll::Ready(result), // a byte read moves no deadline: a reply does
            Poll::Pending => self.stalled(cx),
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Idle<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write(cx, buf) {
            Poll::Ready(result) => self.progressed(result),
            Poll::Pending => self.stalled(cx),
        }
    }

    fn poll_write_vectored(mut self: Pin<&mut Self>, cx: &mut Context<'_>, bufs: &[io::IoSlice<'_>]) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write_vectored(cx, bufs) {
            Poll::Ready(result) => self.progressed(result),
            Poll::Pending => self.stalled(cx),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match Pin::new(&mut self.inner).poll_flush(cx) {
            Poll::Ready(result) => Poll::Ready(result),
            Poll::Pending => self.stalled(cx),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

impl<S: tonic::transport::server::Connected> tonic::transport::server::Connected for Idle<S> {
    type ConnectInfo = S::ConnectInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        self.inner.connect_info()
    }
}

/// A listener whose connections are [`Idle`], for `axum::serve`.
pub struct IdleListener {
    pub listener: tokio::net::TcpListener,
    pub idle: Duration,
}

impl axum::serve::Listener for IdleListener {
    type Io = Idle<tokio::net::TcpStream>;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            // An accept error (out of descriptors) is the listener's, not a reason to stop.
            if let Ok((stream, addr)) = self.listener.accept().await {
                return (Idle::new(stream, self.idle), addr);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.listener.local_addr()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_idle_timeout_is_the_contracts_unless_lowered() {
        for (value, want) in [
            (None, DEFAULT_IDLE),
            (Some("0.5"), Duration::from_millis(500)),
            (Some("2"), Duration::from_secs(2)),
            (Some("0"), DEFAULT_IDLE),
            (Some("-1"), DEFAULT_IDLE),
            (Some("NaN"), DEFAULT_IDLE),
            (Some("x"), DEFAULT_IDLE),
            (Some("600"), DEFAULT_IDLE),
        ] {
            assert_eq!(idle_timeout_of(value), want, "{value:?}");
        }
    }

    #[tokio::test]
    async fn a_request_trickled_a_byte_at_a_time_times_out() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (ours, mut theirs) = tokio::io::duplex(64);
        let mut idle = Idle::new(ours, Duration::from_millis(200));
        tokio::spawn(async move {
            for _ in 0..100 {
                tokio::time::sleep(Duration::from_millis(20)).await;
                if theirs.write_all(b"x").await.is_err() {
                    return;
                }
            }
        });
        let mut byte = [0u8; 1];
        let error = loop {
            match idle.read(&mut byte).await {
                Ok(0) => panic!("the peer ended before the deadline"),
                Ok(_) => continue, // each byte well within the idle time: the deadline still holds
                Err(e) => break e,
            }
        };
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
    }

    #[tokio::test]
    async fn a_connection_without_progress_times_out() {
        use tokio::io::AsyncReadExt;
        let (ours, _theirs) = tokio::io::duplex(64);
        let mut idle = Idle::new(ours, Duration::from_millis(50));
        let mut byte = [0u8; 1];
        let error = idle.read(&mut byte).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
    }
}
