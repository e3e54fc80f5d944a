//! Stream mode: each client keeps one `InvertStream` open; a call is one Word sent on it and
//! its reply received (ping-pong), timed per message.

use super::client::{classify, grpc, open};
use super::path;
use crate::drive::call::{BoxFut, CallError, Conn, Connector, SharedConnector};
use crate::drive::payloads::Payloads;
use crate::drive::spec::{bad, Spec, SpecError};
use crate::methods::op::InvertStream;
use crate::methods::Rpc;
use crate::proto::Word;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::{Channel, Endpoint};
use tonic::{Request, Streaming};
use tonic_prost::ProstCodec;

pub fn connector(spec: &Spec, endpoint: Endpoint) -> Result<SharedConnector, SpecError> {
    if spec.method != InvertStream::NAME {
        return Err(bad(format!("mode stream needs method InvertStream, not {:?}", spec.method)));
    }
    let payloads = Arc::new(Payloads::<InvertStream>::from_spec(spec)?);
    Ok(Arc::new(StreamConnector { endpoint, channel: None, payloads }))
}

struct StreamConnector {
    endpoint: Endpoint,
    /// Shared connections: the one Channel every `connect` opens its stream on.
    channel: Option<Channel>,
    payloads: Arc<Payloads<InvertStream>>,
}

impl Connector for StreamConnector {
    fn connect(&self) -> BoxFut<'_, Result<Box<dyn Conn>, CallError>> {
        Box::pin(async move {
            let mut grpc = grpc(open(&self.endpoint, &self.channel).await?);
            grpc.ready().await.map_err(|_| CallError::Connection)?;
            let (sender, outbound) = mpsc::channel::<Word>(1);
            let request = Request::new(ReceiverStream::new(outbound));
            let codec = ProstCodec::<Word, Word>::default();
            let response = grpc.streaming(request, path::<InvertStream>(), codec).await.map_err(|s| classify(&s))?;
            let conn = StreamConn { sender, replies: response.into_inner(), payloads: self.payloads.clone(), reply: None };
            Ok(Box::new(conn) as Box<dyn Conn>)
        })
    }

    fn payload_count(&self) -> usize {
        self.payloads.len()
    }

    fn connect_shared(&self) -> Option<BoxFut<'_, Result<SharedConnector, CallError>>> {
        Some(Box::pin(async move {
            let channel = Some(open(&self.endpoint, &None).await?);
            Ok(Arc::new(StreamConnector { endpoint: self.endpoint.clone(), channel, payloads: self.payloads.clone() }) as SharedConnector)
        }))
    }
}

struct StreamConn {
    sender: mpsc::Sender<Word>,
    replies: Streaming<Word>,
    payloads: Arc<Payloads<InvertStream>>,
    reply: Option<Word>,
}

impl Conn for StreamConn {
    fn call(&mut self, index: usize) -> BoxFut<'_, Result<(), CallError>> {
        Box::pin(async move {
            self.reply = None;
            let word = self.payloads.requests[index].clone();
            self.sender.send(word).await.map_err(|_| CallError::Connection)?;
            match self.replies.message().await {
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
