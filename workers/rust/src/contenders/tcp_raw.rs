//! `tcp-raw-rust`: the floor. Length-prefixed frames (4-byte big-endian length) echoed unchanged
//! over one persistent TCP connection per client (TCP_NODELAY), with tokio. A frame's buffer grows
//! as its bytes arrive (a length is a claim, not memory), and the server closes a connection that
//! neither sends nor takes a byte for [`IDLE_TIMEOUT`].

use super::{Contender, ServerOptions, Shutdown};
use crate::drive::call::{connect_tcp, BoxFut, CallError, Conn, Connector, SharedConnector};
use crate::drive::spec::{bad, Spec, SpecError};
use base64::Engine;
use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

pub const CONTENDER: Contender = Contender {
    id: "tcp-raw-rust",
    protocol: "tcp-raw",
    version: concat!("tokio ", env!("RPCARENA_VERSION_TOKIO")),
    server: Some(serve),
    client: Some(connector),
};

/// Frames over this close the connection.
pub const MAX_FRAME: usize = 64 << 20;
/// A connection that neither sends nor takes a byte for this long (inside a frame too) is closed.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// The most a frame's buffer grows by ahead of the bytes that arrive.
const CHUNK: usize = 64 << 10;

fn serve(listener: TcpListener, _: ServerOptions, shutdown: Shutdown) -> BoxFut<'static, io::Result<()>> {
    Box::pin(async move {
        tokio::select! {
            result = accept_loop(listener, IDLE_TIMEOUT) => result,
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

/// Echoes every frame back in one write; ends at EOF, on an error, an oversized frame or `idle`
/// without progress.
async fn echo_frames(mut stream: TcpStream, idle: Duration) {
    let mut frame = Vec::new();
    while let Ok(Some(len)) = read_frame(&mut stream, &mut frame, Some(idle)).await {
        if within(Some(idle), stream.write_all(&frame[..4 + len])).await.is_err() {
            return;
        }
    }
}

/// Reads one frame (header and payload) into `frame`; `None` for an oversized frame. The buffer
/// grows only as the payload arrives, so a header claiming 64 MiB costs nothing; each read waits
/// at most `idle` (then a `TimedOut` error).
async fn read_frame<R: AsyncRead + Unpin>(stream: &mut R, frame: &mut Vec<u8>, idle: Option<Duration>) -> io::Result<Option<usize>> {
    frame.clear();
    while frame.len() < 4 {
        read_some(stream, frame, 4, idle).await?;
    }
    let len = u32::from_be_bytes([frame[0], frame[1], frame[2], frame[3]]) as usize;
    if len > MAX_FRAME {
        return Ok(None);
    }
    while frame.len() < 4 + len {
        read_some(stream, frame, 4 + len, idle).await?;
    }
    Ok(Some(len))
}

/// One read of at most `want - frame.len()` bytes onto the end of `frame`, whose capacity grows by
/// at most what it already holds (or a chunk): never to a length that was only announced.
async fn read_some<R: AsyncRead + Unpin>(stream: &mut R, frame: &mut Vec<u8>, want: usize, idle: Option<Duration>) -> io::Result<()> {
    if frame.len() == frame.capacity() {
        frame.reserve((want - frame.len()).min(frame.len().max(CHUNK)));
    }
    let room = (want - frame.len()).min(frame.capacity() - frame.len());
    if within(idle, (&mut *stream).take(room as u64).read_buf(frame)).await? == 0 {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(())
}

/// `io` bounded by `idle` when there is one: a peer silent that long is a `TimedOut` error.
async fn within<T>(idle: Option<Duration>, io: impl Future<Output = io::Result<T>>) -> io::Result<T> {
    match idle {
        Some(idle) => tokio::time::timeout(idle, io).await.map_err(|_| io::Error::from(io::ErrorKind::TimedOut))?,
        None => io.await,
    }
}

pub fn connector(spec: &Spec) -> Result<SharedConnector, SpecError> {
    let decode = |(i, text): (usize, &String)| {
        let payload = base64::engine::general_purpose::STANDARD.decode(text).map_err(|e| bad(format!("payloads_b64[{i}]: {e}")))?;
        Ok(frame_of(&payload))
    };
    let frames: Vec<Vec<u8>> = spec.payloads_b64.iter().enumerate().map(decode).collect::<Result<_, SpecError>>()?;
    if frames.is_empty() {
        return Err(bad("a tcp-raw spec needs payloads_b64"));
    }
    Ok(Arc::new(RawConnector { target: spec.target.clone(), frames: Arc::new(frames) }))
}

fn frame_of(payload: &[u8]) -> Vec<u8> {
    let mut frame = (payload.len() as u32).to_be_bytes().to_vec();
    frame.extend_from_slice(payload);
    frame
}

struct RawConnector {
    target: String,
    frames: Arc<Vec<Vec<u8>>>,
}

impl Connector for RawConnector {
    fn connect(&self) -> BoxFut<'_, Result<Box<dyn Conn>, CallError>> {
        Box::pin(async move {
            let stream = connect_tcp(&self.target).await?;
            Ok(Box::new(RawConn { stream, frames: self.frames.clone(), reply: Vec::new() }) as Box<dyn Conn>)
        })
    }

    fn payload_count(&self) -> usize {
        self.frames.len()
    }
}

struct RawConn {
    stream: TcpStream,
    frames: Arc<Vec<Vec<u8>>>,
    /// The last reply frame, header included.
    reply: Vec<u8>,
}

impl Conn for RawConn {
    fn call(&mut self, index: usize) -> BoxFut<'_, Result<(), CallError>> {
        Box::pin(async move {
            self.reply.clear();
            self.stream.write_all(&self.frames[index]).await.map_err(|_| CallError::Connection)?;
            match read_frame(&mut self.stream, &mut self.reply, None).await {
                Ok(Some(_)) => Ok(()),
                Ok(None) => Err(CallError::Other),
                Err(_) => Err(CallError::Connection),
            }
        })
    }

    fn reply_matches(&self, index: usize) -> bool {
        self.reply == self.frames[index]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    /// A header may claim 64 MiB: the buffer grows with the bytes that really come.
    #[tokio::test]
    async fn a_lying_header_does_not_allocate_its_claim() {
        let stream = [(MAX_FRAME as u32).to_be_bytes().as_slice(), &[7u8; 100]].concat();
        let mut frame = Vec::new();
        let result = read_frame(&mut stream.as_slice(), &mut frame, None).await;
        assert_eq!(result.map_err(|e| e.kind()), Err(io::ErrorKind::UnexpectedEof));
        assert_eq!(frame.len(), 104);
        assert!(frame.capacity() < 1 << 20, "{} bytes reserved for 104", frame.capacity());
    }

    /// A connection that stops sending, between frames or inside one, is closed after the idle
    /// timeout (here short; 60 s in a served worker).
    #[tokio::test]
    async fn an_idle_connection_is_closed() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let server = tokio::spawn(accept_loop(listener, Duration::from_millis(100)));
        let mut client = TcpStream::connect(address).await.unwrap();
        let sent = frame_of(b"abc");
        client.write_all(&sent).await.unwrap();
        let mut reply = Vec::new();
        let bounded = Some(Duration::from_secs(10)); // far beyond the idle timeout
        assert_eq!(read_frame(&mut client, &mut reply, bounded).await.unwrap(), Some(3));
        assert_eq!(reply, sent);
        client.write_all(&10u32.to_be_bytes()).await.unwrap(); // a frame begun, then nothing
        let closed = within(bounded, client.read(&mut [0u8; 1])).await;
        assert_eq!(closed.map_err(|e| e.kind()), Ok(0), "the server did not close an idle connection");
        server.abort();
    }
}
