//! The tonic client: one Channel (one HTTP/2 connection) per client, generic over the operation;
//! with the spec's `connections`, clients share Channels, many calls in flight on each. A call is
//! unary here; a user's one-way stream a call is `oneway`'s, on the same connector.

use super::path;
use crate::drive::call::{BoxFut, CallError, Conn, Connector, SharedConnector};
use crate::drive::payloads::Payloads;
use crate::drive::spec::{bad, Mode, Spec, SpecError};
use crate::methods::{self, Method, MethodVisitor, Rpc};
use crate::predictions::GetPredictions;
use crate::userschema::{Streams, UserRpc, UserVisitor};
use std::error::Error;
use std::sync::Arc;
use tonic::client::Grpc;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Request, Status};
use tonic_prost::ProstCodec;

pub fn connector(spec: &Spec) -> Result<SharedConnector, SpecError> {
    let endpoint = endpoint(&spec.target)?;
    if spec.user() {
        return crate::userschema::visit(&spec.method, User { spec, endpoint }).map_err(bad)?;
    }
    match spec.mode {
        Mode::Stream => return super::stream::connector(spec, endpoint),
        Mode::ClientStream | Mode::ServerStream => {
            return Err(bad("modes client_stream and server_stream are a user's one-way streams (rpcarena run --proto)"))
        }
        Mode::Unary => {}
    }
    let unary = Unary { spec, endpoint };
    if spec.method == GetPredictions::NAME {
        return unary.build::<GetPredictions>();
    }
    let unknown = || Err(bad(format!("unknown method {:?} for unary mode (InvertStream needs mode stream)", spec.method)));
    methods::visit(&spec.method, unary).unwrap_or_else(unknown)
}

pub fn endpoint(target: &str) -> Result<Endpoint, SpecError> {
    let endpoint = Endpoint::from_shared(format!("http://{target}")).map_err(|e| bad(format!("bad target {target:?}: {e}")))?;
    Ok(endpoint.tcp_nodelay(true))
}

pub fn grpc(channel: Channel) -> Grpc<Channel> {
    Grpc::new(channel).max_decoding_message_size(usize::MAX).max_encoding_message_size(usize::MAX)
}

/// A failed call's kind: statuses made locally from a transport failure (they carry a source
/// error) are `connection`; statuses the server sent are `status_<name>`.
pub fn classify(status: &Status) -> CallError {
    match status.source() {
        Some(_) if status.code() != Code::DeadlineExceeded => CallError::Connection,
        _ => CallError::Status(code_name(status.code())),
    }
}

/// `DeadlineExceeded` -> `deadline_exceeded`.
fn code_name(code: Code) -> String {
    let mut name = String::new();
    for (i, c) in format!("{code:?}").chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            name.push('_');
        }
        name.push(c.to_ascii_lowercase());
    }
    name
}

struct Unary<'a> {
    spec: &'a Spec,
    endpoint: Endpoint,
}

impl Unary<'_> {
    fn build<M: Rpc>(self) -> Result<SharedConnector, SpecError> {
        Ok(connector_of::<M, _>(Payloads::<M>::from_spec(self.spec)?, self.endpoint))
    }
}

impl MethodVisitor for Unary<'_> {
    type Out = Result<SharedConnector, SpecError>;
    fn visit<M: Method>(self) -> Self::Out {
        self.build::<M>()
    }
}

/// A user's method: unary, a one-way stream a call, or a bidirectional stream driven as
/// `InvertStream` is.
struct User<'a> {
    spec: &'a Spec,
    endpoint: Endpoint,
}

impl UserVisitor for User<'_> {
    type Out = Result<SharedConnector, SpecError>;
    fn visit<M: UserRpc>(self) -> Self::Out {
        let User { spec, endpoint } = self;
        let mode = mode_of(M::STREAMS);
        if spec.mode != mode {
            let name = serde_json::to_string(&mode).unwrap_or_default();
            return Err(bad(format!("method {}/{} needs mode {name}", M::SERVICE, M::NAME)));
        }
        match M::STREAMS {
            Streams::Neither => Unary { spec, endpoint }.build::<M>(),
            Streams::Client | Streams::Server => super::oneway::build::<M>(spec, endpoint),
            Streams::Both => super::stream::build::<M>(spec, endpoint),
        }
    }
}

/// The drive spec's mode for a method that streams so.
fn mode_of(streams: Streams) -> Mode {
    match streams {
        Streams::Neither => Mode::Unary,
        Streams::Client => Mode::ClientStream,
        Streams::Server => Mode::ServerStream,
        Streams::Both => Mode::Stream,
    }
}

/// A connector's calls, decoded once and shared by its connections: what each of them calls
/// with (a unary call's request and reply, a one-way stream's).
pub trait Calls: Send + Sync + Sized + 'static {
    /// How many distinct calls the clients cycle through.
    fn count(&self) -> usize;
    /// A connection making these calls to `path` on a tonic client.
    fn conn(grpc: Grpc<Channel>, calls: Arc<Self>, path: PathAndQuery) -> Box<dyn Conn>;
}

impl<M: Rpc> Calls for Payloads<M> {
    fn count(&self) -> usize {
        self.len()
    }

    fn conn(grpc: Grpc<Channel>, payloads: Arc<Self>, path: PathAndQuery) -> Box<dyn Conn> {
        Box::new(UnaryConn::<M> { grpc, payloads, path, reply: None })
    }
}

/// The connector of `calls` to method `M`'s path.
pub fn connector_of<M: Rpc, C: Calls>(calls: C, endpoint: Endpoint) -> SharedConnector {
    Arc::new(CallConnector { endpoint, channel: None, calls: Arc::new(calls), path: path::<M>() })
}

struct CallConnector<C: Calls> {
    endpoint: Endpoint,
    /// Shared connections: the one Channel every `connect` adds a caller to.
    channel: Option<Channel>,
    calls: Arc<C>,
    path: PathAndQuery,
}

impl<C: Calls> Connector for CallConnector<C> {
    fn connect(&self) -> BoxFut<'_, Result<Box<dyn Conn>, CallError>> {
        Box::pin(async move {
            let channel = open(&self.endpoint, &self.channel).await?;
            Ok(C::conn(grpc(channel), self.calls.clone(), self.path.clone()))
        })
    }

    fn payload_count(&self) -> usize {
        self.calls.count()
    }

    fn connect_shared(&self) -> Option<BoxFut<'_, Result<SharedConnector, CallError>>> {
        Some(Box::pin(async move {
            let channel = Some(open(&self.endpoint, &None).await?);
            let (endpoint, calls, path) = (self.endpoint.clone(), self.calls.clone(), self.path.clone());
            Ok(Arc::new(CallConnector { endpoint, channel, calls, path }) as SharedConnector)
        }))
    }
}

/// The shared Channel when there is one (a clone is another caller on its HTTP/2 connection),
/// else a new connection.
pub async fn open(endpoint: &Endpoint, shared: &Option<Channel>) -> Result<Channel, CallError> {
    match shared {
        Some(channel) => Ok(channel.clone()),
        None => endpoint.connect().await.map_err(|_| CallError::Connection),
    }
}

struct UnaryConn<M: Rpc> {
    grpc: Grpc<Channel>,
    payloads: Arc<Payloads<M>>,
    path: PathAndQuery,
    reply: Option<M::Resp>,
}

impl<M: Rpc> Conn for UnaryConn<M> {
    fn call(&mut self, index: usize) -> BoxFut<'_, Result<(), CallError>> {
        Box::pin(async move {
            self.reply = None;
            self.grpc.ready().await.map_err(|_| CallError::Connection)?;
            let request = Request::new(self.payloads.requests[index].clone());
            let codec = ProstCodec::<M::Req, M::Resp>::default();
            let response = self.grpc.unary(request, self.path.clone(), codec).await.map_err(|s| classify(&s))?;
            self.reply = Some(response.into_inner());
            Ok(())
        })
    }

    fn reply_matches(&self, index: usize) -> bool {
        self.reply.as_ref().is_some_and(|reply| self.payloads.matches(index, reply))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_kinds() {
        assert_eq!(classify(&Status::unavailable("x")).kind(), "status_unavailable");
        assert_eq!(classify(&Status::deadline_exceeded("x")).kind(), "status_deadline_exceeded");
        let local = Status::from_error(Box::new(std::io::Error::other("reset")));
        assert_eq!(classify(&local), CallError::Connection);
    }
}
