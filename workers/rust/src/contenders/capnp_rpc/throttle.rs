//! The server's backpressure on one connection. capnp-rpc reads calls as fast as they come and
//! queues their replies without limit, so a peer that sends calls and never reads a reply would
//! have the server hold every reply: `GetRandNums` with a 40-byte request owes a 4 MB reply. Here
//! the server stops reading while its replies' bytes not yet written pass the request bound, or
//! while the socket takes no more, and a call waits before it answers while they are over it. So a
//! connection holds at most one request's bound of replies, one reply more, and what its read
//! buffer held; and a peer that reads nothing is closed at the idle timeout (`limits::Idle`, which
//! wraps this and sees reads pending).

use std::cell::Cell;
use std::io;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;

/// The replies' bytes a connection may owe before it reads no more calls.
const OWED_LIMIT: usize = crate::limits::MAX_REQUEST_BYTES;

/// What one connection owes its peer: bytes of replies answered and not yet written.
#[derive(Default)]
pub(super) struct Owed {
    bytes: Cell<usize>,
    write_blocked: Cell<bool>,
    reader: Cell<Option<Waker>>,
    paid: Notify,
}

impl Owed {
    fn over(&self) -> bool {
        self.bytes.get() > OWED_LIMIT
    }

    /// Waits until the connection owes no more than the limit (a call's turn to answer).
    pub(super) async fn room(&self) {
        while self.over() {
            self.paid.notified().await;
        }
    }

    /// A reply of `bytes` answered: owed until written. Its message's header is not counted, so
    /// what writes pay never leaves a debt that no write pays.
    pub(super) fn owe(&self, bytes: usize) {
        self.bytes.set(self.bytes.get() + bytes);
    }

    fn pay(&self, bytes: usize) {
        self.bytes.set(self.bytes.get().saturating_sub(bytes));
        self.write_blocked.set(false);
        if !self.over() {
            self.paid.notify_waiters();
            if let Some(reader) = self.reader.take() {
                reader.wake();
            }
        }
    }
}

/// A connection whose reads wait while its replies are owed past the limit or its writes wait.
pub(super) struct Throttled<S> {
    inner: S,
    owed: Rc<Owed>,
}

impl<S> Throttled<S> {
    pub(super) fn new(inner: S, owed: Rc<Owed>) -> Self {
        Throttled { inner, owed }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Throttled<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        if self.owed.write_blocked.get() || self.owed.over() {
            self.owed.reader.set(Some(cx.waker().clone()));
            return Poll::Pending;
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Throttled<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.inner).poll_write(cx, buf);
        match &written {
            Poll::Pending => self.owed.write_blocked.set(true),
            Poll::Ready(Ok(n)) => self.owed.pay(*n),
            Poll::Ready(Err(_)) => self.owed.pay(0), // the connection ends; let its reader see it
        }
        written
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::time::timeout;

    const SOON: Duration = Duration::from_millis(200);

    #[tokio::test]
    async fn reads_wait_while_replies_are_owed_past_the_limit_and_resume_once_written() {
        let (ours, mut theirs) = tokio::io::duplex(1 << 16);
        let owed = Rc::new(Owed::default());
        let mut conn = Throttled::new(ours, owed.clone());
        theirs.write_all(b"call").await.unwrap();
        owed.owe(OWED_LIMIT + 100);
        let mut buf = [0u8; 4];
        assert!(timeout(SOON, conn.read(&mut buf)).await.is_err(), "read while owing");
        assert!(timeout(SOON, owed.room()).await.is_err(), "a call answered while owing");
        conn.write_all(&[0u8; 100]).await.unwrap();
        assert_eq!(timeout(SOON, conn.read(&mut buf)).await.unwrap().unwrap(), 4);
        assert!(timeout(SOON, owed.room()).await.is_ok());
    }

    #[tokio::test]
    async fn reads_wait_while_the_peer_takes_no_more_replies() {
        let (ours, mut theirs) = tokio::io::duplex(64);
        let mut conn = Throttled::new(ours, Rc::new(Owed::default()));
        theirs.write_all(b"call").await.unwrap();
        assert!(timeout(SOON, conn.write_all(&[0u8; 128])).await.is_err(), "the pipe holds 64 bytes");
        let mut buf = [0u8; 4];
        assert!(timeout(SOON, conn.read(&mut buf)).await.is_err(), "read while the writes wait");
        let mut taken = [0u8; 64];
        theirs.read_exact(&mut taken).await.unwrap();
        conn.write_all(&[0u8; 8]).await.unwrap();
        assert_eq!(timeout(SOON, conn.read(&mut buf)).await.unwrap().unwrap(), 4);
    }
}
