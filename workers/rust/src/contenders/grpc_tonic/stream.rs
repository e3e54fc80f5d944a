//! Stream mode: each client keeps one bidirectional stream open (`InvertStream`, or a user's
//! method that streams both ways); a call is one message sent on it and its reply received
//! (ping-pong), timed per message.

use super::client::{classify, grpc, open};
use super::path;
use crate::drive::call::{BoxFut, CallError, Conn, Connector, SharedConnector};
use crate::drive::payloads::Payloads;
use crate::drive::spec::{bad, Spec, SpecError};
use crate::methods::op::InvertStream;
use crate::methods::Rpc;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::{Channel, Endpoint};
use tonic::{Request, Status, Streaming};
use tonic_prost::ProstCodec;

pub fn connector(spec: &Spec, endpoint: Endpoint) -> Result<SharedConnector, SpecError> {
    if spec.method != InvertStream::NAME {
        return Err(bad(format!("mode stream needs method InvertStream, not {:?}", spec.method)));
    }
    build::<InvertStream>(spec, endpoint)
}

/// The stream connector of method `M` (a bidirectional stream).
pub fn build<M: Rpc>(spec: &Spec, endpoint: Endpoint) -> Result<SharedConnector, SpecError> {
    let payloads = Arc::new(Payloads::<M>::from_spec(spec)?);
    Ok(Arc::new(StreamConnector::<M> { endpoint, channel: None, payloads }))
}

struct StreamConnector<M: Rpc> {
    endpoint: Endpoint,
    /// Shared connections: the one Channel every `connect` opens its stream on.
    channel: Option<Channel>,
    payloads: Arc<Payloads<M>>,
}

impl<M: Rpc> Connector for StreamConnector<M> {
    fn connect(&self) -> BoxFut<'_, Result<Box<dyn Conn>, CallError>> {
        Box::pin(async move {
            let mut grpc = grpc(open(&self.endpoint, &self.channel).await?);
            grpc.ready().await.map_err(|_| CallError::Connection)?;
            let (sender, outbound) = mpsc::channel::<M::Req>(1);
            let request = Request::new(ReceiverStream::new(outbound));
            let codec = ProstCodec::<M::Req, M::Resp>::default();
            // Opened with the first call: a server may send its headers only with its first
            // reply (grpcio's does), and tonic's `streaming` waits for them.
            let opening = Box::pin(async move { grpc.streaming(request, path::<M>(), codec).await.map(|r| r.into_inner()) });
            let conn = StreamConn { sender, replies: Replies::Opening(opening), payloads: self.payloads.clone(), reply: None };
            Ok(Box::new(conn) as Box<dyn Conn>)
        })
    }

    fn payload_count(&self) -> usize {
        self.payloads.len()
    }

    fn connect_shared(&self) -> Option<BoxFut<'_, Result<SharedConnector, CallError>>> {
        Some(Box::pin(async move {
            let channel = Some(open(&self.endpoint, &None).await?);
            Ok(Arc::new(StreamConnector::<M> { endpoint: self.endpoint.clone(), channel, payloads: self.payloads.clone() })
                as SharedConnector)
        }))
    }
}

/// The stream's replies, once the server has answered its headers. One a connection, kept in
/// place: its size costs nothing, where a box would add an indirection to every read.
#[allow(clippy::large_enum_variant)]
enum Replies<T> {
    Opening(BoxFut<'static, Result<Streaming<T>, Status>>),
    Open(Streaming<T>),
    /// The server refused the stream: every further call fails.
    Refused,
}

impl<T> Replies<T> {
    async fn next(&mut self) -> Result<Option<T>, Status> {
        if matches!(self, Replies::Opening(_)) {
            let Replies::Opening(opening) = std::mem::replace(self, Replies::Refused) else { unreachable!("matched above") };
            *self = Replies::Open(opening.await?);
        }
        match self {
            Replies::Open(replies) => replies.message().await,
            _ => Ok(None),
        }
    }
}

struct StreamConn<M: Rpc> {
    sender: mpsc::Sender<M::Req>,
    replies: Replies<M::Resp>,
    payloads: Arc<Payloads<M>>,
    reply: Option<M::Resp>,
}

impl<M: Rpc> Conn for StreamConn<M> {
    fn call(&mut self, index: usize) -> BoxFut<'_, Result<(), CallError>> {
        Box::pin(async move {
            self.reply = None;
            let request = self.payloads.requests[index].clone();
            self.sender.send(request).await.map_err(|_| CallError::Connection)?;
            match self.replies.next().await {
                Ok(Some(reply)) => self.reply = Some(reply),
                Ok(None) => return Err(CallError::Connection),
                Err(status) => return Err(classify(&status)),
            }
            Ok(())
        })
    }

    fn reply_matches(&self, index: usize) -> bool {
        self.reply.as_ref().is_some_and(|reply| self.payloads.matches(index, reply))
    }
}
