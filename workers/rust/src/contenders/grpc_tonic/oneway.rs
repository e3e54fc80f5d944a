//! A user's client- or server-streaming method: a call is one stream, as tonic-build's generated
//! code makes it. A client stream sends the call's requests, half-closes and reads the one reply
//! (`client_streaming`); a server stream sends one request and reads the replies to the stream's
//! end (`server_streaming`). The server answers a client stream's last request, and a server
//! stream's request `stream_messages` times (the handler's cost spent once), as grpc-go does.

use super::client::{classify, connector_of, Calls};
use super::user::Call;
use crate::drive::call::{BoxFut, CallError, Conn, SharedConnector};
use crate::drive::payloads::{decode_all, equal};
use crate::drive::spec::{bad, Spec, SpecError};
use crate::userschema::{Streams, UserRpc};
use futures_util::stream::{self, BoxStream, StreamExt};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tonic::client::Grpc;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::codegen::BoxFuture;
use tonic::server::{ClientStreamingService, ServerStreamingService};
use tonic::transport::{Channel, Endpoint};
use tonic::{Request, Response, Status, Streaming};
use tonic_prost::ProstCodec;

/// A client stream's handler: reads the stream to its end, keeping the last request, and answers it.
impl<M: UserRpc> ClientStreamingService<M::Req> for Call<M> {
    type Response = M::Resp;
    type Future = BoxFuture<Response<M::Resp>, Status>;

    fn call(&mut self, requests: Request<Streaming<M::Req>>) -> Self::Future {
        let handler = self.0.clone();
        Box::pin(async move {
            let mut requests = requests.into_inner();
            let mut last = None;
            while let Some(request) = requests.message().await? {
                last = Some(request);
            }
            let last = last.ok_or_else(|| Status::invalid_argument("an empty stream: no request to answer"))?;
            handler.answer(last).await.map(Response::new).map_err(Status::invalid_argument)
        })
    }
}

/// A server stream's handler: answers the one request once and sends the answer
/// `stream_messages` times.
impl<M: UserRpc> ServerStreamingService<M::Req> for Call<M> {
    type Response = M::Resp;
    type ResponseStream = BoxStream<'static, Result<M::Resp, Status>>;
    type Future = BoxFuture<Response<Self::ResponseStream>, Status>;

    fn call(&mut self, request: Request<M::Req>) -> Self::Future {
        let handler = self.0.clone();
        Box::pin(async move {
            let reply = handler.answer(request.into_inner()).await.map_err(Status::invalid_argument)?;
            let replies = stream::iter(std::iter::repeat_n(reply, handler.stream_messages).map(Ok));
            Ok(Response::new(replies.boxed()))
        })
    }
}

/// The connector of a one-way stream method `M`.
pub fn build<M: UserRpc>(spec: &Spec, endpoint: Endpoint) -> Result<SharedConnector, SpecError> {
    Ok(connector_of::<M, _>(OneWayCalls::<M>::from_spec(spec)?, endpoint))
}

/// Each call's requests (a client stream's several, a server stream's one) and expected replies
/// (a client stream's one, a server stream's several), decoded once. On the streamed side the
/// spec's item is a JSON array of messages.
struct OneWayCalls<M: UserRpc> {
    requests: Vec<Vec<M::Req>>,
    replies: Vec<Vec<M::Resp>>,
}

impl<M: UserRpc> OneWayCalls<M> {
    fn from_spec(spec: &Spec) -> Result<Self, SpecError> {
        let (requests, responses) = spec.json_payloads()?;
        let client = M::STREAMS == Streams::Client;
        Ok(OneWayCalls { requests: sides(requests, client, M::NAME, "request")?, replies: sides(responses, !client, M::NAME, "response")? })
    }

    /// Whether `got` are the expected replies of call `index`: each as expected, no more or fewer.
    fn matches(&self, index: usize, got: &[M::Resp]) -> bool {
        let want = &self.replies[index];
        want.len() == got.len() && want.iter().zip(got).all(|(want, got)| equal::<M>(want, got))
    }
}

impl<M: UserRpc> Calls for OneWayCalls<M> {
    fn count(&self) -> usize {
        self.requests.len()
    }

    fn conn(grpc: Grpc<Channel>, calls: Arc<Self>, path: PathAndQuery) -> Box<dyn Conn> {
        Box::new(OneWayConn { grpc, calls, path, replies: Vec::new(), latencies: Vec::new() })
    }
}

/// One side of the calls, a list of messages each: the streamed side's JSON arrays, or the other
/// side's one message.
fn sides<T: DeserializeOwned>(values: &[Value], streamed: bool, method: &str, what: &str) -> Result<Vec<Vec<T>>, SpecError> {
    let side = |(i, value): (usize, &Value)| match (streamed, value.as_array()) {
        (false, _) => decode_all(std::slice::from_ref(value), method, what),
        (true, Some(items)) => decode_all(items, method, what).map_err(|e| bad(format!("call {i}: {e}"))),
        (true, None) => Err(bad(format!("call {i}: a one-way stream's {what}s are a JSON array"))),
    };
    values.iter().enumerate().map(side).collect()
}

struct OneWayConn<M: UserRpc> {
    grpc: Grpc<Channel>,
    calls: Arc<OneWayCalls<M>>,
    path: PathAndQuery,
    /// The last call's replies (a client stream's one).
    replies: Vec<M::Resp>,
    /// Each of those replies' latency, from the stream's start or the reply before it.
    latencies: Vec<Duration>,
}

impl<M: UserRpc> Conn for OneWayConn<M> {
    fn call(&mut self, index: usize) -> BoxFut<'_, Result<(), CallError>> {
        Box::pin(async move {
            self.replies.clear();
            self.latencies.clear();
            let start = Instant::now();
            self.grpc.ready().await.map_err(|_| CallError::Connection)?;
            let requests = &self.calls.requests[index];
            if M::STREAMS == Streams::Client {
                let reply = upload::<M>(&mut self.grpc, self.path.clone(), requests.clone()).await?;
                self.replies.push(reply);
                self.latencies.push(start.elapsed());
                return Ok(());
            }
            let expected = self.calls.replies[index].len();
            let read = Read { replies: &mut self.replies, latencies: &mut self.latencies, last: start };
            follow::<M>(&mut self.grpc, self.path.clone(), requests[0].clone(), expected, read).await
        })
    }

    fn reply_matches(&self, index: usize) -> bool {
        self.calls.matches(index, &self.replies)
    }

    fn message_latencies(&self) -> &[Duration] {
        &self.latencies
    }

    /// A server stream that carried too few or too many replies says how many.
    fn explain(&self, index: usize) -> Option<String> {
        let (got, want) = (self.replies.len(), self.calls.replies[index].len());
        let carried = if got > want { format!("more than {want}") } else { got.to_string() };
        (got != want).then(|| format!("the stream carried {carried} replies, not {want}"))
    }
}

/// Sends the call's requests on one stream, half-closes and reads the one reply.
async fn upload<M: UserRpc>(grpc: &mut Grpc<Channel>, path: PathAndQuery, requests: Vec<M::Req>) -> Result<M::Resp, CallError> {
    let codec = ProstCodec::<M::Req, M::Resp>::default();
    let reply = grpc.client_streaming(Request::new(stream::iter(requests)), path, codec).await.map_err(|s| classify(&s))?;
    Ok(reply.into_inner())
}

/// Sends the request and reads the replies to the stream's end, at most one more than expected
/// (a longer stream is a wrong answer already: the rest is not read into memory; dropping the
/// stream cancels it).
async fn follow<M: UserRpc>(
    grpc: &mut Grpc<Channel>,
    path: PathAndQuery,
    request: M::Req,
    expected: usize,
    mut read: Read<'_, M>,
) -> Result<(), CallError> {
    let codec = ProstCodec::<M::Req, M::Resp>::default();
    let mut stream = grpc.server_streaming(Request::new(request), path, codec).await.map_err(|s| classify(&s))?.into_inner();
    while read.replies.len() <= expected {
        match stream.message().await.map_err(|s| classify(&s))? {
            Some(reply) => read.keep(reply),
            None => break,
        }
    }
    Ok(())
}

/// A server stream's replies as they are read, each timed from the one before it (the first from
/// the stream's start).
struct Read<'a, M: UserRpc> {
    replies: &'a mut Vec<M::Resp>,
    latencies: &'a mut Vec<Duration>,
    last: Instant,
}

impl<M: UserRpc> Read<'_, M> {
    fn keep(&mut self, reply: M::Resp) {
        let now = Instant::now();
        self.replies.push(reply);
        self.latencies.push(now - self.last);
        self.last = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::{HelloReply, HelloRequest};
    use serde_json::json;

    crate::userschema::answer::tests::user_method!(Upload: HelloRequest => HelloReply, Client);

    fn calls(requests: Value, responses: Value) -> Result<OneWayCalls<Upload>, SpecError> {
        let spec = json!({"contender": "grpc-tonic", "target": "127.0.0.1:1", "method": "a.B/Upload", "calls": 1,
            "mode": "client_stream", "requests": requests, "responses": responses});
        OneWayCalls::from_spec(&Spec::from_value(spec).unwrap())
    }

    #[test]
    fn a_client_streams_call_is_its_requests_and_the_one_reply() {
        let calls = calls(json!([[{"name": "a"}, {"name": "b"}]]), json!([{"message": "b"}])).unwrap();
        assert_eq!(calls.requests[0].iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        let reply = |message: &str| HelloReply { message: message.into() };
        assert!(calls.matches(0, &[reply("b")]));
        assert!(!calls.matches(0, &[reply("a")]) && !calls.matches(0, &[reply("b"), reply("b")]) && !calls.matches(0, &[]));
    }

    #[test]
    fn a_streamed_side_that_is_not_a_list_says_so() {
        let error = calls(json!([{"name": "a"}]), json!([{"message": "a"}])).err().unwrap();
        assert_eq!(error.0, "call 0: a one-way stream's requests are a JSON array");
        let error = calls(json!([[{"name": 1}]]), json!([{"message": "a"}])).err().unwrap();
        assert!(error.0.starts_with("call 0: request 0 does not decode as Upload's request"), "{}", error.0);
    }
}
