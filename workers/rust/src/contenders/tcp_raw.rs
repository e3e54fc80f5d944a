//! `tcp-raw-rust`: the floor. Length-prefixed frames (4-byte big-endian length) echoed unchanged
//! over one persistent TCP connection per client (TCP_NODELAY), with tokio.

use super::{Contender, ServerOptions, Shutdown};
use crate::drive::call::{connect_tcp, BoxFut, CallError, Conn, Connector, SharedConnector};
use crate::drive::spec::{bad, Spec, SpecError};
use base64::Engine;
use std::io;
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
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

fn serve(listener: TcpListener, _: ServerOptions, shutdown: Shutdown) -> BoxFut<'static, io::Result<()>> {
    Box::pin(async move {
        tokio::select! {
            result = accept_loop(listener) => result,
            _ = shutdown => Ok(()),
        }
    })
}

async fn accept_loop(listener: TcpListener) -> io::Result<()> {
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        tokio::spawn(echo_frames(stream));
    }
}

/// Echoes every frame back in one write; ends at EOF, on an error or an oversized frame.
async fn echo_frames(mut stream: TcpStream) {
    let mut frame = Vec::new();
    while let Ok(Some(len)) = read_frame(&mut stream, &mut frame).await {
        if stream.write_all(&frame[..4 + len]).await.is_err() {
            return;
        }
    }
}

/// Reads one frame (header and payload) into `frame`; `None` for an oversized frame.
async fn read_frame(stream: &mut TcpStream, frame: &mut Vec<u8>) -> io::Result<Option<usize>> {
    let mut header = [0u8; 4];
    stream.read_exact(&mut header).await?;
    let len = u32::from_be_bytes(header) as usize;
    if len > MAX_FRAME {
        return Ok(None);
    }
    frame.resize(4 + len, 0);
    frame[..4].copy_from_slice(&header);
    stream.read_exact(&mut frame[4..]).await?;
    Ok(Some(len))
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
            match read_frame(&mut self.stream, &mut self.reply).await {
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
