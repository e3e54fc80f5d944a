//! The client: each payload framed once, sent with one write; the reply read through the
//! connection's [`Inbox`] and checked byte for byte against the frame sent.

use super::frame_of;
use super::inbox::Inbox;
use crate::drive::call::{connect_tcp, BoxFut, CallError, Conn, Connector, SharedConnector};
use crate::drive::spec::{bad, Spec, SpecError};
use base64::Engine;
use std::sync::Arc;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

pub(super) fn connector(spec: &Spec) -> Result<SharedConnector, SpecError> {
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

struct RawConnector {
    target: String,
    frames: Arc<Vec<Vec<u8>>>,
}

impl Connector for RawConnector {
    fn connect(&self) -> BoxFut<'_, Result<Box<dyn Conn>, CallError>> {
        Box::pin(async move {
            let stream = connect_tcp(&self.target).await?;
            Ok(Box::new(RawConn { stream, frames: self.frames.clone(), inbox: Inbox::new() }) as Box<dyn Conn>)
        })
    }

    fn payload_count(&self) -> usize {
        self.frames.len()
    }
}

struct RawConn {
    stream: TcpStream,
    frames: Arc<Vec<Vec<u8>>>,
    /// The reply read last is its `frame()`.
    inbox: Inbox,
}

impl Conn for RawConn {
    fn call(&mut self, index: usize) -> BoxFut<'_, Result<(), CallError>> {
        Box::pin(async move {
            let frame = &self.frames[index];
            self.stream.write_all(frame).await.map_err(|_| CallError::Connection)?;
            // An echo: the reply is as long as the request, so one read has room for all of it.
            match self.inbox.next_frame(&mut self.stream, frame.len()).await {
                Ok(Some(_)) => Ok(()),
                Ok(None) => Err(CallError::Other),
                Err(_) => Err(CallError::Connection),
            }
        })
    }

    fn reply_matches(&self, index: usize) -> bool {
        self.inbox.frame() == self.frames[index]
    }
}
