//! The echo server: one task per connection, each frame echoed with one write.

use super::inbox::Inbox;
use crate::contenders::{ServerOptions, Shutdown};
use crate::drive::call::BoxFut;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{Instant, Sleep};

pub(super) fn serve(listener: TcpListener, _: ServerOptions, shutdown: Shutdown) -> BoxFut<'static, io::Result<()>> {
    Box::pin(async move {
        tokio::select! {
            result = accept_loop(listener, crate::limits::idle_timeout()) => result,
            _ = shutdown => Ok(()),
        }
    })
}

async fn accept_loop(listener: TcpListener, idle: Duration) -> io::Result<()> {
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        tokio::spawn(echo_frames(stream, idle));
    }
}

/// Echoes every frame back in one write; ends at EOF, on an error, an oversized frame or when a
/// frame is not read and echoed within `idle` of the previous echo.
async fn echo_frames(mut stream: TcpStream, idle: Duration) {
    let mut inbox = Inbox::new();
    let deadline = tokio::time::sleep(idle);
    tokio::pin!(deadline);
    loop {
        let frame = match before(deadline.as_mut(), inbox.next_frame(&mut stream, 0)).await {
            Ok(Some(frame)) => frame,
            _ => return,
        };
        if before(deadline.as_mut(), stream.write_all(frame)).await.is_err() {
            return;
        }
        // A later deadline only updates the registered timer's entry: no new timer per frame.
        deadline.as_mut().reset(Instant::now() + idle);
    }
}

/// `io`, unless `deadline` passes first (a `TimedOut` error). `io` is polled first, so the
/// deadline is not even looked at while its bytes are there.
async fn before<T>(deadline: Pin<&mut Sleep>, io: impl Future<Output = io::Result<T>>) -> io::Result<T> {
    tokio::select! {
        biased;
        result = io => result,
        _ = deadline => Err(io::ErrorKind::TimedOut.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::frame_of;
    use super::*;
    use tokio::io::AsyncReadExt;

    /// A server with a short idle timeout on an ephemeral loopback port, and a client of it.
    async fn connected(idle: Duration) -> (tokio::task::JoinHandle<io::Result<()>>, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let server = tokio::spawn(accept_loop(listener, idle));
        (server, TcpStream::connect(address).await.unwrap())
    }

    /// Exactly `len` bytes from `client`, bounded far beyond any idle timeout here.
    async fn read_exactly(client: &mut TcpStream, len: usize) -> Vec<u8> {
        let mut got = vec![0u8; len];
        tokio::time::timeout(Duration::from_secs(10), client.read_exact(&mut got)).await.unwrap().unwrap();
        got
    }

    /// Whether the server ended the connection (EOF or reset) rather than sending a byte.
    async fn closed(client: &mut TcpStream) -> bool {
        match tokio::time::timeout(Duration::from_secs(10), client.read(&mut [0u8; 1])).await {
            Ok(Ok(n)) => n == 0,
            Ok(Err(e)) => e.kind() == io::ErrorKind::ConnectionReset,
            Err(_) => false,
        }
    }

    /// Two frames in one write come back, each echoed whole and in order.
    #[tokio::test]
    async fn pipelined_frames_are_each_echoed() {
        let (server, mut client) = connected(Duration::from_secs(60)).await;
        let (first, second) = (frame_of(b"abc"), frame_of(&[1u8; 5000]));
        client.write_all(&[first.as_slice(), &second].concat()).await.unwrap();
        assert_eq!(read_exactly(&mut client, first.len()).await, first);
        assert_eq!(read_exactly(&mut client, second.len()).await, second);
        server.abort();
    }

    #[tokio::test]
    async fn an_oversized_frame_closes_the_connection() {
        let (server, mut client) = connected(Duration::from_secs(60)).await;
        client.write_all(&(super::super::MAX_FRAME as u32 + 1).to_be_bytes()).await.unwrap();
        assert!(closed(&mut client).await, "the server kept a connection that announced an oversized frame");
        server.abort();
    }

    /// A connection that stops sending, between frames or inside one, is closed after the idle
    /// timeout (here short; 60 s in a served worker).
    #[tokio::test]
    async fn an_idle_connection_is_closed() {
        let (server, mut client) = connected(Duration::from_millis(100)).await;
        let sent = frame_of(b"abc");
        client.write_all(&sent).await.unwrap();
        assert_eq!(read_exactly(&mut client, sent.len()).await, sent);
        client.write_all(&10u32.to_be_bytes()).await.unwrap(); // a frame begun, then nothing
        assert!(closed(&mut client).await, "the server did not close an idle connection");
        server.abort();
    }

    /// The deadline is per frame, not per read: a frame trickled a byte at a time, each byte well
    /// within the idle timeout but the whole frame not, is closed.
    #[tokio::test]
    async fn a_trickled_frame_is_closed() {
        let (server, mut client) = connected(Duration::from_millis(300)).await;
        for byte in frame_of(&[3u8; 20]) {
            if client.write_all(&[byte]).await.is_err() {
                break; // already closed
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(closed(&mut client).await, "the server kept a connection that never completed a frame in time");
        server.abort();
    }
}
