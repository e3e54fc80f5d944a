//! A user's method on the tonic server: what tonic-build's generated server is, written once
//! over the method's generated `<Req, Resp>`: a `tower::Service` over HTTP requests that
//! matches the method's path and hands the call to `tonic::server::Grpc::unary` (`streaming` for
//! a bidirectional stream: each message answered in order; `client_streaming` or
//! `server_streaming` for a one-way stream, `oneway`'s handlers) with a `ProstCodec` (the schema
//! is known only to this per-schema build, so its service is this generic one instead of a
//! generated trait the user would implement).

use crate::limits;
use crate::userschema::served::{Handler, Served};
use crate::userschema::{Streams, UserRpc, UserVisitor};
use futures_util::stream::{BoxStream, StreamExt};
use std::convert::Infallible;
use std::marker::PhantomData;
use std::sync::Arc;
use std::task::{Context, Poll};
use tonic::body::Body;
use tonic::codegen::{http, Body as HttpBody, BoxFuture, Service, StdError};
use tonic::server::{Grpc, NamedService, StreamingService, UnaryService};
use tonic::transport::server::Router;
use tonic::{Request, Response, Status, Streaming};
use tonic_prost::ProstCodec;

/// Adds the user's method of `served` to `router`.
pub fn add<L>(router: Router<L>, served: &Served) -> Router<L> {
    crate::userschema::visit(&served.file.method, Add { router, served }).expect("checked when served.json was loaded")
}

struct Add<'a, L> {
    router: Router<L>,
    served: &'a Served,
}

impl<L> UserVisitor for Add<'_, L> {
    type Out = Router<L>;
    fn visit<M: UserRpc>(self) -> Router<L> {
        self.router.add_service(UserServer::<M> { handler: self.served.handler::<M>(), _method: PhantomData })
    }
}

pub struct UserServer<M: UserRpc> {
    handler: Arc<Handler<M>>,
    _method: PhantomData<M>,
}

impl<M: UserRpc> Clone for UserServer<M> {
    fn clone(&self) -> Self {
        UserServer { handler: self.handler.clone(), _method: PhantomData }
    }
}

impl<M: UserRpc> NamedService for UserServer<M> {
    const NAME: &'static str = M::SERVICE;
}

impl<M, B> Service<http::Request<B>> for UserServer<M>
where
    M: UserRpc,
    B: HttpBody + Send + 'static,
    B::Error: Into<StdError> + Send + 'static,
{
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        if request.uri().path().strip_prefix('/').and_then(|p| p.strip_prefix(M::SERVICE)) != Some(&format!("/{}", M::NAME)) {
            return Box::pin(async { Ok(Status::unimplemented("").into_http()) });
        }
        let handler = Call(self.handler.clone());
        Box::pin(async move {
            let codec = ProstCodec::<M::Resp, M::Req>::default();
            let mut grpc = Grpc::new(codec).apply_max_message_size_config(Some(limits::MAX_REQUEST_BYTES), Some(usize::MAX));
            Ok(match M::STREAMS {
                Streams::Neither => grpc.unary(handler, request).await,
                Streams::Client => grpc.client_streaming(handler, request).await,
                Streams::Server => grpc.server_streaming(handler, request).await,
                Streams::Both => grpc.streaming(handler, request).await,
            })
        })
    }
}

/// The method's handler, as each kind of call's service: the user's answer, or INVALID_ARGUMENT
/// with the reason (a request the reply file has no answer for).
pub(super) struct Call<M: UserRpc>(pub(super) Arc<Handler<M>>);

impl<M: UserRpc> UnaryService<M::Req> for Call<M> {
    type Response = M::Resp;
    type Future = BoxFuture<Response<M::Resp>, Status>;

    fn call(&mut self, request: Request<M::Req>) -> Self::Future {
        let handler = self.0.clone();
        Box::pin(async move { handler.answer(request.into_inner()).await.map(Response::new).map_err(Status::invalid_argument) })
    }
}

/// The bidirectional stream's handler: each request answered in order, as it comes.
impl<M: UserRpc> StreamingService<M::Req> for Call<M> {
    type Response = M::Resp;
    type ResponseStream = BoxStream<'static, Result<M::Resp, Status>>;
    type Future = BoxFuture<Response<Self::ResponseStream>, Status>;

    fn call(&mut self, requests: Request<Streaming<M::Req>>) -> Self::Future {
        let handler = self.0.clone();
        let replies = requests.into_inner().then(move |request| {
            let handler = handler.clone();
            async move { handler.answer(request?).await.map_err(Status::invalid_argument) }
        });
        Box::pin(async move { Ok(Response::new(replies.boxed())) })
    }
}
